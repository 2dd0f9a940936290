"""LangSmith run exports (JSON and JSONL; nested ``child_runs`` or flat runs).

A run (``langsmith.schemas.Run``, REST ``/runs``)::

    {"id": "<uuid>", "name": "ChatOpenAI", "run_type": "llm" | "tool" | "chain" | "retriever" |
     "prompt" | "parser" | "embedding", "start_time": "2025-…", "end_time": "…",
     "inputs": {...}, "outputs": {...}, "error": "…" | null, "status": "success" | "error",
     "extra": {"metadata": {"ls_model_name": …}, "invocation_params": {…}},
     "trace_id": "<uuid>", "parent_run_id": "<uuid>" | null, "dotted_order": "…",
     "prompt_tokens": …, "completion_tokens": …, "child_runs": [ … ] , "tags": [...]}

Accepted files: one run (a root with nested ``child_runs``), a list of runs, ``{"runs":
[...]}``, or one run per JSONL line; flat runs are grouped by ``trace_id`` (else by their root
``parent_run_id`` chain) and nested runs get their parent from the nesting. Also the SDKs'
batch-ingest body ``{"post": [runs], "patch": [runs]}`` (``/runs/batch``): each patch (end time,
outputs, error) is merged into the posted run with its ``id``, else its ``dotted_order``.

A run without ``id`` (hand-written or documentation examples) that has ``inputs``, ``outputs``
or ``child_runs`` gets one from its place in the file (``<$.child_runs[0]>``; the trajectory's
``metadata.langsmith_derived_ids`` counts them); a run without ``start_time`` starts when its
parent does (and ends ``duration_ms`` later when it gives one).

Mapping (one trajectory per trace; ``native_id`` = the trace id): ``llm`` runs give assistant
steps (LangChain ``generations`` / ``AIMessage`` tool calls, or OpenAI ``choices``; model from
``extra.metadata.ls_model_name``/``invocation_params``; tokens from the run or its usage),
``tool`` and ``retriever`` runs observations (``is_error`` and ``error_text`` from ``error``),
``chain`` runs name the agent of what runs inside them. The task is the root run's input, the
outcome FAILURE when the root run has an ``error``, else from a 0/1 ``feedback_stats`` average
of a success/correctness/... key, else unknown. Text under ``user_message`` / ``final_response``
is the task / answer too. Steps
follow ``start_time`` (``dotted_order`` breaks ties); each step's ``native_step_id`` is its
run id.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import as_text, first_json_char
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Trajectory
from plugins.importers._messages import input_messages, output_message, usage_tokens
from plugins.importers._outline import Outline, outline
from plugins.importers._spanio import iter_top_records, sanitize
from plugins.importers.otel import Span, bad_time, build_trajectory, to_ns

MAX_NESTING = 256
"""Deepest ``child_runs`` nesting followed."""

_KINDS = {"llm": "LLM", "tool": "TOOL", "retriever": "RETRIEVER", "chain": "CHAIN", "prompt": "CHAIN",
          "parser": "CHAIN", "embedding": "EMBEDDING"}
_RUN_KEYS = ("inputs", "outputs", "child_runs", "parent_run_id", "trace_id", "dotted_order", "start_time")


_CONTENT_KEYS = ("inputs", "outputs", "child_runs")
"""What a run without ``id`` must have to be read (its id is then derived from its place)."""
_BATCH_KEYS = ("post", "patch")
"""Keys of the SDKs' batch-ingest body (``POST /runs/batch``)."""

_RUN_RULE = KeyRule("a LangSmith run", all_of=("run_type", "name"), any_of=_CONTENT_KEYS, distinctive=("run_type",))
_BATCH_RULE = KeyRule("a LangSmith batch-ingest body (`post`/`patch` runs)", all_of=("run_type",),
                      any_of=("inputs", "outputs", "id"), distinctive=("dotted_order", "trace_id", "run_type"))


def _is_run(o: Outline, path: str) -> bool:
    keys = o.at(path)
    if "run_type" not in keys:
        return False
    if "id" in keys:
        return any(k in keys for k in _RUN_KEYS)
    return "name" in keys and any(k in keys for k in _CONTENT_KEYS)


