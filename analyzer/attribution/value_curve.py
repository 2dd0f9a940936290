"""The evidence value curve: V(t), the chance the run still succeeds after step t.

A two-state (on track / derailed) forward filter over the per-step evidence of
:mod:`analyzer.attribution.hazards`. With ``p_t = P(on track after step t | evidence up to t)``::

    predict:  p' = p_{t-1} (1 - DERAIL) + (1 - p_{t-1}) RECOVER
    update:   odds_derailed(t) = odds_derailed(p') * exp(llr_t)
    value:    V(t) = prior * p_t / pi,   pi = RECOVER / (DERAIL + RECOVER)

The filter starts at its stationary point ``pi``, so a run without evidence keeps a flat
curve at ``prior``; an on-track run succeeds with chance ``prior / pi`` and a derailed one
never does. Recovery evidence (negative llr) brings V back up.

For a run known to have failed, the outcome is evidence too. It is spread over the steps
that show failure: their positive log-LRs are multiplied by the smallest ``c`` in
[1, ``MAX_TEMPER``] that brings the final P(on track) down to ``FAILED_END``; only when that
is not enough (no evidence, or a recovery after it) does a final-step outcome term close the
curve. So the largest drop sits where the evidence is. Successful and unknown-outcome runs
use the evidence alone. See ``docs/value_curve.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analyzer.attribution.hazards import TERM_LABELS, StepEvidence

EVIDENCE_ESTIMATOR = "evidence-v1"
"""Label of this estimator in exports (``value_estimator``)."""

CHEAP_ESTIMATOR = "cheap"
"""Label of the former ranker-derived curve (kept for old exports and imports)."""

DERAIL = 4e-5
"""Chance per step that an on-track run derails without any visible evidence."""

RECOVER = 2e-3
"""Chance per step that a derailed run gets back on track without any visible evidence."""

FAILED_END = 0.05
"""P(on track) at the last step of a run known to have failed."""

MAX_TEMPER = 50.0
"""Most the outcome of a failed run multiplies the failure evidence by."""

LLR_CLIP = 50.0
"""Bound on any one step's log-LR inside the filter (numerical safety)."""

_BISECT = 30


@dataclass
class ValueCurve:
    """A value curve and how it was obtained.

    Attributes:
        values: V(t) after each step t = 0..N-1 (0-1).
        drops: max(V(t-1) - V(t), 0), with V(-1) = ``prior``.
        prior: V before the first step.
        llr: The log-LR of each step as the filter used it (after any outcome term).
        reasons: Plain words for the evidence of each step ("" where the step says nothing).
        temper: Factor the failure evidence was multiplied by (1 when the outcome was not used).
        outcome_step: Step that carries a final outcome term, or None.
    """

    values: list[float]
    drops: list[float]
    prior: float
    llr: list[float]
    reasons: list[str]
    temper: float = 1.0
    outcome_step: int | None = None

    @property
    def largest_drop_step(self) -> int | None:
        """Step of the largest fall (the first one on a tie), or None for a curve that never falls."""
        if not self.drops or max(self.drops) <= 0:
            return None
        return int(np.argmax(self.drops))


def stationary() -> float:
    """P(on track) the filter rests at without evidence."""
    return RECOVER / (DERAIL + RECOVER)


def filter_on_track(llr: Sequence[float] | np.ndarray) -> np.ndarray:
    """Forward-filter P(on track after step t | evidence up to t) from per-step log-LRs.

    Args:
        llr: log P(e_t | derailed) / P(e_t | on track), one per step.

    Returns:
        P(on track) after each step. O(N), deterministic.
    """
    lam = [min(LLR_CLIP, max(-LLR_CLIP, float(x))) for x in llr]
    out = np.empty(len(lam))
    p = stationary()
    keep, back = 1.0 - DERAIL, RECOVER
    for t, x in enumerate(lam):
        pp = p * keep + (1.0 - p) * back
        d = (1.0 - pp) * math.exp(x)
        p = pp / (pp + d)
        out[t] = p
    return out


