"""Held-out evaluation of the ranker on development sets: scoring, fixed rules, CV, adaptation.

The expensive part of the analysis (detectors, embeddings, features) runs once per run
(:func:`prepare_set`); every mode then only refits weights and re-ranks, through the same
:func:`~analyzer.attribution.attribute.attribute` the pipeline calls, so the predictions are
the pipeline's (without the judge). Modes:

- **shipped**: the shipped weights;
- **cv**: k-fold cross-validation within one set (nested: the penalty is chosen inside);
- **nested**: every tunable chosen and the weights fitted on the other systems
  (:mod:`analyzer.evaluation.selection`), this one scored;
- **adapt**: per draw, adapt the base weights to K random labelled runs of the set and score
  the rest (what an analyst gets after labelling K of their own runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analyzer.attribution.attribute import attribute
from analyzer.attribution.features import (
    FEATURE_NAMES,
    EvidencePart,
    evidence_column,
    evidence_parts,
)
from analyzer.attribution.ranker import Ranker, softmax
from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.evaluation.baselines import baseline_predictions
from analyzer.evaluation.datasets import LabelledSet
from analyzer.evaluation.fit import TrainingRun, fit_params, fold_ids
from analyzer.evaluation.scoring import Calibration, Gold, Prediction, Scores, score, wilson
from analyzer.evaluation.scoring import calibration as calibration_of
from analyzer.frames.build import trajectories_from_frames
from analyzer.jobs import Progress, no_progress
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.steps import table_for


@dataclass
class EvalRun:
    """One labelled run, prepared once.

    Attributes:
        key: Record key (file name) the gold label uses.
        trajectory: The blinded run.
        findings: Steps-phase detector findings.
        features: Feature matrix (steps x FEATURE_NAMES).
        agents: Agent of each step.
        gold_step: Gold decisive step (None: unlabelled or out of range; still scored, as a miss).
        gold_agent: Gold responsible agent.
        gold_category: Gold taxonomy category, where the set has one.
        table: The run's step-signal table (:mod:`analyzer.signals.steps`), as ``prepare_run`` computed it.
    """

    key: str
    trajectory: Trajectory
    findings: list[Finding]
    features: np.ndarray
    agents: list[str]
    gold_step: int | None
    gold_agent: str | None
    gold_category: str | None = None
    table: pl.DataFrame | None = None


@dataclass
class PreparedSet:
    """A development set with every run prepared.

    Attributes:
        name: Dataset id.
        runs: Prepared runs (only those that loaded).
        golds: Every gold record (missing runs count as misses).
        multi_agent: Whether agent@1 applies.
        has_categories: Whether category accuracy applies.
        trajectories: Blinded runs, for the fixed rules.
        canonical: Per record key, the step that stands for each step (sets scored by span).
        alternatives: Per record key, every labelled error step (``loc@k``).
        training_only: Planted failures: chosen and fitted on, never scored as a held-out system.
    """

    name: str
    runs: list[EvalRun]
    golds: list[Gold]
    multi_agent: bool
    has_categories: bool
    trajectories: list[Trajectory] = field(default_factory=list)
    canonical: dict[str, list[int]] = field(default_factory=dict)
    alternatives: dict[str, set[int]] = field(default_factory=dict)
    training_only: bool = False

    @property
    def trainable(self) -> list[EvalRun]:
        """Runs with a usable gold step."""
        return [r for r in self.runs if r.gold_step is not None]


def prepare_set(ls: LabelledSet, *, embedder: Any = None, progress: Progress = no_progress) -> PreparedSet:
    """Detectors, embeddings and features of every run of a labelled set (no judge)."""
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.registry import default_host

    host = default_host()
    gold_by_key = {g.file: g for g in ls.golds}
    trajs = trajectories_from_frames(ls.traces, ls.steps)
    runs: list[EvalRun] = []
    blinded: list[Trajectory] = []
    for i, t in enumerate(trajs):
        progress(i, len(trajs), Path(t.source_file).name)
        key = ls.keys.get(t.id, Path(t.source_file).name)
        bt = blind(t)
        blinded.append(bt)
        sig = prepare_run(bt, host, embedder=embedder)
        g = gold_by_key.get(key)
        step = g.step if g is not None else None
        if step is not None and not 0 <= step < len(t.steps):
            step = None
        table = table_for(bt, None, sig.table)
        runs.append(EvalRun(key, bt, list(sig.findings), sig.features, table["agent"].to_list(),
                            step, g.agent if g is not None else None, ls.categories.get(key), table))
    progress(len(trajs), len(trajs), "prepared")
    return PreparedSet(ls.name, runs, ls.golds, ls.multi_agent, bool(ls.categories), blinded,
                       ls.canonical, ls.alternatives, ls.training_only)


def reweighted(ps: PreparedSet, weights: Mapping[str, float],
               parts: Mapping[str, Sequence[EvidencePart]] | None = None,
               rule: SymptomRule | None = None) -> PreparedSet:
    """``ps`` with every run's evidence column recomputed with ``weights`` (``evidence_classes``).

    The evidence column is the only feature that depends on the ranker's params; the rest of
    the preparation (detectors, embeddings) is reused. ``parts`` are the runs'
    :func:`~analyzer.attribution.features.evidence_parts` by key, when the caller keeps them
    (computed with the symptom rule ``rule`` otherwise; None marks no symptom).
    """
    col = FEATURE_NAMES.index("evidence")
    runs = []
    for r in ps.runs:
        x = r.features.copy()
        found = parts[r.key] if parts is not None else evidence_parts(r.trajectory, r.findings, r.table, rule)
        x[:, col] = evidence_column(found, x.shape[0], weights)
        runs.append(replace(r, features=x))
    return replace(ps, runs=runs)


def canonical_ranking(order: Sequence[int], canon: Sequence[int] | None) -> tuple[int, ...]:
    """A ranking of steps with each step replaced by the step that stands for it (first kept).

    Sets scored by span (TRAIL) count a span once: its steps share one canonical step.
    """
    if not canon:
        return tuple(order)
    out: dict[int, None] = {}
    for k in order:
        out.setdefault(canon[k] if 0 <= k < len(canon) else k, None)
    return tuple(out)


def canonical_prediction(p: Prediction, canon: Sequence[int] | None) -> Prediction:
    """``p`` with its step and ranking canonicalised (:func:`canonical_ranking`)."""
    if not canon or p.step is None:
        return p
    top = canonical_ranking(p.top_steps or (p.step,), canon)
    return Prediction(p.file, top[0], p.agent, top, p.confidence)


def location_metrics(ps: PreparedSet, preds: dict[str, Prediction]) -> dict[str, Any]:
    """``loc@1`` / ``loc@3``: the top (top three) steps hold any labelled error step, over every record."""
    from analyzer.evaluation.scoring import Metric

    n = len(ps.golds)
    out: dict[str, Any] = {}
    for k in (1, 3):
        hits = sum(bool(set((preds[g.file].top_steps or ())[:k]) & ps.alternatives.get(g.file, set()))
                   for g in ps.golds if g.file in preds)
        p, lo, hi = wilson(hits, n)
        out[f"loc@{k}"] = Metric(f"loc@{k}", hits, n, p, lo, hi)
    return out


def random_rule(ps: PreparedSet) -> Scores:
    """Expected step@1/step@3 of a uniformly random step (a random span on sets scored by span)."""
    from analyzer.evaluation.scoring import Metric

    by_key = {r.key: r for r in ps.runs}
    e1 = e3 = 0.0
    for g in ps.golds:
        r = by_key.get(g.file)
        if r is None or g.step is None:
            continue
        canon = ps.canonical.get(g.file)
        units = len(set(canon)) if canon else len(r.trajectory.steps)
        if units:
            e1 += 1.0 / units
            e3 += min(3, units) / units
    n = len(ps.golds)
    metrics: dict[str, Any] = {}
    for name, e in (("step@1", e1), ("step@3", e3)):
        _, lo, hi = wilson(round(e), n)
        metrics[name] = Metric(name, round(e), n, e / n if n else 0.0, lo, hi)
    return Scores(metrics)


POSITION_BUCKETS: tuple[tuple[int, int | None], ...] = ((0, 3), (4, 7), (8, None))
"""Where the labelled step lies (0-based index, inclusive bounds; None: no upper bound), for
:func:`by_label_position`. A reporting breakdown, not a tunable: the development systems label
steps 2-5 on median, the runs of the systems users bring often later."""


def position_bucket(step: int, buckets: Sequence[tuple[int, int | None]] = POSITION_BUCKETS) -> int | None:
    """Index of the bucket of ``buckets`` that holds ``step`` (inclusive bounds), or None."""
    return next((k for k, (lo, hi) in enumerate(buckets) if step >= lo and (hi is None or step <= hi)), None)


def by_label_position(ps: PreparedSet, predictions: Sequence[Prediction]) -> list[dict[str, Any]]:
    """Step@1 and step@3 of ``predictions`` per bucket of the labelled step's index, with random.

    Returns:
        One dict per :data:`POSITION_BUCKETS` entry: ``bucket`` ("0-3", "4-7", "8+"), ``n``,
        ``step@1`` / ``step@3`` (hits, rate, Wilson interval) and ``random@1`` (the expected step@1
        of a uniformly random step on the same runs).
    """
    by_key = {r.key: r for r in ps.runs}
    preds = {p.file: p for p in predictions}
    out: list[dict[str, Any]] = []
    for b, (lo, hi) in enumerate(POSITION_BUCKETS):
        n = h1 = h3 = 0
        rnd = 0.0
        for g in ps.golds:
            r, p = by_key.get(g.file), preds.get(g.file)
            if r is None or p is None or g.step is None or position_bucket(g.step) != b:
                continue
            canon = ps.canonical.get(g.file)
            units = len(set(canon)) if canon else len(r.trajectory.steps)
            n += 1
            h1 += p.step == g.step
            h3 += g.step in p.top_steps[:3]
            rnd += 1.0 / max(1, units)
        row: dict[str, Any] = {"bucket": f"{lo}-{hi}" if hi is not None else f"{lo}+", "n": n,
                               "random@1": rnd / n if n else 0.0}
        for name, k in (("step@1", h1), ("step@3", h3)):
            rate, w_lo, w_hi = wilson(k, n)
            row[name] = {"k": k, "p": rate, "lo": w_lo, "hi": w_hi}
        out.append(row)
    return out


def predict(ranker: Ranker, run: EvalRun) -> tuple[Prediction, str | None]:
    """The pipeline's prediction (top step, responsible agent, ranking) and category for one run."""
    logits = ranker.logits(run.features)
    att = attribute(run.trajectory, logits, run.findings, run.features,
                    agent_temperature=ranker.params.agent_temperature,
                    actor_weight=ranker.params.actor_weight,
                    first_runner_weight=ranker.params.first_runner_weight,
                    temperature=ranker.confidence_temperature(run.features, logits),
                    category_params=ranker.params.category, table=run.table)
    top = tuple(c.step for c in att.candidates)
    return Prediction(run.key, att.decisive_step, att.decisive_agent, top, att.confidence), att.category


