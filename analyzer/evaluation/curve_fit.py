"""Fitting the value curve's weights by nested leave-one-system-out (``trajscope eval fit-curve ROOT``).

The value curve (:mod:`analyzer.attribution.value_curve`) weighs a per-step term matrix
(:func:`analyzer.attribution.hazards.term_matrix`) with the weights of a params file. Here those
weights are chosen on labelled development systems, by an objective that is honest for a value
curve: the **largest drop** (``largest_drop_step``, what the analyst sees and what is exported)
should land on the labelled decisive step.

- :func:`prepare_curve_set` reads each run once into its term matrix (plus the fixed rules'
  predictions), cached per set.
- :func:`fit_weights` is a **coordinate ascent** over :data:`GRID` (every column's weight, the
  finding cap, the filter's ``derail``/``recover``, the failed run's target and temper bound, and
  the error-episode and alignment rules of the matrix) from the hand-set params, maximising a
  criterion (:data:`CRITERIA`) macro-averaged over the training systems.
- :func:`select_and_fit` chooses among the candidates (:data:`CANDIDATES`: keep the hand-set
  weights, or fit with one of the criteria) by **leave-one-system-out among the training
  systems only**: each candidate is fitted on all training systems but one and scored (step@1
  of the largest drop) on that one; the best mean wins (ties: the earlier candidate, the
  hand-set weights first). Then the winner is fitted on all training systems.
- :func:`nested_leave_one_system_out` is the headline: for each system, :func:`select_and_fit`
  is redone on the other systems only, and the system is scored once, by the exact run-time
  :func:`~analyzer.attribution.value_curve.value_curve`.

What ships is the selection's choice on every development system (:func:`shipped_params`), whatever
it is; the hand-set weights are one of its candidates. The judge's columns are not fitted: no
development run has judge values (their weights stay as the params file has them). Training code
never runs in the app.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.curve_params import (
    FAILURE_COLUMNS,
    FINDING_COLUMNS,
    TERM_COLUMNS,
    CurveParams,
)
from analyzer.attribution.hazards import StepEvidence, term_matrix
from analyzer.attribution.value_curve import value_curve
from analyzer.evaluation.scoring import Gold, Metric, Prediction, Scores, score, wilson
from analyzer.jobs import Progress, no_progress

_COL = {c: i for i, c in enumerate(TERM_COLUMNS)}
_PLAIN = [i for c, i in _COL.items() if c not in FINDING_COLUMNS and not c.startswith("judge")]
_FIND = [_COL[c] for c in FINDING_COLUMNS]

POSITIVE_GRID: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0)
"""Weights tried for a failure column (log-LR of one unit; >= 0)."""

NEGATIVE_GRID: tuple[float, ...] = (0.0, -0.5, -1.0, -2.0, -3.0, -5.0, -8.0)
"""Weights tried for a recovery column (<= 0)."""

MATRIX_ENTRIES: tuple[str, ...] = (
    "recurring_jaccard", "clean_run", "align_slack", "align_smoothing", "align_min_words", "align_min_steps",
    "align_baseline_steps", "align_baseline_share")
"""Params-file entries that change the term matrix itself (the error-episode and alignment rules):
trying one of their values re-reads every run into its matrix (:func:`set_matrices`)."""

GRID: dict[str, tuple[float, ...]] = {
    **{c: POSITIVE_GRID for c in FAILURE_COLUMNS if not c.startswith("judge")},
    **{c: NEGATIVE_GRID for c in ("retry_succeeds", "no_recurrence", "tests_pass")},
    "finding_cap": (1.0, 2.0, 4.0, 8.0, 30.0),
    "derail": (1e-5, 4e-5, 1e-4, 1e-3),
    "recover": (5e-4, 2e-3, 1e-2),
    "failed_end": (0.01, 0.05, 0.1, 0.2),
    "max_temper": (5.0, 50.0, 500.0),
    "recurring_jaccard": (0.3, 0.5, 0.7),
    "clean_run": (1, 2, 3),
    "align_slack": (0.1, 0.3, 0.5),
    "align_smoothing": (0.3, 0.6, 1.0),
    "align_min_words": (1, 3, 5),
    "align_min_steps": (3, 6, 10),
    "align_baseline_steps": (2, 3, 5),
    "align_baseline_share": (0.2, 1 / 3, 0.5),
}
"""The search space of the coordinate ascent: weights by column name, then the filter's constants,
the failed run's target and temper bound, and the term matrix's episode and alignment rules
(:data:`MATRIX_ENTRIES`).

