"""The judge contract used by the analysis pipeline and the UI.

A judge answers short questions whose answers are read as probabilities from token
logprobs (never parsed from free text). Temperature 0, fixed seed: same input, same scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

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
        window_starts: Per value, the first step that was in context when it was computed
            (all zeros unless the run exceeded the context).
        prompt_version: Version of the prompts that produced it.
        cached: True when the curve came from the on-disk cache (then ``tokens_evaluated`` is
            the cost of the original computation).
    """

    values: list[float]
    prior: float
    clipped_steps: list[int] = field(default_factory=list)
    window_start: int = 0
    tokens_evaluated: int = 0
    model_id: str = ""
    window_starts: list[int] = field(default_factory=list)
    prompt_version: str = ""
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> ValueCurve:
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in obj.items() if k in known})


class JudgeError(Exception):
    """The judge could not answer (the model failed, or the input cannot be judged).

    The message is in plain words; callers record it and carry on without judge scores.
    """


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


class AchievedJudge(Protocol):
    """A judge that can say whether a run's final state achieves its task (the outcome estimate's cue)."""

    model_id: str

    def p_achieved(self, trajectory: Trajectory) -> float:
        """P(Yes) to "does the final state of the run achieve the task?" from a short context."""
