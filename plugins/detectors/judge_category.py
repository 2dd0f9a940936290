"""Judge-based category classification of the decisive step (runs after attribution).

Reads ``ctx.settings["judge"]`` (an object with ``classify(trajectory, step)`` returning a
distribution over taxonomy ids) and ``ctx.settings["decisive_step"]``; without either it
does nothing. The finding carries the judge's most probable category and its probability.
"""

from __future__ import annotations

from analyzer.detection.helpers import make_finding
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.taxonomy import CATEGORY_IDS, Category

SOURCE = "judge_category"


class JudgeCategory:
    """Detector object (phase ``decisive``): classify the decisive step with the judge."""

    phase = "decisive"

    def __call__(self, trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
        """One finding on the decisive step, or none without a judge."""
        judge = ctx.settings.get("judge")
        step = ctx.settings.get("decisive_step")
        if judge is None or not isinstance(step, int) or not 0 <= step < len(trajectory.steps):
            return []
        dist = {k: float(v) for k, v in judge.classify(trajectory, step).items() if k in CATEGORY_IDS}
        if not dist:
            return []
        best = max(dist, key=lambda k: dist[k])
        top = sorted(dist.items(), key=lambda kv: -kv[1])[:3]
        model = getattr(judge, "model_id", "judge")
        return [make_finding(
            trajectory, step, Category(best), dist[best], SOURCE,
            f"{model} classifies the decisive step as {best} ("
            + ", ".join(f"{k} {v:.2f}" for k, v in top) + ")")]
