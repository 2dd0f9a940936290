r"""Fit the decisive-step ranker on a labelled development set, with cross-validation.

Usage::

    python -m analyzer.evaluation.fit ../shared/datasets/who_and_when/Algorithm-Generated \\
        [--embedder] [--judge NAME|FILE.gguf] [--out FILE.json]

The model is a conditional logit (softmax over the steps of a run) on standardised
features, with an L2 penalty chosen by inner cross-validation; the temperature of the
agent mass that names the responsible agent is chosen the same way. Reported figures are
outer 5-fold cross-validated (nested), so they are held-out numbers. With ``--judge``, the
judge scores the top-K held-out candidates of every run and the weight of its log-odds is
chosen by cross-validation over runs as well. Gold labels are read here (training) and
nowhere in the analysis.

This is the fit *within one system* (what ``trajscope eval --cv`` refits per fold). The shipped
weights are the transfer fit (:func:`fit_transfer`) on every development set, written by
``trajscope eval suite ROOT --write-params FILE``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.attribute import combine_with_judge, responsible_agent
from analyzer.attribution.features import FEATURE_NAMES, ROLE_FEATURES
from analyzer.attribution.ranker import (
    PARAMS_VERSION,
    PRIOR_FEATURES,
    RankerParams,
    detector_evidence,
    evidence_offset,
)
from analyzer.detection.text import agent_identity
from analyzer.evaluation.scoring import Gold, Prediction, Scores, score
from analyzer.jobs import Progress, no_progress

L2_GRID: tuple[float, ...] = (0.3, 1.0, 3.0, 10.0, 30.0)
IN_SET_FEATURES: tuple[str, ...] = tuple(n for n in FEATURE_NAMES if n not in ROLE_FEATURES)
"""Columns a fit within one system uses (``--cv``): the role columns are left to the transfer
fit. With them, Who&When 5-fold CV step@1 fell from 41.3% to 38.1% (more columns than 100
labelled runs carry)."""
EVIDENCE_WEIGHT = 1.0
"""Detector-evidence weight on training-length runs. Nested 5-fold CV on Who&When (with
embeddings), step@1 / step@3 / agent@1: 0 -> 40.5 / 77.8 / 61.1%, 1 -> 41.3 / 79.4 / 57.9%,
3 -> 33.3 / 69.8 / 50.8%. 1 is neutral here and lets detectors carry long runs elsewhere."""
EVIDENCE_WEIGHT_LONG = 3.0
"""Detector-evidence weight on runs >= 3x longer than the longest training run (design constant)."""
JUDGE_WEIGHTS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
AGENT_TEMPERATURES: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
"""Grid of the agent-mass temperature (0 = agent of the top step)."""


@dataclass
class TrainingRun:
    """Features and gold label of one labelled run.

    Attributes:
        trace_id: Run id.
        file: File name (the evaluation key).
        features: Feature matrix (steps x FEATURE_NAMES).
        agents: Agent of each step.
        gold_step: Gold decisive step.
        gold_agent: Gold responsible agent.
    """

    trace_id: str
    file: str
    features: np.ndarray
    agents: list[str]
    gold_step: int
    gold_agent: str | None


def collect_runs(paths: Sequence[str | Path], *, embedder: Any = None, progress: Progress = no_progress,
                 keep: Callable[[Any], None] | None = None) -> list[TrainingRun]:
    """Load labelled runs and compute their features exactly as the pipeline does.

    Runs without a usable gold step (missing or outside the run) are skipped.
    ``keep`` receives each blinded trajectory (used by the judge pass).
    """
    from analyzer.frames.build import trajectories_from_frames
    from analyzer.loading import load
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.registry import default_host

    res = load(list(paths))
    host = default_host()
    out: list[TrainingRun] = []
    trajs = trajectories_from_frames(res.traces, res.steps)
    for i, t in enumerate(trajs):
        progress(i, len(trajs), Path(t.source_file).name)
        g = t.gold_decisive_step
        if g is None or not 0 <= g < len(t.steps):
            continue
        bt = blind(t)
        sig = prepare_run(bt, host, embedder=embedder)
        if keep is not None:
            keep(bt)
        out.append(TrainingRun(t.id, Path(t.source_file).name, sig.features,
                               [agent_identity(s) for s in t.steps], g, t.gold_decisive_agent))
    return out


SCALE_FLOOR = 0.3
"""Smallest standardisation scale: a feature that is rare in training (tiny spread) must
not turn into a huge input on other data."""


def standardiser(runs: Sequence[TrainingRun]) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and scale over all steps of ``runs`` (scale floored at SCALE_FLOOR)."""
    allx = np.vstack([r.features for r in runs])
    mu = allx.mean(axis=0)
    sd = np.maximum(allx.std(axis=0), SCALE_FLOOR)
    return mu, sd