def claims(o: Outline) -> bool:
    """True for the outline of a LangSmith run export (or of a batch-ingest body)."""
    if o.container in ("object", "array", "lines", "values") and _is_run(o, ""):
        return True
    if o.container in ("object", "array", "lines", "values") and o.any_of("", *_BATCH_KEYS) \
            and "run_type" not in o.at("") and _is_run(o, "post[]"):
        return True
    return o.container == "object" and _is_run(o, "runs[]")


def _batch_runs(rec: Any, where: str) -> list[tuple[str, Any, bool]] | None:
    """The runs of a batch-ingest body ``{"post": [...], "patch": [...]}``; None for other records.

    Each patch is merged into its posted run (by ``id``, else ``dotted_order``). Items are
    ``(locator, run, may derive an id)``.
    """
    if not isinstance(rec, Mapping) or "run_type" in rec:
        return None
    post, patch = rec.get("post"), rec.get("patch")
    if not isinstance(post, list) and not isinstance(patch, list):
        return None
    pre = "" if where == "$" else f"{where} "
    out: list[tuple[str, Any, bool]] = [(f"{pre}post[{i}]", dict(r) if isinstance(r, Mapping) else r, True)
                                        for i, r in enumerate(post if isinstance(post, list) else [])]
    by_id: dict[str, int] = {}
    by_order: dict[str, int] = {}
    for i, (_, r, _) in enumerate(out):
        if isinstance(r, Mapping):
            if _str(r.get("id")) is not None:
                by_id.setdefault(str(r["id"]), i)
            if _str(r.get("dotted_order")) is not None:
                by_order.setdefault(str(r["dotted_order"]), i)
    for j, p in enumerate(patch if isinstance(patch, list) else []):
        loc = f"{pre}patch[{j}]"
        idx = None
        if isinstance(p, Mapping):
            pid, order = _str(p.get("id")), _str(p.get("dotted_order"))
            idx = by_id.get(pid) if pid is not None else None
            if idx is None and order is not None:
                idx = by_order.get(order)
        if idx is None:  # a patch of a run posted elsewhere: read on its own (never with a made-up id)
            out.append((loc, p, False))
            continue
        target = out[idx][1]
        assert isinstance(p, Mapping) and isinstance(target, dict)
        target.update({k: v for k, v in p.items() if v is not None})
    return out


def _str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _model(run: Mapping[str, Any]) -> str | None:
    extra = run.get("extra") if isinstance(run.get("extra"), Mapping) else {}
    assert isinstance(extra, Mapping)
    meta = extra.get("metadata") if isinstance(extra.get("metadata"), Mapping) else {}
    params = extra.get("invocation_params") if isinstance(extra.get("invocation_params"), Mapping) else {}
    assert isinstance(meta, Mapping) and isinstance(params, Mapping)
    top = run.get("metadata") if isinstance(run.get("metadata"), Mapping) else {}
    assert isinstance(top, Mapping)
    for v in (meta.get("ls_model_name"), params.get("model"), params.get("model_name"), top.get("ls_model_name"),
              top.get("model")):
        if isinstance(v, str) and v:
            return v
    outputs = run.get("outputs")
    if isinstance(outputs, Mapping):
        llm_out = outputs.get("llm_output")
        for v in (outputs.get("model"), llm_out.get("model_name") if isinstance(llm_out, Mapping) else None):
            if isinstance(v, str) and v:
                return v
    return None


def _tool_value(value: Any, keys: tuple[str, ...]) -> Any:
    """A tool run's input/output: the single ``input``/``output`` value, else the whole dict."""
    if isinstance(value, Mapping):
        for k in keys:
            if k in value and len(value) == 1:
                v = value[k]
                if isinstance(v, Mapping) and v.get("lc") is not None and isinstance(v.get("kwargs"), Mapping):
                    return v["kwargs"].get("content", v)  # a serialised ToolMessage
                if isinstance(v, Mapping) and "content" in v and v.get("type") == "tool":
                    return v.get("content")
                return v
    return value