@dataclass
class ModeResult:
    """Scores of one mode on one set.

    Attributes:
        mode: ``shipped``, ``cv``, ``lodo`` or ``adapt``.
        scores: Step/agent metrics with Wilson intervals.
        category: Category accuracy (k, n), where the set has categories.
        predictions: Per record (one list per draw for ``adapt``).
        note: How the weights were obtained.
        unadapted: For ``adapt``: the weights before adaptation, scored on the same
            (draw, held-out run) pairs, so that the gain is read on the same runs.
        calibration: How the reported probability of the decisive step matches step@1.
    """

    mode: str
    scores: Scores
    category: tuple[int, int] | None
    predictions: list[list[Prediction]]
    note: str = ""
    unadapted: Scores | None = None
    calibration: Calibration | None = None


def _category_hits(runs: Sequence[EvalRun], cats: dict[str, str | None]) -> tuple[int, int] | None:
    labelled = [r for r in runs if r.gold_category]
    if not labelled:
        return None
    return sum(cats.get(r.key) == r.gold_category for r in labelled), len(labelled)


def score_with(ps: PreparedSet, ranker_of: Callable[[EvalRun], Ranker], mode: str, note: str = "") -> ModeResult:
    """Score every run of a set with the ranker ``ranker_of(run)`` gives for it."""
    preds: dict[str, Prediction] = {}
    cats: dict[str, str | None] = {}
    for r in ps.runs:
        p, c = predict(ranker_of(r), r)
        preds[r.key] = canonical_prediction(p, ps.canonical.get(r.key))
        cats[r.key] = c
    golds = _golds(ps)
    scores = score(golds, preds)
    if ps.alternatives:
        scores.metrics.update(location_metrics(ps, preds))
    return ModeResult(mode, scores, _category_hits(ps.runs, cats),
                      [[preds[g.file] for g in golds if g.file in preds]], note,
                      calibration=calibration_of(golds, preds))


