"""Who&When importer (failure-attribution dataset, AG2 / Magentic-One group chats).

One JSON object per task (``question``, ``question_ID``, ``level``, ``ground_truth``,
``is_correct``, ``history``, ``mistake_agent``, ``mistake_step``, ``mistake_reason``,
``system_prompt``), a JSON list of such objects, or a JSONL file with one per line.

Each ``history`` entry becomes exactly one :class:`Step` whose ``index`` equals the
entry's position in ``history`` (the gold ``mistake_step`` refers to it). The agent is the
entry's ``name`` when present (Algorithm-Generated subset), else its ``role`` (Hand-Crafted
subset, where ``role`` holds the agent name). Code-execution output is recognised by the
shape of its content (AG2's ``exitcode: N ...``, AutoGen 0.4 / Magentic-One's "The script ran
..., exit code: N", or an executor's "There is no code ..." / "No code block detected ..." reply),
never by agent name, and becomes an ``observation`` step with role ``tool``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analyzer.import_messages import imsg, itext
from analyzer.loading.jsonio import (
    as_text,
    first_json_char,
    iter_records,
)
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

_EXIT_RE = re.compile(r"\A\s*exit\s*code\s*:\s*(-?\d+)", re.IGNORECASE)
# AutoGen 0.4 / Magentic-One executors: "The script ran, then exited with an error (POSIX exit
# code: 1)", "... with Unix exit code: 1", "The script ran but produced no output to console.
# The POSIX exit code was: 0." (the exit code is on the first line).
_SCRIPT_RAN_RE = re.compile(r"\A\s*The script ran\b[^\n]*?exit code(?: was)?\s*:\s*(-?\d+)", re.IGNORECASE)
_NO_CODE_RE = re.compile(
    r"\A\s*(?:There is no code from the last \d+ messages? for me to execute"
    r"|No code blocks? (?:detected|found) in the (?:messages|content|thread)"
    r"|The code block was not confirmed by the user and so was not run)", re.IGNORECASE)
_TRACEBACK = "Traceback (most recent call last)"
_EXC_LINE_RE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))\b[:]?(.*)$")
_LABEL_KEYS = (b'"mistake_agent"', b'"question_ID"', b'"is_correct"', b'"mistake_step"')
_RULE = KeyRule(
    "Who&When",
    all_of=("history",),
    any_of=("question", "question_ID", "mistake_agent", "mistake_step", "is_correct"),
    distinctive=("history", "mistake_agent", "mistake_step", "mistake_reason", "question_ID"),
)
_CONSUMED = frozenset({
    "question", "question_ID", "level", "ground_truth", "is_correct", "history",
    "mistake_agent", "mistake_step", "mistake_reason", "system_prompt", "framework", "model",
})
_USER_ROLES = frozenset({"user", "human"})


def exit_code_of(text: str) -> int | None:
    """Exit code of a code-execution output, or None.

    AG2 writes ``exitcode: 1 (execution failed)``; AutoGen 0.4 and Magentic-One write ``The
    script ran, then exited with an error (POSIX exit code: 1)`` (or ``Unix exit code: 1``).
    """
    m = _EXIT_RE.match(text) or _SCRIPT_RAN_RE.match(text)
    return int(m.group(1)) if m else None


def looks_like_execution_output(text: str) -> bool:
    """True when the text has the shape of a code executor's reply."""
    return exit_code_of(text) is not None or _NO_CODE_RE.match(text) is not None


def error_summary(text: str, exit_code: int | None) -> str | None:
    """Short error description of a failed execution output (last exception line, or exit code)."""
    last_exc = None
    for line in text.splitlines():
        m = _EXC_LINE_RE.match(line)
        if m:
            last_exc = line.strip()
    if last_exc:
        return last_exc[:300]
    if exit_code is not None and exit_code != 0:
        return "timed out (exit code 124)" if exit_code == 124 else f"exit code {exit_code}"
    return None