def _tool_call_id(run: Mapping[str, Any]) -> str | None:
    """The call id of a tool run: ``extra.tool_call_id``, or the ToolMessage in its outputs."""
    extra = run.get("extra")
    if isinstance(extra, Mapping) and isinstance(extra.get("tool_call_id"), str):
        return str(extra["tool_call_id"])
    out = run.get("outputs")
    msg = out.get("output") if isinstance(out, Mapping) else None
    if isinstance(msg, Mapping):
        kw = msg.get("kwargs") if isinstance(msg.get("kwargs"), Mapping) else msg
        assert isinstance(kw, Mapping)
        if isinstance(kw.get("tool_call_id"), str):
            return str(kw["tool_call_id"])
    return None


def _attrs(run: Mapping[str, Any]) -> dict[str, Any]:
    rt = str(run.get("run_type") or "chain").lower()
    kind = _KINDS.get(rt, "CHAIN")
    inputs, outputs = run.get("inputs"), run.get("outputs")
    a: dict[str, Any] = {"openinference.span.kind": kind, "langsmith.run_type": rt}
    if kind == "LLM":
        msgs = input_messages(inputs)
        if msgs:
            a["gen_ai.input.messages"] = msgs
        out = output_message(outputs)
        if out is not None:
            a["gen_ai.output.messages"] = [out]
        model = _model(run)
        if model:
            a["gen_ai.request.model"] = model
        llm_out = outputs.get("llm_output") if isinstance(outputs, Mapping) else None
        top = run.get("metadata")
        ti, to = usage_tokens(run, llm_out.get("token_usage") if isinstance(llm_out, Mapping) else None,
                              outputs.get("usage") if isinstance(outputs, Mapping) else None,
                              outputs.get("usage_metadata") if isinstance(outputs, Mapping) else None,
                              top.get("token_usage") if isinstance(top, Mapping) else None)
        if ti is not None:
            a["gen_ai.usage.input_tokens"] = ti
        if to is not None:
            a["gen_ai.usage.output_tokens"] = to
    elif kind in ("TOOL", "RETRIEVER"):
        a["tool.name"] = run.get("name")
        if inputs is not None:
            a["input.value"] = _tool_value(inputs, ("input", "query", "args"))
        if outputs is not None:
            a["output.value"] = _tool_value(outputs, ("output", "documents", "result"))
        call_id = _tool_call_id(run)
        if call_id:
            a["gen_ai.tool.call.id"] = call_id
    else:
        if inputs is not None:
            msgs = input_messages(inputs) if isinstance(inputs, Mapping) and "messages" in inputs else []
            if msgs:
                a["gen_ai.input.messages"] = msgs
            a["input.value"] = inputs
        if outputs is not None:
            msgs = input_messages(outputs) if isinstance(outputs, Mapping) and "messages" in outputs else []
            last = next((m for m in reversed(msgs) if m["role"] == "assistant"), None)
            a["output.value"] = last.get("content") if last and last.get("content") else _answer(outputs)
    meta = run.get("extra", {}).get("metadata") if isinstance(run.get("extra"), Mapping) else None
    if isinstance(meta, Mapping):
        a["metadata"] = dict(meta)
    return {k: v for k, v in a.items() if v is not None}


_ANSWER_KEYS = ("final_response", "final_answer")


def _answer(outputs: Any) -> Any:
    """A chain run's outputs, or the text under ``final_response``/``final_answer`` when it has one."""
    if isinstance(outputs, Mapping):
        for k in _ANSWER_KEYS:
            if isinstance(outputs.get(k), str) and outputs[k].strip():
                return outputs[k]
    return outputs


