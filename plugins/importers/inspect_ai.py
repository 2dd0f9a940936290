"""Inspect AI logs: ``.eval`` zip logs (zstd or deflate members) and ``.json`` logs.

One trajectory per sample (``samples/<id>_epoch_<n>.json`` in a ``.eval``, ``samples[i]`` in a
``.json`` log). Samples are read one at a time: a ``.eval`` member is decompressed only when
its turn comes, and a ``.json`` log is streamed with ``ijson`` when it is installed.

Zip reading: the central directory is read with :mod:`zipfile`; members compressed with
zstd (zip method 93, written by current Inspect releases and unreadable by ``zipfile``
before Python 3.14) are decompressed with ``zstandard`` from their local headers, with size
and CRC checks; other methods (stored, deflate) go through :mod:`zipfile`.

Field mapping:

* ``model`` <- header ``eval.model``; ``task_family`` <- ``eval.task``; ``framework`` = ``inspect``.
* ``task`` <- the sample ``input`` (a string, or the text of its first user message).
* ``ground_truth`` <- ``target`` (a list is joined with newlines).
* ``native_id`` = ``"<id>:<epoch>"``; ``record`` = the member name (``.eval``) or ``samples[i]``.
* ``metadata.planted`` <- sample ``metadata.planted`` (labels written into sample traces).
* ``attachment://<key>`` strings anywhere in the sample are replaced from its ``attachments``.

Steps come from ``messages`` (events are used only when a sample has no messages):

* ``system`` -> ``system`` step; ``user`` -> ``user`` step.
* assistant ``reasoning`` content parts -> one ``thought`` step each; assistant text without
  tool calls -> a ``message`` step; each tool call -> a ``tool_call`` step (``function``,
  ``arguments`` object as JSON, ``id``) whose first one carries the accompanying text.
* ``tool`` message -> ``observation`` step; ``error`` (``{type, message}``) sets
  ``is_error``/``error_text``.
* Token usage and timestamps of assistant turns come from the matching ``model`` event
  (by message id) and sit on the turn's first step; tool timestamps from ``tool`` events.

Outcome rule (see :func:`score_outcome`): the score of the scorer named first in the header
results (else the sample's first score) decides. ``"C"``/``"correct"``/``True``/``1`` ->
success (score 1.0); ``"I"``/``"incorrect"``/``"N"`` (no answer)/``False``/``0`` -> failure
(score 0.0); ``"P"``/``"partial"`` -> unknown with score 0.5; other numbers -> unknown with the
number as score; anything else -> unknown. A sample with an ``error`` and no score is a
failure. ``outcome_raw`` keeps the raw value as text; ``final_answer`` is the score's
``answer`` (else the last assistant message).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from analyzer import guard
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import MessageValueError, imsg, wrap
from analyzer.loading.jsonio import (
    args_text,
    as_text,
    finite_float,
    first_json_char,
    label_native_steps,
    parse_json,
    read_json_document,
)
from analyzer.loading.structure import JsonShape
from analyzer.loading.task_key import source_task_key
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.reasons import reason
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.schema.outcome_source import OutcomeSource
from analyzer.settings import LoadLimits, format_bytes

ZIP_METHOD_ZSTD = 93
"""Zip compression method id of Zstandard (APPNOTE 4.4.5)."""

MAX_MEMBER_BYTES = LoadLimits().max_member_bytes
"""Default largest inflated member (``load_limits.max_member_bytes``; bigger members are
reported and skipped, checked against the directory and again while inflating)."""

_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIG = 0x04034B50
_INSPECT_NAMES = ("header.json", "_journal/", "samples/", "summaries.json", "reductions.json")
_ATTACHMENT = "attachment://"

# ---------------------------------------------------------------------------------------------
# outcome

_SUCCESS_WORDS = frozenset({"c", "correct", "true", "yes", "pass", "passed", "success", "succeeded", "resolved"})
_FAILURE_WORDS = frozenset({"i", "incorrect", "false", "no", "fail", "failed", "failure", "n", "noanswer",
                            "wrong", "unresolved"})
_PARTIAL_WORDS = frozenset({"p", "partial", "partially correct"})


def score_outcome(value: Any) -> tuple[Outcome, float | None, str | None]:
    """Normalise an Inspect score value to ``(outcome, numeric score, raw text)``.

    Args:
        value: ``Score.value``: a string (``"C"``, ``"I"``, ``"P"``, ``"N"``), bool, number,
            or a dict/list of named values.

    Returns:
        The outcome (rule in the module docstring), a numeric score when one follows from
        the value, and the raw value as text (``None`` when the value is missing).
    """
    if value is None:
        return Outcome.UNKNOWN, None, None
    if isinstance(value, bool):
        return (Outcome.SUCCESS if value else Outcome.FAILURE), float(value), str(value)
    if isinstance(value, (int, float)):
        raw = str(value)
        got = finite_float(value)
        if got is None:
            return Outcome.UNKNOWN, None, raw
        num = got
        if num == 1:
            return Outcome.SUCCESS, num, raw
        if num == 0:
            return Outcome.FAILURE, num, raw
        return Outcome.UNKNOWN, num, raw
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _SUCCESS_WORDS:
            return Outcome.SUCCESS, 1.0, value
        if low in _FAILURE_WORDS:
            return Outcome.FAILURE, 0.0, value
        if low in _PARTIAL_WORDS:
            return Outcome.UNKNOWN, 0.5, value
        try:
            num = float(low)
        except ValueError:
            return Outcome.UNKNOWN, None, value
        out, _, _ = score_outcome(num)
        return out, num, value
    return Outcome.UNKNOWN, None, guard.dumps(value)


# ---------------------------------------------------------------------------------------------
# zip access (zstd-aware)


def _first_local_name(head: bytes) -> str:
    """Name of the first member from the zip's first local header, or ''."""
    if len(head) < _LOCAL_HEADER.size:
        return ""
    fields = _LOCAL_HEADER.unpack_from(head, 0)
    if fields[0] != _LOCAL_SIG:
        return ""
    n = fields[9]
    return head[_LOCAL_HEADER.size:_LOCAL_HEADER.size + n].decode("utf-8", "replace")


