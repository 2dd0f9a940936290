"""Evaluation of decisive-step attribution on labelled files (Who&When layout).

The harness loads the files, runs exactly the analysis pipeline (:func:`analyzer.pipeline.analyze`,
which never sees gold labels), then reads the gold labels itself and scores. Baselines are
computed on the same files. Files that fail to load still count, as wrong answers.

With ``cv_folds`` the shipped ranker weights are replaced, fold by fold, by weights fitted
on the other folds (same features, same pipeline), which gives held-out figures on the
development set itself.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.result import AnalysisResult
from analyzer.attribution.ranker import Ranker
from analyzer.evaluation.baselines import baseline_predictions
from analyzer.evaluation.scoring import Gold, Prediction, Scores, score
from analyzer.frames.build import trajectories_from_frames
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress
from analyzer.pipeline import AnalyzeOptions, analyze


@dataclass
class EvalReport:
    """Result of one evaluation.

    Attributes:
        files: Number of labelled records (every file counts).
        scores: Metrics of the pipeline.
        baselines: Metrics of each trivial baseline.
        predictions: One prediction per analysed record.
        errors: Analysis problems.
        load_errors: Files/records that failed to load.
        judge_model: Judge used, if any.
        embedder: Whether embeddings were used.
        cv_folds: Folds of the held-out mode, or None for the shipped weights.
        in_sample: True when the shipped weights were fitted on some of these runs.
        seconds: Wall time of loading + analysis.
        cancelled: True when stopped early.
    """

    files: int
    scores: Scores
    baselines: dict[str, Scores]
    predictions: list[Prediction]
    errors: list[str] = field(default_factory=list)
    load_errors: list[str] = field(default_factory=list)
    judge_model: str | None = None
    embedder: bool = False
    cv_folds: int | None = None
    in_sample: bool = False
    seconds: float = 0.0
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document."""
        return {
            "files": self.files,
            "metrics": self.scores.to_json(),
            "baselines": {k: v.to_json() for k, v in self.baselines.items()},
            "judge_model": self.judge_model,
            "embedder": self.embedder,
            "cv_folds": self.cv_folds,
            "in_sample": self.in_sample,
            "seconds": round(self.seconds, 1),
            "cancelled": self.cancelled,
            "errors": self.errors,
            "load_errors": self.load_errors,
        }


def record_key(source_file: str, record: str | None, duplicates: set[str]) -> str:
    """Evaluation key: the file name, plus the record locator when a file holds several runs."""
    name = Path(source_file).name
    return f"{name}#{record}" if name in duplicates and record else name


def predictions_from_result(traces: pl.DataFrame, result: AnalysisResult) -> dict[str, Prediction]:
    """Predictions (top-1 step, its agent, full ranking) keyed by record."""
    names = [Path(f).name for f in traces["source_file"].to_list()]
    dup = {n for n in names if names.count(n) > 1}
    key_of = {row["trace_id"]: record_key(row["source_file"], row["record"], dup)
              for row in traces.select("trace_id", "source_file", "record").iter_rows(named=True)}
    ranking: dict[str, list[int]] = {}
    sv = result.step_values.filter(pl.col("candidate_score").is_not_null())
    for (tid,), grp in sv.group_by(["trace_id"]):
        g = grp.sort(["candidate_score", "step"], descending=[True, False])
        ranking[str(tid)] = [int(s) for s in g["step"].to_list()]
    out: dict[str, Prediction] = {}
    for row in result.runs.iter_rows(named=True):
        key = key_of.get(row["trace_id"])
        if key is None or row["decisive_step"] is None:
            continue
        step = int(row["decisive_step"])
        top = ranking.get(row["trace_id"]) or [int(x) for x in (row["top_steps"] or str(step)).split(",")]
        conf = row.get("confidence")
        out[key] = Prediction(key, step, row["decisive_agent"], tuple(top), float(conf) if conf is not None else None)
    return out


def golds_from_traces(traces: pl.DataFrame, failed_files: Sequence[str] = ()) -> list[Gold]:
    """Gold labels of every record, plus an unlabelled entry per file that failed to load."""
    names = [Path(f).name for f in traces["source_file"].to_list()]
    dup = {n for n in names if names.count(n) > 1}
    out = []
    for row in traces.select("source_file", "record", "gold_decisive_step", "gold_decisive_agent").iter_rows(named=True):
        out.append(Gold(record_key(row["source_file"], row["record"], dup), row["gold_decisive_step"],
                        row["gold_decisive_agent"]))
    loaded = {Path(f).name for f in traces["source_file"].to_list()}
    for f in failed_files:
        name = Path(f).name
        if name not in loaded:
            out.append(Gold(name, None, None))
            loaded.add(name)
    return out


def _cv_rankers(traces: pl.DataFrame, steps: pl.DataFrame, folds: int, embedder: Any) -> list[tuple[list[str], Ranker]]:
    """Per fold: the trace ids held out and a ranker fitted on the other folds."""
    from analyzer.evaluation.fit import (
        TrainingRun,
        choose_agent_temperature,
        choose_l2,
        fit_clogit,
        fold_ids,
        to_params,
    )
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.registry import default_host

    shipped = Ranker.load().params
    host = default_host()
    runs: list[TrainingRun] = []
    for t in trajectories_from_frames(traces, steps):
        g = t.gold_decisive_step
        if g is None or not 0 <= g < len(t.steps):
            continue
        sig = prepare_run(blind(t), host, embedder=embedder)
        runs.append(TrainingRun(t.id, Path(t.source_file).name, sig.features,
                                [s.agent for s in t.steps], g, t.gold_decisive_agent))
    ids = fold_ids(len(runs), folds)
    out = []
    for k in range(folds):
        train = [r for r, f in zip(runs, ids, strict=True) if f != k]
        held = [r.trace_id for r, f in zip(runs, ids, strict=True) if f == k]
        l2 = choose_l2(train, folds=folds)
        fitted = fit_clogit(train, l2)
        params = to_params(fitted, judge_weight=shipped.judge_weight, judge_top_k=shipped.judge_top_k,
                           value_prior=shipped.value_prior,
                           agent_temperature=choose_agent_temperature(train, l2, folds=folds), meta={"fold": k})
        out.append((held, Ranker(params)))
    return out


