"""Hallucination: claims of results, facts or numbers with no supporting observation.

An agent step is suspicious when it states significant numbers that appear neither in the
task nor in any earlier step, especially when it says they were retrieved/found; when it
works from assumed, placeholder or simulated data; or when it reports an execution result
(tests passed, a command returned ok) that no tool output since its last action shows.
"""

from __future__ import annotations

import re

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import (
    ASSUMPTION_RE,
    RESULT_CLAIM_RE,
    RETRIEVAL_CLAIM_RE,
    asserted,
    match_quote,
    significant_numbers,
    strip_code,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "hallucination"


_SUPPORT: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pass", re.compile(r"\b[1-9]\d* passed|\bpass(?:ed|es)?\b|\bOK\b")),
    ("exit", re.compile(r"exit\s*(?:code|status)?\s*:?\s*0\b|returncode\s*[:=]?\s*0\b")),
    ("", re.compile(r"\b(?:ok|success(?:ful)?|succeeded|works?|200)\b", re.IGNORECASE)),
)


def _supported(claim: str, observations: list[str]) -> bool:
    """True when a non-error tool output since the last action shows a result like the claimed one."""
    low = claim.lower()
    pattern = next(p for key, p in _SUPPORT if key in low)
    return any(pattern.search(o) for o in observations)


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on agent steps whose claims no observation supports."""
    t = columns_of(table_for(trajectory, ctx))
    seen = significant_numbers(trajectory.task)
    out: list[Finding] = []
    recent_obs: list[str] = []  # tool output since the last acting step
    for s in trajectory.steps:
        if t["observation"][s.index] and not s.is_error:
            recent_obs.append(s.text[:20000])
        nums = significant_numbers(s.text)
        if t["decision"][s.index]:
            prose = strip_code(s.text)
            new = sorted(significant_numbers(prose) - seen)
            new_code = sorted(nums - seen - set(new))
            claims = bool(RETRIEVAL_CLAIM_RE.search(prose))
            assumes = bool(ASSUMPTION_RE.search(s.text))
            score = 0.0
            why = ""
            if len(new) >= 2 and claims:
                score, why = 0.55 + 0.05 * min(len(new), 6), "states results no earlier observation contains"
            elif len(new) >= 4:
                score, why = 0.4 + 0.03 * min(len(new), 10), "states many numbers no earlier observation contains"
            if assumes and (new or new_code):
                score = max(score, 0.5) + 0.15
                why = (why + "; " if why else "") + "works from assumed/placeholder data"
            result = asserted(RESULT_CLAIM_RE, prose)
            if result and not _supported(result.group(0), recent_obs):
                score = max(score, 0.6) + (0.1 if score else 0.0)
                why = (why + "; " if why else "") + f"reports a result ({result.group(0)!r}) no tool output shows"
                assumes = False
            if score:
                listed = ", ".join((new or new_code)[:5])
                out.append(make_finding(
                    trajectory, s.index, Category.HALLUCINATION, score, SOURCE,
                    f"{why}" + (f" (unsupported: {listed})" if listed else ""),
                    evidence_quote=match_quote(s.text, ASSUMPTION_RE if assumes else RETRIEVAL_CLAIM_RE)))
            if t["acting"][s.index]:
                recent_obs = []
        seen |= nums
    return out