Not searched: the judge's columns and clip (no development run has judge values), the successful
run's target (no development run succeeded: the fit writes ``succeeded_end = 1 - failed_end``,
the mirror of the failed run's), and ``step_clip`` / ``llr_clip`` (numerical safety bounds)."""

SCALARS = ("finding_cap", "derail", "recover", "failed_end", "max_temper", *MATRIX_ENTRIES)
"""Searched entries that are not column weights."""

CRITERIA: dict[str, Callable[[dict[str, float]], float]] = {
    "step@1": lambda m: m["step@1"],
    "step@1+near": lambda m: (m["step@1"] + m["step±1"] + m["step±2"]) / 3,
}
"""Criteria the fit can maximise, from a system's hit rates (largest drop vs labelled step)."""

CANDIDATES: tuple[str, ...] = ("hand-set", "fit:step@1", "fit:step@1+near")
"""What the selection chooses among: the hand-set weights, or a fit by one of :data:`CRITERIA`."""

SEARCH_BISECT = 14
"""Bisection passes of the outcome's temper during the search (the run-time curve uses 30; the
reported figures are always computed by the run-time curve)."""

MAX_SWEEPS = 2
"""Most sweeps of the coordinate ascent."""


@dataclass
class RunSource:
    """What a run's term matrix is read from, kept so that the matrix rules can be searched.

    Attributes:
        trajectory: The (blinded) run.
        findings: Its steps-phase detector findings.
        alignment: Embedding cosine of each step with the task (None: lexical).
        table: Its step-signal table.
    """

    trajectory: Any
    findings: list[Any]
    alignment: list[float] | None
    table: Any


@dataclass
class CurveRun:
    """One labelled run as the fit sees it.

    Attributes:
        key: Record key of the gold label.
        x: Term matrix (steps x :data:`TERM_COLUMNS`) under the set's :attr:`CurveSet.matrix_key`.
        gold: Gold decisive step (canonical on sets scored by span), None when unlabelled.
        canon: Per step, the step that stands for it (sets scored by span), or None.
        outcome: ``failure``/``success``/``unknown``.
        source: What the matrix is read from (None: the matrix rules cannot be varied).
    """

    key: str
    x: np.ndarray
    gold: int | None
    canon: list[int] | None
    outcome: str
    source: RunSource | None = None

    def canonical(self, step: int | None) -> int | None:
        """The step standing for ``step`` (itself on sets scored by step)."""
        if step is None or not self.canon:
            return step
        return self.canon[step] if 0 <= step < len(self.canon) else step


@dataclass
class CurveSet:
    """A development set prepared for the curve fit.

    Attributes:
        name: Dataset id.
        runs: Runs that loaded.
        golds: Every gold record (a run that did not load counts as a miss).
        rules: Predictions of each fixed rule, by record key (canonical).
        random: Expected hits of a uniform random step (a random span on sets scored by span).
        training_only: Planted failures: trained on, never scored as a held-out system.
        matrix_key: The :data:`MATRIX_ENTRIES` values the runs' ``x`` were read with; empty when the
            matrices are given as they are (their rules cannot be varied, e.g. synthetic sets).
    """

    name: str
    runs: list[CurveRun]
    golds: list[Gold]
    rules: dict[str, dict[str, Prediction]] = field(default_factory=dict)
    random: float = 0.0
    training_only: bool = False
    matrix_key: tuple[float, ...] = ()


def matrix_key(p: CurveParams) -> tuple[float, ...]:
    """The values of :data:`MATRIX_ENTRIES` in ``p`` (runs read with equal keys have equal matrices)."""
    return tuple(float(getattr(p, n)) for n in MATRIX_ENTRIES)


def matrix_rules_vary(cs: CurveSet) -> bool:
    """Whether the set's matrices can be re-read under other episode and alignment rules."""
    return bool(cs.matrix_key) and all(r.source is not None for r in cs.runs)