def _offset_progress(progress: Progress, offset: int, grand_total: int) -> Progress:
    """A progress sink that reports ``offset + done`` of ``grand_total``."""

    def report(done: int, total: int, message: str = "") -> None:
        progress(offset + done, grand_total, message)

    return report


def evaluate(
    paths: Sequence[str | Path],
    *,
    judge: Any = None,
    embedder: Any = None,
    cv_folds: int | None = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
    options: AnalyzeOptions | None = None,
) -> EvalReport:
    """Run the pipeline on labelled files and score it against their gold labels.

    Args:
        paths: Files/folders of labelled runs.
        judge: Judge for the pipeline (None: cheap analysis only).
        embedder: Embedder for the pipeline (None: lexical signals only).
        cv_folds: Replace the shipped ranker weights by weights fitted on the other folds.
        progress: Progress sink (per run).
        cancel: Cancel token.
        options: Pipeline options (default: the pipeline defaults).
    """
    from analyzer.loading import load

    cancel = cancel or NeverCancel()
    t0 = time.perf_counter()
    res = load(list(paths), cancel=cancel)
    load_errors = [str(e) for e in res.errors]
    errors: list[str] = []
    traces, steps = res.traces, res.steps
    failed_files = [e.file for e in res.errors if e.record is None]
    if cv_folds:
        parts = []
        rankers = _cv_rankers(traces, steps, cv_folds, embedder)
        labelled = {tid for held, _ in rankers for tid in held}
        done = 0
        for held, ranker in rankers:
            sel = traces.filter(pl.col("trace_id").is_in(held))
            st = steps.filter(pl.col("trace_id").is_in(held))

            fold_progress = _offset_progress(progress, done, traces.height)
            parts.append(analyze(sel, st, judge=judge, embedder=embedder, progress=fold_progress,
                                 cancel=cancel, ranker=ranker, options=options))
            done += sel.height
        rest = traces.filter(~pl.col("trace_id").is_in(list(labelled)))
        if rest.height:
            parts.append(analyze(rest, steps.filter(pl.col("trace_id").is_in(rest["trace_id"].implode())),
                                 judge=judge, embedder=embedder, cancel=cancel, options=options))
        result = parts[0]
        for p in parts[1:]:
            result = result.merge(p)
        in_sample = False
    else:
        ranker = Ranker.load()
        result = analyze(traces, steps, judge=judge, embedder=embedder, progress=progress, cancel=cancel,
                         ranker=ranker, options=options)
        trained = set(ranker.params.meta.get("trained_trace_ids", []))
        in_sample = bool(trained & set(traces["trace_id"].to_list()))
    errors.extend(result.errors)
    golds = golds_from_traces(traces, failed_files)
    preds = predictions_from_result(traces, result)
    blinded = trajectories_from_frames(traces, steps)
    base = {name: score(golds, p) for name, p in baseline_predictions(blinded).items()}
    judge_models = [m for m in result.runs["judge_model"].drop_nulls().unique().to_list()] if result.runs.height else []
    return EvalReport(
        files=len(golds), scores=score(golds, preds), baselines=base,
        predictions=[preds[g.file] for g in golds if g.file in preds],
        errors=errors, load_errors=load_errors, judge_model=judge_models[0] if judge_models else None,
        embedder=embedder is not None, cv_folds=cv_folds, in_sample=in_sample,
        seconds=time.perf_counter() - t0, cancelled=result.cancelled,
    )


def format_report(report: EvalReport) -> str:
    """Plain-text table: pipeline and baselines, each metric with its Wilson 95% CI."""
    from analyzer.evaluation.scoring import METRIC_NAMES

    cols = ["pipeline", *report.baselines]
    rows = {"pipeline": report.scores, **report.baselines}
    width = max(26, *(len(c) + 2 for c in cols))
    lines = [f"{'metric':<10}" + "".join(f"{c:>{width}}" for c in cols)]
    for name in METRIC_NAMES:
        cells = []
        for c in cols:
            m = rows[c].metrics[name]
            cells.append(f"{m.p:6.1%} [{m.low:5.1%},{m.high:6.1%}]".rjust(width))
        lines.append(f"{name:<10}" + "".join(cells))
    mode = (f"held-out: ranker refitted on the other {report.cv_folds - 1} of {report.cv_folds} folds"
            if report.cv_folds else "shipped ranker weights")
    lines.append("")
    lines.append(f"{report.files} files; {mode}; judge: {report.judge_model or 'none'}; "
                 f"embeddings: {'yes' if report.embedder else 'no'}; {report.seconds:.0f} s")
    if report.in_sample:
        lines.append("note: the shipped ranker was fitted on these runs, so these figures are in-sample; "
                     "use --cv 5 for held-out figures")
    if report.cancelled:
        lines.append("note: cancelled before every run was analysed (missing runs count as wrong)")
    return "\n".join(lines)