def _step(i: int, entry: dict[str, Any]) -> Step:
    raw_role = entry.get("role")
    role_s = str(raw_role) if raw_role is not None else ""
    name = entry.get("name")
    agent = str(name) if isinstance(name, str) and name else role_s
    text = as_text(entry.get("content"))
    meta: dict[str, Any] = {"raw_role": raw_role} if raw_role is not None else {}
    if looks_like_execution_output(text):
        code = exit_code_of(text)
        failed = (code is not None and code != 0) or _TRACEBACK in text
        if code is not None:
            meta["exit_code"] = code
        return Step(index=i, agent=agent, role=Role.TOOL, kind=StepKind.OBSERVATION, text=text,
                    is_error=failed, error_text=error_summary(text, code) if failed else None,
                    native_index=i, native_step_id=f"history[{i}]", metadata=meta)
    low = role_s.strip().lower()
    has_name = isinstance(name, str) and bool(name) and name.strip().lower() not in _USER_ROLES
    if low == "system":
        role, kind = Role.SYSTEM, StepKind.SYSTEM
    elif low in _USER_ROLES:
        # In AG2 group chats every other agent appears with role "user": a named entry is an
        # agent's message; an unnamed one is the human/user.
        role, kind = Role.USER, (StepKind.MESSAGE if has_name else StepKind.USER)
    elif low == "assistant":
        role, kind = Role.ASSISTANT, StepKind.MESSAGE
    else:
        # role holds an agent name (Hand-Crafted subset), e.g. "Orchestrator (thought)".
        role = Role.ASSISTANT
        kind = StepKind.THOUGHT if "(thought)" in low else StepKind.MESSAGE
    return Step(index=i, agent=agent, role=role, kind=kind, text=text, native_index=i,
                native_step_id=f"history[{i}]", metadata=meta)


def _outcome(value: Any) -> Outcome:
    if isinstance(value, bool):
        return Outcome.SUCCESS if value else Outcome.FAILURE
    if isinstance(value, (int, float)):
        return Outcome.SUCCESS if value > 0 else Outcome.FAILURE
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "1", "correct"):
            return Outcome.SUCCESS
        if low in ("false", "no", "0", "incorrect"):
            return Outcome.FAILURE
    return Outcome.UNKNOWN


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else as_text(value)


def to_trajectory(obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
    """Convert one Who&When record; report problems through ``ctx`` and return None.

    Args:
        obj: The parsed record.
        record: Its locator (``$``, ``line 3``, ``[2]``).
        ctx: Import context for per-record errors.
    """
    if not isinstance(obj, dict):
        ctx.error(record, imsg("ww_not_object"))
        return None
    history = obj.get("history")
    if not isinstance(history, list):
        ctx.error(record, imsg("ww_no_history" if history is None else "ww_history_not_list"))
        return None
    steps: list[Step] = []
    for i, entry in enumerate(history):
        if not isinstance(entry, dict):
            ctx.error(record, imsg("ww_entry_not_object", index=i))
            return None
        steps.append(_step(i, entry))
    meta: dict[str, Any] = {k: v for k, v in obj.items() if k not in _CONSUMED}
    prompts = obj.get("system_prompt")
    if isinstance(prompts, dict):
        meta["agents"] = list(prompts.keys())
        meta["system_prompt"] = prompts
    elif prompts is not None:
        meta["system_prompt"] = prompts
    raw_step = obj.get("mistake_step")
    gold_step = _int_or_none(raw_step)
    if raw_step is not None and gold_step is None:
        meta["mistake_step_raw"] = raw_step  # kept, not silently dropped, when it is not an integer
    correct = obj.get("is_correct")
    level = obj.get("level")
    native = obj.get("question_ID")
    return Trajectory(
        native_id=str(native) if native is not None else None,
        record=record,
        task=as_text(obj.get("question")),
        model=_opt_str(obj.get("model")),
        framework=_opt_str(obj.get("framework")) or "ag2",
        outcome=_outcome(correct),
        outcome_raw=None if correct is None else str(correct),
        ground_truth=_opt_str(obj.get("ground_truth")),
        gold_decisive_step=gold_step,
        gold_decisive_agent=_opt_str(obj.get("mistake_agent")),
        gold_reason=_opt_str(obj.get("mistake_reason")),
        task_family=None if level is None else str(level),
        metadata=meta,
        steps=steps,
    )


class WhoAndWhenImporter:
    """Reads Who&When task files (JSON object, list of objects, or JSONL)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON/JSONL whose head has ``history`` plus a Who&When label key or ``question``."""
        if first_json_char(head) not in ("{", "["):
            return False
        if b'"history"' not in head:
            return False
        return any(k in head for k in _LABEL_KEYS) or b'"question"' in head

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims files whose first record has a ``history`` list plus ``question`` or a label key."""
        return _RULE.matches(shape.record_keys) and shape.kind("history") in ("list", None)

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a record that looks like Who&When lacks (``history``, the label keys)."""
        if _RULE.matches(shape.record_keys):
            kind = shape.kind("history")
            if kind in ("list", None):
                return None
            return 0.9, itext("near_ww_history_an" if kind == "object" else "near_ww_history_a", kind=kind)
        return _RULE.near_miss(shape.record_keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per Who&When record."""
        for record, obj in iter_records(path, ctx, imsg("ww_shape")):
            t = ctx.guarded(record, to_trajectory, obj, record, ctx)
            if t is not None:
                yield t