def set_matrices(cs: CurveSet, p: CurveParams) -> list[np.ndarray]:
    """Every run's term matrix under ``p``'s episode and alignment rules.

    The cached matrices when the rules are equal, or when the set's matrices are given as they are.

    Raises:
        ValueError: The rules differ from the cached ones and a run kept no source to re-read.
    """
    if not cs.matrix_key or matrix_key(p) == cs.matrix_key:
        return [r.x for r in cs.runs]
    out = []
    for r in cs.runs:
        if r.source is None:
            raise ValueError(f"{cs.name}: run {r.key} kept no source; its matrix rules cannot be varied")
        src = r.source
        out.append(term_matrix(src.trajectory, src.findings, src.alignment, None, p, src.table).values)
    return out


def first_error_rule(x: np.ndarray) -> int | None:
    """Fixed rule: the first step with an error output (or error text)."""
    hit = np.flatnonzero((x[:, _COL["error_output"]] > 0) | (x[:, _COL["error_text"]] > 0))
    return int(hit[0]) if hit.size else None


def curve_set_from_prepared(ps: Any, params: CurveParams,
                            alignment: Mapping[str, Sequence[float]] | None = None) -> CurveSet:
    """A :class:`CurveSet` from a ranker-evaluation :class:`~analyzer.evaluation.transfer.PreparedSet`.

    ``alignment`` holds the embedding cosine of each step with the task, by record key (as the
    app computes it with an embedder); without it the alignment column reads the lexical
    alignment (the app's ``--no-embed`` path).
    """
    from analyzer.evaluation.baselines import baseline_predictions
    from analyzer.evaluation.transfer import canonical_prediction

    runs: list[CurveRun] = []
    for r in ps.runs:
        align = (alignment or {}).get(r.key)
        tm = term_matrix(r.trajectory, r.findings, align, None, params, r.table)
        canon = ps.canonical.get(r.key)
        gold = r.gold_step
        if gold is not None and canon:
            gold = canon[gold] if 0 <= gold < len(canon) else gold
        source = RunSource(r.trajectory, list(r.findings), list(align) if align is not None else None, r.table)
        runs.append(CurveRun(r.key, tm.values, gold, canon, str(r.trajectory.outcome), source))
    golds = [Gold(g.file, _canonical_gold(ps, g), None) for g in ps.golds]
    rules = {name: {k: canonical_prediction(v, ps.canonical.get(k)) for k, v in p.items()}
             for name, p in baseline_predictions(ps.trajectories, span_rules=bool(ps.canonical)).items()}
    first_err: dict[str, Prediction] = {}
    for run in runs:
        s = run.canonical(first_error_rule(run.x))
        first_err[run.key] = Prediction(run.key, s, None, (s,) if s is not None else ())
    rules["first error output"] = first_err
    by_key = {r.key: r for r in runs}
    expected = 0.0
    for g in golds:
        got = by_key.get(g.file)
        if got is None or g.step is None:
            continue
        units = len(set(got.canon)) if got.canon else got.x.shape[0]
        expected += 1.0 / units if units else 0.0
    return CurveSet(ps.name, runs, golds, rules, expected, bool(getattr(ps, "training_only", False)),
                    matrix_key(params))


def _canonical_gold(ps: Any, g: Gold) -> int | None:
    canon = ps.canonical.get(g.file)
    if g.step is None or not canon:
        return g.step
    return canon[g.step] if 0 <= g.step < len(canon) else g.step