def _is_inspect_name(name: str) -> bool:
    return name == "header.json" or name.startswith(_INSPECT_NAMES)


class EvalZip:
    """Read access to the members of an Inspect ``.eval`` zip, one member at a time.

    Args:
        path: The ``.eval`` file.

    Raises:
        ImportFailure: When the file is not a readable zip (truncated, corrupt).
    """

    def __init__(self, path: Path) -> None:
        self._fh: IO[bytes] = path.open("rb")
        try:
            self._zf = zipfile.ZipFile(self._fh)
        except Exception as exc:  # BadZipFile, OSError, NotImplementedError ... on a corrupt directory
            self._fh.close()
            raise ImportFailure(imsg("zip_unreadable", error=f"{type(exc).__name__}: {exc}")) from None
        infos = self._zf.infolist()
        cap = guard.limits().max_members
        if len(infos) > cap:
            self.close()
            raise ImportFailure(imsg("zip_too_many_members", n=len(infos), cap=cap,
                                     setting=LoadLimits.setting('max_members')))
        size = path.stat().st_size
        self._size = size
        if infos and all(not 0 <= i.header_offset < size for i in infos):
            self.close()
            raise ImportFailure(imsg("zip_directory_outside"))

    def __enter__(self) -> EvalZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying file."""
        self._zf.close()
        self._fh.close()

    def names(self) -> list[str]:
        """Member names in directory order."""
        return self._zf.namelist()

    def has(self, name: str) -> bool:
        """True when a member of that name exists."""
        try:
            self._zf.getinfo(name)
        except KeyError:
            return False
        return True

    def read(self, name: str) -> bytes:
        """Uncompressed bytes of one member.

        Raises:
            ImportFailure: With ``record=name`` when the member cannot be read.
        """
        try:
            info = self._zf.getinfo(name)
        except KeyError:
            raise ImportFailure(imsg("zip_member_missing"), record=name) from None
        cap = guard.limits().max_member_bytes
        if info.file_size > cap:
            raise ImportFailure(imsg("zip_member_over_cap", size=format_bytes(info.file_size), cap=format_bytes(cap),
                                     setting=LoadLimits.setting('max_member_bytes')), record=name)
        try:
            if info.compress_type == ZIP_METHOD_ZSTD:
                return self._read_zstd(info)
            with self._zf.open(info) as member:
                return guard.inflate_capped(member.read, info.compress_size, name, info.file_size)
        except ImportFailure:
            raise
        except NotImplementedError:
            raise ImportFailure(imsg("zip_method", method=info.compress_type), record=name) from None
        except Exception as exc:  # BadZipFile, zlib.error, EOFError, OSError (bad offsets), MemoryError ...
            raise ImportFailure(imsg("zip_cannot_decompress", error=f"{type(exc).__name__}: {exc}"), record=name) from None

    def _raw(self, info: zipfile.ZipInfo) -> bytes:
        if info.header_offset < 0 or info.compress_size < 0:
            raise ImportFailure(imsg("zip_negative"), record=info.filename)
        try:
            self._fh.seek(info.header_offset)
        except (OSError, ValueError, OverflowError) as exc:
            raise ImportFailure(imsg("zip_points_outside", error=str(exc)), record=info.filename) from None
        head = self._fh.read(_LOCAL_HEADER.size)
        if len(head) < _LOCAL_HEADER.size or _LOCAL_HEADER.unpack(head)[0] != _LOCAL_SIG:
            raise ImportFailure(imsg("zip_no_local_header"), record=info.filename)
        fields = _LOCAL_HEADER.unpack(head)
        start = info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]
        self._fh.seek(start)
        # never ask for more than the file holds: read(n) allocates n bytes first, and a damaged
        # directory can claim a 4 GB member in a 20 KB file
        data = self._fh.read(max(0, min(info.compress_size, self._size - start)))
        if len(data) < info.compress_size:
            raise ImportFailure(imsg("zip_member_truncated", got=len(data), size=info.compress_size),
                                record=info.filename)
        return data

    def _read_zstd(self, info: zipfile.ZipInfo) -> bytes:
        import zstandard  # only needed for zstd members

        data = self._raw(info)
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
            with reader:
                out = guard.inflate_capped(reader.read, len(data), info.filename, info.file_size)
        except zstandard.ZstdError as exc:
            raise ImportFailure(imsg("zstd_cannot_decompress", error=str(exc)), record=info.filename) from None
        if len(out) != info.file_size:
            raise ImportFailure(imsg("zstd_size_mismatch", got=len(out), size=info.file_size), record=info.filename)
        if zlib.crc32(out) != info.CRC:
            raise ImportFailure(imsg("zstd_crc"), record=info.filename)
        return out


# ---------------------------------------------------------------------------------------------
# sample -> trajectory


def resolve_attachments(sample: dict[str, Any], skip: frozenset[str] = frozenset()) -> None:
    """Replace ``attachment://<key>`` strings in a sample, in place, from its ``attachments``.

    Iterative (no recursion), so deeply nested samples cannot exhaust the stack. Unknown keys
    are left as they are.

    Args:
        sample: The sample object.
        skip: Top-level keys left untouched (``events`` when steps come from messages: the
            events' copies of every model input are most of a sample and are not read then).
    """
    attachments = sample.get("attachments")
    if not isinstance(attachments, dict) or not attachments:
        return
    skip = skip | {"attachments"}

    def sub(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(_ATTACHMENT):
            found = attachments.get(value[len(_ATTACHMENT):])
            return found if isinstance(found, str) else value
        return value

    stack: list[Any] = [v for k, v in sample.items() if k not in skip]
    for k in list(sample):
        if k not in skip:
            sample[k] = sub(sample[k])
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, str):
                    node[k] = sub(v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    node[i] = sub(v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _content_parts(content: Any) -> list[tuple[str, str]]:
    """``(kind, text)`` pairs of a message content; kind is ``text`` or ``reasoning``."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    if not isinstance(content, list):
        return [("text", as_text(content))]
    parts: list[tuple[str, str]] = []
    for p in content:
        if isinstance(p, str):
            parts.append(("text", p))
        elif isinstance(p, Mapping):
            kind = p.get("type")
            if kind == "reasoning":
                text = _str(p.get("reasoning")) or _str(p.get("summary")) or ""
                if p.get("redacted") and not text.strip():
                    text = "[redacted reasoning]"
                parts.append(("reasoning", text))
            elif kind == "text":
                parts.append(("text", as_text(p.get("text"))))
            elif kind in ("image", "audio", "video", "document"):
                parts.append(("text", f"[{kind}]"))
            else:
                parts.append(("text", as_text(p)))
    return parts


def _text_of(content: Any) -> str:
    return "\n".join(t for k, t in _content_parts(content) if k == "text" and t.strip())


def _error_text(error: Any) -> str | None:
    if error is None or error == {}:
        return None
    if isinstance(error, Mapping):
        kind, msg = _str(error.get("type")), as_text(error.get("message"))
        text = f"{kind}: {msg}" if kind and msg else (msg or kind or "tool error")
    else:
        text = as_text(error) or "tool error"
    return text[:2000]


class _Steps:
    """Accumulates steps with running indexes."""

    def __init__(self) -> None:
        self.steps: list[Step] = []

    def add(self, **kw: Any) -> Step:
        step = Step(index=len(self.steps), **kw)
        self.steps.append(step)
        return step


def _assistant(b: _Steps, msg: Mapping[str, Any], native: int | None,
               usage: Mapping[str, tuple[int | None, int | None, str | None]]) -> None:
    first = len(b.steps)
    parts = _content_parts(msg.get("content"))
    for kind, text in parts:
        if kind == "reasoning" and text.strip():
            b.add(agent="assistant", role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=text, native_index=native)
    text = "\n".join(t for k, t in parts if k == "text" and t.strip())
    calls = msg.get("tool_calls")
    calls = calls if isinstance(calls, list) else []
    for i, call in enumerate(c for c in calls if isinstance(c, Mapping)):
        fn = call.get("function")
        name = fn.get("name") if isinstance(fn, Mapping) else fn
        args = fn.get("arguments") if isinstance(fn, Mapping) else call.get("arguments")
        parse_error = _str(call.get("parse_error"))
        b.add(agent="assistant", role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, text=text if i == 0 else "",
              tool_name=None if name is None else str(name), tool_args=args_text(args),
              tool_call_id=_str(call.get("id")), is_error=parse_error is not None, error_text=parse_error,
              native_index=native)
    if len(b.steps) == first or (not calls and text.strip()):
        b.add(agent="assistant", role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text, native_index=native)
    mid = _str(msg.get("id"))
    if mid and mid in usage:
        tin, tout, ts = usage[mid]
        b.steps[first].tokens_in, b.steps[first].tokens_out = tin, tout
        for st in b.steps[first:]:
            st.timestamp = ts
    model = _str(msg.get("model"))
    if model:
        b.steps[first].metadata["model"] = model


def _tool(b: _Steps, msg: Mapping[str, Any], native: int | None, tool_times: Mapping[str, str]) -> None:
    err = _error_text(msg.get("error"))
    cid = _str(msg.get("tool_call_id"))
    b.add(agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text=_text_of(msg.get("content")),
          tool_name=_str(msg.get("function")), tool_call_id=cid, is_error=err is not None, error_text=err,
          native_index=native, timestamp=tool_times.get(cid or ""))


class BadSample(MessageValueError):
    """A sample has a shape that cannot be read (the reason in ``message``)."""


def _add_message(b: _Steps, msg: Any, native: int | None,
                 usage: Mapping[str, tuple[int | None, int | None, str | None]],
                 tool_times: Mapping[str, str]) -> None:
    if not isinstance(msg, Mapping):
        raise BadSample(imsg("inspect_message_not_object", index=str(native)))
    role = msg.get("role")
    if role == "system":
        b.add(agent="system", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=_text_of(msg.get("content")),
              native_index=native)
    elif role == "user":
        b.add(agent="user", role=Role.USER, kind=StepKind.USER, text=_text_of(msg.get("content")),
              native_index=native)
    elif role == "assistant":
        _assistant(b, msg, native, usage)
    elif role == "tool":
        _tool(b, msg, native, tool_times)
    else:
        raise BadSample(imsg("inspect_unknown_role", index=str(native), role=repr(role)))


def _usage_of(output: Any) -> tuple[int | None, int | None]:
    if not isinstance(output, Mapping):
        return None, None
    usage = output.get("usage")
    if not isinstance(usage, Mapping):
        return None, None
    return _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))


