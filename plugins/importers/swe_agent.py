"""SWE-agent ``.traj`` and mini-swe-agent ``.traj.json`` importers.

SWE-agent (``*.traj``): each ``trajectory[]`` entry becomes up to three steps: a
``thought`` (when the thought is non-empty), an ``action`` (``tool_call`` when the
run used function calling; ``tool_name`` is the first word of the command and
``tool_args`` the command itself) and an ``observation``. The task is the problem
statement of the first non-demo user message of ``history`` (kept as a ``user`` step
at index 0). ``info.exit_status`` gives the outcome: ``submitted`` alone is unknown,
any other exit (``exit_cost``, ``exit_format``, ``exit_error`` ...) is a failure, and an
evaluation file beside the trajectory (SWE-bench ``results.json`` with ``resolved_ids``,
or a per-instance ``report.json``) decides resolved / not resolved. (Steps keep agent
``assistant`` and no ``system`` step is added here: the step content, and so the run ids that
annotations are keyed by, and the planted step indices of the samples stay as they were.)

A ``.traj`` with only a ``history`` (SWE-agent's own ``trajectories/demonstrations/``) is read
from the history: the system prompt is a ``system`` step, the first non-demo user message the
task (``user``), each assistant message (agent: the entry's ``agent``, e.g. ``main``) a
``thought`` (its ``thought``/text) plus a ``tool_call`` (``tool_calls[0].function`` name,
arguments and id) or, for classic runs, an ``action`` (the ``action`` text; tool name its first
word), and each tool or later user message (``message_type`` ``observation``) an
``observation`` linked by ``tool_call_ids`` with errors flagged. The final answer is
``info.submission``, else the output of a last ``submit`` call.

mini-swe-agent (``*.traj.json``): an object with ``messages`` (and ``info``), or, as
mini-swe-agent's own test data and older runs save it, a bare list of the messages (claimed
when the head shows mini-swe-agent's ``<returncode>``/submit markers/``mswea_bash_command``
fences). ``messages`` map like a chat: the system prompt and the first user message (the
task) become ``system``/``user`` steps, each assistant message one ``action`` step (the
single ```` ```bash ````/```` ```mswea_bash_command ```` block, or ``extra.actions[0].command``,
is ``tool_args``), later user messages ``observation`` steps (``<returncode>N</returncode>``
with N != 0 is an error), and a trailing ``{"role": "exit"}`` message only feeds the outcome.
The message after a ``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` command is the submission:
it gives ``exit_status`` ``Submitted`` and the final answer when ``info`` has neither.

The output-error heuristics and the evaluation-file lookup are shared with the other
agent-framework importers (OpenHands, ATIF).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import (
    args_text,
    as_text,
    finite_float,
    first_json_char,
    label_native_steps,
    parse_json,
    read_json_document,
)
from analyzer.loading.task_key import source_task_key
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.schema.outcome_source import OutcomeSource

# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------

_EXC_LINE_RE = re.compile(r"^(?:E\s+)?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::\s.*|\s*)$")
_ERROR_LINE_PATTERNS: tuple[re.Pattern[str], ...] = (  # in order of preference
    re.compile(r"^- [EF]\d{3} \S"),  # flake8 codes in SWE-agent's edit linter message
    re.compile(r"command not found", re.IGNORECASE),
    re.compile(r"No such file or directory"),
    re.compile(r"Permission denied"),
    re.compile(r"^(?:ERROR|fatal|error):", re.IGNORECASE),
    re.compile(r"Your proposed edit has introduced new syntax error"),
    re.compile(r"\b(?:exit code|exit status|return code|returncode)\D{0,3}(?:[1-9]\d*|-\d+)\b", re.IGNORECASE),
    re.compile(r"\bexit=(?:[1-9]\d*|-\d+)\b"),
    re.compile(r"non-zero exit", re.IGNORECASE),
    re.compile(r"^curl: \(\d+\)"),
    re.compile(r"Connection refused|Failed to connect|Could not resolve host", re.IGNORECASE),
    re.compile(r"\btimed out\b", re.IGNORECASE),
    re.compile(r"^=+ .*\b\d+ (?:failed|errors?)\b.*=+$"),
    re.compile(r"^FAILED \S"),
    re.compile(r"^\d+ failed\b|\b\d+ failed, \d+ passed\b"),
)
_TRACEBACK = "Traceback (most recent call last)"
_PYTEST_E_RE = re.compile(r"\AE\s+")
_MAX_ERROR_TEXT = 300
_MAX_SCAN_LINES = 2000
_MAX_EVAL_BYTES = 64 * 1024 * 1024


def output_error(text: str) -> str | None:
    """Short description of the error a tool/command output shows, or None.

    Recognises Python tracebacks and exception lines (also pytest's ``E   ...Error``),
    ``command not found``, missing files, ``ERROR:``/``fatal:`` lines, SWE-agent's edit
    linter message, non-zero exit codes, time-outs and pytest failure summaries.

    Args:
        text: The output text.

    Returns:
        The most telling line (clipped), or None when the output looks clean.
    """
    if not text:
        return None
    lines = text.splitlines()
    if len(lines) > _MAX_SCAN_LINES:  # errors sit at the start or (mostly) the end of long outputs
        lines = lines[: _MAX_SCAN_LINES // 4] + lines[-(_MAX_SCAN_LINES * 3 // 4):]
    if _TRACEBACK in text:
        last = None
        for line in lines:
            if _EXC_LINE_RE.match(line.strip()):
                last = line.strip()
        return _PYTEST_E_RE.sub("", last or "Traceback")[:_MAX_ERROR_TEXT]
    for line in lines:
        s = line.strip()
        if _EXC_LINE_RE.match(s) and len(s) < 400:
            return _PYTEST_E_RE.sub("", s)[:_MAX_ERROR_TEXT]
    stripped = [line.strip() for line in lines]
    for pat in _ERROR_LINE_PATTERNS:
        for s in stripped:
            if pat.search(s):
                return s[:_MAX_ERROR_TEXT]
    return None


def problem_statement(text: str) -> str:
    """The problem statement inside an agent's instance prompt.

    Handles ``<pr_description>``/``<issue_description>``/``<issue>`` wrappers, SWE-agent
    0.x ``ISSUE: ... INSTRUCTIONS:`` and mini-swe-agent's ``Please solve this issue:``.

    Args:
        text: The first user message.

    Returns:
        The extracted statement, or the whole text stripped.
    """
    for tag in ("pr_description", "issue_description", "issue", "task"):
        m = re.search(rf"<{tag}>\s*(.*?)\s*</{tag}>", text, re.DOTALL)
        if m and m.group(1).strip():
            body = m.group(1).strip()
            return re.sub(r"\AConsider the following (?:PR|issue) description:\s*", "", body).strip()
    m = re.search(r"ISSUE:\s*\n(.*?)\n\s*INSTRUCTIONS:", text, re.DOTALL)
    if m:
        return m.group(1).strip()
    m = re.search(r"Please solve this issue:\s*(.*?)(?:\n\n(?:You can execute|Remember|<instructions>)|\Z)", text, re.DOTALL)
    if m and m.group(1).strip():
        return m.group(1).strip()
    return text.strip()


@dataclass(frozen=True)
class Evaluation:
    """Evaluation verdict found in a file beside a trajectory.

    Attributes:
        resolved: True when the instance was resolved, False when evaluated and not.
        file: Name of the file the verdict came from.
    """

    resolved: bool
    file: str


_eval_cache: dict[tuple[str, float, int], Any] = {}


def _load_eval_file(path: Path) -> Any:
    try:
        st = path.stat()
    except OSError:
        return None
    if st.st_size == 0 or st.st_size > _MAX_EVAL_BYTES:
        return None
    key = (str(path), st.st_mtime, st.st_size)
    if key not in _eval_cache:
        try:
            _eval_cache[key] = parse_json(path.read_bytes(), path.name)
        except (ImportFailure, OSError):
            _eval_cache[key] = None
        if len(_eval_cache) > 256:
            _eval_cache.pop(next(iter(_eval_cache)))
    return _eval_cache[key]


def _ids(doc: dict[str, Any], key: str) -> set[str]:
    value = doc.get(key)
    return {str(v) for v in value} if isinstance(value, list) else set()


def _verdict(doc: Any, instance_id: str, own: bool = False) -> bool | None:
    if not isinstance(doc, dict):
        return None
    if instance_id in _ids(doc, "resolved_ids"):
        return True
    if any(instance_id in _ids(doc, k) for k in ("unresolved_ids", "completed_ids", "error_ids", "empty_patch_ids")):
        return False
    entry = doc.get(instance_id)
    if isinstance(entry, dict):
        return truthy(entry.get("resolved"))
    if own and "resolved" in doc:  # an instance's own report, saved without its id around it
        return truthy(doc.get("resolved"))
    return None


def _instance_reports(path: Path, instance_id: str) -> Iterator[tuple[Path, str]]:
    """Per-instance SWE-bench reports a trajectory may have, with the name to quote.

    ``<id>.report.json`` beside the trajectory (or one folder up), and the evaluation harness's
    ``logs/<id>/report.json`` in the trajectory's folder or up to two folders above it (a
    submission folder of ``trajs/<id>/<id>.traj.json`` beside ``logs/<id>/report.json``).
    """
    for folder in (path.parent, path.parent.parent):
        yield folder / f"{instance_id}.report.json", f"{instance_id}.report.json"
    for folder in (path.parent, path.parent.parent, path.parent.parent.parent):
        yield folder / "logs" / instance_id / "report.json", f"logs/{instance_id}/report.json"


def evaluation_beside(path: Path, instance_id: str | None) -> Evaluation | None:
    """Look for an evaluation verdict next to (or above) a trajectory file.

    Reads SWE-bench / SWE-agent ``results.json`` (``resolved_ids``, ``unresolved_ids``,
    ``completed_ids`` ...) and ``report.json`` (``{id: {"resolved": bool}}``) next to the file or
    one folder up, then the instance's own report (:func:`_instance_reports`: ``<id>.report.json``,
    ``logs/<id>/report.json``; ``{id: {...}}`` or the bare ``{"resolved": bool, ...}``).

    Args:
        path: The trajectory file.
        instance_id: Task instance id to look up.

    Returns:
        The verdict, or None when no file says anything about the instance.
    """
    if not instance_id:
        return None
    for folder in (path.parent, path.parent.parent):
        for name in ("results.json", "report.json"):
            verdict = _verdict(_load_eval_file(folder / name), instance_id)
            if verdict is not None:
                return Evaluation(verdict, name)
    for cand, name in _instance_reports(path, instance_id):
        verdict = _verdict(_load_eval_file(cand), instance_id, own=True)
        if verdict is not None:
            return Evaluation(verdict, name)
    return None


def evaluation_source(evaluation: Evaluation | None) -> str | None:
    """``swebench-report`` when an evaluation file decided the outcome, else None (the loader's default)."""
    return str(OutcomeSource.SWEBENCH_REPORT) if evaluation is not None else None


def truthy(value: Any) -> bool | None:
    """Normalise a success flag (bool, 0/1, ``"True"``/``"false"``/``"yes"``) or None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return bool(value) if value in (0, 1) else None
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "1", "resolved", "pass", "passed", "success"):
            return True
        if low in ("false", "no", "0", "unresolved", "fail", "failed", "failure"):
            return False
    return None


def exit_outcome(exit_status: str | None, evaluation: Evaluation | None) -> tuple[Outcome, str | None, float | None]:
    """Outcome, raw value and score from an exit status plus an optional evaluation.

    ``submitted`` (also ``submitted (exit_cost)``) alone is unknown; any other exit
    status is a failure; an evaluation verdict decides when present.
    """
    raw = exit_status
    if evaluation is not None:
        verdict = "resolved" if evaluation.resolved else "not resolved"
        raw = f"{exit_status}; {verdict} ({evaluation.file})" if exit_status else f"{verdict} ({evaluation.file})"
        return (Outcome.SUCCESS if evaluation.resolved else Outcome.FAILURE), raw, 1.0 if evaluation.resolved else 0.0
    s = (exit_status or "").strip().lower()
    if not s or s.startswith("submitted"):
        return Outcome.UNKNOWN, raw, None
    return Outcome.FAILURE, raw, None


def as_dict(value: Any) -> dict[str, Any]:
    """The value if it is a dict, a JSON string holding a dict parsed, else ``{}``."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = parse_json(value, "embedded JSON")
        except ImportFailure:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def opt_int(value: Any) -> int | None:
    """An int from an int-like value, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def opt_float(value: Any) -> float | None:
    """A float from a number, else None."""
    return finite_float(value)


_SEGMENT_SPLIT_RE = re.compile(r"&&|\|\||;|\n")
_ENV_ASSIGN_RE = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*=\S*\Z")


def first_word(command: str) -> str:
    """Command name of a shell command (``python``, ``edit``, ``str_replace_editor`` ...).

    Leading ``cd DIR &&`` segments and ``VAR=value`` assignments are skipped, so
    ``cd /testbed && python -m pytest`` gives ``python``.
    """
    first = ""
    for segment in _SEGMENT_SPLIT_RE.split(command.strip()):
        words = [w for w in segment.split() if not _ENV_ASSIGN_RE.match(w)]
        if not words:
            continue
        first = first or words[0]
        if words[0] not in ("cd", "pushd", "source", "."):
            return words[0]
    return first


def planted_of(*holders: Any) -> Any:
    """The first ``planted`` annotation found in the given dicts (None when absent)."""
    for h in holders:
        if isinstance(h, dict) and "planted" in h:
            return h["planted"]
    return None


# ---------------------------------------------------------------------------
# SWE-agent .traj
# ---------------------------------------------------------------------------


def _task_message(history: list[Any]) -> tuple[int, str] | None:
    for i, h in enumerate(history):
        if isinstance(h, dict) and h.get("role") == "user" and not h.get("is_demo"):
            return i, as_text(h.get("content"))
    return None


def _tool_calls_list(value: Any) -> list[Any]:
    """A history entry's ``tool_calls``: a list, or a JSON string holding one."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str) or not value.lstrip().startswith("["):
        return []
    try:
        parsed = parse_json(value, "tool_calls")
    except ImportFailure:
        return []
    return parsed if isinstance(parsed, list) else []


def _first_call(h: dict[str, Any]) -> dict[str, Any]:
    """``{"id", "function", "arguments"}`` of a history entry's first tool call (``{}`` when none)."""
    calls = _tool_calls_list(h.get("tool_calls"))
    if not calls or not isinstance(calls[0], dict):
        return {}
    call = calls[0]
    fn = as_dict(call.get("function"))
    info: dict[str, Any] = {"id": call.get("id"), "function": fn.get("name"), "arguments": fn.get("arguments")}
    ids = h.get("tool_call_ids")
    if not info["id"] and isinstance(ids, list) and ids:
        info["id"] = ids[0]
    return info


def _agent_name(h: dict[str, Any]) -> str | None:
    agent = h.get("agent")
    return agent if isinstance(agent, str) and agent.strip() else None


def _action_tool_calls(history: list[Any]) -> list[dict[str, Any]]:
    """Per-action tool-call info from the non-demo assistant history entries."""
    return [_first_call(h) if isinstance(h.get("tool_calls"), list) else {} for h in history
            if isinstance(h, dict) and h.get("role") == "assistant" and not h.get("is_demo")]


def _swe_model(doc: dict[str, Any], info: dict[str, Any]) -> str | None:
    if isinstance(info.get("model"), str):
        return str(info["model"])
    cfg = as_dict(doc.get("replay_config"))
    agent = as_dict(cfg.get("agent"))
    for model in (as_dict(agent.get("model")), as_dict(cfg.get("model"))):
        for key in ("name", "model_name"):
            if isinstance(model.get(key), str) and model[key]:
                return str(model[key])
    return None


def _swe_instance_id(doc: dict[str, Any], path: Path) -> str:
    cfg = as_dict(doc.get("replay_config"))
    ps = as_dict(cfg.get("problem_statement"))
    if isinstance(ps.get("id"), str) and ps["id"]:
        return str(ps["id"])
    info = as_dict(doc.get("info"))
    if isinstance(info.get("instance_id"), str) and info["instance_id"]:
        return str(info["instance_id"])
    name = path.name
    return name[: -len(".traj")] if name.endswith(".traj") else path.stem


def _history_steps(history: list[Any], ctx: ImportContext) -> tuple[list[Step], str]:
    """Steps of a ``.traj`` that has only a ``history`` (SWE-agent demonstrations)."""
    steps: list[Step] = []
    task = ""
    seen_task = False
    tool_of_call: dict[str, str] = {}
    last_tool: str | None = None
    for i, h in enumerate(history):
        if not isinstance(h, dict):
            ctx.error(f"history[{i}]", imsg("swe_entry_not_object", type=type(h).__name__))
            continue
        if h.get("is_demo"):
            continue
        role = h.get("role")
        text = as_text(h.get("content"))
        base: dict[str, Any] = {"native_index": i, "native_step_id": f"history[{i}]"}
        mtype = h.get("message_type")
        meta: dict[str, Any] = {"message_type": mtype} if isinstance(mtype, str) else {}
        if role == "system":
            steps.append(Step(index=len(steps), agent="system", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=text,
                              metadata=meta, **base))
        elif role == "user" and not seen_task:
            seen_task = True
            task = problem_statement(text)
            steps.append(Step(index=len(steps), agent="user", role=Role.USER, kind=StepKind.USER, text=text,
                              metadata=meta, **base))
        elif role == "assistant":
            last_tool = _history_assistant(steps, h, text, meta, base, tool_of_call)
        elif role in ("tool", "user", "observation") or mtype == "observation":
            ids = h.get("tool_call_ids")
            call_id = str(ids[0]) if isinstance(ids, list) and ids and ids[0] else (
                str(h["tool_call_id"]) if h.get("tool_call_id") else None)
            err = output_error(text)
            meta["raw_role"] = role
            steps.append(Step(index=len(steps), agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text=text,
                              tool_name=tool_of_call.get(call_id or "") or last_tool, tool_call_id=call_id,
                              is_error=err is not None, error_text=err, metadata=meta, **base))
            last_tool = None
        else:
            ctx.error(f"history[{i}]", imsg("mini_unknown_role", role=repr(role)))
    return steps, task


def _history_assistant(steps: list[Step], h: dict[str, Any], text: str, meta: dict[str, Any],
                       base: dict[str, Any], tool_of_call: dict[str, str]) -> str | None:
    """The ``thought`` and ``tool_call``/``action`` steps of one assistant history entry; its tool name."""
    agent = _agent_name(h) or "assistant"
    thought = as_text(h.get("thought")).strip() if h.get("thought") is not None else text.strip()
    action = as_text(h.get("action")).strip()
    call = _first_call(h)
    name = str(call["function"]) if call.get("function") else None
    if not action and not name:
        steps.append(Step(index=len(steps), agent=agent, role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text,
                          metadata=meta, **base))
        return None
    if thought:
        steps.append(Step(index=len(steps), agent=agent, role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=thought,
                          metadata=dict(meta), **base))
    call_id = str(call["id"]) if call.get("id") else None
    tool: str | None
    if name:
        args = args_text(call.get("arguments"))
        tool = name
        if call_id:
            tool_of_call[call_id] = name
        meta = {**meta, "action": action} if action else meta
        steps.append(Step(index=len(steps), agent=agent, role=Role.ASSISTANT, kind=StepKind.TOOL_CALL,
                          text=action or args or name, tool_name=name, tool_args=args, tool_call_id=call_id,
                          metadata=meta, **base))
    else:
        tool = first_word(action) or None
        steps.append(Step(index=len(steps), agent=agent, role=Role.ASSISTANT, kind=StepKind.ACTION, text=action,
                          tool_name=tool, tool_args=action, metadata=meta, **base))
    return tool


def _submitted_patch(steps: list[Step]) -> str | None:
    """The output of a final ``submit`` call (the patch), for a run without ``info.submission``."""
    for i in range(len(steps) - 1, 0, -1):
        st = steps[i]
        if st.kind == StepKind.OBSERVATION and steps[i - 1].tool_name == "submit":
            return st.text.strip() or None
        if st.kind in (StepKind.TOOL_CALL, StepKind.ACTION):
            return None
    return None


class SweAgentImporter:
    """Reads SWE-agent ``.traj`` files."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON objects with a ``trajectory`` key, or a ``history`` of role messages."""
        if first_json_char(head) != "{":
            return False
        return b'"trajectory"' in head or (b'"history"' in head and (b'"info"' in head or b'"role"' in head))

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the one run of a ``.traj`` file. (a failure inside it is reported as record ``$``)."""
        yield from ctx.guarded("$", lambda: list(self._read(path, ctx))) or []

    def _read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        doc = read_json_document(path)
        if not isinstance(doc, dict):
            raise ImportFailure(imsg("swe_not_object"))
        entries = doc.get("trajectory")
        history_raw = doc.get("history")
        history: list[Any] = history_raw if isinstance(history_raw, list) else []
        if not isinstance(entries, list):
            if entries is not None or not history:
                raise ImportFailure(imsg("swe_no_trajectory"))
            steps, task = _history_steps(history, ctx)
        else:
            steps, task = self._trajectory_steps(entries, history, ctx)
        info = as_dict(doc.get("info"))
        exit_status = info.get("exit_status")
        exit_s = str(exit_status) if exit_status is not None else None
        instance_id = _swe_instance_id(doc, path)
        evaluation = evaluation_beside(path, instance_id)
        outcome, raw, score = exit_outcome(exit_s, evaluation)
        meta: dict[str, Any] = {"instance_id": instance_id}
        if not isinstance(entries, list):
            meta["steps_from"] = "history"
        for key in ("exit_status", "model_stats", "swe_agent_version", "swe_agent_hash", "swe_rex_version"):
            if key in info:
                meta[key] = info[key]
        if evaluation is not None:
            meta["resolved"] = evaluation.resolved
            meta["evaluation_file"] = evaluation.file
        planted = planted_of(info, doc)
        if planted is not None:
            meta["planted"] = planted
        submission = info.get("submission")
        final = submission if isinstance(submission, str) and submission else None
        if final is None and not isinstance(entries, list):
            final = _submitted_patch(steps)
        yield Trajectory(
            native_id=instance_id, record="$", task=task, model=_swe_model(doc, info), framework="swe-agent",
            outcome=outcome, outcome_raw=raw, outcome_source=evaluation_source(evaluation), score=score,
            final_answer=final, metadata=meta, steps=steps, task_key=source_task_key(None, instance_id),
        )

    def _trajectory_steps(self, entries: list[Any], history: list[Any], ctx: ImportContext) -> tuple[list[Step], str]:
        steps: list[Step] = []
        task = ""
        found = _task_message(history)
        if found is not None:
            hist_i, content = found
            task = problem_statement(content)
            steps.append(Step(index=0, agent="user", role=Role.USER, kind=StepKind.USER, text=content,
                              native_index=hist_i, native_step_id=f"history[{hist_i}]",
                              metadata={"source": "history"}))
        calls = _action_tool_calls(history)
        if len(calls) != len(entries):
            calls = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                ctx.error(f"trajectory[{i}]", imsg("swe_entry_not_object", type=type(entry).__name__))
                continue
            self._entry_steps(steps, i, entry, calls[i] if calls else {})
        label_native_steps(steps, "trajectory")
        return steps, task

    @staticmethod
    def _entry_steps(steps: list[Step], i: int, entry: dict[str, Any], call: dict[str, Any]) -> None:
        thought = as_text(entry.get("thought")).strip()
        action = as_text(entry.get("action")).strip()
        observation = entry.get("observation")
        call_id = str(call["id"]) if call.get("id") else None
        if thought:
            steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT, kind=StepKind.THOUGHT,
                              text=thought, native_index=i))
        if action:
            meta: dict[str, Any] = {}
            if call.get("function"):
                meta["function_name"] = call["function"]
            steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT,
                              kind=StepKind.TOOL_CALL if call_id else StepKind.ACTION, text=action,
                              tool_name=first_word(action) or None, tool_args=action, tool_call_id=call_id,
                              duration_s=opt_float(entry.get("execution_time")), native_index=i, metadata=meta))
        if observation is not None:
            text = as_text(observation)
            err = output_error(text)
            steps.append(Step(index=len(steps), agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text=text,
                              tool_name=(first_word(action) or None) if action else None, tool_call_id=call_id,
                              is_error=err is not None, error_text=err, native_index=i))


# ---------------------------------------------------------------------------
# mini-swe-agent .traj.json
# ---------------------------------------------------------------------------

_BASH_BLOCK_RE = re.compile(r"```(?:bash|sh|mswea_bash_command)[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL)
_SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_LIST_MARKERS = (b"<returncode>", b"mswea_bash_command", *(m.encode() for m in _SUBMIT_MARKERS))
_LIST_SCAN_BYTES = 4 << 20
_RETURNCODE_RE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_MINI_ERROR_MARKERS = (
    "Please always provide EXACTLY ONE action",
    "timed out and has been killed",
    "Format error",
)


def _usage(extra: dict[str, Any]) -> tuple[int | None, int | None]:
    for holder in (extra.get("response"), extra):
        usage = holder.get("usage") if isinstance(holder, dict) else None
        if isinstance(usage, dict):
            return opt_int(usage.get("prompt_tokens")), opt_int(usage.get("completion_tokens"))
    return None, None


def _is_submission(action: Step, text: str) -> bool:
    """True for the message after a submit command: the submission (no ``<returncode>`` wrapper)."""
    return (action.tool_args is not None and any(m in action.tool_args for m in _SUBMIT_MARKERS)
            and _RETURNCODE_RE.search(text) is None)


def _mini_observation(index: int, i: int, text: str, call_id: str | None, meta: dict[str, Any]) -> Step:
    m = _RETURNCODE_RE.search(text)
    err: str | None
    if m:
        code = int(m.group(1))
        meta["returncode"] = code
        err = output_error(_RETURNCODE_RE.sub("", text))
        if code != 0:
            err = err or f"exit code {code}"
    else:
        err = next((mk for mk in _MINI_ERROR_MARKERS if mk in text), None) or output_error(text)
    return Step(index=index, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text=text,
                tool_call_id=call_id, is_error=err is not None, error_text=err, native_index=i, metadata=meta)


def _has_list_markers(head: bytes, path: Path) -> bool:
    """True when a message list shows mini-swe-agent's markers (looked for past the head, bounded)."""
    if any(m in head for m in _LIST_MARKERS):
        return True
    if len(head) < 65536:  # the head is the whole file
        return False
    try:
        with path.open("rb") as fh:
            fh.seek(len(head))
            tail = head[-64:]
            left = _LIST_SCAN_BYTES
            while left > 0:
                chunk = fh.read(min(1 << 20, left))
                if not chunk:
                    return False
                if any(m in tail + chunk for m in _LIST_MARKERS):
                    return True
                tail, left = chunk[-64:], left - len(chunk)
    except OSError:
        return False
    return False


class MiniSweAgentImporter:
    """Reads mini-swe-agent ``.traj.json`` files."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims mini-swe-agent objects, and bare message lists showing mini-swe-agent's markers.

        Objects: ``trajectory_format`` mini-swe-agent, or ``messages`` + ``info``. Lists
        (``[{"role": ...}]`` in a ``.traj.json``): ``<returncode>``, the submit echo or
        ``mswea_bash_command`` fences in the file (looked for up to 4 MiB in).
        """
        first = first_json_char(head)
        if first == "[":
            return (path.name.lower().endswith(".traj.json") and b'"role"' in head
                    and _has_list_markers(head, path))
        if first != "{":
            return False
        if b'"trajectory_format"' in head and b"mini-swe-agent" in head:
            return True
        return b'"messages"' in head and b'"info"' in head

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the one run of a ``.traj.json`` file. (a failure inside it is reported as record ``$``)."""
        yield from ctx.guarded("$", lambda: list(self._read(path, ctx))) or []

    def _read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        doc = read_json_document(path)
        layout = None
        if isinstance(doc, list):  # a bare message list (mini-swe-agent test data, older saves)
            doc, layout = {"messages": doc, "info": {}}, "message list"
        if not isinstance(doc, dict):
            raise ImportFailure(imsg("mini_not_object"))
        messages = doc.get("messages")
        if not isinstance(messages, list):
            raise ImportFailure(imsg("mini_no_messages"))
        info = as_dict(doc.get("info"))
        steps: list[Step] = []
        task = ""
        seen_task = False
        exit_extra: dict[str, Any] = {}
        submitted: str | None = None
        for i, msg in enumerate(messages):
            if not isinstance(msg, dict):
                ctx.error(f"messages[{i}]", imsg("mini_message_not_object", type=type(msg).__name__))
                continue
            role = msg.get("role")
            text = as_text(msg.get("content"))
            extra = as_dict(msg.get("extra"))
            ts = extra.get("timestamp") if isinstance(extra.get("timestamp"), str) else None
            if role == "exit":
                exit_extra = extra
                continue
            if role == "system":
                steps.append(Step(index=len(steps), agent="system", role=Role.SYSTEM, kind=StepKind.SYSTEM,
                                  text=text, timestamp=ts, native_index=i))
            elif role == "user" and not seen_task:
                seen_task = True
                task = problem_statement(text)
                steps.append(Step(index=len(steps), agent="user", role=Role.USER, kind=StepKind.USER,
                                  text=text, timestamp=ts, native_index=i))
            elif role in ("user", "tool"):
                call_id = msg.get("tool_call_id")
                obs = _mini_observation(len(steps), i, text, str(call_id) if call_id else None, {"raw_role": role})
                obs.timestamp = ts
                prev = steps[-1] if steps else None
                if prev is not None and prev.kind in (StepKind.ACTION, StepKind.TOOL_CALL):
                    obs.tool_name = prev.tool_name
                    if _is_submission(prev, text):
                        submitted = text
                steps.append(obs)
            elif role == "assistant":
                self._assistant(steps, i, msg, text, extra, ts)
            else:
                ctx.error(f"messages[{i}]", imsg("mini_unknown_role", role=repr(role)))
        exit_status = info.get("exit_status", exit_extra.get("exit_status"))
        submission = info.get("submission", exit_extra.get("submission"))
        if submitted is not None and exit_status is None:
            exit_status = "Submitted"  # what mini-swe-agent records for a run that ends this way
        if submitted is not None and submission is None:
            submission = submitted
        exit_s = str(exit_status) if exit_status is not None else None
        name = path.name
        instance_id = str(info.get("instance_id") or (name[: -len(".traj.json")] if name.endswith(".traj.json") else path.stem))
        evaluation = evaluation_beside(path, instance_id)
        outcome, raw, score = exit_outcome(exit_s, evaluation)
        meta: dict[str, Any] = {"instance_id": instance_id}
        if isinstance(doc.get("trajectory_format"), str):
            meta["trajectory_format"] = doc["trajectory_format"]
        if layout is not None:
            meta["layout"] = layout
        for key in ("exit_status", "model_stats", "mini_version"):
            if key in info:
                meta[key] = info[key]
        if evaluation is not None:
            meta["resolved"] = evaluation.resolved
            meta["evaluation_file"] = evaluation.file
        planted = planted_of(info, doc)
        if planted is not None:
            meta["planted"] = planted
        config = as_dict(info.get("config"))
        model_cfg = as_dict(config.get("model"))
        model = model_cfg.get("model_name") or model_cfg.get("name")
        label_native_steps(steps, "messages")
        yield Trajectory(
            native_id=instance_id, record="$", task=task, model=str(model) if model else None,
            framework="mini-swe-agent", outcome=outcome, outcome_raw=raw,
            outcome_source=evaluation_source(evaluation), score=score,
            final_answer=submission if isinstance(submission, str) and submission else None,
            metadata=meta, steps=steps, task_key=source_task_key(None, instance_id),
        )

    @staticmethod
    def _assistant(steps: list[Step], i: int, msg: dict[str, Any], text: str, extra: dict[str, Any],
                   ts: str | None) -> None:
        tok_in, tok_out = _usage(extra)
        calls = msg.get("tool_calls")
        if isinstance(calls, list) and calls:
            if text.strip():
                steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT, kind=StepKind.THOUGHT,
                                  text=text, timestamp=ts, tokens_in=tok_in, tokens_out=tok_out, native_index=i))
                tok_in = tok_out = None
            for call in calls:
                if not isinstance(call, dict):
                    continue
                fn = as_dict(call.get("function"))
                args = fn.get("arguments")
                args_s = args if isinstance(args, str) else (as_text(args) if args is not None else None)
                steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT, kind=StepKind.TOOL_CALL,
                                  text=args_s or "", tool_name=str(fn.get("name") or "") or None, tool_args=args_s,
                                  tool_call_id=str(call.get("id")) if call.get("id") else None, timestamp=ts,
                                  tokens_in=tok_in, tokens_out=tok_out, native_index=i))
                tok_in = tok_out = None
            return
        actions = extra.get("actions")
        commands = [a.get("command") for a in actions if isinstance(a, dict)] if isinstance(actions, list) else []
        blocks = _BASH_BLOCK_RE.findall(text)
        if len(commands) == 1 and isinstance(commands[0], str):  # mini-swe-agent 2.x parsed action
            blocks = [commands[0]]
        if len(blocks) == 1:
            steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT, kind=StepKind.ACTION,
                              text=text, tool_name="bash", tool_args=blocks[0].strip(), timestamp=ts,
                              tokens_in=tok_in, tokens_out=tok_out, native_index=i))
        else:
            meta = {"bash_blocks": len(blocks)} if blocks else {}
            steps.append(Step(index=len(steps), agent="assistant", role=Role.ASSISTANT, kind=StepKind.MESSAGE,
                              text=text, timestamp=ts, tokens_in=tok_in, tokens_out=tok_out, native_index=i,
                              metadata=meta))