class _Runs:
    """Flattens nested runs of a record into spans grouped by trace id."""

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self.traces: dict[str, list[Span]] = {}
        self.records: dict[str, str] = {}
        self.feedback: dict[str, Any] = {}
        self.order = 0
        self.derived: dict[str, int] = {}
        """Trace id -> runs whose id was derived from their place in the file."""
        self.durations: dict[int, int] = {}
        """``id(span)`` -> ``duration_ms`` in ns, for runs that give no end time."""

    def add(self, root: Any, where: str, derive_ids: bool = True) -> None:
        stack: list[tuple[Any, str, str | None, str | None, int]] = [(root, where, None, None, 0)]
        while stack:
            run, loc, parent, trace, depth = stack.pop()
            if not isinstance(run, Mapping):
                self.ctx.error(loc, imsg("ls_run_not_object"))
                continue
            try:
                span = self._span(run, loc, parent, trace, derive_ids)
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                self.ctx.error(loc, imsg("ls_unreadable_run", error=f"{type(exc).__name__}: {exc}"))
                span = None
            children = run.get("child_runs")
            if isinstance(children, list) and children:
                if depth >= MAX_NESTING:
                    self.ctx.error(loc, imsg("ls_too_deep", depth=MAX_NESTING))
                    continue
                pid = span.span_id if span else parent
                tid = span.trace_id if span else trace
                for i in range(len(children) - 1, -1, -1):
                    stack.append((children[i], f"{loc}.child_runs[{i}]", pid, tid, depth + 1))

    def _span(self, run: Mapping[str, Any], loc: str, parent: str | None, trace: str | None,
              derive_ids: bool = True) -> Span | None:
        rid = _str(run.get("id"))
        derived = False
        if rid is None and derive_ids and any(run.get(k) not in (None, "", [], {}) for k in _CONTENT_KEYS):
            rid, derived = f"<{loc}>", True  # a run without id: named by its place in the file
        if rid is None:
            self.ctx.error(loc, imsg("ls_no_id"))
            return None
        pid = _str(run.get("parent_run_id")) or parent
        tid = _str(run.get("trace_id")) or trace or (rid if pid is None else None)
        if tid is None:
            tid = pid  # a flat child without trace_id: grouped under its parent (resolved below)
        assert tid is not None
        times = []
        for label in ("start_time", "end_time"):
            raw = run.get(label)
            if bad_time(raw):
                self.ctx.error(loc, imsg("ls_bad_time", id=str(rid), field=label, value=repr(str(raw)[:40])))
            times.append(to_ns(raw))
        err = run.get("error")
        status = "ERROR" if err not in (None, "") or str(run.get("status") or "").lower() == "error" else (
            "OK" if str(run.get("status") or "").lower() == "success" else "UNSET")
        self.order += 1
        span = Span(trace_id=tid, span_id=rid, parent_id=pid if pid != rid else None,
                    name=str(run.get("name") or ""), start_ns=times[0], end_ns=times[1], status=status,
                    status_message=as_text(err)[:4000] if err not in (None, "") else "",
                    attrs=_attrs(run), resource={}, events=[], order=self.order, record=loc, native_id=rid)
        span.attrs.setdefault("dotted_order", run.get("dotted_order"))
        dur = run.get("duration_ms")
        if times[1] is None and isinstance(dur, (int, float)) and not isinstance(dur, bool) and 0 <= dur < 1e12:
            self.durations[id(span)] = int(dur * 1e6)
        if derived:
            self.derived[tid] = self.derived.get(tid, 0) + 1
        if isinstance(run.get("feedback_stats"), Mapping):
            self.feedback[rid] = run["feedback_stats"]
        self.traces.setdefault(tid, []).append(span)
        self.records.setdefault(tid, loc)
        return span

    def merge_orphans(self) -> None:
        """Flat children grouped under their parent's id join the trace that holds that parent."""
        owner = {s.span_id: tid for tid, spans in self.traces.items() for s in spans}
        for tid in list(self.traces):
            target = owner.get(tid)
            if target is not None and target != tid and tid in self.traces:
                self.traces.setdefault(target, []).extend(self.traces.pop(tid))
                if tid in self.derived:
                    self.derived[target] = self.derived.get(target, 0) + self.derived.pop(tid)

    def fill_times(self, spans: list[Span]) -> None:
        """Give a run without ``start_time`` the start of its nearest timed ancestor.

        So it does not sort before its parent; it ends ``duration_ms`` later when it gives one.
        """
        by_id = {s.span_id: s for s in spans}
        for s in spans:
            if s.start_ns is not None:
                continue
            seen = {s.span_id}
            cur = by_id.get(s.parent_id or "")
            while cur is not None and cur.start_ns is None and cur.span_id not in seen:
                seen.add(cur.span_id)
                cur = by_id.get(cur.parent_id or "")
            if cur is not None and cur.start_ns is not None:
                s.start_ns = cur.start_ns
        for s in spans:
            dur = self.durations.get(id(s))
            if s.end_ns is None and s.start_ns is not None and dur is not None:
                s.end_ns = s.start_ns + dur


