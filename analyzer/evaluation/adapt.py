"""Adapt the decisive-step ranker to an analyst's own labels, shrunk towards the shipped weights.

An analyst who marks the decisive step of a few failed runs of *their* agent system gets a
ranker fitted to those labels. The model is the shipped one with only its weights refitted:
a conditional logit (softmax over the steps of a run) on the shipped design
(:meth:`Ranker.design`, i.e. the shipped standardisation and clipping) plus the shipped fixed
offset (:meth:`Ranker.offset`), with the penalty ``lambda * ||w - w_base||^2``. Large
``lambda`` keeps the shipped weights; ``lambda = inf`` *is* the shipped ranker.

``lambda`` is chosen from :data:`STRENGTH_GRID` (which includes ``inf``), together with which
weights may move (:data:`COLUMN_SETS`: the ones the base uses, or all), by cross-validated
step@1 on the labels themselves (leave-one-out up to :data:`LOO_MAX_RUNS` runs, else
:data:`INNER_FOLDS`-fold); ties go to the stronger shrinkage, so labels that cannot tell the
strengths apart keep the shipped weights. No margin is set by hand: the analyst's own labels
choose. :func:`cross_validated_step_at_1` reports the
leave-one-out step@1 of the shipped and the adapted weights (refitted, ``lambda`` included,
without the held-out run), so the analyst sees whether adapting helped.
:func:`simulate` replays the procedure with gold labels (``trajscope eval --adapt K``).

Only the public ranker API is used (``design``, ``offset``, ``weights``, ``params``), so
this module keeps working when the features change.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from analyzer.attribution.adapted import ADAPTED_KIND
from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.jobs import Cancelled, CancelToken, NeverCancel, Progress, no_progress

STRENGTH_GRID: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, math.inf)
"""Candidate shrinkage strengths ``lambda`` (``inf``: the shipped weights)."""

CV_CRITERION = "step_at_1"
"""What the choice of ``lambda`` maximises: held-out ``"step_at_1"`` or ``"log_lik"``."""

MIN_LABELS = 5
"""Labelled failed runs the app asks for before it offers to adapt."""

LOO_MAX_RUNS = 10
"""Up to this many labelled runs, ``lambda`` is chosen by leave-one-out; above, by k-fold."""

INNER_FOLDS = 5
"""Folds of the ``lambda`` choice above :data:`LOO_MAX_RUNS` runs."""



@dataclass(frozen=True)
class LabelledRun:
    """One run with the analyst's (or a gold) decisive step.

    Attributes:
        features: Feature matrix of the run (steps x features), as
            ``analyzer.pipeline.prepare_run(...).features`` computes it.
        gold_step: Index of the decisive step.
        agent: The responsible agent, if known (carried through, not fitted).
        key: Run id (recorded in the adapted params and in the predictions).
    """

    features: np.ndarray
    gold_step: int
    agent: str | None = None
    key: str = ""


@dataclass(frozen=True)
class Prediction:
    """The adapted ranker's answer on one held-out run.

    Attributes:
        index: Position of the run in the ``runs`` given to :func:`simulate`.
        key: Its ``LabelledRun.key``.
        top_step: Highest-scoring step.
        ranking: Every step, best first.
        probs: Softmax probability of each step (in step order).
        gold_step: The run's label (for scoring).
    """

    index: int
    key: str
    top_step: int
    ranking: tuple[int, ...]
    probs: tuple[float, ...]
    gold_step: int


@dataclass
class Draw:
    """One simulated adaptation: fitted on ``train`` runs, scored on the others.

    Attributes:
        draw: Draw number (0-based).
        train: Indices of the runs it was fitted on (sorted).
        strength: The ``lambda`` chosen by cross-validation on the training runs.
        params: The adapted params (``Ranker(params)`` runs the full pipeline with them).
        predictions: One per test run, in run order.
    """

    draw: int
    train: tuple[int, ...]
    strength: float
    params: RankerParams
    predictions: list[Prediction] = field(default_factory=list)

    def step_at_1(self) -> float:
        """Share of test runs whose top step is the label."""
        if not self.predictions:
            return 0.0
        return sum(p.top_step == p.gold_step for p in self.predictions) / len(self.predictions)


@dataclass(frozen=True)
class CrossValidation:
    """Leave-one-out step@1 of the shipped and the adapted weights on the same labels.

    Attributes:
        shipped: Step@1 of the shipped weights.
        adapted: Step@1 of weights refitted without each held-out run.
        n: Number of labelled runs.
    """

    shipped: float
    adapted: float
    n: int


# -- the fit ----------------------------------------------------------------------------------
COLUMN_SETS: tuple[str, ...] = ("weighted", "all")
"""Which weights adaptation may move, chosen with ``lambda`` by the same cross-validation:
``"weighted"`` only the columns the base weights use (the feature set the base's own selection
chose, the structural prior among them), ``"all"`` every column the params hold. Ten labels cannot
hold 53 weights; a system whose failures the chosen columns describe learns faster with fewer."""


@dataclass(frozen=True)
class _Prepared:
    z: np.ndarray  # design restricted to the free columns
    offset: np.ndarray  # fixed part of the logits (offset + fixed columns @ base weights)
    gold: int


class _Problem:
    """The runs of one adaptation with one set of free columns, prepared once for many fits."""

    def __init__(self, base: Ranker, runs: Sequence[LabelledRun], columns: np.ndarray | None = None,
                 designs: Sequence[tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        self.base = base
        self.w_base = base.weights
        self.index = _param_index(base)
        self.columns = np.array(sorted(self.index), dtype=np.int64) if columns is None else columns
        fixed = np.ones(self.w_base.shape[0], dtype=bool)
        fixed[self.columns] = False
        self.runs: list[_Prepared] = []
        for k, r in enumerate(runs):
            n = int(r.features.shape[0])
            if not 0 <= r.gold_step < n:
                raise ValueError(f"run {r.key or '?'}: decisive step {r.gold_step} is outside its {n} steps")
            d, base_off = designs[k] if designs is not None else (base.design(r.features), base.offset(r.features))
            off = np.asarray(base_off, dtype=np.float64) + d[:, fixed] @ self.w_base[fixed]
            self.runs.append(_Prepared(np.asarray(d[:, self.columns], dtype=np.float64), off, int(r.gold_step)))

    def fit(self, subset: Sequence[int], strength: float, start: np.ndarray | None = None) -> np.ndarray:
        """Free weights fitted on the runs ``subset`` (the base weights when ``strength`` is inf).

        The loss is vectorised over the stacked steps of all runs (one matrix product per
        evaluation); ``start`` warm-starts L-BFGS (e.g. from the next stronger shrinkage).
        """
        w0: np.ndarray = np.asarray(self.w_base[self.columns], dtype=np.float64)
        items = [self.runs[i] for i in subset]
        if math.isinf(strength) or not items or w0.size == 0:
            return w0
        from scipy.optimize import minimize

        lam = float(strength)
        z = np.vstack([r.z for r in items])
        off = np.concatenate([r.offset for r in items])
        lens = np.array([r.z.shape[0] for r in items])
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
        seg = np.repeat(np.arange(len(items)), lens)
        gold_rows = starts + np.array([r.gold for r in items])
        z_gold = z[gold_rows].sum(axis=0)

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            dw = w - w0
            s = z @ w + off
            m = np.maximum.reduceat(s, starts)
            e = np.exp(s - m[seg])
            tot = np.add.reduceat(e, starts)
            value = float(np.sum(m + np.log(tot)) - np.sum(s[gold_rows])) + lam * float(dw @ dw)
            grad = z.T @ (e / tot[seg]) - z_gold + 2.0 * lam * dw
            return value, grad

        x0 = w0 if start is None else np.asarray(start, dtype=np.float64)
        res = minimize(loss, x0, jac=True, method="L-BFGS-B", options={"maxiter": 300, "gtol": 1e-4})
        return np.asarray(res.x, dtype=np.float64)

    def logits(self, i: int, w: np.ndarray) -> np.ndarray:
        r = self.runs[i]
        out: np.ndarray = r.z @ w + r.offset
        return out

    def hit(self, i: int, w: np.ndarray) -> bool:
        return int(np.argmax(self.logits(i, w))) == self.runs[i].gold

    def log_prob(self, i: int, w: np.ndarray) -> float:
        s = self.logits(i, w)
        m = float(s.max())
        return float(s[self.runs[i].gold]) - m - math.log(float(np.exp(s - m).sum()))

    def params(self, w_free: np.ndarray, meta: dict[str, Any]) -> RankerParams:
        """The base params with the free weights replaced."""
        p = self.base.params
        weights = list(p.weights)
        for j, col in enumerate(self.columns):
            weights[self.index[int(col)]] = round(float(w_free[j]), 6)
        return replace(p, weights=weights, meta=meta)


class _Choice:
    """Every candidate column set of one adaptation; cross-validation picks the set and ``lambda``."""

    def __init__(self, base: Ranker, runs: Sequence[LabelledRun]) -> None:
        designs = [(base.design(r.features), base.offset(r.features)) for r in runs]
        every = np.array(sorted(_param_index(base)), dtype=np.int64)
        w = base.weights
        weighted = np.array([c for c in every if w[c] != 0.0], dtype=np.int64)
        self.problems: dict[str, _Problem] = {"all": _Problem(base, runs, every, designs)}
        if 0 < weighted.size < every.size:
            self.problems["weighted"] = _Problem(base, runs, weighted, designs)
        self.base = base
        self.n = len(runs)

    @property
    def default(self) -> _Problem:
        """The problem with every column free (its base weights are the shipped ones)."""
        return self.problems["all"]

    def choose(self, subset: Sequence[int], cancel: CancelToken | None = None) -> tuple[str, float, dict[str, float]]:
        """Column set and ``lambda`` with the best cross-validated score on ``subset``.

        The score is :data:`CV_CRITERION`: ``"step_at_1"`` (held-out top-1 hits) or
        ``"log_lik"`` (held-out mean log-probability of the label). Ties go to the stronger
        shrinkage, then to the smaller column set, so labels that cannot tell the candidates
        apart keep the shipped weights.
        """
        idx = list(subset)
        if not idx:
            return "all", math.inf, {}
        names = [c for c in COLUMN_SETS if c in self.problems]
        hits = {(c, lam): 0.0 for c in names for lam in STRENGTH_GRID}
        loglik = dict.fromkeys(hits, 0.0)
        path = sorted(STRENGTH_GRID, reverse=True)  # strongest first: each fit warm-starts the next
        for fold in _folds(len(idx)):
            if cancel is not None and cancel.cancelled:
                raise Cancelled()
            held = set(fold)
            train = [idx[j] for j in range(len(idx)) if j not in held]
            test = [idx[j] for j in fold]
            for c in names:
                prob = self.problems[c]
                w: np.ndarray | None = None
                for lam in path:
                    w = prob.fit(train, lam, start=w)
                    hits[c, lam] += sum(prob.hit(i, w) for i in test)
                    loglik[c, lam] += sum(prob.log_prob(i, w) for i in test)
        table = hits if CV_CRITERION == "step_at_1" else loglik
        scores = {key: table[key] / len(idx) for key in hits}
        best = max(scores.values())
        rank = {c: k for k, c in enumerate(COLUMN_SETS)}
        chosen = max((key for key, v in scores.items() if v >= best - 1e-9),
                     key=lambda key: (key[1], -self.problems[key[0]].columns.size, -rank[key[0]]))
        cv = {f"{c}/{_strength_key(lam)}": round(v, 6) for (c, lam), v in scores.items()}
        return chosen[0], chosen[1], cv


def _strength_key(lam: float) -> str:
    return "inf" if math.isinf(lam) else f"{lam:g}"


def _folds(n: int) -> list[list[int]]:
    """Leave-one-out up to LOO_MAX_RUNS items, else INNER_FOLDS deterministic interleaved folds."""
    if n <= LOO_MAX_RUNS:
        return [[i] for i in range(n)]
    return [list(range(k, n, INNER_FOLDS)) for k in range(INNER_FOLDS)]


def _param_index(base: Ranker) -> dict[int, int]:
    """Design column -> position in ``base.params.weights`` (found through the public API)."""
    p = base.params
    out: dict[int, int] = {}
    n = len(p.weights)
    for k in range(n):
        probe = [0.0] * n
        probe[k] = 1.0
        w = Ranker(replace(p, weights=probe)).weights
        nz = np.flatnonzero(w)
        if nz.size == 1:
            out[int(nz[0])] = k
    return out


def free_columns(base: Ranker) -> np.ndarray:
    """Design columns whose weight the params can hold (the ones adaptation refits)."""
    return np.array(sorted(_param_index(base)), dtype=np.int64)


def fit_adapted(
    base: Ranker,
    runs: Sequence[LabelledRun],
    strength: float | None = None,
    *,
    evaluate: bool = True,
    embeddings: bool | None = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
) -> RankerParams:
    """Refit the ranker's weights on labelled runs, shrunk towards ``base``'s weights.

    Args:
        base: The shipped (or any) ranker; its design and offset are kept.
        runs: Labelled runs (at least one step each; the label inside the run).
        strength: The shrinkage ``lambda``; None chooses it by cross-validation from
            :data:`STRENGTH_GRID` (``inf`` returns the base weights).
        evaluate: Also compute :func:`cross_validated_step_at_1` for the meta (nested,
            so slower; :func:`simulate` turns it off).
        embeddings: Whether the features were computed with the embedder (recorded so
            analyses can warn when they differ).
        progress: Called per cross-validation fold.
        cancel: Checked between fits; raises :class:`analyzer.jobs.Cancelled`.

    Returns:
        Params with ``meta``: kind, n_labels, strength, strength_cv, created, trace_ids,
        base_version, base_meta_fitted, cv (shipped/adapted step@1, n) and embeddings.

    Raises:
        ValueError: A label lies outside its run.
        analyzer.jobs.Cancelled: ``cancel`` fired.
    """
    cancel = cancel or NeverCancel()
    choice = _Choice(base, runs)
    everything = list(range(len(runs)))
    strength_cv: dict[str, float] = {}
    columns = "all"
    if strength is None:
        progress(0, 1, "choosing the shrinkage")
        columns, lam, strength_cv = choice.choose(everything, cancel)
    else:
        if strength < 0 or math.isnan(strength):
            raise ValueError(f"shrinkage strength must be >= 0, got {strength}")
        lam = float(strength)
    problem = choice.problems[columns]
    w = problem.fit(everything, lam)
    meta: dict[str, Any] = {
        "kind": ADAPTED_KIND,
        "n_labels": len(runs),
        "strength": None if math.isinf(lam) else lam,
        "strength_cv": strength_cv,
        "columns": columns,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "trace_ids": [r.key for r in runs],
        "base_version": base.params.version,
        "base_meta_fitted": base.params.meta.get("fitted"),
    }
    if embeddings is not None:
        meta["embeddings"] = bool(embeddings)
    if evaluate:
        cv = _cross_validate(choice, cancel, progress)
        meta["cv"] = {"shipped_step_at_1": round(cv.shipped, 6), "adapted_step_at_1": round(cv.adapted, 6),
                      "n": cv.n, "method": "leave-one-out"}
    progress(1, 1, "done")
    return problem.params(w, meta)


def _cross_validate(choice: _Choice, cancel: CancelToken, progress: Progress) -> CrossValidation:
    n = choice.n
    base = choice.default
    shipped = sum(base.hit(i, base.w_base[base.columns]) for i in range(n))
    adapted = 0
    for i in range(n):
        if cancel.cancelled:
            raise Cancelled()
        progress(i, n, f"cross-validation {i + 1}/{n}")
        train = [j for j in range(n) if j != i]
        columns, lam, _ = choice.choose(train, cancel)
        problem = choice.problems[columns]
        adapted += problem.hit(i, problem.fit(train, lam))
    return CrossValidation(shipped / n if n else 0.0, adapted / n if n else 0.0, n)


def cross_validated_step_at_1(base: Ranker, runs: Sequence[LabelledRun], *, progress: Progress = no_progress,
                              cancel: CancelToken | None = None) -> tuple[float, float, int]:
    """Leave-one-out step@1 on the labels: shipped weights vs weights adapted without the held-out run.

    The adapted side repeats the whole procedure (``lambda`` chosen by cross-validation on
    the remaining runs) for every held-out run, so it is an honest held-out figure.

    Returns:
        ``(shipped_step_at_1, adapted_step_at_1, n)``.
    """
    cv = _cross_validate(_Choice(base, runs), cancel or NeverCancel(), progress)
    return cv.shipped, cv.adapted, cv.n


def simulate(base: Ranker, runs: Sequence[LabelledRun], k: int, draws: int, seed: int,
             progress: Progress = no_progress) -> list[Draw]:
    """Simulate adaptation with gold labels: per draw, fit on ``k`` random runs, predict the rest.

    Deterministic in ``seed``. ``k = 0`` gives the shipped ranker's predictions.

    Raises:
        ValueError: ``k`` is negative or leaves no run to test, or ``draws < 1``.
    """
    n = len(runs)
    if k < 0 or k >= n:
        raise ValueError(f"--adapt K must be between 0 and {n - 1} (the set has {n} runs), got {k}")
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    choice = _Choice(base, runs)
    rng = np.random.default_rng(seed)
    out: list[Draw] = []
    for d in range(draws):
        progress(d, draws, f"draw {d + 1}/{draws}")
        train = tuple(sorted(int(i) for i in rng.choice(n, size=k, replace=False))) if k else ()
        columns, lam, strength_cv = choice.choose(train) if k else ("all", math.inf, {})
        problem = choice.problems[columns]
        w = problem.fit(train, lam)
        meta = {"kind": ADAPTED_KIND, "n_labels": k, "strength": None if math.isinf(lam) else lam,
                "strength_cv": strength_cv, "columns": columns, "trace_ids": [runs[i].key for i in train],
                "base_version": base.params.version, "simulated_draw": d, "seed": seed}
        draw = Draw(d, train, lam, problem.params(w, meta))
        held = set(train)
        for i in range(n):
            if i in held:
                continue
            logits = problem.logits(i, w)
            ranking = tuple(int(j) for j in np.argsort(-logits, kind="stable"))
            z = np.exp(logits - logits.max())
            probs = tuple(float(v) for v in z / z.sum())
            draw.predictions.append(Prediction(i, runs[i].key, ranking[0], ranking, probs, runs[i].gold_step))
        out.append(draw)
    progress(draws, draws, "done")
    return out


# -- collecting labels --------------------------------------------------------------------------
def labelled_runs(
    traces: Any,
    steps: Any,
    labels: dict[str, int],
    *,
    host: Any = None,
    embedder: Any = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
    on_skip: Callable[[str, str], None] | None = None,
) -> list[LabelledRun]:
    """Features of the labelled failed runs, computed exactly as the analysis computes them.

    Args:
        traces: Traces frame; only failed runs (``outcome == "failure"``) with a label count.
        steps: Steps frame.
        labels: Run id -> decisive step (e.g. :meth:`Workspace.decisive_labels`).
        host: Plugin host (default: every installed plugin).
        embedder: The embedder the analysis uses (None: lexical signals only).
        progress: Called once per run.
        cancel: Checked between runs; raises :class:`analyzer.jobs.Cancelled`.
        on_skip: Called with (run id, reason) for a labelled run that cannot be used.

    Returns:
        One labelled run per usable label, in the traces frame's order.
    """
    import polars as pl

    from analyzer.frames.build import trajectories_from_frames
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.registry import default_host

    cancel = cancel or NeverCancel()
    ids = [t for t in labels if t]
    wanted = traces.filter(pl.col("trace_id").is_in(ids) & (pl.col("outcome") == "failure"))
    if on_skip is not None:
        present = set(wanted["trace_id"].to_list())
        for tid in ids:
            if tid not in present:
                on_skip(tid, "not a loaded failed run")
    trajs = trajectories_from_frames(wanted, steps.filter(pl.col("trace_id").is_in(wanted["trace_id"].implode())))
    host = host or default_host()
    out: list[LabelledRun] = []
    for i, t in enumerate(trajs):
        if cancel.cancelled:
            raise Cancelled()
        progress(i, len(trajs), t.native_id or t.id)
        step = labels[t.id]
        if not 0 <= step < len(t.steps):
            if on_skip is not None:
                on_skip(t.id, f"decisive step {step} is outside its {len(t.steps)} steps")
            continue
        sig = prepare_run(blind(t), host, embedder=embedder)
        agent = t.steps[step].agent
        out.append(LabelledRun(sig.features, step, agent, t.id))
    progress(len(trajs), len(trajs), "done")
    return out