def _tempered(llr: np.ndarray, c: float) -> np.ndarray:
    return np.where(llr > 0, llr * c, llr)


def _outcome_temper(llr: np.ndarray) -> float:
    """Smallest c in [1, MAX_TEMPER] with final P(on track) <= FAILED_END (MAX_TEMPER if none)."""
    if filter_on_track(llr)[-1] <= FAILED_END or not (llr > 0).any():
        return 1.0
    if filter_on_track(_tempered(llr, MAX_TEMPER))[-1] > FAILED_END:
        return MAX_TEMPER
    lo, hi = 0.0, math.log(MAX_TEMPER)  # bisection on log c
    for _ in range(_BISECT):
        mid = 0.5 * (lo + hi)
        if filter_on_track(_tempered(llr, math.exp(mid)))[-1] <= FAILED_END:
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def value_curve(evidence: StepEvidence, prior: float, *, failed: bool = False) -> ValueCurve:
    """V(t) from per-step evidence.

    Args:
        evidence: Per-step log-LRs and reasons (:func:`analyzer.attribution.hazards.step_evidence`).
        prior: V before any step (0-1): the chance a run like this succeeds.
        failed: The run is known to have failed; its outcome is used as evidence.

    Returns:
        Values, drops and how the outcome was used.
    """
    llr = np.asarray(evidence.llr, dtype=np.float64)
    n = llr.size
    reasons = list(evidence.reasons) + [""] * (n - len(evidence.reasons))
    if n == 0:
        return ValueCurve([], [], prior, [], [])
    temper, outcome_step = 1.0, None
    if failed:
        temper = _outcome_temper(llr)
        llr = _tempered(llr, temper)
        p = filter_on_track(llr)
        if p[-1] > FAILED_END:  # not enough evidence: the outcome closes the curve at the end
            pp = p[-2] * (1 - DERAIL) + (1 - p[-2]) * RECOVER if n > 1 else stationary()
            need = math.log((pp / FAILED_END - pp) / (1 - pp)) if pp < 1 else LLR_CLIP
            llr[-1] = max(llr[-1], min(LLR_CLIP, need))
            outcome_step = n - 1
            reasons[-1] = TERM_LABELS["outcome"]
    p = filter_on_track(llr)
    values = np.clip(prior * p / stationary(), 0.0, 1.0)
    prev = np.concatenate(([prior], values[:-1]))
    drops = np.maximum(prev - values, 0.0)
    return ValueCurve([round(float(v), 6) for v in values], [round(float(d), 6) for d in drops], prior,
                      [round(float(x), 6) for x in llr], reasons, round(temper, 6), outcome_step)


def drop_note(curve: ValueCurve, decisive_step: int | None) -> str | None:
    """Why the largest drop of the curve is not at the decisive step (None when they agree within 1).

    Args:
        curve: The run's value curve.
        decisive_step: The ranker's decisive step, or None (successful or empty run).

    Returns:
        A plain-words explanation, or None.
    """
    if decisive_step is None or not curve.values:
        return None
    at = curve.largest_drop_step
    ds = int(decisive_step)
    if at is None:
        return (f"the value curve never falls: no step shows evidence of failure, so nothing on the curve "
                f"confirms the decisive step {ds}")
    if abs(at - ds) <= 1:
        return None
    why = curve.reasons[at] if at < len(curve.reasons) else ""
    what = f" ({why})" if why else ""
    own = curve.drops[ds] if 0 <= ds < len(curve.drops) else 0.0
    tail = (f"; at step {ds} itself it falls by {own:.2f}" if own >= 0.005
            else f"; step {ds} itself shows no evidence the value curve reads")
    if at == curve.outcome_step and why == TERM_LABELS["outcome"]:
        return (f"the value falls most at the last step {at}, where the run's recorded failure closes the curve: "
                f"no step before it shows enough evidence of failure{tail}")
    order = "after" if at > ds else "before"
    return f"the value falls most at step {at}{what}, {order} the decisive decision at step {ds}{tail}"