def feature_range(runs: Sequence[TrainingRun]) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature minimum and maximum over all steps of ``runs`` (the clipping range)."""
    allx = np.vstack([r.features for r in runs])
    return allx.min(axis=0), allx.max(axis=0)


@dataclass
class Fitted:
    """Fitted weights and the standardisation/clipping they go with."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    evidence_weight: float = 0.0
    evidence_weight_long: float = 0.0
    train_max_steps: int = 0
    evidence_weight_grounded: float = 0.0

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Logits of one run's features (clipped to the training range), plus the evidence prior."""
        out: np.ndarray = ((np.clip(features, self.lo, self.hi) - self.mean) / self.scale) @ self.weights
        total: np.ndarray = out + evidence_offset(features, self.evidence_weight, self.evidence_weight_long,
                                                  self.train_max_steps, self.evidence_weight_grounded)
        return total


def clogit_nll(zs: Sequence[np.ndarray], offsets: Sequence[np.ndarray], golds: Sequence[int],
               w: np.ndarray) -> tuple[float, np.ndarray]:
    """Summed conditional-logit negative log-likelihood of runs and its gradient in ``w``.

    Each run's scores are ``z @ w + offset``; the loss is ``logsumexp(scores) - scores[gold]``.
    """
    total = 0.0
    grad = np.zeros(w.shape[0])
    for z, off, g in zip(zs, offsets, golds, strict=True):
        sc = z @ w + off
        m = sc.max()
        e = np.exp(sc - m)
        p = e / e.sum()
        total += float(m + np.log(e.sum()) - sc[g])
        grad += z.T @ p - z[g]
    return total, grad


def fit_clogit(runs: Sequence[TrainingRun], l2: float, evidence_weight: float | None = None,
               features: Sequence[str] | None = None) -> Fitted:
    """Fit conditional-logit weights by L-BFGS (L2 penalty ``l2`` on standardised weights).

    The detector-evidence prior (``evidence_weight`` times :func:`detector_evidence`) is a
    fixed offset during the fit, so the fitted weights explain what it leaves.
    """
    ew = EVIDENCE_WEIGHT if evidence_weight is None else evidence_weight
    from scipy.optimize import minimize

    mu, sd = standardiser(runs)
    fitted_names = set(features if features is not None else IN_SET_FEATURES)
    free = np.array([name not in PRIOR_FEATURES and name in fitted_names for name in FEATURE_NAMES], dtype=np.float64)
    zs = [((r.features - mu) / sd) * free for r in runs]
    offsets = [ew * detector_evidence(r.features) for r in runs]
    golds = [r.gold_step for r in runs]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = clogit_nll(zs, offsets, golds, w)
        return total + 0.5 * l2 * float(w @ w), grad + l2 * w

    w0 = np.zeros(len(FEATURE_NAMES))
    res = minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    lo, hi = feature_range(runs)
    n_max = max(r.features.shape[0] for r in runs)
    return Fitted(mu, sd, np.asarray(res.x) * free, lo, hi, ew, EVIDENCE_WEIGHT_LONG, n_max)


