"""Error accumulation / self-conditioning: an early mistake carried forward.

Two signals: (1) the error rate of observations rises after the first error (at least two
later errors, and a later error rate above the earlier one; errors the environment explains,
such as rate limits and timeouts, do not count) — the finding points at the
decision that produced the first error; (2) a value first stated by an agent without any
supporting observation is reused by at least two later agent steps.
"""

from __future__ import annotations

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import (
    ENV_STRONG_RE,
    code_blocks,
    is_decision,
    is_observation,
    quote,
    significant_numbers,
    strip_code,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.taxonomy import Category

SOURCE = "error_accumulation"


def _agent_error(s: Step) -> bool:
    """An error observation not explained by the environment (rate limits, timeouts ...)."""
    return s.is_error and not ENV_STRONG_RE.search(f"{s.error_text or ''}\n{s.text[:4000]}")


def _error_rate_finding(trajectory: Trajectory) -> Finding | None:
    steps = trajectory.steps
    obs = [s for s in steps if is_observation(s)]
    errs = [s for s in obs if _agent_error(s)]
    if len(errs) < 3:
        return None
    first = errs[0]
    before = [s for s in obs if s.index < first.index]
    after = [s for s in obs if s.index > first.index]
    later_errors = sum(1 for s in after if _agent_error(s))
    rate_after = later_errors / len(after) if after else 0.0
    rate_before = (sum(1 for s in before if _agent_error(s)) / len(before)) if before else 0.0
    if later_errors < 2 or rate_after <= rate_before or rate_after < 0.4:
        return None
    src = next((s for s in reversed(steps[:first.index]) if is_decision(s)), None)
    at = src.index if src is not None else first.index
    score = min(0.9, 0.35 + 0.1 * later_errors + 0.2 * rate_after)
    return make_finding(
        trajectory, at, Category.ERROR_ACCUMULATION, score, SOURCE,
        f"the first error (step {first.index}) is followed by {later_errors} more errors "
        f"({rate_after:.0%} of later tool outputs fail)",
        evidence=(at, errs[-1].index), evidence_quote=quote(first.error_text or first.text, 160))


def _reused_value_findings(trajectory: Trajectory) -> list[Finding]:
    steps = trajectory.steps
    supported = significant_numbers(trajectory.task)
    introduced: dict[str, int] = {}
    uses: dict[str, list[int]] = {}
    for s in steps:
        if is_observation(s) or not is_decision(s):
            supported |= significant_numbers(s.text)
            continue
        prose = strip_code(s.text)
        nums = significant_numbers(prose) | set().union(*(significant_numbers(c) for c in code_blocks(s.text)))
        for n in nums:
            if n in introduced:
                uses.setdefault(n, []).append(s.index)
            elif n not in supported:
                introduced[n] = s.index
    by_step: dict[int, list[str]] = {}
    for n, at in introduced.items():
        if len(uses.get(n, [])) >= 2:
            by_step.setdefault(at, []).append(n)
    out = []
    for at, listed in sorted(by_step.items()):
        last = max(max(uses[n]) for n in listed)
        out.append(make_finding(
            trajectory, at, Category.ERROR_ACCUMULATION, min(0.8, 0.4 + 0.1 * len(nums)), SOURCE,
            f"value(s) {', '.join(sorted(listed)[:5])} stated at step {at} without a supporting observation "
            f"are reused by later steps",
            evidence=(at, last)))
    return out


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on the step whose mistake later steps build on."""
    out = _reused_value_findings(trajectory)
    f = _error_rate_finding(trajectory)
    if f is not None:
        out.append(f)
    return out
