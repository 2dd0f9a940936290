"""Planning error: the first agent decision commits to an approach that later falls apart.

The first decision after the task briefing is where a plan or approach is chosen. It is
flagged when the run did not succeed and later steps show the approach failing: errors in
later tool output and agents revising or abandoning the approach. When the pipeline passes
a judge (``ctx.settings["judge"]``), its probability for ``planning_error`` on that step is
blended in.
"""

from __future__ import annotations

from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import REVISION_RE, is_termination_only, match_quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "planning_error"


def _judge_probability(judge: Any, trajectory: Trajectory, step: int) -> float | None:
    try:
        dist = judge.classify(trajectory, step)
        return float(dist.get(Category.PLANNING_ERROR.value, 0.0))
    except Exception:  # the judge is optional here; the rule-based score stands
        return None


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """At most one finding, on the first decision after the briefing."""
    if trajectory.outcome == Outcome.SUCCESS:
        return []
    steps = trajectory.steps
    t = columns_of(table_for(trajectory, ctx))
    first = next((s for s in steps if t["decision"][s.index] and not t["briefing"][s.index]
                  and not is_termination_only(s.text)), None)
    if first is None:
        return []
    later = steps[first.index + 1:]
    errors = [s.index for s in later if t["observation"][s.index] and s.is_error]
    revisions = [s.index for s in later if t["decision"][s.index] and REVISION_RE.search(s.text)]
    if not errors and not revisions:
        return []
    score = 0.3 + 0.15 * min(len(errors), 2) + 0.1 * min(len(revisions), 2)
    parts = []
    if errors:
        parts.append(f"{len(errors)} later tool error(s) (first at step {errors[0]})")
    if revisions:
        parts.append(f"the approach is revised at step(s) {', '.join(map(str, revisions[:3]))}")
    judge = ctx.settings.get("judge")
    if judge is not None:
        p = _judge_probability(judge, trajectory, first.index)
        if p is not None:
            score = 0.5 * score + 0.5 * p
            parts.append(f"judge P(planning_error) = {p:.2f}")
    quote_src = steps[revisions[0]].text if revisions else first.text
    return [make_finding(
        trajectory, first.index, Category.PLANNING_ERROR, score, SOURCE,
        f"step {first.index} commits to the approach; then " + "; ".join(parts),
        evidence=(first.index, (revisions or errors)[-1]),
        evidence_quote=match_quote(quote_src, REVISION_RE) if revisions else None)]