def prepare_curve_set(name: str, path: Path, params: CurveParams, *, cache: Path | None = None,
                      prepared: Path | None = None, embedder: Any = None,
                      progress: Progress = no_progress) -> CurveSet:
    """Read one development set into term matrices as the app computes them, cached.

    With an embedder, the detectors see the step embeddings and the alignment column reads the
    embedding cosine (the app's default); without, both are lexical (``--no-embed``).

    Args:
        name: Dataset id (:data:`~analyzer.evaluation.datasets.DATASETS`).
        path: The set's folder.
        params: Filter constants of the term matrix (episode and alignment rules) of the cached matrices;
            the runs keep their sources, so other rules can be read later (:func:`set_matrices`).
        cache: Folder of cached :class:`CurveSet` pickles (written when missing).
        prepared: Folder of the ranker evaluation's prepared sets (``eval suite --cache``), read
            when it holds this set (never written).
        embedder: Sentence embedder, or None.
        progress: Progress callback.
    """
    tag = "" if embedder is not None else "-noembed"
    stored = cache / f"{name}{tag}.curve-v2.pickle" if cache is not None else None
    if stored is not None and stored.is_file():
        cs: CurveSet = pickle.loads(stored.read_bytes())
        return cs
    found = prepared / f"{name}{tag}.pickle" if prepared is not None else None
    alignment: dict[str, list[float]] | None = None
    if found is not None and found.is_file():
        ps = pickle.loads(found.read_bytes())[0]
        if embedder is not None:
            from analyzer.pipeline import embed_run

            alignment = {}
            for r in ps.runs:
                if r.trajectory.steps:
                    se, te = embed_run(r.trajectory, embedder)
                    alignment[r.key] = [float(v) for v in se @ te]
    else:
        ps, alignment = _prepare_light(name, path, embedder, progress)
    cs = curve_set_from_prepared(ps, params, alignment)
    if stored is not None:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(pickle.dumps(cs))
    return cs


def _prepare_light(name: str, path: Path, embedder: Any, progress: Progress) -> tuple[Any, dict[str, list[float]]]:
    """Trajectories, steps-phase findings and (with an embedder) alignments of a set.

    With an embedder this is the app's :func:`~analyzer.pipeline.prepare_run`; without, only
    the detectors run (no ranker features are needed here).
    """
    from analyzer.detection.runner import STEPS_PHASE, run_detectors
    from analyzer.evaluation.datasets import DATASETS, PLANTED, load_planted_samples
    from analyzer.evaluation.transfer import EvalRun, PreparedSet
    from analyzer.frames.build import trajectories_from_frames
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.protocols import DetectionContext
    from analyzer.plugin_host.registry import default_host
    from analyzer.signals.steps import step_signals

    ls = load_planted_samples(path) if name == PLANTED else DATASETS[name].load(path)
    host = default_host()
    gold_by_key = {g.file: g for g in ls.golds}
    runs = []
    blinded = []
    alignment: dict[str, list[float]] = {}
    trajs = trajectories_from_frames(ls.traces, ls.steps)
    for i, t in enumerate(trajs):
        progress(i, len(trajs), Path(t.source_file).name)
        key = ls.keys.get(t.id, Path(t.source_file).name)
        bt = blind(t)
        blinded.append(bt)
        if embedder is not None:
            sig = prepare_run(bt, host, embedder=embedder)
            findings = list(sig.findings)
            table = sig.table
            if sig.alignment is not None:
                alignment[key] = sig.alignment
        else:
            table = step_signals(bt)
            findings = list(run_detectors(bt, DetectionContext(step_table=table), host, phase=STEPS_PHASE).findings)
        g = gold_by_key.get(key)
        step = g.step if g is not None else None
        if step is not None and not 0 <= step < len(t.steps):
            step = None
        runs.append(EvalRun(key, bt, findings, np.zeros((len(t.steps), 0)), [], step,
                            g.agent if g is not None else None, table=table))
    progress(len(trajs), len(trajs), "prepared")
    return PreparedSet(ls.name, runs, ls.golds, ls.multi_agent, bool(ls.categories), blinded,
                       ls.canonical, ls.alternatives, ls.training_only), alignment


# --- the fast curve of the search --------------------------------------------------------------


def run_llr(x: np.ndarray, p: CurveParams) -> np.ndarray:
    """The run-time log-LRs of a term matrix without judge values (:func:`~analyzer.attribution.hazards.weigh`)."""
    w = np.asarray(p.weight_vector())
    plain = x[:, _PLAIN] @ w[_PLAIN]
    find = np.minimum(x[:, _FIND] @ w[_FIND], p.finding_cap)
    out: np.ndarray = np.clip(plain + find, -p.step_clip, p.step_clip)
    return out


def _filter_end(llr: np.ndarray, lengths: np.ndarray, p: CurveParams) -> np.ndarray:
    """P(on track) at each run's last step; ``llr`` is runs x T (padded)."""
    lam = np.clip(llr, -p.llr_clip, p.llr_clip)
    pi = p.recover / (p.derail + p.recover)
    prob = np.full(llr.shape[0], pi)
    end = np.empty(llr.shape[0])
    keep, back = 1.0 - p.derail, p.recover
    for t in range(llr.shape[1]):
        pp = prob * keep + (1.0 - prob) * back
        d = (1.0 - pp) * np.exp(lam[:, t])
        prob = pp / (pp + d)
        done = lengths == t + 1
        end[done] = prob[done]
    return end


