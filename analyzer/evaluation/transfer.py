"""Held-out evaluation of the ranker across development sets: CV, leave-one-dataset-out, adaptation.

The expensive part of the analysis (detectors, embeddings, features) runs once per run
(:func:`prepare_set`); every mode then only refits weights and re-ranks, through the same
:func:`~analyzer.attribution.attribute.attribute` the pipeline calls, so the predictions are
the pipeline's (without the judge). Modes:

- **shipped**: the shipped weights;
- **cv**: k-fold cross-validation within one set (nested: the penalty is chosen inside);
- **lodo**: fit on the other sets, score this one;
- **adapt**: per draw, adapt the base weights to K random labelled runs of the set and score
  the rest (what an analyst gets after labelling K of their own runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.attribute import attribute
from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.detection.text import agent_identity
from analyzer.evaluation.baselines import baseline_predictions
from analyzer.evaluation.datasets import LabelledSet
from analyzer.evaluation.scoring import Calibration, Gold, Prediction, Scores, score, wilson
from analyzer.evaluation.scoring import calibration as calibration_of
from analyzer.frames.build import trajectories_from_frames
from analyzer.jobs import Progress, no_progress
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory


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
    """

    key: str
    trajectory: Trajectory
    findings: list[Finding]
    features: np.ndarray
    agents: list[str]
    gold_step: int | None
    gold_agent: str | None
    gold_category: str | None = None


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
    """

    name: str
    runs: list[EvalRun]
    golds: list[Gold]
    multi_agent: bool
    has_categories: bool
    trajectories: list[Trajectory] = field(default_factory=list)

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
        key = Path(t.source_file).name
        bt = blind(t)
        blinded.append(bt)
        sig = prepare_run(bt, host, embedder=embedder)
        g = gold_by_key.get(key)
        step = g.step if g is not None else None
        if step is not None and not 0 <= step < len(t.steps):
            step = None
        runs.append(EvalRun(key, bt, list(sig.findings), sig.features, [agent_identity(s) for s in t.steps],
                            step, g.agent if g is not None else None, ls.categories.get(key)))
    progress(len(trajs), len(trajs), "prepared")
    return PreparedSet(ls.name, runs, ls.golds, ls.multi_agent, bool(ls.categories), blinded)


def predict(ranker: Ranker, run: EvalRun) -> tuple[Prediction, str | None]:
    """The pipeline's prediction (top step, responsible agent, ranking) and category for one run."""
    logits = ranker.logits(run.features)
    att = attribute(run.trajectory, logits, run.findings, run.features,
                    agent_temperature=ranker.params.agent_temperature,
                    actor_weight=ranker.params.actor_weight,
                    first_runner_weight=ranker.params.first_runner_weight,
                    temperature=ranker.confidence_temperature(run.features, logits))
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
        preds[r.key] = p
        cats[r.key] = c
    golds = _golds(ps)
    return ModeResult(mode, score(golds, preds), _category_hits(ps.runs, cats),
                      [[preds[g.file] for g in golds if g.file in preds]], note,
                      calibration=calibration_of(golds, preds))


def _golds(ps: PreparedSet) -> list[Gold]:
    """Golds with agent labels dropped on single-agent sets (agent@1 does not apply there)."""
    return ps.golds if ps.multi_agent else [Gold(g.file, g.step, None) for g in ps.golds]


def fixed_rules(ps: PreparedSet) -> dict[str, Scores]:
    """Scores of every fixed rule on the same records."""
    golds = _golds(ps)
    return {name: score(golds, p) for name, p in baseline_predictions(ps.trajectories).items()}


def fit_ranker(runs: Sequence[EvalRun], *, folds: int = 5, meta: dict[str, Any] | None = None) -> Ranker:
    """A ranker fitted on labelled runs (penalty and agent temperature chosen by inner CV)."""
    from analyzer.attribution.fit import fit_params

    return Ranker(fit_params([_training(r) for r in runs if r.gold_step is not None], folds=folds, meta=meta))


def _training(r: EvalRun) -> Any:
    from analyzer.attribution.fit import TrainingRun

    assert r.gold_step is not None
    return TrainingRun(r.trajectory.id, r.key, r.features, r.agents, r.gold_step, r.gold_agent)


