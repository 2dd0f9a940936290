"""The judge contract used by the analysis pipeline and the UI.

A judge answers short questions whose answers are read as probabilities from token
logprobs (never parsed from free text). Temperature 0, fixed seed: same input, same scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from analyzer.jobs import CancelToken, Progress
from analyzer.schema.models import Trajectory


@dataclass
class ValueCurve:
    """Judge value curve of one run.

    Attributes:
        values: V(t) for t = 0..N-1: P(the run still succeeds) after step t.
        prior: V before any step (after the task statement).
        clipped_steps: Steps whose text was clipped to the per-step token budget.
        window_start: First step kept in context when the run exceeded the context (0 = all).
        tokens_evaluated: Tokens the model actually evaluated (cost measure).
        model_id: Model that produced it.
    """

    values: list[float]
    prior: float
    clipped_steps: list[int] = field(default_factory=list)
    window_start: int = 0
    tokens_evaluated: int = 0
    model_id: str = ""


class Judge(Protocol):
    """A local judge model."""

    model_id: str

    def value_curve(self, trajectory: Trajectory, progress: Progress | None = None,
                    cancel: CancelToken | None = None) -> ValueCurve:
        """Incremental (KV-cache reusing) value curve of a run."""

    def candidate_scores(self, trajectory: Trajectory, steps: Sequence[int]) -> dict[int, float]:
        """P("this step is the decisive mistake") for each candidate step, from short focused contexts."""

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        """Distribution over taxonomy category ids for the failure at ``step``."""