def _filter_all(llr: np.ndarray, p: CurveParams) -> np.ndarray:
    lam = np.clip(llr, -p.llr_clip, p.llr_clip)
    pi = p.recover / (p.derail + p.recover)
    prob = np.full(llr.shape[0], pi)
    out = np.empty(llr.shape)
    keep, back = 1.0 - p.derail, p.recover
    for t in range(llr.shape[1]):
        pp = prob * keep + (1.0 - prob) * back
        d = (1.0 - pp) * np.exp(lam[:, t])
        prob = pp / (pp + d)
        out[:, t] = prob
    return out


def drop_steps(xs: Sequence[np.ndarray], p: CurveParams, prior: float, bisect: int = SEARCH_BISECT) -> list[int | None]:
    """``largest_drop_step`` of failed runs' curves, many runs at once (the search's fast path).

    The run-time curve (:func:`~analyzer.attribution.value_curve.value_curve` with outcome
    ``failure``), vectorised over runs of similar length, with ``bisect`` bisection passes.
    """
    out: list[int | None] = [None] * len(xs)
    order = sorted(range(len(xs)), key=lambda i: xs[i].shape[0])
    for start in range(0, len(order), 128):
        idx = [i for i in order[start:start + 128] if xs[i].shape[0] > 0]
        if not idx:
            continue
        lengths = np.array([xs[i].shape[0] for i in idx])
        llr = np.zeros((len(idx), int(lengths.max())))
        for r, i in enumerate(idx):
            llr[r, : lengths[r]] = run_llr(xs[i], p)
        for r, s in zip(idx, _bucket_drops(llr, lengths, p, prior, bisect), strict=True):
            out[r] = s
    return out


def _bucket_drops(llr: np.ndarray, lengths: np.ndarray, p: CurveParams, prior: float, bisect: int) -> list[int | None]:
    pos = llr > 0

    def reached(c: np.ndarray) -> np.ndarray:
        return _filter_end(np.where(pos, llr * c[:, None], llr), lengths, p) <= p.failed_end

    ones = np.ones(len(lengths))
    c = ones.copy()
    base = reached(ones)
    todo = ~base & pos.any(axis=1)
    cap = np.full(len(lengths), p.max_temper)
    top = reached(cap)
    c[todo & ~top] = p.max_temper
    search = todo & top
    if search.any():
        lo = np.zeros(len(lengths))
        hi = np.full(len(lengths), math.log(p.max_temper))
        for _ in range(bisect):
            mid = 0.5 * (lo + hi)
            ok = reached(np.exp(mid))
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
        c[search] = np.exp(hi[search])
    tempered = np.where(pos, llr * c[:, None], llr)
    prob = _filter_all(tempered, p)
    rows = np.arange(len(lengths))
    end = prob[rows, lengths - 1]
    close = end > p.failed_end  # the steps do not explain the failure: a final-step term closes the curve
    for r in np.flatnonzero(close).tolist():
        n = int(lengths[r])
        pi = p.recover / (p.derail + p.recover)
        pp = prob[r, n - 2] * (1 - p.derail) + (1 - prob[r, n - 2]) * p.recover if n > 1 else pi
        need = math.log((pp / p.failed_end - pp) / (1 - pp)) if pp < 1 else -p.llr_clip
        need = min(p.llr_clip, max(-p.llr_clip, need))
        tempered[r, n - 1] = max(tempered[r, n - 1], need)
    if close.any():
        prob = _filter_all(tempered, p)
    pi = p.recover / (p.derail + p.recover)
    values = np.clip(prior * prob / pi, 0.0, 1.0)
    prev = np.concatenate([np.full((len(lengths), 1), prior), values[:, :-1]], axis=1)
    drops = np.round(np.maximum(prev - values, 0.0), 6)
    out: list[int | None] = []
    for r in rows.tolist():
        d = drops[r, : lengths[r]]
        out.append(int(np.argmax(d)) if d.size and d.max() > 0 else None)
    return out