def _output_message(output: Any) -> Mapping[str, Any] | None:
    if not isinstance(output, Mapping):
        return None
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        msg = choices[0].get("message")
        if isinstance(msg, Mapping):
            return msg
    return None


def _event_index(events: list[Any]) -> tuple[dict[str, tuple[int | None, int | None, str | None]], dict[str, str]]:
    """Usage/timestamps of model events by output message id; timestamps of tool events by call id."""
    usage: dict[str, tuple[int | None, int | None, str | None]] = {}
    tool_times: dict[str, str] = {}
    for ev in events:
        if not isinstance(ev, Mapping):
            continue
        if ev.get("event") == "model":
            msg = _output_message(ev.get("output"))
            mid = _str(msg.get("id")) if msg else None
            if mid:
                usage[mid] = (*_usage_of(ev.get("output")), _str(ev.get("timestamp")))
        elif ev.get("event") == "tool":
            cid, ts = _str(ev.get("id")), _str(ev.get("timestamp"))
            if cid and ts:
                tool_times[cid] = ts
    return usage, tool_times


def _steps_from_events(events: list[Any]) -> list[Step]:
    """Steps rebuilt from ``model`` and ``tool`` events (samples without messages)."""
    b = _Steps()
    seen_input = False
    for i, ev in enumerate(events):
        if not isinstance(ev, Mapping):
            continue
        kind = ev.get("event")
        if kind == "model":
            if not seen_input:
                seen_input = True
                inputs = ev.get("input")
                for msg in inputs if isinstance(inputs, list) else []:
                    if isinstance(msg, Mapping) and msg.get("role") in ("system", "user"):
                        _add_message(b, msg, i, {}, {})
            msg = _output_message(ev.get("output"))
            if msg is not None:
                first = len(b.steps)
                _assistant(b, msg, i, {})
                tin, tout = _usage_of(ev.get("output"))
                b.steps[first].tokens_in, b.steps[first].tokens_out = tin, tout
                for st in b.steps[first:]:
                    st.timestamp = _str(ev.get("timestamp"))
        elif kind == "tool":
            result = ev.get("result")
            err = _error_text(ev.get("error"))
            b.add(agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                  text=_text_of(result) if isinstance(result, list) else as_text(result),
                  tool_name=_str(ev.get("function")), tool_call_id=_str(ev.get("id")),
                  is_error=err is not None, error_text=err, native_index=i, timestamp=_str(ev.get("timestamp")))
    return b.steps


