"""Trivial baselines of the attribution evaluation, computed on the same records.

They use only step order and step kinds (never agent names): always step 0; always step 1;
the first step after step 0 that is an agent decision (i.e. not tool output).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from analyzer.detection.text import is_decision
from analyzer.evaluation.scoring import Prediction
from analyzer.schema.models import Trajectory


def _at(t: Trajectory, step: int | None) -> Prediction:
    name = Path(t.source_file).name
    if step is None or not 0 <= step < len(t.steps):
        return Prediction(name, None, None)
    s = t.steps[step]
    return Prediction(name, step, s.agent or str(s.role), (step,))


def always_step(k: int) -> Callable[[Trajectory], Prediction]:
    """Baseline predicting step ``k`` (and its agent)."""
    return lambda t: _at(t, k)


def first_decision_after_start(t: Trajectory) -> Prediction:
    """The first step after step 0 that is an agent decision (not tool output)."""
    return _at(t, next((s.index for s in t.steps[1:] if is_decision(s)), None))


BASELINES: dict[str, Callable[[Trajectory], Prediction]] = {
    "always step 0": always_step(0),
    "always step 1": always_step(1),
    "first agent step after 0": first_decision_after_start,
}


def baseline_predictions(trajectories: Iterable[Trajectory]) -> dict[str, dict[str, Prediction]]:
    """Predictions of every baseline, keyed by baseline name then file name."""
    ts = list(trajectories)
    return {name: {Path(t.source_file).name: fn(t) for t in ts} for name, fn in BASELINES.items()}
