"""The cheap value curve: V(t) from the ranker's per-step probabilities.

V(-1) = prior and V(t) = V(t-1) * (1 - h_t). For a failed run the hazards come from the
ranker's distribution p over "step t is decisive": h_t = p_t / (1 - sum_{s<t} p_s), so
V(t) = prior * (1 - P(decisive step <= t)) and the largest drop is at the top candidate.
For a run of unknown outcome the hazards are scaled by the chance that it failed; a
successful run keeps a high, flat curve (only a small dip where detectors fired).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CHEAP_ESTIMATOR = "cheap"
"""Label of this estimator in exports (the judge's is ``judge:<model>``)."""

SUCCESS_DIP = 0.05
"""Largest total fall of a successful run's cheap curve."""


@dataclass
class CheapCurve:
    """A cheap value curve.

    Attributes:
        values: V(t) after each step t = 0..N-1.
        drops: V(t-1) - V(t) (>= 0).
        prior: V before the first step.
    """

    values: list[float]
    drops: list[float]
    prior: float


def cheap_value_curve(probs: Sequence[float], prior: float, p_failure: float) -> CheapCurve:
    """Value curve from per-step decisive-step probabilities.

    Args:
        probs: Probability that each step is the decisive one (sums to ~1).
        prior: V before any step (0-1).
        p_failure: Chance the run failed (1 for failed runs, ~0 for successes).

    Returns:
        Values and drops, one per step.
    """
    p = np.clip(np.asarray(list(probs), dtype=np.float64), 0.0, None)
    if p.size == 0:
        return CheapCurve([], [], prior)
    total = p.sum()
    p = p / total if total > 0 else np.full(p.size, 1.0 / p.size)
    cdf = np.minimum(np.cumsum(p), 1.0)
    values = prior * (1.0 - float(np.clip(p_failure, 0.0, 1.0)) * cdf)
    prev = np.concatenate(([prior], values[:-1]))
    drops = np.maximum(prev - values, 0.0)
    return CheapCurve([round(float(v), 6) for v in values], [round(float(d), 6) for d in drops], prior)


def success_curve(step_risk: Sequence[float], prior: float) -> CheapCurve:
    """A successful run's curve: flat at ``prior`` with small dips where detectors fired.

    Args:
        step_risk: Per-step risk 0-1 (e.g. the strongest finding on each step).
        prior: V before any step.
    """
    risk = np.clip(np.asarray(list(step_risk), dtype=np.float64), 0.0, 1.0)
    if risk.size == 0:
        return CheapCurve([], [], prior)
    share = risk / risk.sum() if risk.sum() > 0 else np.zeros(risk.size)
    dip = SUCCESS_DIP * float(risk.max())
    values = prior * (1.0 - dip * np.cumsum(share))
    prev = np.concatenate(([prior], values[:-1]))
    drops = np.maximum(prev - values, 0.0)
    return CheapCurve([round(float(v), 6) for v in values], [round(float(d), 6) for d in drops], prior)