_OUTCOME_FEEDBACK = ("success", "task_success", "correctness", "correct", "resolved", "outcome", "passed")


def _feedback_outcome(stats: Any) -> tuple[Outcome, str | None]:
    """Outcome from the root run's ``feedback_stats`` (``{"correctness": {"n": 1, "avg": 1.0}}``)."""
    if not isinstance(stats, Mapping):
        return Outcome.UNKNOWN, None
    for key, st in stats.items():
        if str(key).strip().lower() in _OUTCOME_FEEDBACK and isinstance(st, Mapping):
            avg = st.get("avg")
            if isinstance(avg, (int, float)) and not isinstance(avg, bool) and avg in (0, 1):
                return (Outcome.SUCCESS if avg == 1 else Outcome.FAILURE), f"feedback {key} avg={avg}"
    return Outcome.UNKNOWN, None


def _order_key(s: Span) -> tuple[int, str, int]:
    return (s.start_ns or 0, str(s.attrs.get("dotted_order") or ""), s.order)


class LangSmithImporter:
    """Reads LangSmith run exports (nested ``child_runs`` or flat runs with ``trace_id``)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims files whose (first) record has ``run_type`` and run keys (or is a batch-ingest body)."""
        if first_json_char(head) not in "{[":
            return False
        return claims(outline(path))

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a record with LangSmith's ``run_type`` (or a ``post``/``patch`` body) lacks."""
        keys = shape.record_keys
        if any(k in keys for k in _BATCH_KEYS) and "run_type" not in keys:
            child = shape.child("post") or shape.child("patch")
            return _BATCH_RULE.near_miss(child) if child else None
        return _RUN_RULE.near_miss(keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace."""
        runs = _Runs(ctx)
        for where, rec in iter_top_records(path, ctx, wrappers=("runs",)):
            if ctx.cancel.cancelled:
                return
            batch = _batch_runs(rec, where)
            for loc, run, derive in batch if batch is not None else [(where, rec, True)]:
                try:
                    runs.add(run, loc, derive)
                except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
                    ctx.error(loc, imsg("ls_unexpected_record", error=f"{type(exc).__name__}: {exc}"))
        runs.merge_orphans()
        if not runs.traces:
            raise ImportFailure(imsg("ls_none_found"))
        for tid, spans in runs.traces.items():
            if ctx.cancel.cancelled:
                return
            where = runs.records.get(tid, f"trace {tid}")
            try:
                runs.fill_times(spans)
                spans.sort(key=_order_key)
                for i, s in enumerate(spans):
                    s.order = i
                t = build_trajectory(tid, spans, None, "langsmith")
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
                ctx.error(where, imsg("ls_unexpected_trace", trace=str(tid), error=f"{type(exc).__name__}: {exc}"))
                continue
            if t is None:
                ctx.error(where, imsg("ls_no_steps", trace=str(tid)))
                continue
            root = next((s for s in spans if not s.parent_id), spans[0])
            t.record = where
            t.framework = "langsmith"
            t.metadata.pop("otel_format", None)
            t.metadata["langsmith_root_run"] = root.span_id
            if runs.derived.get(tid):
                t.metadata["langsmith_derived_ids"] = runs.derived[tid]
            if root.status == "ERROR":
                t.outcome_raw = f"root run error: {root.status_message[:200]}"
            elif t.outcome == "unknown":
                out, raw = _feedback_outcome(runs.feedback.get(root.span_id))
                if out != Outcome.UNKNOWN:
                    t.outcome, t.outcome_raw = out, raw
            yield sanitize(t)