def _golds(ps: PreparedSet) -> list[Gold]:
    """Golds with agent labels dropped on single-agent sets (agent@1 does not apply there)."""
    return ps.golds if ps.multi_agent else [Gold(g.file, g.step, None) for g in ps.golds]


def fixed_rules(ps: PreparedSet) -> dict[str, Scores]:
    """Scores of every fixed rule on the same records."""
    golds = _golds(ps)
    out = {name: score(golds, {k: canonical_prediction(v, ps.canonical.get(k)) for k, v in p.items()})
           for name, p in baseline_predictions(ps.trajectories, span_rules=bool(ps.canonical)).items()}
    out["uniform random step (expected)"] = random_rule(ps)
    return out


def fit_ranker(runs: Sequence[EvalRun], *, folds: int = 5, meta: dict[str, Any] | None = None) -> Ranker:
    """A ranker fitted on labelled runs (penalty and agent temperature chosen by inner CV)."""
    return Ranker(fit_params([training_run(r) for r in runs if r.gold_step is not None], folds=folds, meta=meta))


def training_run(r: EvalRun) -> TrainingRun:
    """The fit's view of a labelled run (features, agents, gold step and agent)."""
    assert r.gold_step is not None
    return TrainingRun(r.trajectory.id, r.key, r.features, r.agents, r.gold_step, r.gold_agent)


