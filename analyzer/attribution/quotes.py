"""Verbatim quotes of trace text: sentences with offsets, the most specific sentence, clipping.

Every quote a rationale shows is cut from one line of a step's text, error text or tool
arguments, so it is trace text character for character; a shortened quote marks the cut
with an ellipsis.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from analyzer.detection.text import (
    ASSUMPTION_RE,
    DONE_RE,
    ENV_RESOURCE_RE,
    ENV_STRONG_RE,
    RESULT_CLAIM_RE,
    RETRIEVAL_CLAIM_RE,
    VERIFY_RE,
    content_words,
    echoes_prompt,
    normalise_number,
)
from analyzer.schema.models import Step

QUOTE_LIMIT = 200
"""Longest quote, in characters (ellipsis marks included)."""

PRIMARY_QUOTE = 160
"""Length of the quote of the main evidence."""

_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_DECISION_RE = re.compile(
    r"\b(I will|I'll|we will|we'll|let's|let me|I am going to|I'm going to|we should|we need to|I need to|"
    r"plan|decid\w*|choos\w*|the answer is|answer:|therefore|thus|conclu\w+|instead|so the|will use)\b",
    re.IGNORECASE)
_CALL_RE = re.compile(r"\b[A-Za-z_][\w.]*\(")
_ERROR_LINE_RE = re.compile(
    r"(\w*(?:Error|Exception)\b|\berror\b|\bfailed\b|\bfailure\b|\bdenied\b|\bnot found\b|"
    r"\bexit ?code:? ?[1-9]|\bexitcode: [1-9]|\btimed? ?out\b)", re.IGNORECASE)
_EXCEPTION_RE = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
_BOILERPLATE_RE = re.compile(r"^(?:exit ?code: ?-?\d+ \([^)]*\)|code output:?|output:?|traceback \(most recent call last\):)$",
                             re.IGNORECASE)
_CLAIM_RES = (RETRIEVAL_CLAIM_RE, VERIFY_RE, DONE_RE, RESULT_CLAIM_RE, ASSUMPTION_RE)
NUMBER_TOKEN_RE = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
"""A number token as :func:`analyzer.detection.text.numbers` reads them (with its position)."""
_MIN_QUOTE = 15


@dataclass(frozen=True)
class Segment:
    """A sentence or line of one step's text.

    Attributes:
        step: Step index.
        source: Which field of the step (``text``, ``error_text``, ``tool_args``).
        start: Offset of the first character in that field.
        end: Offset after the last character.
        text: The characters (verbatim).
        in_code: True inside a fenced code block.
    """

    step: int
    source: str
    start: int
    end: int
    text: str
    in_code: bool = False


def _field(step: Step, source: str) -> str:
    return (step.text if source == "text" else step.error_text if source == "error_text" else step.tool_args) or ""


def segments(step: Step, source: str = "text") -> list[Segment]:
    """Sentences (within lines) of one field of a step, with their offsets, whitespace trimmed."""
    text = _field(step, source)[:50000]
    code = [(m.start(), m.end()) for m in _FENCE_RE.finditer(text)]
    out: list[Segment] = []
    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        if not line.strip():
            continue
        cuts = [0, *(m.end() for m in _SENTENCE_END_RE.finditer(line)), len(line)]
        for a, b in pairwise(cuts):
            piece = line[a:b]
            lead = len(piece) - len(piece.lstrip())
            piece = piece.strip()
            if not piece:
                continue
            s = line_start + a + lead
            in_code = any(c0 <= s < c1 for c0, c1 in code)
            out.append(Segment(step.index, source, s, s + len(piece), piece, in_code))
    return out


def clip(text: str, focus: int = 0, limit: int = PRIMARY_QUOTE) -> str:
    """A verbatim excerpt of one line of text around ``focus``, at most ``limit`` characters.

    Cut at word boundaries where possible; a cut side gets an ellipsis (counted in the limit).
    """
    limit = max(_MIN_QUOTE + 2, min(limit, QUOTE_LIMIT))
    if len(text) <= limit:
        return text
    room = limit - 2
    start = max(0, min(focus - room // 3, len(text) - room))
    end = start + room
    if start > 0:
        sp = text.find(" ", start, start + 20)
        if sp != -1 and end + (sp + 1 - start) <= len(text):
            end += sp + 1 - start
            start = sp + 1
    if end < len(text):
        sp = text.rfind(" ", end - 25, end)
        if sp > start + _MIN_QUOTE:
            end = sp
    piece = text[start:end].strip()
    return ("…" if start > 0 else "") + piece + ("…" if end < len(text) else "")


def specificity(seg: Segment) -> float:
    """How much a sentence says: claims, numbers, decisions and calls count; boilerplate does not."""
    t = seg.text
    if _BOILERPLATE_RE.match(t.strip()):
        return -5.0
    score = 0.0
    if any(r.search(t) for r in _CLAIM_RES):
        score += 3.0
    if any(significant(n) for n in NUMBER_TOKEN_RE.findall(t)):
        score += 2.0
    if _DECISION_RE.search(t):
        score += 2.0
    if _CALL_RE.search(t):
        score += 1.0
    if len(t) < 20:
        score -= 2.0
    if seg.in_code:
        score -= 1.5
    return score + min(len(content_words(t)), 12) / 12.0


def significant(token: str) -> bool:
    """True for a number token that carries a claim (``|x| >= 10`` or fractional)."""
    n = normalise_number(token)
    if n is None:
        return False
    v = float(n)
    return abs(v) >= 10 or not v.is_integer()


def key_segment(step: Step, boilerplate: frozenset[str] = frozenset()) -> Segment | None:
    """The step's most specific sentence (first of equals); None when the step has no text.

    Sentences in ``boilerplate`` (:func:`recurring_prompt_text`) are taken only when the step
    has nothing else.
    """
    segs = [s for s in segments(step) if len(s.text) >= 3]
    if not segs:
        segs = [s for src in ("error_text", "tool_args") for s in segments(step, src) if len(s.text) >= 3]
    if not segs:
        return None
    return max(segs, key=lambda s: (s.text not in boilerplate, specificity(s), -s.start))


def recurring_prompt_text(steps: Sequence[Step], echoes: Sequence[bool] | None = None) -> frozenset[str]:
    """Sentences that recur in two or more different logged prompts of a run.

    A system that logs each model call's whole prompt as the agent's message (a step that
    :func:`~analyzer.detection.text.echoes_prompt`) repeats its instructions in every prompt
    ("Pay close attention to the Example provided", the output format); what differs between
    the prompts (the goal, the plan, the tool state) is what a quote should show. Identical
    prompts count once, so a prompt re-sent unchanged does not make its own goal boilerplate.
    Empty for runs that log no prompts. ``echoes`` gives each step's ``echoes_prompt`` (the
    step-signal table's column), so that it is not evaluated again.
    """
    prompts: dict[str, Step] = {}
    for k, st in enumerate(steps):
        if echoes[k] if echoes is not None else echoes_prompt(st):
            prompts.setdefault(st.text, st)
    counts: Counter[str] = Counter()
    for st in prompts.values():
        counts.update({seg.text for seg in segments(st)})
    return frozenset(t for t, c in counts.items() if c >= 2)


def _error_weight(text: str) -> int:
    w = 0
    if _EXCEPTION_RE.search(text):
        w += 3
    if ENV_STRONG_RE.search(text) or ENV_RESOURCE_RE.search(text):
        w += 3
    if _ERROR_LINE_RE.search(text):
        w += 1
    if re.fullmatch(r"\W*(?:\(?[^\s]*https?://\S+\)?)\W*", text) or text.lower().startswith("(background on"):
        w -= 3
    return w


def error_segment(step: Step) -> Segment | None:
    """The line of an error output that names the error.

    An exception line wins (the last one: a traceback ends there), then an infrastructure
    error (the first one: a status line comes first), then any line that mentions an error.
    """
    for src in ("text", "error_text"):
        segs = [s for s in segments(step, src) if not _BOILERPLATE_RE.match(s.text) and len(s.text) >= 8]
        scored = [(w, s) for s in segs if (w := _error_weight(s.text)) > 0]
        if not scored:
            continue
        top = max(w for w, _ in scored)
        best = [s for w, s in scored if w == top]
        return best[-1] if _EXCEPTION_RE.search(best[0].text) else best[0]
    return key_segment(step)


def locate(step: Step, needle: str) -> Segment | None:
    """Find a (possibly whitespace-collapsed, shortened, lower-cased) quote back in a step.

    Returns:
        The most specific sentence of the step's text (or error text / tool arguments) that
        the quote covers, or None when the quote is not trace text of this step.
    """
    words = needle.replace("…", " ").split()[:25]
    if len(" ".join(words)) < 8:
        return None
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    for src in ("text", "error_text", "tool_args"):
        text = _field(step, src)
        m = pattern.search(text[:50000])
        if m is None:
            continue
        segs = segments(step, src)
        inside = [s for s in segs if s.end > m.start() and s.start < m.end()]
        if inside:
            return max(inside, key=lambda s: (specificity(s), -s.start))
    return None


def is_error_output(step: Step) -> bool:
    """True for an observation that reports an error.

    Flagged so, a traceback, a non-zero exit, or an infrastructure error in its first lines
    (a number like 503 deep in a data dump is not one).
    """
    if step.is_error:
        return True
    if re.search(r"Traceback \(most recent call last\)|exit ?code:? ?[1-9]", step.text[:4000], re.IGNORECASE):
        return True
    head = step.text[:300]
    return bool(ENV_STRONG_RE.search(head) or ENV_RESOURCE_RE.search(head))