def curve_drop_step(x: np.ndarray, p: CurveParams, prior: float, outcome: str = "failure") -> int | None:
    """``largest_drop_step`` of the exact run-time curve of a term matrix (what the app shows)."""
    from analyzer.attribution.hazards import TermMatrix, weigh

    ev: StepEvidence = weigh(TermMatrix(x), p)
    return value_curve(ev, prior, outcome=outcome, params=p).largest_drop_step


# --- objective, search, selection ---------------------------------------------------------------


class Evaluator:
    """Hit rates of the largest drop per system, memoised per (run, the params that matter to it)."""

    def __init__(self, sets: Sequence[CurveSet], prior: float) -> None:
        self.sets = {s.name: s for s in sets}
        self.prior = prior
        self._memo: dict[tuple[str, str, tuple[float, ...]], int | None] = {}
        self.fits: dict[tuple[frozenset[str], str], CurveParams] = {}
        """Fitted params by (training systems, candidate): nested folds share training subsets."""
        self._xs: dict[tuple[str, tuple[float, ...]], tuple[list[np.ndarray], list[tuple[int, ...]]]] = {}
        self.vary_matrix = all(matrix_rules_vary(s) for s in sets)
        """Whether the search tries :data:`MATRIX_ENTRIES` (every set keeps its runs' sources)."""
        self.evaluations = 0

    def matrices(self, name: str, p: CurveParams) -> tuple[list[np.ndarray], list[tuple[int, ...]]]:
        """The set's term matrices under ``p``'s matrix rules and each one's non-zero columns (memoised)."""
        key = (name, matrix_key(p))
        if key not in self._xs:
            xs = set_matrices(self.sets[name], p)
            self._xs[key] = (xs, [tuple(np.flatnonzero(x.any(axis=0)).tolist()) for x in xs])
        return self._xs[key]

    def drops(self, name: str, p: CurveParams) -> dict[str, int | None]:
        """Largest-drop step of every run of a set under ``p`` (canonical)."""
        s = self.sets[name]
        w = p.weight_vector()
        xs, nzs = self.matrices(name, p)
        tail = (p.finding_cap, p.derail, p.recover, p.failed_end, p.max_temper, *matrix_key(p))
        keys = [(name, r.key, (*(w[i] for i in nz), *tail)) for r, nz in zip(s.runs, nzs, strict=True)]
        missing = [i for i, k in enumerate(keys) if k not in self._memo]
        if missing:
            self.evaluations += len(missing)
            got = drop_steps([xs[i] for i in missing], p, self.prior)
            for i, step in zip(missing, got, strict=True):
                self._memo[keys[i]] = step
        return {r.key: r.canonical(self._memo[k]) for r, k in zip(s.runs, keys, strict=True)}

    def rates(self, name: str, p: CurveParams) -> dict[str, float]:
        """step@1, step±1, step±2 of the largest drop on one set (every gold record counts)."""
        pred = self.drops(name, p)
        s = self.sets[name]
        hits = {"step@1": 0, "step±1": 0, "step±2": 0}
        for g in s.golds:
            d = pred.get(g.file)
            if d is None or g.step is None:
                continue
            for k, name_k in ((0, "step@1"), (1, "step±1"), (2, "step±2")):
                hits[name_k] += abs(d - g.step) <= k
        n = max(1, len(s.golds))
        return {k: v / n for k, v in hits.items()}

    def objective(self, names: Sequence[str], p: CurveParams, criterion: str) -> float:
        """Mean over the systems of the criterion (each system counts once)."""
        return float(np.mean([CRITERIA[criterion](self.rates(n, p)) for n in names]))


def _with(p: CurveParams, name: str, value: float) -> CurveParams:
    if name in SCALARS:
        return p.with_weights({}, **{name: type(getattr(p, name))(value)})
    return p.with_weights({name: value})


def _value(p: CurveParams, name: str) -> float:
    return float(getattr(p, name)) if name in SCALARS else float(p.weights.get(name, 0.0))