def fit_transfer(groups: Sequence[Sequence[TrainingRun]], *, l2: float, tau: float, features: Sequence[str],
                 evidence_weight: float, evidence_grounded: float, prior: dict[str, float]) -> Fitted:
    """Weights that hold across agent systems: group-robust conditional logit on a few features.

    Each group is one development set (one agent system). The loss is a smooth maximum
    (``tau``-log-sum-exp) of the groups' mean negative log-likelihoods, so the weights are
    fitted for the system they fit worst, not for the biggest set; only ``features`` get
    weights; the detector-evidence prior is a fixed offset (``evidence_weight``; on runs that
    log tool output ``evidence_grounded`` when larger), and ``prior`` adds fixed weights on its
    columns (not fitted; folded into the returned weights). The penalty is ``l2`` per run.
    Every argument is chosen by :mod:`analyzer.evaluation.selection`.
    """
    from scipy.optimize import minimize

    fixed = dict(prior)
    names = set(features) - set(fixed)
    ew = evidence_weight
    grounded = evidence_grounded
    runs = [r for g in groups for r in g]
    mu, sd = standardiser(runs)
    free = np.array([n in names and n not in PRIOR_FEATURES for n in FEATURE_NAMES], dtype=np.float64)
    raw_prior = np.array([fixed.get(n, 0.0) for n in FEATURE_NAMES])

    def offset(x: np.ndarray) -> np.ndarray:  # the fit sees the plain prior; ``grounded`` applies when ranking
        out: np.ndarray = evidence_offset(x, ew, ew, 0) + x @ raw_prior
        return out

    data = [([((r.features - mu) / sd) * free for r in g], [offset(r.features) for r in g],
             [r.gold_step for r in g]) for g in groups if g]
    d = len(FEATURE_NAMES)
    reg = l2 / max(1, len(runs))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        losses = np.zeros(len(data))
        grads = np.zeros((len(data), d))
        for k, (zs, offs, golds) in enumerate(data):
            total, grad = clogit_nll(zs, offs, golds, w)
            losses[k] = total / len(golds)
            grads[k] = grad / len(golds)
        top = losses.max()
        a = np.exp((losses - top) / tau)
        value = top + tau * float(np.log(a.sum()))
        a /= a.sum()
        return value + 0.5 * reg * float(w @ w), a @ grads + reg * w

    res = minimize(loss, np.zeros(d), jac=True, method="L-BFGS-B", options={"maxiter": 300})
    w = np.asarray(res.x) * free
    w = _fit_where_present(groups, mu, sd, w, offset, reg, names)
    w = w + raw_prior * sd  # x @ p == ((x - mu) / sd) @ (p * sd) + const: the same ranking
    lo, hi = feature_range(runs)
    n_max = max(r.features.shape[0] for r in runs)
    return Fitted(mu, sd, w, lo, hi, ew, ew, n_max, grounded)


