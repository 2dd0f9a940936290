"""Error accumulation / self-conditioning: an early mistake carried forward.

Three signals: (1) the error rate of observations rises after the first error (at least two
later errors, and a later error rate above the earlier one; errors the environment explains,
such as rate limits and timeouts, do not count) — the finding points at the
decision that produced the first error; (2) a value first stated by an agent without any
supporting observation is reused by at least two later agent steps; (3) in a failed run, a
decision that works from an unverified assumption (``ASSUMPTION_RE``: "I'll take them as
ms", "presumably" ...) is followed by tool output whose new values reach the final answer,
with no later step revising the approach: the assumption was carried to the end.
"""

from __future__ import annotations

from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import (
    ASSUMPTION_RE,
    ENV_STRONG_RE,
    REVISION_RE,
    code_blocks,
    match_quote,
    quote,
    significant_numbers,
    strip_code,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "error_accumulation"


def _agent_error(s: Step) -> bool:
    """An error observation not explained by the environment (rate limits, timeouts ...)."""
    return s.is_error and not ENV_STRONG_RE.search(f"{s.error_text or ''}\n{s.text[:4000]}")


def _error_rate_finding(trajectory: Trajectory, t: dict[str, list[Any]]) -> Finding | None:
    steps = trajectory.steps
    obs = [s for s in steps if t["observation"][s.index]]
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
    src = t["source_decision"][first.index]
    at = src if src is not None else first.index
    score = min(0.9, 0.35 + 0.1 * later_errors + 0.2 * rate_after)
    return make_finding(
        trajectory, at, Category.ERROR_ACCUMULATION, score, SOURCE,
        f"the first error (step {first.index}) is followed by {later_errors} more errors "
        f"({rate_after:.0%} of later tool outputs fail)",
        evidence=(at, errs[-1].index), evidence_quote=quote(first.error_text or first.text, 160))


def _reused_value_findings(trajectory: Trajectory, t: dict[str, list[Any]]) -> list[Finding]:
    steps = trajectory.steps
    supported = significant_numbers(trajectory.task)
    introduced: dict[str, int] = {}
    uses: dict[str, list[int]] = {}
    for s in steps:
        if t["observation"][s.index] or not t["decision"][s.index]:
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
            trajectory, at, Category.ERROR_ACCUMULATION, min(0.8, 0.4 + 0.1 * len(listed)), SOURCE,
            f"value(s) {', '.join(sorted(listed)[:5])} stated at step {at} without a supporting observation "
            f"are reused by later steps",
            evidence=(at, last)))
    return out


def _outputs_of_next_action(steps: list[Step], i: int, t: dict[str, list[Any]]) -> list[Step]:
    """Tool outputs answering the action that carries out decision ``i`` (itself, or the next acting steps)."""
    out: list[Step] = []
    for s in steps[i + 1:]:
        if t["observation"][s.index]:
            out.append(s)
        elif t["decision"][s.index] and (out or not (t["acting"][s.index] or t["acting"][steps[i].index])):
            break
    return out


def _carried_assumption_findings(trajectory: Trajectory, t: dict[str, list[Any]]) -> list[Finding]:
    steps = trajectory.steps
    if trajectory.outcome != Outcome.FAILURE:
        return []
    decisions = [s for s in steps if t["decision"][s.index]]
    if len(decisions) < 2:
        return []
    last = decisions[-1]
    final_nums = significant_numbers(f"{strip_code(last.text)}\n{trajectory.final_answer or ''}")
    if not final_nums:
        return []
    seen = significant_numbers(trajectory.task)
    out: list[Finding] = []
    for s in steps:
        if s.index < last.index and t["decision"][s.index] and ASSUMPTION_RE.search(strip_code(s.text)):
            outputs = [o for o in _outputs_of_next_action(steps, s.index, t) if not o.is_error]
            produced = set().union(*(significant_numbers(o.text) for o in outputs)) - seen if outputs else set()
            carried = sorted(produced & final_nums)
            revised = any(REVISION_RE.search(strip_code(d.text)) for d in decisions if s.index < d.index < last.index)
            if carried and not revised:
                out.append(make_finding(
                    trajectory, s.index, Category.ERROR_ACCUMULATION, min(0.75, 0.55 + 0.05 * len(carried)), SOURCE,
                    f"works from an unverified assumption; the value(s) {', '.join(carried[:5])} it produced "
                    f"reach the final answer (step {last.index}) unrevised",
                    evidence=(s.index, last.index), evidence_quote=match_quote(s.text, ASSUMPTION_RE)))
                break
        seen |= significant_numbers(s.text)
    return out


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on the step whose mistake later steps build on."""
    t = columns_of(table_for(trajectory, ctx))
    out = _reused_value_findings(trajectory, t) + _carried_assumption_findings(trajectory, t)
    f = _error_rate_finding(trajectory, t)
    if f is not None:
        out.append(f)
    return out
