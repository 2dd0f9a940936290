"""The evidence value curve: V(t), the chance the run still succeeds after step t.

A two-state (on track / derailed) forward filter over the per-step evidence of
:mod:`analyzer.attribution.hazards`. With ``p_t = P(on track after step t | evidence up to t)``::

    predict:  p' = p_{t-1} (1 - derail) + (1 - p_{t-1}) recover
    update:   odds_derailed(t) = odds_derailed(p') * exp(llr_t)
    value:    V(t) = prior * p_t / pi,   pi = recover / (derail + recover)

The filter starts at its stationary point ``pi``, so a run without evidence keeps a flat
curve at ``prior``; an on-track run succeeds with chance ``prior / pi`` and a derailed one
never does. Recovery evidence (negative llr) brings V back up.

For a run whose outcome is known, the outcome is evidence too. It is spread over the steps
that already point its way: for a failed run their positive log-LRs are multiplied by the
smallest ``c`` in [1, ``max_temper``] that brings the final P(on track) down to ``failed_end``
(for a successful run, the recovery log-LRs, up to ``succeeded_end``); only when that is not
enough (no such evidence, or evidence the other way after it) does a final-step outcome term
close the curve. So the largest drop sits where the evidence is. A run of unknown outcome
uses the step evidence alone. The constants (``derail``, ``recover``, ``failed_end``,
``succeeded_end``, ``max_temper``, ``llr_clip``) come from the value-curve params file
(:class:`~analyzer.attribution.curve_params.CurveParams`). See ``docs/value_curve.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analyzer.attribution.curve_params import CurveParams, shipped_curve_params
from analyzer.attribution.hazards import StepEvidence
from analyzer.detection.messages import TERM_LABELS

EVIDENCE_ESTIMATOR = "evidence-v1"
"""Label of this estimator in exports (``value_estimator``)."""

CHEAP_ESTIMATOR = "cheap"
"""Label of the former ranker-derived curve (kept for old exports and imports)."""

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


def stationary(params: CurveParams | None = None) -> float:
    """P(on track) the filter rests at without evidence."""
    q = params or shipped_curve_params()
    return q.recover / (q.derail + q.recover)


def filter_on_track(llr: Sequence[float] | np.ndarray, params: CurveParams | None = None) -> np.ndarray:
    """Forward-filter P(on track after step t | evidence up to t) from per-step log-LRs.

    Args:
        llr: log P(e_t | derailed) / P(e_t | on track), one per step.
        params: The filter's constants; None for the shipped ones.

    Returns:
        P(on track) after each step. O(N), deterministic.
    """
    q = params or shipped_curve_params()
    clip = q.llr_clip
    lam = [min(clip, max(-clip, float(x))) if x == x else 0.0 for x in llr]  # NaN says nothing
    out = np.empty(len(lam))
    p = stationary(q)
    keep, back = 1.0 - q.derail, q.recover
    for t, x in enumerate(lam):
        pp = p * keep + (1.0 - p) * back
        d = (1.0 - pp) * math.exp(x)
        p = pp / (pp + d)
        out[t] = p
    return out


def _tempered(llr: np.ndarray, c: float, sign: int) -> np.ndarray:
    return np.where(llr * sign > 0, llr * c, llr)


def _reached(llr: np.ndarray, sign: int, q: CurveParams) -> bool:
    end = float(filter_on_track(llr, q)[-1])
    return end <= q.failed_end if sign > 0 else end >= q.succeeded_end


def _outcome_temper(llr: np.ndarray, sign: int, q: CurveParams) -> float:
    """Smallest c in [1, max_temper] that brings the final P(on track) to the outcome's target.

    ``sign`` is +1 for a failed run (the failure evidence, llr > 0, is scaled; target
    ``failed_end``) and -1 for a successful one (the recovery evidence, llr < 0, is scaled;
    target ``succeeded_end``). Returns max_temper when even that is not enough, 1 when there is
    no such evidence or the target is already met.
    """
    if _reached(llr, sign, q) or not (llr * sign > 0).any():
        return 1.0
    if not _reached(_tempered(llr, q.max_temper, sign), sign, q):
        return q.max_temper
    lo, hi = 0.0, math.log(q.max_temper)  # bisection on log c
    for _ in range(_BISECT):
        mid = 0.5 * (lo + hi)
        if _reached(_tempered(llr, math.exp(mid), sign), sign, q):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def value_curve(evidence: StepEvidence, prior: float, *, outcome: str | None = None,
                params: CurveParams | None = None) -> ValueCurve:
    """V(t) from per-step evidence.

    Args:
        evidence: Per-step log-LRs and reasons (:func:`analyzer.attribution.hazards.step_evidence`).
        prior: V before any step (0-1): the chance a run like this succeeds.
        outcome: ``"failure"`` or ``"success"`` when the run's outcome is known: it is used as
            evidence (see the module docstring); anything else uses the step evidence alone.
        params: The filter's constants; None for the shipped value-curve params.

    Returns:
        Values, drops and how the outcome was used.
    """
    q = params or shipped_curve_params()
    llr = np.asarray(evidence.llr, dtype=np.float64).copy()
    n = llr.size
    reasons = list(evidence.reasons) + [""] * (n - len(evidence.reasons))
    if n == 0:
        return ValueCurve([], [], prior, [], [])
    temper, outcome_step = 1.0, None
    sign = {"failure": 1, "success": -1}.get(str(outcome), 0)
    if sign:
        temper = _outcome_temper(llr, sign, q)
        llr = _tempered(llr, temper, sign)
        p = filter_on_track(llr, q)
        if not _reached(llr, sign, q):  # the steps do not explain the outcome: it closes the curve at the end
            target = q.failed_end if sign > 0 else q.succeeded_end
            pp = p[-2] * (1 - q.derail) + (1 - p[-2]) * q.recover if n > 1 else stationary(q)
            need = math.log((pp / target - pp) / (1 - pp)) if pp < 1 else -q.llr_clip
            need = min(q.llr_clip, max(-q.llr_clip, need))
            llr[-1] = max(llr[-1], need) if sign > 0 else min(llr[-1], need)
            outcome_step = n - 1
            reasons[-1] = TERM_LABELS["outcome" if sign > 0 else "outcome_success"]
    p = filter_on_track(llr, q)
    values = np.clip(prior * p / stationary(q), 0.0, 1.0)
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