def _fit_where_present(groups: Sequence[Sequence[TrainingRun]], mu: np.ndarray, sd: np.ndarray, w: np.ndarray,
                       offset: Callable[[np.ndarray], np.ndarray], reg: float, names: set[str]) -> np.ndarray:
    """Second stage: the transfer features some systems never show, fitted on the systems that do.

    A feature that is constant in a system (TracerTraj-Code logs no tool output, so no error
    features) cannot change that system's ranking, so the worst-system loss gives it no push;
    here it is fitted, with the first stage's logits as a fixed offset, on the runs of the
    systems where it varies.
    """
    from scipy.optimize import minimize

    cols = [k for k, n in enumerate(FEATURE_NAMES) if n in names and n not in PRIOR_FEATURES]
    stacked = [np.vstack([r.features for r in g]) for g in groups if g]
    varies = [[float(x[:, k].std()) > 1e-9 for x in stacked] for k in cols]
    present = [k for k, v in zip(cols, varies, strict=True) if any(v) and not all(v)]
    if not present:
        return w
    runs = [r for g in groups for r in g if any(float(r.features[:, k].std()) > 1e-9 for k in present)]
    if not runs:
        return w
    zs = [(r.features - mu) / sd for r in runs]
    offs = [z @ w + offset(r.features) for z, r in zip(zs, runs, strict=True)]
    sub = [z[:, present] for z in zs]

    golds = [r.gold_step for r in runs]

    def loss(v: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = clogit_nll(sub, offs, golds, v)
        lam = reg * len(runs)
        return total + 0.5 * lam * float(v @ v), grad + lam * v

    res = minimize(loss, np.zeros(len(present)), jac=True, method="L-BFGS-B", options={"maxiter": 200})
    out = w.copy()
    out[present] = np.asarray(res.x)
    return out


def to_params(fitted: Fitted, *, judge_weight: float = 0.0, judge_top_k: int = 3, value_prior: float = 0.9,
              agent_temperature: float = 0.0, actor_weight: float = 0.0, first_runner_weight: float = 0.0,
              calibration_temperature: float = 1.0, uncertain_below: float = 0.0,
              meta: dict[str, Any] | None = None) -> RankerParams:
    """Ranker params of fitted weights."""

    def r6(a: np.ndarray) -> list[float]:
        return [round(float(v), 6) for v in a]

    return RankerParams(version=PARAMS_VERSION, features=list(FEATURE_NAMES), mean=r6(fitted.mean),
                        scale=r6(fitted.scale), weights=r6(fitted.weights), lo=r6(fitted.lo), hi=r6(fitted.hi),
                        evidence_weight=fitted.evidence_weight, evidence_weight_long=fitted.evidence_weight_long,
                        evidence_weight_grounded=fitted.evidence_weight_grounded,
                        train_max_steps=fitted.train_max_steps, judge_weight=judge_weight, judge_top_k=judge_top_k, value_prior=value_prior,
                        agent_temperature=agent_temperature, actor_weight=actor_weight,
                        first_runner_weight=first_runner_weight, calibration_temperature=calibration_temperature,
                        uncertain_below=uncertain_below, meta=dict(meta or {}))


def fit_params(runs: Sequence[TrainingRun], *, folds: int = 5, meta: dict[str, Any] | None = None) -> RankerParams:
    """Params fitted on ``runs``: L2 penalty and agent temperature chosen by inner CV.

    With fewer runs than two per fold, the penalty is the strongest of the grid and the agent
    temperature 0 (too few labels to choose them).
    """
    if len(runs) < 2 * folds:
        l2 = max(L2_GRID)
        return to_params(fit_clogit(runs, l2), meta={**(meta or {}), "l2": l2, "n_runs": len(runs)})
    l2 = choose_l2(runs, folds=folds)
    fitted = fit_clogit(runs, l2)
    temperature = choose_agent_temperature(runs, l2, folds=folds)
    return to_params(fitted, agent_temperature=temperature,
                     meta={**(meta or {}), "l2": l2, "n_runs": len(runs)})


def fold_ids(n: int, folds: int, seed: int = 0) -> np.ndarray:
    """Deterministic fold assignment of ``n`` runs."""
    rng = np.random.default_rng(seed)
    ids = np.arange(n) % folds
    rng.shuffle(ids)
    return ids


def _nll(runs: Sequence[TrainingRun], logits: Sequence[np.ndarray]) -> float:
    total = 0.0
    for r, s in zip(runs, logits, strict=True):
        m = s.max()
        total += float(m + np.log(np.exp(s - m).sum()) - s[r.gold_step])
    return total / max(1, len(runs))


def choose_l2(runs: Sequence[TrainingRun], folds: int = 5, seed: int = 1,
              grid: Sequence[float] = L2_GRID) -> float:
    """L2 penalty with the best cross-validated top-1 accuracy (ties: lower log-loss)."""
    ids = fold_ids(len(runs), folds, seed)
    best: tuple[float, float, float] | None = None
    for l2 in grid:
        held: list[np.ndarray] = [np.zeros(0)] * len(runs)
        for k in range(folds):
            train = [r for r, f in zip(runs, ids, strict=True) if f != k]
            fitted = fit_clogit(train, l2)
            for i, (r, f) in enumerate(zip(runs, ids, strict=True)):
                if f == k:
                    held[i] = fitted.logits(r.features)
        acc = float(np.mean([int(np.argmax(s)) == r.gold_step for r, s in zip(runs, held, strict=True)]))
        nll = _nll(runs, held)
        key = (acc, -nll, -l2)
        if best is None or key > (best[0], -best[1], -best[2]):
            best = (acc, nll, l2)
    assert best is not None
    return best[2]


def choose_agent_temperature(runs: Sequence[TrainingRun], l2: float, folds: int = 5, seed: int = 3,
                             grid: Sequence[float] = AGENT_TEMPERATURES) -> float:
    """Agent-mass temperature with the best agent@1 on logits cross-fitted within ``runs`` (ties: lower)."""
    from analyzer.evaluation.scoring import normalise_agent

    ids = fold_ids(len(runs), folds, seed)
    held: list[np.ndarray] = [np.zeros(0)] * len(runs)
    for k in range(folds):
        fitted = fit_clogit([r for r, f in zip(runs, ids, strict=True) if f != k], l2)
        for i, (r, f) in enumerate(zip(runs, ids, strict=True)):
            if f == k:
                held[i] = fitted.logits(r.features)

    def hits(t: float) -> int:
        return sum(normalise_agent(responsible_agent(r.agents, s, t)) == normalise_agent(r.gold_agent)
                   for r, s in zip(runs, held, strict=True))

    return max(grid, key=lambda t: (hits(t), -t))


@dataclass
class NestedCV:
    """Held-out results of nested cross-validation.

    Attributes:
        logits: Held-out logits of every run.
        l2: L2 penalty chosen in each outer fold.
        temperature: Agent temperature of every run (chosen on its outer fold's training part).
    """

    logits: list[np.ndarray]
    l2: list[float]
    temperature: list[float]


def nested_cv(runs: Sequence[TrainingRun], folds: int = 5, seed: int = 0,
              progress: Progress = no_progress) -> NestedCV:
    """Held-out logits of every run: outer folds; L2 and agent temperature chosen by inner CV on the training part."""
    ids = fold_ids(len(runs), folds, seed)
    held: list[np.ndarray] = [np.zeros(0)] * len(runs)
    temps = [0.0] * len(runs)
    chosen: list[float] = []
    for k in range(folds):
        progress(k, folds, f"fold {k + 1}/{folds}")
        train = [r for r, f in zip(runs, ids, strict=True) if f != k]
        l2 = choose_l2(train, folds=folds)
        chosen.append(l2)
        fitted = fit_clogit(train, l2)
        t = choose_agent_temperature(train, l2, folds=folds)
        for i, (r, f) in enumerate(zip(runs, ids, strict=True)):
            if f == k:
                held[i] = fitted.logits(r.features)
                temps[i] = t
    return NestedCV(held, chosen, temps)


def predictions_from_logits(runs: Sequence[TrainingRun], logits: Sequence[np.ndarray],
                            temperatures: Sequence[float] | None = None) -> dict[str, Prediction]:
    """Top-1 step, the responsible agent and the ranking of every run."""
    temps = temperatures if temperatures is not None else [0.0] * len(runs)
    out: dict[str, Prediction] = {}
    for r, s, t in zip(runs, logits, temps, strict=True):
        order = [int(k) for k in np.argsort(-s, kind="stable")]
        out[r.file] = Prediction(r.file, order[0], responsible_agent(r.agents, s, t), tuple(order))
    return out


def cv_scores(runs: Sequence[TrainingRun], logits: Sequence[np.ndarray],
              temperatures: Sequence[float] | None = None) -> Scores:
    """Metrics of held-out logits."""
    golds = [Gold(r.file, r.gold_step, r.gold_agent) for r in runs]
    return score(golds, predictions_from_logits(runs, logits, temperatures))


def choose_judge_weight(runs: Sequence[TrainingRun], logits: Sequence[np.ndarray],
                        judge_p: Sequence[dict[int, float]], folds: int = 5) -> tuple[float, list[np.ndarray]]:
    """Judge weight by cross-validation over runs, and the held-out combined logits."""
    ids = fold_ids(len(runs), folds, seed=2)

    def acc(w: float, sel: Sequence[int]) -> float:
        return float(np.mean([int(np.argmax(combine_with_judge(logits[i], judge_p[i], w))) == runs[i].gold_step
                              for i in sel])) if sel else 0.0

    combined: list[np.ndarray] = [np.zeros(0)] * len(runs)
    for k in range(folds):
        train = [i for i in range(len(runs)) if ids[i] != k]
        w_k = max(JUDGE_WEIGHTS, key=lambda w: (acc(w, train), -w))
        for i in range(len(runs)):
            if ids[i] == k:
                combined[i] = combine_with_judge(logits[i], judge_p[i], w_k)
    w_all = max(JUDGE_WEIGHTS, key=lambda w: (acc(w, list(range(len(runs)))), -w))
    return w_all, combined


def format_scores(title: str, s: Scores) -> str:
    """One line per metric with its Wilson interval."""
    lines = [title]
    for name, m in s.metrics.items():
        lines.append(f"  {name:<9} {m.p:6.1%}  [{m.low:5.1%}, {m.high:5.1%}]  ({m.k}/{m.n})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Fit, cross-validate and write the params file."""
    ap = argparse.ArgumentParser(prog="python -m analyzer.evaluation.fit", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path, help="labelled development files/folders")
    ap.add_argument("--out", type=Path, default=None,
                    help="write an in-set params file here (the shipped params come from "
                         "`trajscope eval suite ROOT --write-params`, fitted on every development set)")
    ap.add_argument("--embedder", action="store_true", help="use the real embedder (alignment features)")
    ap.add_argument("--judge", help="judge model name or GGUF path: fit the judge re-ranking weight")
    ap.add_argument("--top-k", type=int, default=3, help="candidates the judge re-ranks")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--dry-run", action="store_true", help="report CV figures, do not write params")
    args = ap.parse_args(argv)

    embedder = None
    if args.embedder:
        from analyzer.embedding import load_embedder  # type: ignore[attr-defined]

        embedder = load_embedder()
    blinded: dict[str, Any] = {}
    runs = collect_runs(args.paths, embedder=embedder, keep=lambda t: blinded.__setitem__(t.id, t))
    if len(runs) < args.folds * 2:
        print(f"only {len(runs)} labelled runs: too few to fit", file=sys.stderr)
        return 1
    cv = nested_cv(runs, folds=args.folds)
    held = cv.logits
    base = cv_scores(runs, held, cv.temperature)
    print(format_scores(f"ranker, {args.folds}-fold nested CV on {len(runs)} runs (L2 per fold: {cv.l2}; "
                        f"agent temperature per fold: {sorted(set(cv.temperature))})", base))
    l2 = choose_l2(runs, folds=args.folds)
    fitted = fit_clogit(runs, l2)
    temperature = choose_agent_temperature(runs, l2, folds=args.folds)
    judge_weight = 0.0
    judge_meta: dict[str, Any] = {}
    if args.judge:
        from analyzer.judge import load_judge  # type: ignore[attr-defined]

        judge = load_judge(args.judge)
        judge_p: list[dict[int, float]] = []
        for i, (r, s) in enumerate(zip(runs, held, strict=True)):
            top = [int(k) for k in np.argsort(-s, kind="stable")[: args.top_k]]
            judge_p.append({int(k): float(v) for k, v in judge.candidate_scores(blinded[r.trace_id], top).items()})
            print(f"\rjudge {i + 1}/{len(runs)}", end="", file=sys.stderr)
        print(file=sys.stderr)
        judge_weight, combined = choose_judge_weight(runs, held, judge_p, folds=args.folds)
        with_judge = cv_scores(runs, combined, cv.temperature)
        print(format_scores(f"ranker + judge ({judge.model_id}, top {args.top_k}, weight chosen by CV)", with_judge))
        judge_meta = {"judge_model": judge.model_id, "judge_top_k": args.top_k,
                      "cv_with_judge": with_judge.to_json()}
    params = to_params(
        fitted, judge_weight=judge_weight, judge_top_k=args.top_k, value_prior=0.9,
        agent_temperature=temperature,
        meta={
            "fitted": _dt.date.today().isoformat(),
            "data": ["/".join(p.resolve().parts[-2:]) for p in args.paths],
            "n_runs": len(runs),
            "l2": l2,
            "embeddings": bool(args.embedder),
            "cv_folds": args.folds,
            "cv": base.to_json(),
            **judge_meta,
            "trained_trace_ids": sorted(r.trace_id for r in runs),
        },
    )
    largest = sorted(zip(FEATURE_NAMES, fitted.weights, strict=True), key=lambda kv: -abs(kv[1]))[:12]
    print(f"agent temperature: {temperature}")
    print("largest weights: " + ", ".join(f"{n}={v:+.2f}" for n, v in largest))
    if not args.dry_run and args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(params.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