def _task_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for msg in value:
            if isinstance(msg, Mapping) and msg.get("role") == "user":
                return _text_of(msg.get("content"))
        return as_text(value)
    return as_text(value)


def _target_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        return "\n".join(as_text(v) for v in value)
    return as_text(value) or None


def _pick_score(scores: Any, preferred: list[str]) -> tuple[str | None, Mapping[str, Any] | None]:
    if not isinstance(scores, Mapping) or not scores:
        return None, None
    for name in [*preferred, *scores.keys()]:
        sc = scores.get(name)
        if isinstance(sc, Mapping):
            return str(name), sc
    return None, None


def _scorer_names(header: Mapping[str, Any]) -> list[str]:
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, Mapping) else None
    names: list[str] = []
    for sc in scores if isinstance(scores, list) else []:
        if isinstance(sc, Mapping) and isinstance(sc.get("name"), str):
            names.append(sc["name"])
    return names


def sample_to_trajectory(sample: Any, header: Mapping[str, Any], record: str) -> Trajectory:
    """Convert one EvalSample (already parsed) into a trajectory.

    Args:
        sample: The sample object.
        header: The log header (``eval``, ``results`` ...); may be empty.
        record: Locator of the sample in the file.

    Raises:
        ValueError: When the sample has a shape that cannot be read (reason in the message).
    """
    if not isinstance(sample, dict):
        raise BadSample(imsg("inspect_sample_not_object"))
    events = sample.get("events")
    events = events if isinstance(events, list) else []
    messages = sample.get("messages")
    if messages is not None and not isinstance(messages, list):
        raise BadSample(imsg("inspect_messages_not_list"))
    resolve_attachments(sample, skip=frozenset({"events"}) if messages else frozenset())
    if messages:
        usage, tool_times = _event_index(events)
        b = _Steps()
        for i, msg in enumerate(messages):
            _add_message(b, msg, i, usage, tool_times)
        steps = b.steps
        steps_from = "messages"
        label_native_steps(steps, "messages")
    elif events:
        steps = _steps_from_events(events)
        steps_from = "events"
        for st in steps:  # the event's uuid (newer logs), else its place in the events list
            ev = events[st.native_index] if st.native_index is not None else None
            uuid = _str(ev.get("uuid")) if isinstance(ev, Mapping) else None
            st.native_step_id = uuid or f"events[{st.native_index}]"
    else:
        raise BadSample(imsg("inspect_no_messages_events"))
    if not steps:
        raise BadSample(imsg("inspect_no_readable"))

    ev = header.get("eval")
    ev = ev if isinstance(ev, Mapping) else {}
    scorer, score = _pick_score(sample.get("scores"), _scorer_names(header))
    outcome, num, raw = score_outcome(score.get("value") if score else None)
    error = sample.get("error")
    if score is None and error:
        outcome, raw = Outcome.FAILURE, "error"
    answer = _str(score.get("answer")) if score else None
    if not answer:
        answer = next((s.text for s in reversed(steps) if s.kind == StepKind.MESSAGE and s.text.strip()), None)

    meta: dict[str, Any] = {"steps_from": steps_from}
    sample_meta = sample.get("metadata")
    if isinstance(sample_meta, Mapping):
        if "planted" in sample_meta:
            meta["planted"] = sample_meta["planted"]
        rest = {k: v for k, v in sample_meta.items() if k != "planted"}
        if rest:
            meta["sample_metadata"] = rest
    if scorer and score is not None:
        meta["scorer"] = scorer
        if score.get("explanation"):
            meta["score_explanation"] = as_text(score.get("explanation"))
    if isinstance(sample.get("scores"), Mapping) and len(sample["scores"]) > 1:
        meta["scores"] = {k: v.get("value") for k, v in sample["scores"].items() if isinstance(v, Mapping)}
    for key in ("error", "limit", "total_time", "working_time", "uuid"):
        if sample.get(key) is not None:
            meta[key] = sample[key]
    for key in ("eval_id", "run_id", "task_id", "created"):
        if ev.get(key) is not None:
            meta[key] = ev[key]
    if header.get("status") is not None:
        meta["log_status"] = header.get("status")

    sid, epoch = sample.get("id"), sample.get("epoch")
    return Trajectory(
        native_id=None if sid is None else f"{sid}:{epoch if epoch is not None else 1}",
        record=record,
        task=_task_text(sample.get("input")),
        model=_str(ev.get("model")),
        framework="inspect",
        outcome=outcome,
        outcome_raw=raw,
        outcome_source=str(OutcomeSource.INSPECT_SCORE) if score is not None and outcome != Outcome.UNKNOWN else None,
        score=num,
        final_answer=answer,
        ground_truth=_target_text(sample.get("target")),
        task_family=_str(ev.get("task")),
        task_key=source_task_key(_str(ev.get("task")), sid),
        metadata=meta,
        steps=steps,
    )