def fit_weights(ev: Evaluator, names: Sequence[str], start: CurveParams, criterion: str,
                progress: Progress = no_progress) -> tuple[CurveParams, float]:
    """Coordinate ascent over :data:`GRID` from ``start`` on the systems ``names``.

    Each sweep tries every grid value of every coordinate in turn and keeps the best (a tie keeps
    the current value); it stops after a sweep without a gain or :data:`MAX_SWEEPS` sweeps.

    Returns:
        The fitted params and their criterion on ``names``.
    """
    p = start
    best = ev.objective(names, p, criterion)
    grid = {n: g for n, g in GRID.items() if ev.vary_matrix or n not in MATRIX_ENTRIES}
    for sweep in range(MAX_SWEEPS):
        gained = False
        for k, (name, values) in enumerate(grid.items()):
            progress(sweep * len(grid) + k, MAX_SWEEPS * len(grid), f"{criterion} sweep {sweep + 1}: {name}")
            current = _value(p, name)
            for v in values:
                if v == current:
                    continue
                q = _with(p, name, v)
                f = ev.objective(names, q, criterion)
                if f > best + 1e-12:
                    best, p, gained = f, q, True
        if not gained:
            break
    return p, best


@dataclass
class CurveSelection:
    """What the selection chose on some training systems.

    Attributes:
        candidate: The chosen entry of :data:`CANDIDATES`.
        inner: Mean inner held-out step@1 of every candidate.
        trained_on: The training systems.
        params: The winner fitted on every training system.
    """

    candidate: str
    inner: dict[str, float]
    trained_on: list[str]
    params: CurveParams

    def to_json(self) -> dict[str, Any]:
        """Plain dict (the params' weights included)."""
        return {"candidate": self.candidate, "inner_step@1": {k: round(v, 4) for k, v in self.inner.items()},
                "trained_on": self.trained_on, "weights": self.params.weights,
                **{k: getattr(self.params, k) for k in SCALARS}}


def _fit_candidate(ev: Evaluator, names: Sequence[str], start: CurveParams, candidate: str,
                   progress: Progress) -> CurveParams:
    if candidate == "hand-set":
        return start
    key = (frozenset(names), candidate)
    if key not in ev.fits:  # the same training systems give the same fit (the search is deterministic)
        ev.fits[key] = fit_weights(ev, names, start, candidate.split(":", 1)[1], progress)[0]
    return ev.fits[key]


def select_and_fit(ev: Evaluator, names: Sequence[str], start: CurveParams,
                   progress: Progress = no_progress) -> CurveSelection:
    """Choose a candidate by leave-one-system-out among ``names``, then fit it on all of them."""
    scored = [n for n in names if not ev.sets[n].training_only]
    inner: dict[str, float] = {}
    for cand in CANDIDATES:
        vals = []
        for held in scored:
            train = [n for n in names if n != held]
            p = _fit_candidate(ev, train, start, cand, progress)
            vals.append(ev.rates(held, p)["step@1"])
        inner[cand] = float(np.mean(vals)) if vals else 0.0
    best = max(CANDIDATES, key=lambda c: (inner[c], -CANDIDATES.index(c)))
    return CurveSelection(best, inner, list(names), _fit_candidate(ev, names, start, best, progress))


@dataclass
class NestedCurveResult:
    """Nested leave-one-system-out of the value curve.

    Attributes:
        selections: Per held-out system, what was chosen without it.
        scores: Per system, the largest drop's metrics under each mode (nested, hand-set), with
            Wilson 95% intervals; and each fixed rule's.
    """

    selections: dict[str, CurveSelection]
    scores: dict[str, dict[str, Scores]]


def exact_scores(cs: CurveSet, p: CurveParams, prior: float, xs: Sequence[np.ndarray] | None = None) -> Scores:
    """Metrics of the largest drop of the exact run-time curve on one set (Wilson intervals).

    ``xs`` are the runs' matrices under ``p``'s matrix rules when the caller has them already
    (:func:`set_matrices` otherwise).
    """
    preds: dict[str, Prediction] = {}
    for r, x in zip(cs.runs, set_matrices(cs, p) if xs is None else xs, strict=True):
        s = r.canonical(curve_drop_step(x, p, prior, r.outcome))
        preds[r.key] = Prediction(r.key, s, None, (s,) if s is not None else ())
    return score(cs.golds, preds)


def rule_scores(cs: CurveSet) -> dict[str, Scores]:
    """Every fixed rule's metrics and the uniform random step's expected step@1 on one set."""
    out = {name: score(cs.golds, preds) for name, preds in cs.rules.items()}
    n = len(cs.golds)
    _, lo, hi = wilson(round(cs.random), n)
    out["uniform random step (expected)"] = Scores(
        {"step@1": Metric("step@1", round(cs.random), n, cs.random / n if n else 0.0, lo, hi)})
    return out