def cross_validate(ps: PreparedSet, folds: int = 5, seed: int = 0) -> ModeResult:
    """k-fold CV within one set: each run is scored by a ranker fitted on the other folds.

    The evidence column is weighed as the shipped params say (``evidence_classes``,
    ``symptom_rule``), whatever params the set was prepared with (a cached preparation may
    predate a refit).
    """
    shipped = Ranker.load()
    ps = reweighted(ps, shipped.params.evidence_classes, rule=shipped.params.symptom_rule)
    train = ps.trainable
    ids = fold_ids(len(train), folds, seed)
    fold_of = {r.key: int(f) for r, f in zip(train, ids, strict=True)}
    rankers = [fit_ranker([r for r, f in zip(train, ids, strict=True) if f != k], folds=folds) for k in range(folds)]
    return score_with(ps, lambda r: rankers[fold_of[r.key]] if r.key in fold_of else shipped, "cv",
                      f"{folds}-fold CV within the set (seed {seed})")


def constant(ranker: Ranker) -> Callable[[EvalRun], Ranker]:
    """A ``ranker_of`` for :func:`score_with` that gives every run the same ranker."""
    return lambda _run: ranker


def adapt(ps: PreparedSet, base: Ranker, k: int, draws: int, seed: int) -> ModeResult:
    """Adaptation to K labelled runs, ``draws`` times: fit on K random runs, score the others.

    Each draw's score counts the runs not used for fitting; the reported figures pool every
    (draw, test run) pair, and the predictions keep one list per draw. ``unadapted`` scores
    ``base`` on the same pairs: the labelled runs of a draw leave the test set, so K = 0 on
    the whole set is not the baseline of a draw.
    """
    from analyzer.evaluation.adapt import LabelledRun, fit_adapted

    rng = np.random.default_rng(seed)
    train = ps.trainable
    golds = _golds(ps)
    pooled_golds: list[Gold] = []
    pooled: dict[str, Prediction] = {}
    pooled_base: dict[str, Prediction] = {}
    base_cache: dict[str, Prediction] = {}
    per_draw: list[list[Prediction]] = []
    cat_k = cat_n = 0
    for d in range(draws):
        pick = set(rng.choice(len(train), size=min(k, len(train)), replace=False).tolist()) if k else set()
        fit_on = [train[i] for i in sorted(pick)]
        used = {r.key for r in fit_on}
        ranker = Ranker(fit_adapted(base, [LabelledRun(r.features, int(r.gold_step or 0), r.gold_agent, r.key)
                                           for r in fit_on], evaluate=False)) if fit_on else base
        draw_preds: list[Prediction] = []
        by_key = {r.key: r for r in ps.runs}
        for g in golds:
            if g.file in used:
                continue
            pooled_golds.append(Gold(f"{d}:{g.file}", g.step, g.agent))
            run = by_key.get(g.file)
            if run is None:
                continue
            p, c = predict(ranker, run)
            p = canonical_prediction(p, ps.canonical.get(run.key))
            draw_preds.append(p)
            pooled[f"{d}:{g.file}"] = Prediction(f"{d}:{g.file}", p.step, p.agent, p.top_steps, p.confidence)
            if g.file not in base_cache:
                base_cache[g.file] = (canonical_prediction(predict(base, run)[0], ps.canonical.get(run.key))
                                      if fit_on else p)
            b = base_cache[g.file]
            pooled_base[f"{d}:{g.file}"] = Prediction(f"{d}:{g.file}", b.step, b.agent, b.top_steps)
            if run.gold_category:
                cat_n += 1
                cat_k += c == run.gold_category
        per_draw.append(draw_preds)
    return ModeResult("adapt", score(pooled_golds, pooled), (cat_k, cat_n) if cat_n else None, per_draw,
                      f"adapted to {k} labelled runs, {draws} draws (seed {seed})",
                      unadapted=score(pooled_golds, pooled_base), calibration=calibration_of(pooled_golds, pooled))