def _one(sample: Any, header: Mapping[str, Any], record: str, ctx: ImportContext) -> Trajectory | None:
    try:
        return sample_to_trajectory(sample, header, record)
    except Exception as exc:  # a bad sample costs only itself
        inner: Message | str
        if isinstance(exc, BadSample):
            inner = exc.message
        elif type(exc) is ValueError:
            inner = str(exc)
        else:
            inner = imsg("inspect_unexpected_shape", error=f"{type(exc).__name__}: {exc}")
        ctx.error(record, wrap("inspect_sample_skipped", inner))
        return None


# ---------------------------------------------------------------------------------------------
# importers


class InspectEvalImporter:
    """Reads Inspect ``.eval`` logs (zip with ``header.json`` and ``samples/*.json``)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims zip files whose members are Inspect's (a truncated one too, for a clear error)."""
        if not head.startswith(b"PK\x03\x04"):
            return False
        if _is_inspect_name(_first_local_name(head)):
            return True
        try:
            with zipfile.ZipFile(path) as zf:
                return any(_is_inspect_name(n) for n in zf.namelist())
        except Exception:  # any corrupt directory: not claimed by its contents
            return False

    def _header(self, z: EvalZip, ctx: ImportContext) -> dict[str, Any]:
        for name in ("header.json", "_journal/start.json"):
            if not z.has(name):
                continue
            try:
                doc = parse_json(z.read(name), name)
            except ImportFailure as exc:
                ctx.error(name, wrap("inspect_without_header", exc.message or exc.reason))
                continue
            if not isinstance(doc, dict):
                ctx.error(name, imsg("inspect_header_not_object"))
                continue
            return doc
        return {}

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per sample member, decompressing one member at a time."""
        with EvalZip(path) as z:
            names = z.names()
            if not any(_is_inspect_name(n) for n in names):
                raise ImportFailure(imsg("inspect_no_members"))
            header = self._header(z, ctx)
            members = [n for n in names if n.startswith("samples/") and n.endswith(".json")]
            if not members:
                status = header.get("status")
                raise ImportFailure(imsg("inspect_no_samples_status", status=str(status)) if status
                                    else imsg("inspect_no_samples"))
            for name in members:
                if ctx.cancel.cancelled:
                    return
                try:
                    sample = parse_json(z.read(name), name)
                except ImportFailure as exc:
                    ctx.error(exc.record or name, wrap("inspect_sample_skipped", exc.message or exc.reason))
                    continue
                t = _one(sample, header, name, ctx)
                if t is not None:
                    yield t


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0].strip()


_HEADER_KEYS = frozenset({"version", "status", "eval", "plan", "results", "stats", "error"})


def _stream_json_header(fh: guard.Utf8RepairReader | IO[bytes]) -> dict[str, Any]:
    """Top-level keys of an Inspect JSON log except ``samples``, reading as little as possible."""
    import ijson
    from ijson.common import ObjectBuilder

    header: dict[str, Any] = {}
    key: str | None = None
    builder: Any = None
    skipping = False
    for prefix, event, value in ijson.parse(fh, use_float=True):
        if builder is not None:
            builder.event(event, value)
            if prefix == key and event in ("end_map", "end_array"):
                header[str(key)] = builder.value
                builder = None
            continue
        if skipping:
            if prefix == "samples" and event == "end_array":
                skipping = False
            continue
        if prefix == "" and event == "map_key":
            key = value
            continue
        if prefix == "" and event in ("start_array", "string", "number", "boolean", "null"):
            raise ImportFailure(imsg("inspect_not_log"))
        if key is None or prefix != key:
            continue
        if key == "samples":
            if event == "start_array":
                if "eval" in header:
                    return header
                skipping = True
            continue
        if key not in _HEADER_KEYS:
            if event in ("start_map", "start_array"):
                builder = ObjectBuilder()  # small keys after samples (reductions ...): build and drop
                builder.event(event, value)
            continue
        if event in ("start_map", "start_array"):
            builder = ObjectBuilder()
            builder.event(event, value)
        else:
            header[key] = value
    return header


WHOLE_READ_BYTES = 64 * 1024 * 1024
"""Inspect ``.json`` logs up to this size are parsed whole (faster than streaming, and lenient)."""


class InspectJsonImporter:
    """Reads Inspect ``.json`` logs (the EvalLog with ``samples`` inline)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON objects with Inspect's top-level ``eval`` plus ``version``/``plan``/``samples``."""
        if first_json_char(head) != "{":
            return False
        if b'"eval"' not in head or b'"task"' not in head:
            return False
        return b'"version"' in head and (b'"plan"' in head or b'"samples"' in head or b'"status"' in head)

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims JSON objects with ``version``, an ``eval`` object holding ``task``, and ``plan``/``samples``/``status``."""
        if shape.container != "object" or shape.kind("eval") != "object" or "task" not in shape.child("eval"):
            return False
        return "version" in shape.keys and shape.has_any("plan", "samples", "status")

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per sample.

        A log up to :data:`WHOLE_READ_BYTES` is parsed whole by the lenient reader (NaN, big
        integers, lone surrogates and a BOM are read; a damaged sample costs only itself); a
        bigger one streams the samples array with ijson (when installed), and where the stream
        stops (a token ijson refuses, a damaged sample) the rest is read by the lenient reader,
        up to ``load_limits.max_document_bytes``.
        """
        try:
            import ijson  # noqa: F401
        except ImportError:
            yield from self._read_whole(path, ctx)
            return
        if path.stat().st_size <= WHOLE_READ_BYTES:
            try:
                doc = read_json_document(path, records=("samples",))
            except ImportFailure:
                doc = None  # the streaming reader names the break and keeps the samples before it
            if isinstance(doc, dict) and "eval" in doc and isinstance(doc.get("samples"), list):
                yield from self._samples(doc, ctx)
                return
        yield from self._read_streaming(path, ctx)

    def _read_whole(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        yield from self._samples(read_json_document(path, records=("samples",)), ctx)

    def _samples(self, doc: Any, ctx: ImportContext, start: int = 0) -> Iterator[Trajectory]:
        """The samples of a whole-read log from index ``start`` (a damaged one is its own error)."""
        if not isinstance(doc, dict):
            raise ImportFailure(imsg("inspect_not_log"))
        samples = doc.get("samples")
        header = {k: v for k, v in doc.items() if k != "samples"}
        if samples is None:
            raise ImportFailure(imsg("inspect_header_only"))
        if not isinstance(samples, list):
            raise ImportFailure(imsg("inspect_samples_not_list"))
        for i in range(start, len(samples)):
            sample = samples[i]
            if ctx.cancel.cancelled:
                return
            if isinstance(sample, DamagedRecord):
                ctx.error(f"samples[{i}]", sample.message)
                continue
            t = _one(sample, header, f"samples[{i}]", ctx)
            if t is not None:
                yield t

    def _read_streaming(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        import ijson

        if path.stat().st_size == 0:
            raise ImportFailure(reason("file_empty"))
        with path.open("rb") as raw:
            fh = guard.Utf8RepairReader(raw, count=False)  # invalid bytes become U+FFFD, not a failure
            try:
                header = _stream_json_header(fh)
            except (ijson.JSONError, ValueError) as exc:
                # a token the streaming parser refuses (NaN, 1e400, a 2^64 integer, a BOM) or damage
                # in the header: the lenient whole read decides, within the document cap
                yield from self._read_lenient_rest(path, ctx, 0, _first_line(exc), header_failed=True)
                return
        if "eval" not in header:
            raise ImportFailure(imsg("inspect_no_eval"))
        i = -1
        with path.open("rb") as raw:
            fh = guard.Utf8RepairReader(raw)  # counted on this pass, which reads the whole file
            try:
                for i, sample in enumerate(ijson.items(fh, "samples.item", use_float=True)):
                    if ctx.cancel.cancelled:
                        return
                    t = _one(sample, header, f"samples[{i}]", ctx)
                    if t is not None:
                        yield t
            except (ijson.JSONError, ValueError) as exc:
                yield from self._read_lenient_rest(path, ctx, i + 1, _first_line(exc))
                return
        if i < 0:
            raise ImportFailure(imsg("inspect_no_samples_stream"))

    def _read_lenient_rest(self, path: Path, ctx: ImportContext, start: int, error: str, *,
                           header_failed: bool = False) -> Iterator[Trajectory]:
        """After the streaming parser stopped at sample ``start``: that sample and the rest, read whole.

        The streaming parser (ijson) refuses what the lenient reader accepts (``NaN``, ``1e400``,
        integers beyond 64 bits, a byte-order mark, lone surrogates) and cannot resync after a damaged
        sample. Up to ``load_limits.max_document_bytes`` the whole document is then read by the lenient
        reader (a damaged sample costs only itself) and the samples from ``start`` on are yielded;
        the ones before it were already read. Above that cap the rest is one error naming the sample
        where the stream stopped.
        """
        try:
            doc = read_json_document(path, records=("samples",))
        except ImportFailure:  # over the document cap, or beyond salvage: the stream's own words
            if header_failed:
                raise ImportFailure(imsg("inspect_invalid", error=error)) from None
            ctx.error(f"samples[{start}]", imsg("inspect_invalid_here", error=error))
            return
        if not isinstance(doc, dict) or "eval" not in doc or not isinstance(doc.get("samples"), list):
            if header_failed:
                raise ImportFailure(imsg("inspect_invalid", error=error))
            ctx.error(f"samples[{start}]", imsg("inspect_invalid_here", error=error))
            return
        yield from self._samples(doc, ctx, start)
