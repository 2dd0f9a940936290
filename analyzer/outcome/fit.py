"""Fit and measure the outcome estimate (``trajscope outcome-fit``).

The runs are every committed run whose outcome is recorded (success or failure). Their outcome
is hidden from the cues (:mod:`analyzer.outcome.cues` reads only the steps and the final answer);
it is only the label of the fit.

- **Model**: L2-regularised logistic regression over the standardised cues (Newton's method).
- **Tunable**: the L2 strength, chosen from :data:`L2_GRID` by leave-one-source-out log-loss
  (a source is the importer that read the run), never set by hand.
- **Measure**: nested leave-one-source-out: for each source, the strength is chosen and the
  weights fitted on the other sources only, then that source's runs are estimated. The pooled
  held-out estimates give the AUC, the Brier score and a reliability table; each source gets
  its n, failure rate, mean estimate, Brier score and AUC (when it has both outcomes).
- **Shipped**: the weights refitted on every run with the strength chosen on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from analyzer.outcome.cues import CUE_NAMES, cue_frame
from analyzer.outcome.estimate import KNOWN, OutcomeModels, OutcomeParams
from analyzer.outcome.judge_cue import JUDGE_CUE

L2_GRID: tuple[float, ...] = tuple(float(x) for x in np.logspace(-3, 2, 11))
"""L2 strengths tried (the search range; the value used is chosen on the data)."""
CALIBRATION_BINS = 5
"""Equal-width probability bins of the reliability table (a way of reporting, not a tunable)."""


def _fit(x: np.ndarray, y: np.ndarray, l2: float, iters: int = 100) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-penalised logistic regression (the bias is not penalised)."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    pen = np.full(d + 1, l2)
    pen[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -60, 60)))
        grad = xb.T @ (p - y) + pen * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(pen + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return w[:-1], float(w[-1])


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def _predict(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    z = ((x - mean) / scale) @ w + b
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
    return out


def _fit_params(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    mean, scale = _standardise(x)
    w, b = _fit((x - mean) / scale, y, l2)
    return mean, scale, w, b


def _log_loss(y: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _loso(x: np.ndarray, y: np.ndarray, groups: np.ndarray,
          l2: float | Callable[[np.ndarray, np.ndarray, np.ndarray], float]) -> np.ndarray:
    """Leave-one-source-out estimates (NaN where a fold has one outcome only).

    ``l2`` is one strength, or a chooser called on each fold's training runs (nested selection).
    """
    out = np.full(len(y), np.nan)
    for g in np.unique(groups):
        test = groups == g
        train = ~test
        if len(np.unique(y[train])) < 2:
            continue
        strength = l2(x[train], y[train], groups[train]) if callable(l2) else l2
        mean, scale, w, b = _fit_params(x[train], y[train], strength)
        out[test] = _predict(x[test], mean, scale, w, b)
    return out


def choose_l2(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """The strength of :data:`L2_GRID` with the lowest leave-one-source-out log-loss (ties: the stronger)."""
    best, best_loss = L2_GRID[-1], math.inf
    if len(np.unique(groups)) < 2:
        return best
    for l2 in L2_GRID:
        p = _loso(x, y, groups, l2)
        ok = ~np.isnan(p)
        if not ok.any():
            continue
        loss = _log_loss(y[ok], p[ok])
        if loss <= best_loss + 1e-12:
            best, best_loss = l2, loss
    return best


def auc(y: Sequence[float] | np.ndarray, p: Sequence[float] | np.ndarray) -> float | None:
    """Area under the ROC curve (Mann-Whitney, ties count half); None without both classes."""
    ya, pa = np.asarray(y, dtype=float), np.asarray(p, dtype=float)
    pos, neg = pa[ya == 1], pa[ya == 0]
    if len(pos) == 0 or len(neg) == 0:
        return None
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


@dataclass
class FitReport:
    """What ``trajscope outcome-fit`` measured and fitted.

    Attributes:
        params: The shipped model (fitted on every run).
        n_runs: Runs with a recorded outcome.
        n_failed: Of those, failed runs.
        auc: Pooled AUC of the nested leave-one-source-out estimates.
        brier: Pooled Brier score of those estimates.
        ece: Expected calibration error over :data:`CALIBRATION_BINS` bins.
        per_source: One dict per source (n, failed, mean_p, brier, auc).
        calibration: One dict per bin (low, high, n, mean_p, failure_rate).
        predictions: One dict per run (trace_id, source, failed, p_failed held out).
    """

    params: OutcomeParams
    n_runs: int
    n_failed: int
    auc: float | None
    brier: float | None
    ece: float | None
    per_source: list[dict[str, Any]] = field(default_factory=list)
    calibration: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object (without the per-run predictions)."""
        return {"n_runs": self.n_runs, "n_failed": self.n_failed, "auc": self.auc, "brier": self.brier,
                "ece": self.ece, "per_source": self.per_source, "calibration": self.calibration}


