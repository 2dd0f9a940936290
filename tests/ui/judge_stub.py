"""A Judge-protocol stand-in for UI tests (the real judge is tested in tests/analyzer): a falling value curve."""

from __future__ import annotations

from typing import Any


class StubJudge:
    """Falling value curve, flat candidate scores, every step classified as failed recovery."""

    model_id = "stand-in-judge"

    def value_curve(self, trajectory: Any, progress: Any = None, cancel: Any = None) -> Any:
        """A curve falling linearly from 0.9 over the run's steps."""
        from analyzer.judge.base import ValueCurve

        n = len(trajectory.steps)
        return ValueCurve(values=[max(0.0, 0.9 - i / max(1, n)) for i in range(n)], prior=0.95, model_id=self.model_id)

    def candidate_scores(self, trajectory: Any, steps: Any) -> dict[int, float]:
        """0.5 for every candidate step."""
        return {int(s): 0.5 for s in steps}

    def classify(self, trajectory: Any, step: Any) -> dict[str, float]:
        """Failed recovery, almost surely."""
        from analyzer.taxonomy import CATEGORY_IDS

        return {c: (0.9 if c == "failed_recovery" else 0.01) for c in CATEGORY_IDS}