def nested_leave_one_system_out(sets: Sequence[CurveSet], start: CurveParams, prior: float,
                                progress: Progress = no_progress, evaluator: Evaluator | None = None) -> NestedCurveResult:
    """For each system: select and fit on the others, then score it once (exact run-time curve).

    ``evaluator`` (over ``sets``) may be passed to share its memo and fits with a later selection.
    """
    ev = evaluator or Evaluator(sets, prior)
    names = [s.name for s in sets]
    selections: dict[str, CurveSelection] = {}
    scores: dict[str, dict[str, Scores]] = {}
    targets = [s for s in sets if not s.training_only]
    for t, cs in enumerate(targets):
        progress(t, len(targets), cs.name)
        others = [n for n in names if n != cs.name]
        sel = select_and_fit(ev, others, start)
        selections[cs.name] = sel
        scores[cs.name] = {"nested": exact_scores(cs, sel.params, prior), "hand-set": exact_scores(cs, start, prior),
                           **{f"rule: {k}": v for k, v in rule_scores(cs).items()}}
    progress(len(targets), len(targets), "done")
    return NestedCurveResult(selections, scores)


REPORTED_METRICS: tuple[str, ...] = ("step@1", "step±1", "step±2")
"""The metrics of the largest drop written to the params file's ``meta``."""


def shipped_params(final: CurveSelection) -> CurveParams:
    """What ``--out`` writes: the selection's choice on every training system, as it is.

    The successful run's target is not searched (no development run succeeded); it mirrors the
    failed run's: ``succeeded_end = 1 - failed_end``.
    """
    return final.params.with_weights({}, succeeded_end=1.0 - final.params.failed_end)


def format_nested(result: NestedCurveResult) -> str:
    """Plain-text table: per system, nested and hand-set curves and the fixed rules, with Wilson 95% CIs."""
    metrics = ("step@1", "step±1", "step±2", "step±3")
    lines: list[str] = []
    for name, rows in result.scores.items():
        sel = result.selections[name]
        n = next(iter(rows.values())).metrics["step@1"].n
        lines.append(f"{name}: {n} labelled records; chosen without it: {sel.candidate} "
                     f"(inner step@1 {', '.join(f'{k} {v:.1%}' for k, v in sel.inner.items())})")
        lines.append(f"{'':<46}" + "".join(f"{m:>22}" for m in metrics))
        for label, s in rows.items():
            cells = "".join((f"{s.metrics[m].p:6.1%} [{s.metrics[m].low:5.1%},{s.metrics[m].high:6.1%}]"
                             if m in s.metrics else "-").rjust(22) for m in metrics)
            lines.append(f"{label[:46]:<46}{cells}")
        lines.append("")
    return "\n".join(lines)


def column_ablation(sets: Sequence[CurveSet], result: NestedCurveResult, prior: float,
                    progress: Progress = no_progress) -> dict[str, dict[str, float]]:
    """Each searched column's contribution at the nested weights: held-out step@1 lost when its weight is 0 (points).

    For each held-out system, the weights chosen without it are used with one column's weight
    set to 0 (not refitted), and the system is scored again by the run-time curve. Columns that
    are zero everywhere in a system change nothing there.
    """
    by_name = {s.name: s for s in sets}
    cols = [c for c in GRID if c not in SCALARS]
    out: dict[str, dict[str, float]] = {}
    for t, (name, sel) in enumerate(result.selections.items()):
        progress(t, len(result.selections), name)
        cs = by_name[name]
        full = result.scores[name]["nested"].metrics["step@1"].p
        xs = set_matrices(cs, sel.params)
        used = {c for c in cols if any(x[:, _COL[c]].any() for x in xs)}
        for c in cols:
            if c not in used or sel.params.weights.get(c, 0.0) == 0.0:
                out.setdefault(c, {})[name] = 0.0
                continue
            p = sel.params.with_weights({c: 0.0})
            held = exact_scores(cs, p, prior, xs).metrics["step@1"].p  # a weight changed: the same matrices
            out.setdefault(c, {})[name] = round(100 * (held - full), 1)
    return out
