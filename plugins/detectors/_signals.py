"""Shared helpers of the signal detectors (plugins with ``phase = "signals"``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyzer.detection.text import code_blocks, is_decision, is_observation
from analyzer.schema.models import Step

CHARS_PER_TOKEN = 4
"""Token estimate where a file has no counts: characters / 4 (documented in docs/detectors.md)."""


def est_tokens(text: str) -> int:
    """Estimated tokens of a text (chars / 4, rounded up)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def action_text(step: Step) -> str:
    """What a decision step runs: tool name, arguments and code blocks; its text only when it has none of them.

    The prose around a tool call is what the agent says, not what it runs.
    """
    blocks = code_blocks(step.text)
    parts = [step.tool_name or "", step.tool_args or "", *blocks]
    if not any(parts):
        parts = [step.text]
    return "\n".join(p for p in parts if p)


def observation_after(steps: Sequence[Step], i: int) -> Step | None:
    """The first observation after decision ``i`` (before the next decision)."""
    for s in steps[i + 1:]:
        if is_observation(s):
            return s
        if is_decision(s):
            return None
    return None


def observation_before(steps: Sequence[Step], i: int) -> Step | None:
    """The observation a decision ``i`` follows (the latest one since the previous decision)."""
    for s in reversed(steps[:i]):
        if is_observation(s):
            return s
        if is_decision(s):
            return None
    return None


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of ys against xs (None for fewer than 3 points or no spread)."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 0:
        return None
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx, 4)


EDIT_RE = re.compile(
    r"\b(?:sed\s+-i|apply_patch|git\s+apply|git\s+checkout|patch\s+-p|str_replace(?:_editor)?\s+(?:str_replace|create|insert)|"
    r"str_replace\b|edit_file|write_file|create_file|cat\s*>+\s*\S+|tee\s+\S+|echo\s[^\n]*>+\s*\S+|mv\s|cp\s|rm\s|"
    r"pip\s+install|open\([^)]*['\"][wa]\+?['\"]|\.write\(|to_csv\(|write_text\()",
    re.IGNORECASE)
"""Actions that may change files or the environment (a later read or re-run may then differ)."""

READ_RE = re.compile(
    r"^\s*(?:cat|less|more|head|tail|nl|sed\s+-n|grep|rg|find|ls|wc|read_file|view|open_file|"
    r"str_replace_editor\s+view)\b|\bopen\([^)]*\)\.read\(|\bread_text\(|\bpd\.read_\w+\(",
    re.IGNORECASE | re.MULTILINE)
"""Actions that only read."""

TRACEBACK_RE = re.compile(r"Traceback \(most recent call last\)|\b\w+Error:|\bexit ?code[: ]+[1-9]", re.IGNORECASE)
"""Error outputs (tracebacks, exceptions, non-zero exits)."""
