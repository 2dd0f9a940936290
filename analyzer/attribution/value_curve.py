"""The evidence value curve: V(t), the chance the run still succeeds after step t.

A two-state (on track / derailed) forward filter over the per-step evidence of
:mod:`analyzer.attribution.hazards`. With ``p_t = P(on track after step t | evidence up to t)``::

    predict:  p' = p_{t-1} (1 - DERAIL) + (1 - p_{t-1}) RECOVER
    update:   odds_derailed(t) = odds_derailed(p') * exp(llr_t)
    value:    V(t) = prior * p_t / pi,   pi = RECOVER / (DERAIL + RECOVER)

The filter starts at its stationary point ``pi``, so a run without evidence keeps a flat
curve at ``prior``; an on-track run succeeds with chance ``prior / pi`` and a derailed one
never does. Recovery evidence (negative llr) brings V back up.

For a run whose outcome is known, the outcome is evidence too. It is spread over the steps
that already point its way: for a failed run their positive log-LRs are multiplied by the
smallest ``c`` in [1, ``MAX_TEMPER``] that brings the final P(on track) down to ``FAILED_END``
(for a successful run, the recovery log-LRs, up to ``SUCCEEDED_END``); only when that is not
enough (no such evidence, or evidence the other way after it) does a final-step outcome term
close the curve. So the largest drop sits where the evidence is. A run of unknown outcome
uses the step evidence alone. See ``docs/value_curve.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analyzer.attribution.hazards import StepEvidence
from analyzer.detection.messages import TERM_LABELS

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

SUCCEEDED_END = 0.9
"""Least P(on track) at the last step of a run known to have succeeded."""

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
    lam = [min(LLR_CLIP, max(-LLR_CLIP, float(x))) if x == x else 0.0 for x in llr]  # NaN says nothing
    out = np.empty(len(lam))
    p = stationary()
    keep, back = 1.0 - DERAIL, RECOVER
    for t, x in enumerate(lam):
        pp = p * keep + (1.0 - p) * back
        d = (1.0 - pp) * math.exp(x)
        p = pp / (pp + d)
        out[t] = p
    return out


def _tempered(llr: np.ndarray, c: float, sign: int) -> np.ndarray:
    return np.where(llr * sign > 0, llr * c, llr)


def _reached(llr: np.ndarray, sign: int) -> bool:
    end = float(filter_on_track(llr)[-1])
    return end <= FAILED_END if sign > 0 else end >= SUCCEEDED_END


def _outcome_temper(llr: np.ndarray, sign: int) -> float:
    """Smallest c in [1, MAX_TEMPER] that brings the final P(on track) to the outcome's target.

    ``sign`` is +1 for a failed run (the failure evidence, llr > 0, is scaled; target
    ``FAILED_END``) and -1 for a successful one (the recovery evidence, llr < 0, is scaled;
    target ``SUCCEEDED_END``). Returns MAX_TEMPER when even that is not enough, 1 when there is
    no such evidence or the target is already met.
    """
    if _reached(llr, sign) or not (llr * sign > 0).any():
        return 1.0
    if not _reached(_tempered(llr, MAX_TEMPER, sign), sign):
        return MAX_TEMPER
    lo, hi = 0.0, math.log(MAX_TEMPER)  # bisection on log c
    for _ in range(_BISECT):
        mid = 0.5 * (lo + hi)
        if _reached(_tempered(llr, math.exp(mid), sign), sign):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def value_curve(evidence: StepEvidence, prior: float, *, outcome: str | None = None) -> ValueCurve:
    """V(t) from per-step evidence.

    Args:
        evidence: Per-step log-LRs and reasons (:func:`analyzer.attribution.hazards.step_evidence`).
        prior: V before any step (0-1): the chance a run like this succeeds.
        outcome: ``"failure"`` or ``"success"`` when the run's outcome is known: it is used as
            evidence (see the module docstring); anything else uses the step evidence alone.

    Returns:
        Values, drops and how the outcome was used.
    """
    llr = np.asarray(evidence.llr, dtype=np.float64).copy()
    n = llr.size
    reasons = list(evidence.reasons) + [""] * (n - len(evidence.reasons))
    if n == 0:
        return ValueCurve([], [], prior, [], [])
    temper, outcome_step = 1.0, None
    sign = {"failure": 1, "success": -1}.get(str(outcome), 0)
    if sign:
        temper = _outcome_temper(llr, sign)
        llr = _tempered(llr, temper, sign)
        p = filter_on_track(llr)
        if not _reached(llr, sign):  # the steps do not explain the outcome: it closes the curve at the end
            target = FAILED_END if sign > 0 else SUCCEEDED_END
            pp = p[-2] * (1 - DERAIL) + (1 - p[-2]) * RECOVER if n > 1 else stationary()
            need = math.log((pp / target - pp) / (1 - pp)) if pp < 1 else -LLR_CLIP
            need = min(LLR_CLIP, max(-LLR_CLIP, need))
            llr[-1] = max(llr[-1], need) if sign > 0 else min(llr[-1], need)
            outcome_step = n - 1
            reasons[-1] = TERM_LABELS["outcome" if sign > 0 else "outcome_success"]
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