def labelled_runs(traces: pl.DataFrame) -> pl.DataFrame:
    """The runs with a recorded outcome (success or failure)."""
    return traces.filter(pl.col("outcome").is_in(KNOWN))


def ship_judge(cheap_auc: float | None, judge_auc: float | None) -> bool:
    """The ship rule (written before the judge figures were seen).

    The model with the judge cue is used when a judge is available only if its nested
    leave-one-source-out AUC is at least the cheap model's, measured on the same runs.
    """
    return cheap_auc is not None and judge_auc is not None and judge_auc >= cheap_auc


SHIP_RULE = "the judge model is used when a judge is available only if its nested AUC >= the cheap model's"


def _check_labels(y: np.ndarray) -> None:
    if int(y.sum()) < 2 or int(len(y) - y.sum()) < 2:
        raise ValueError(f"need at least two failed and two successful runs with a recorded outcome "
                         f"(have {int(y.sum())} and {int(len(y) - y.sum())})")


def _measure(runs: pl.DataFrame, x: np.ndarray, y: np.ndarray, groups: np.ndarray, cue_names: tuple[str, ...],
             meta: dict[str, Any] | None) -> FitReport:
    """Nested leave-one-source-out figures and the model refitted on every run."""
    held = _loso(x, y, groups, choose_l2)  # the strength chosen again without each held-out source
    ok = ~np.isnan(held)
    l2_all = choose_l2(x, y, groups)
    mean, scale, w, b = _fit_params(x, y, l2_all)
    pooled_auc = auc(y[ok], held[ok])
    brier = float(np.mean((held[ok] - y[ok]) ** 2)) if ok.any() else None
    calibration: list[dict[str, Any]] = []
    ece = 0.0
    for i in range(CALIBRATION_BINS):
        lo, hi = i / CALIBRATION_BINS, (i + 1) / CALIBRATION_BINS
        inside = ok & (held >= lo) & ((held < hi) if i < CALIBRATION_BINS - 1 else (held <= hi))
        n = int(inside.sum())
        row: dict[str, Any] = {"low": lo, "high": hi, "n": n, "mean_p": None, "failure_rate": None}
        if n:
            row["mean_p"] = float(held[inside].mean())
            row["failure_rate"] = float(y[inside].mean())
            ece += n / int(ok.sum()) * abs(row["mean_p"] - row["failure_rate"])
        calibration.append(row)
    per_source: list[dict[str, Any]] = []
    for g in sorted(np.unique(groups)):
        m = (groups == g) & ok
        per_source.append({
            "source": str(g), "n": int((groups == g).sum()), "failed": int(y[groups == g].sum()),
            "estimated": int(m.sum()),
            "mean_p": float(held[m].mean()) if m.any() else None,
            "brier": float(np.mean((held[m] - y[m]) ** 2)) if m.any() else None,
            "auc": auc(y[m], held[m]) if m.any() else None,
        })
    params = OutcomeParams(
        cues=cue_names, mean=tuple(float(v) for v in mean), scale=tuple(float(v) for v in scale),
        weights=tuple(round(float(v), 6) for v in w), bias=round(b, 6),
        meta={"fitted_by": "trajscope outcome-fit", "l2": l2_all, "l2_grid": list(L2_GRID),
              "n_runs": len(y), "n_failed": int(y.sum()), "sources": sorted(str(g) for g in np.unique(groups)),
              "loso_auc": pooled_auc, "loso_brier": brier, "loso_ece": ece if ok.any() else None,
              "per_source": per_source, "calibration": calibration, **(meta or {})})
    predictions = [{"trace_id": str(t), "source": str(g), "failed": bool(f), "p_failed": None if math.isnan(p) else float(p)}
                   for t, g, f, p in zip(runs["trace_id"].to_list(), groups, y, held, strict=True)]
    return FitReport(params, len(y), int(y.sum()), pooled_auc, brier, ece if ok.any() else None,
                     per_source, calibration, predictions)


