"""Shared helpers of the signal detectors (plugins with ``phase = "signals"``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from analyzer.detection.text import code_blocks, strip_code
from analyzer.schema.models import Step

CHARS_PER_TOKEN = 4
"""Token estimate where a file has no counts: characters / 4 (documented in docs/detectors.md)."""


def est_tokens(text: str) -> int:
    """Estimated tokens of a text (chars / 4, rounded up)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


ACTION_CHARS = 8000
"""What a step runs is read up to this many characters (the signal detectors' regexes stay cheap)."""


@lru_cache(maxsize=4096)
def _action_text(tool_name: str, tool_args: str, text: str) -> str:
    blocks = code_blocks(text)
    parts = [tool_name, tool_args, *blocks]
    if not any(parts):
        parts = [text]
    return "\n".join(p for p in parts if p)[:ACTION_CHARS]


def action_text(step: Step) -> str:
    """What a decision step runs: tool name, arguments and code blocks; its text only when it has none of them.

    The prose around a tool call is what the agent says, not what it runs. Cached by content,
    since several signal detectors ask for the same steps.
    """
    return _action_text(step.tool_name or "", step.tool_args or "", step.text)


@lru_cache(maxsize=4096)
def prose(text: str) -> str:
    """A step's text without its code blocks (cached by content)."""
    return strip_code(text)


@lru_cache(maxsize=4096)
def normalised(text: str) -> str:
    """Whitespace-collapsed text (cached by content; ``str.split`` is much faster than a regex here)."""
    return " ".join(text.split())


def has_traceback(text: str) -> bool:
    """True for error output: a traceback, an ``...Error:``/``...Exception:`` line or a non-zero exit code.

    Plain substring tests first (C speed); the regex only confirms a candidate.
    """
    if "Traceback (most recent call last)" in text:
        return True
    if ("Error:" in text or "Exception:" in text) and _ERROR_LINE_RE.search(text):
        return True
    low = text[:20000].lower()
    return ("exit code" in low or "exitcode" in low) and bool(_EXIT_RE.search(low))


def observation_after(steps: Sequence[Step], i: int, t: Mapping[str, Sequence[Any]]) -> Step | None:
    """The first observation after decision ``i`` (before the next decision).

    ``t`` holds the run's step-signal columns (:func:`analyzer.signals.steps.columns_of`).
    """
    for s in steps[i + 1:]:
        if t["observation"][s.index]:
            return s
        if t["decision"][s.index]:
            return None
    return None


def observation_before(steps: Sequence[Step], i: int, t: Mapping[str, Sequence[Any]]) -> Step | None:
    """The observation a decision ``i`` follows (the latest one since the previous decision).

    ``t`` holds the run's step-signal columns (:func:`analyzer.signals.steps.columns_of`).
    """
    for s in reversed(steps[:i]):
        if t["observation"][s.index]:
            return s
        if t["decision"][s.index]:
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
    r"(?:^|[\"'\s;&|(])(?:cat|less|more|head|tail|nl|sed\s+-n|grep|rg|find|ls|wc|read_file|view|open_file|"
    r"str_replace_editor\s+view)\b|\bopen\([^)]*\)\.read\(|\bread_text\(|\bpd\.read_\w+\(",
    re.IGNORECASE | re.MULTILINE)
"""Actions that only read."""

_ERROR_LINE_RE = re.compile(r"[A-Za-z](?:Error|Exception): ")
_EXIT_RE = re.compile(r"exit ?code[: ]+[1-9]")


def clear_caches() -> None:
    """Forget the cached per-text results (benchmarks clear them between rounds)."""
    for fn in (_action_text, prose, normalised):
        fn.cache_clear()