def cross_validate(ps: PreparedSet, folds: int = 5, seed: int = 0) -> ModeResult:
    """k-fold CV within one set: each run is scored by a ranker fitted on the other folds."""
    from analyzer.attribution.fit import fold_ids

    train = ps.trainable
    ids = fold_ids(len(train), folds, seed)
    fold_of = {r.key: int(f) for r, f in zip(train, ids, strict=True)}
    rankers = [fit_ranker([r for r, f in zip(train, ids, strict=True) if f != k], folds=folds) for k in range(folds)]
    shipped = Ranker.load()
    return score_with(ps, lambda r: rankers[fold_of[r.key]] if r.key in fold_of else shipped, "cv",
                      f"{folds}-fold CV within the set (seed {seed})")


def transfer_ranker(sets: Sequence[PreparedSet], *, meta: dict[str, Any] | None = None,
                    prior_weight: float | None = None) -> Ranker:
    """The transfer fit (:func:`~analyzer.attribution.fit.transfer_params`): one group per set.

    ``prior_weight`` sets the weight of the structural prior (default: the shipped one).
    """
    from analyzer.attribution.fit import TRANSFER_PRIOR, transfer_params

    groups = [[_training(r) for r in s.trainable] for s in sets]
    prior = None if prior_weight is None else dict.fromkeys(TRANSFER_PRIOR, prior_weight)
    return Ranker(transfer_params(groups, meta={**(meta or {}), "trained_sets": [s.name for s in sets]},
                                  prior=prior))


def leave_one_dataset_out(target: PreparedSet, others: Sequence[PreparedSet]) -> ModeResult:
    """Fit the transfer ranker on ``others`` (one group per set), score ``target``."""
    ranker = transfer_ranker(others)
    return score_with(target, lambda r: ranker, "lodo", "fitted on " + " + ".join(o.name for o in others))


def _constant(ranker: Ranker) -> Callable[[EvalRun], Ranker]:
    """A ``ranker_of`` for :func:`score_with` that gives every run the same ranker."""
    return lambda _run: ranker


def choose_prior_weight(sets: Sequence[PreparedSet]) -> float:
    """The structural-prior weight chosen leave-one-dataset-out *among* ``sets`` only.

    Each weight of :data:`~analyzer.attribution.fit.PRIOR_GRID` is scored by fitting on all
    but one of ``sets`` and scoring the one left out, in turn; the best mean step@1 wins
    (ties: the smaller weight). With fewer than two sets the shipped weight is kept.
    """
    from analyzer.attribution.fit import PRIOR_GRID, TRANSFER_PRIOR

    if len(sets) < 2:
        return next(iter(TRANSFER_PRIOR.values()))
    best: tuple[float, float] | None = None
    for weight in PRIOR_GRID:
        hits = [score_with(held, _constant(transfer_ranker([s for s in sets if s is not held], prior_weight=weight)),
                           "inner").scores.metrics["step@1"].p for held in sets]
        mean = float(np.mean(hits))
        if best is None or mean > best[0] + 1e-12:
            best = (mean, weight)
    assert best is not None
    return best[1]


def leave_one_dataset_out_nested(target: PreparedSet, others: Sequence[PreparedSet]) -> ModeResult:
    """Leave-one-dataset-out with the prior weight chosen on ``others`` alone (:func:`choose_prior_weight`).

    The stricter figure: no choice of the ranker's sees the held-out set (the plain ``lodo``
    mode uses the shipped prior weight, chosen on all development sets).
    """
    weight = choose_prior_weight(others)
    ranker = transfer_ranker(others, prior_weight=weight)
    return score_with(target, _constant(ranker), "lodo-nested",
                      f"fitted on {' + '.join(o.name for o in others)}, prior weight {weight:g} chosen on them")


def adapt(ps: PreparedSet, base: Ranker, k: int, draws: int, seed: int) -> ModeResult:
    """Adaptation to K labelled runs, ``draws`` times: fit on K random runs, score the others.

    Each draw's score counts the runs not used for fitting; the reported figures pool every
    (draw, test run) pair, and the predictions keep one list per draw. ``unadapted`` scores
    ``base`` on the same pairs: the labelled runs of a draw leave the test set, so K = 0 on
    the whole set is not the baseline of a draw.
    """
    from analyzer.attribution.adapt import LabelledRun, fit_adapted

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
            draw_preds.append(p)
            pooled[f"{d}:{g.file}"] = Prediction(f"{d}:{g.file}", p.step, p.agent, p.top_steps, p.confidence)
            if g.file not in base_cache:
                base_cache[g.file] = predict(base, run)[0] if fit_on else p
            b = base_cache[g.file]
            pooled_base[f"{d}:{g.file}"] = Prediction(f"{d}:{g.file}", b.step, b.agent, b.top_steps)
            if run.gold_category:
                cat_n += 1
                cat_k += c == run.gold_category
        per_draw.append(draw_preds)
    return ModeResult("adapt", score(pooled_golds, pooled), (cat_k, cat_n) if cat_n else None, per_draw,
                      f"adapted to {k} labelled runs, {draws} draws (seed {seed})",
                      unadapted=score(pooled_golds, pooled_base), calibration=calibration_of(pooled_golds, pooled))