def fit_outcome(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, *, source_column: str = "source_format",
                meta: dict[str, Any] | None = None) -> FitReport:
    """Measure (nested leave-one-source-out) and fit the outcome estimate on the cheap cues.

    Args:
        traces: Traces frame; only runs with a recorded outcome are used.
        steps: Their steps.
        source_column: Column naming a run's source (the unit held out).
        meta: Extra facts written into the params' ``meta`` (e.g. the folders read).

    Returns:
        The report, with the shipped params.

    Raises:
        ValueError: Fewer than two runs of each outcome.
    """
    runs = labelled_runs(traces)
    y = (runs["outcome"] == "failure").cast(pl.Float64).to_numpy()
    _check_labels(y)
    x = cue_frame(runs, steps).select(CUE_NAMES).to_numpy().astype(float)
    groups = runs[source_column].fill_null("?").cast(pl.Utf8).to_numpy()
    return _measure(runs, x, y, groups, CUE_NAMES, meta)


@dataclass
class ModelsReport:
    """Both fitted models of ``trajscope outcome-fit --judge`` and the ship decision.

    Attributes:
        cheap: The cheap model's report (every labelled run).
        judge: The cheap + judge model's report (the runs the judge answered), or None.
        cheap_same_runs: The cheap model measured on the judge model's runs (the ship rule's
            comparison; the same object as ``cheap`` when the judge answered every run).
        models: What the params file holds.
    """

    cheap: FitReport
    judge: FitReport | None
    cheap_same_runs: FitReport | None
    models: OutcomeModels


def fit_outcome_models(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                       judge_values: dict[str, float] | None = None, *, source_column: str = "source_format",
                       meta: dict[str, Any] | None = None, judge_meta: dict[str, Any] | None = None) -> ModelsReport:
    """Fit and measure the cheap model and, with judge values, the cheap + judge model.

    Args:
        traces: Traces frame; only runs with a recorded outcome are used.
        steps: Their steps.
        judge_values: Trace id -> judge cue (:mod:`analyzer.outcome.judge_cue`); None: cheap only.
        source_column: Column naming a run's source (the unit held out).
        meta: Extra facts written into each model's ``meta``.
        judge_meta: Extra facts written into the judge model's ``meta`` (model id, prompt id, cost).

    Returns:
        Both reports and the models, with the ship rule's decision (:func:`ship_judge`).

    Raises:
        ValueError: Fewer than two runs of each outcome.
    """
    cheap = fit_outcome(traces, steps, source_column=source_column, meta=meta)
    if not judge_values:
        return ModelsReport(cheap, None, None, OutcomeModels(cheap.params, meta={"ship_rule": SHIP_RULE}))
    runs = labelled_runs(traces)
    runs = runs.filter(pl.col("trace_id").is_in(pl.Series(list(judge_values), dtype=pl.Utf8).implode()))
    y = (runs["outcome"] == "failure").cast(pl.Float64).to_numpy()
    _check_labels(y)
    groups = runs[source_column].fill_null("?").cast(pl.Utf8).to_numpy()
    x_cheap = cue_frame(runs, steps).select(CUE_NAMES).to_numpy().astype(float)
    j = np.array([judge_values[t] for t in runs["trace_id"].to_list()], dtype=float)[:, None]
    judge = _measure(runs, np.hstack([x_cheap, j]), y, groups, (*CUE_NAMES, JUDGE_CUE),
                     {**(meta or {}), **(judge_meta or {})})
    same = cheap if runs.height == cheap.n_runs else _measure(runs, x_cheap, y, groups, CUE_NAMES, meta)
    use = ship_judge(same.auc, judge.auc)
    decision = {"ship_rule": SHIP_RULE, "use_judge": use, "cheap_loso_auc": same.auc,
                "judge_loso_auc": judge.auc, "runs_compared": runs.height,
                "judge_alone_auc": auc(y, 1.0 - j[:, 0])}  # the judge's own ranking, nothing fitted
    return ModelsReport(cheap, judge, same, OutcomeModels(cheap.params, judge.params, use, decision))