def active_vs_random(ps: PreparedSet, base: Ranker, k: int, draws: int, seed: int) -> dict[str, float]:
    """Adaptation to ``k`` labels chosen most-uncertain-first against ``k`` chosen at random.

    Per draw the labelled runs are split in half at random: a pool the analyst labels from and a
    test half. The active side labels the ``k`` pool runs of highest
    :func:`~analyzer.attribution.active.label_priority` under ``base``; the random side ``k``
    random pool runs. Both adapt ``base`` (:func:`~analyzer.evaluation.adapt.fit_adapted`) and
    are scored on the same test half.

    Returns:
        Mean step@1 over draws of each side (``active``, ``random``) and of ``base`` itself.
    """
    from analyzer.attribution.active import label_priority
    from analyzer.evaluation.adapt import LabelledRun, fit_adapted

    rng = np.random.default_rng(seed)
    train = ps.trainable
    prio = {r.key: label_priority(softmax(base.logits(r.features) / base.params.calibration_temperature))
            for r in train}

    def step1(ranker: Ranker, runs: Sequence[EvalRun]) -> float:
        hits = 0
        for r in runs:
            order = [int(j) for j in np.argsort(-ranker.logits(r.features), kind="stable")]
            hits += canonical_ranking(order, ps.canonical.get(r.key))[0] == r.gold_step
        return hits / max(1, len(runs))

    def adapted(runs: Sequence[EvalRun]) -> Ranker:
        return Ranker(fit_adapted(base, [LabelledRun(r.features, int(r.gold_step or 0), r.gold_agent, r.key)
                                         for r in runs], evaluate=False))

    out = {"active": 0.0, "random": 0.0, "unadapted": 0.0}
    for _ in range(draws):
        perm = rng.permutation(len(train))
        pool = [train[i] for i in perm[: len(train) // 2]]
        test = [train[i] for i in perm[len(train) // 2:]]
        active = sorted(pool, key=lambda r: -prio[r.key])[:k]
        chosen = [pool[i] for i in rng.choice(len(pool), size=min(k, len(pool)), replace=False)]
        out["active"] += step1(adapted(active), test) / draws
        out["random"] += step1(adapted(chosen), test) / draws
        out["unadapted"] += step1(base, test) / draws
    return {key: round(v, 4) for key, v in out.items()} | {"k": k, "draws": draws}


def format_mode(ps: PreparedSet, results: Sequence[ModeResult], rules: dict[str, Scores]) -> str:
    """Plain-text table: each mode and each fixed rule, step@1/step@3/±1/±3/agent@1 with Wilson 95% CIs."""
    metrics = (["step@1", "step@3", "step±1", "step±3"] + (["loc@1", "loc@3"] if ps.alternatives else [])
               + (["agent@1"] if ps.multi_agent else []))
    labels = [f"{r.mode}: {r.note}" for r in results] + [f"rule: {name}" for name in rules]
    width = min(110, max([46, *(len(t) + 1 for t in labels)]))
    head = f"{'':<{width}}" + "".join(f"{m:>22}" for m in metrics) + ("   category" if ps.has_categories else "")
    lines = [f"{ps.name}: {len(ps.golds)} labelled records", head]

    def row(name: str, s: Scores, cat: tuple[int, int] | None) -> str:
        cells = "".join((f"{s.metrics[m].p:6.1%} [{s.metrics[m].low:5.1%},{s.metrics[m].high:6.1%}]"
                         if m in s.metrics else "-").rjust(22) for m in metrics)
        extra = ""
        if ps.has_categories and cat:
            p, lo, hi = wilson(*cat)
            extra = f"   {p:5.1%} [{lo:4.1%},{hi:5.1%}]"
        return f"{name[:width]:<{width}}{cells}{extra}"

    for r in results:
        lines.append(row(f"{r.mode}: {r.note}", r.scores, r.category))
        if r.calibration is not None:
            c = r.calibration
            lines.append(f"  confidence of the decisive step: mean {c.mean_confidence:.2f} for a step@1 of "
                         f"{c.step_at_1:.2f} (n={c.n}), calibration error {c.ece:.2f}, Brier {c.brier:.3f}")
        if r.unadapted is not None:
            lines.append(row("  the same held-out runs, weights not adapted", r.unadapted, None))
    for name, s in rules.items():
        lines.append(row(f"rule: {name}", s, None))
    return "\n".join(lines)