def format_mode(ps: PreparedSet, results: Sequence[ModeResult], rules: dict[str, Scores]) -> str:
    """Plain-text table: each mode and each fixed rule, step@1/step@3/±1/±3/agent@1 with Wilson 95% CIs."""
    metrics = ["step@1", "step@3", "step±1", "step±3"] + (["agent@1"] if ps.multi_agent else [])
    labels = [f"{r.mode}: {r.note}" for r in results] + [f"rule: {name}" for name in rules]
    width = min(110, max([46, *(len(t) + 1 for t in labels)]))
    head = f"{'':<{width}}" + "".join(f"{m:>22}" for m in metrics) + ("   category" if ps.has_categories else "")
    lines = [f"{ps.name}: {len(ps.golds)} labelled records", head]

    def row(name: str, s: Scores, cat: tuple[int, int] | None) -> str:
        cells = "".join(f"{s.metrics[m].p:6.1%} [{s.metrics[m].low:5.1%},{s.metrics[m].high:6.1%}]".rjust(22)
                        for m in metrics)
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


def params_for_sets(sets: Sequence[PreparedSet], *, meta: dict[str, Any] | None = None) -> RankerParams:
    """The shipped weights: the transfer fit on every labelled run of ``sets``."""
    trained = sorted(r.trajectory.id for s in sets for r in s.trainable)
    return transfer_ranker(sets, meta={**(meta or {}), "trained_trace_ids": trained}).params


def ablation(sets: Sequence[PreparedSet]) -> dict[str, dict[str, float]]:
    """Each transfer signal's leave-one-dataset-out contribution to step@1.

    Returns:
        Signal -> set -> LODO step@1 with every transfer signal (``"all"``) or without that
        one signal; ``"evidence prior"`` drops the fixed detector-evidence offset.
    """
    from analyzer.attribution.features import TRANSFER_FEATURES
    from analyzer.attribution.fit import TRANSFER_PRIOR, fit_transfer, to_params

    out: dict[str, dict[str, float]] = {}
    fitted_names = tuple(x for x in TRANSFER_FEATURES if x not in TRANSFER_PRIOR)
    variants: list[tuple[str, tuple[str, ...], bool, dict[str, float]]] = [
        ("all", TRANSFER_FEATURES, True, TRANSFER_PRIOR)]
    variants += [(f, tuple(x for x in TRANSFER_FEATURES if x != f), True, TRANSFER_PRIOR) for f in fitted_names]
    variants += [(f"{f} (structural prior)", TRANSFER_FEATURES, True, {**TRANSFER_PRIOR, f: 0.0})
                 for f in TRANSFER_PRIOR]
    variants.append(("evidence prior", TRANSFER_FEATURES, False, TRANSFER_PRIOR))
    for name, feats, with_evidence, prior in variants:
        out[name] = {}
        for target in sets:
            groups = [[_training(r) for r in s.trainable] for s in sets if s is not target]
            fitted = fit_transfer(groups, features=feats, prior=prior)
            if not with_evidence:
                fitted.evidence_weight = fitted.evidence_weight_long = 0.0
            ranker = Ranker(to_params(fitted))
            out[name][target.name] = score_with(target, _constant(ranker), "lodo").scores.metrics["step@1"].p
    return out


def format_ablation(table: dict[str, dict[str, float]]) -> str:
    """Markdown table of :func:`ablation` (drop in points against ``all``)."""
    sets = list(next(iter(table.values())))
    lines = ["| signal removed | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    base = table["all"]
    for name, row in table.items():
        cells = [f"{row[s]:.1%}" + ("" if name == "all" else f" ({(row[s] - base[s]) * 100:+.1f})") for s in sets]
        lines.append(f"| {'none (all signals)' if name == 'all' else name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
