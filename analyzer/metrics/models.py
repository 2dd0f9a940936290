"""Per-model (and per agent framework / task family) metrics for model selection."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ColumnSpec
from analyzer.metrics.columns import (
    COUNT_PREFIX,
    GROUP_COLUMNS,
    MODEL_METRIC_COLUMNS,
    SHARE_PREFIX,
)
from analyzer.metrics.labels import ANALYST, MIXED, effective_labels
from analyzer.metrics.model_names import NAMES_SEPARATOR, apply_model_groups
from analyzer.metrics.reliability import horizon, step_reliability, survival_counts
from analyzer.metrics.signal_metrics import signal_frame, signal_group_metrics
from analyzer.metrics.stats import wilson_interval
from analyzer.outcome.effective import ESTIMATE, effective_outcomes
from analyzer.outcome.estimate import KNOWN, in_memory_estimates
from analyzer.schema.outcome_source import DECIDED_OUTCOMES, FAILED_OUTCOMES
from analyzer.taxonomy import CATEGORY_IDS

UNKNOWN_GROUP = "(unknown)"
"""The group of runs whose file records no model (framework, task family): listed apart, never ranked."""
DEFAULT_MIN_GROUP_RUNS = 10
"""Groups with fewer runs are marked ``too_few_runs`` (setting ``min_group_runs``)."""
MIN_GROUP_RUNS_KEY = "min_group_runs"
_GROUPS = {c.name: c for c in GROUP_COLUMNS}


def metric_columns(group_by: Sequence[str] = ("model",)) -> tuple[ColumnSpec, ...]:
    """Column specs of :func:`model_metrics` output for a grouping.

    Raises:
        ValueError: For a grouping column that is not in GROUP_COLUMNS.
    """
    bad = [g for g in group_by if g not in _GROUPS]
    if bad:
        raise ValueError(f"cannot group by {bad}; choose from {sorted(_GROUPS)}")
    return (*(_GROUPS[g] for g in group_by), *MODEL_METRIC_COLUMNS)


def _median(xs: list[float]) -> float | None:
    return float(statistics.median(xs)) if xs else None


def _mean(xs: list[float]) -> float | None:
    return float(statistics.fmean(xs)) if xs else None


def _relative(step: int, n_steps: int | None) -> float:
    if not n_steps or n_steps <= 1:
        return 0.0
    return min(1.0, max(0.0, step / (n_steps - 1)))


def min_group_runs() -> int:
    """The minimum group size from the settings (``min_group_runs``, default 10)."""
    from analyzer.settings import load_settings

    try:
        value = load_settings().extra.get(MIN_GROUP_RUNS_KEY, DEFAULT_MIN_GROUP_RUNS)
    except OSError:
        return DEFAULT_MIN_GROUP_RUNS
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 1 \
        else DEFAULT_MIN_GROUP_RUNS


def set_min_group_runs(n: int) -> None:
    """Store the minimum group size in the settings."""
    from analyzer.settings import load_settings, save_settings

    if n < 1:
        raise ValueError("the minimum group size is at least 1")
    s = load_settings()
    s.extra[MIN_GROUP_RUNS_KEY] = int(n)
    save_settings(s)


def known_group(group_by: Sequence[str]) -> pl.Expr:
    """True for rows of :func:`model_metrics` whose group values are all recorded (not ``(unknown)``)."""
    cols = [g for g in group_by if g in _GROUPS]
    if not cols:
        return pl.lit(True)
    return pl.all_horizontal(pl.col(g).fill_null(UNKNOWN_GROUP) != UNKNOWN_GROUP for g in cols)


def split_unknown(metrics: pl.DataFrame, group_by: Sequence[str] = ("model",)) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows of recorded groups and the ``(unknown)`` rows (no model recorded), order kept."""
    if metrics.height == 0:
        return metrics, metrics.clear()
    known = known_group([g for g in group_by if g in metrics.columns])
    return metrics.filter(known), metrics.filter(~known)


def rank_groups(metrics: pl.DataFrame, min_runs: int = DEFAULT_MIN_GROUP_RUNS,
                by: str = "pass_rate", group_by: Sequence[str] | None = None) -> pl.DataFrame:
    """Groups ranked best first without letting small groups win on a point estimate.

    Groups with at least ``min_runs`` runs come first, by ``by`` (descending, nulls last), then
    by size; groups below ``min_runs`` follow, largest first. ``(unknown)`` groups (runs whose
    file records no model) are not a model: they come last, whatever their size, and are never
    ranked (see :func:`split_unknown`). Nothing is pooled.

    Args:
        metrics: Output of :func:`model_metrics`.
        min_runs: Minimum group size.
        by: Metric to rank the large-enough groups by.
        group_by: The grouping columns (default: those of ``metrics``).
    """
    if metrics.height == 0:
        return metrics
    groups = [g for g in (group_by if group_by is not None else _GROUPS) if g in metrics.columns]
    unknown = ~known_group(groups)
    small = pl.col("runs") < min_runs
    ranked = pl.when(small | unknown).then(None).otherwise(pl.col(by))  # small groups are never ordered by the estimate
    return (metrics.with_columns(unknown.alias("_unknown"), small.alias("_small"), ranked.alias("_rank"))
            .sort(["_unknown", "_small", "_rank", "runs", by], descending=[False, False, True, True, True],
                  nulls_last=True, maintain_order=True)
            .drop("_unknown", "_small", "_rank"))


def _with_rank(metrics: pl.DataFrame, group_by: Sequence[str]) -> pl.DataFrame:
    """The ``rank`` column: place by pass rate among recorded groups with enough runs and a pass rate."""
    rankable = known_group(group_by) & ~pl.col("too_few_runs") & pl.col("pass_rate").is_not_null()
    place = pl.when(rankable).then(pl.col("pass_rate")).otherwise(None).rank("min", descending=True)
    return metrics.with_columns(pl.when(rankable).then(place).otherwise(None).cast(pl.Int64).alias("rank"))


def _group_metrics(rows: list[dict[str, Any]], confidence: float, min_runs: int) -> dict[str, Any]:
    outcomes = [r["outcome"] for r in rows]
    passes = outcomes.count("success")
    failures = sum(outcomes.count(o) for o in FAILED_OUTCOMES)  # an errored run did not succeed
    known = passes + failures
    out: dict[str, Any] = {
        "runs": len(rows),
        "too_few_runs": len(rows) < min_runs,
        "passes": passes,
        "failures": failures,
        "unknown": len(rows) - known,
        "estimated": sum(1 for r in rows if r["outcome_source"] == ESTIMATE and r["outcome"] in KNOWN),
        "analyst_outcomes": sum(1 for r in rows if r["outcome_source"] == ANALYST),
        "pass_rate": passes / known if known else None,
        "mean_steps": _mean([float(r["n_steps"]) for r in rows if r["n_steps"] is not None]),
    }
    if known:
        out["pass_rate_low"], out["pass_rate_high"] = wilson_interval(passes, known, confidence)
    failed = [r for r in rows if r["outcome"] in FAILED_OUTCOMES]
    attributed = [r for r in failed if r["decisive_step"] is not None]
    labelled = [r for r in failed if r["category"] is not None]
    out["attributed"] = len(attributed)
    out["labelled"] = len(labelled)
    out["analyst_labelled"] = sum(
        1 for r in failed if ANALYST in (r["label_source"], r["decisive_source"]))
    sources = {r["label_source"] for r in labelled if r["label_source"]}
    out["label_source"] = sources.pop() if len(sources) == 1 else (MIXED if sources else None)
    if "_raw_model" in rows[0]:
        names = sorted({str(r["_raw_model"]) for r in rows if r["_raw_model"] is not None})
        out["names"] = NAMES_SEPARATOR.join(names) or None
    counts = dict.fromkeys(CATEGORY_IDS, 0)
    for r in labelled:
        counts[r["category"] if r["category"] in counts else "other"] += 1
    for cat, n in counts.items():
        out[f"{COUNT_PREFIX}{cat}"] = n
        out[f"{SHARE_PREFIX}{cat}"] = n / len(labelled) if labelled else None
    abs_pos = [float(r["decisive_step"]) for r in attributed]
    rel_pos = [_relative(int(r["decisive_step"]), r["n_steps"]) for r in attributed]
    out["decisive_step_mean"], out["decisive_step_median"] = _mean(abs_pos), _median(abs_pos)
    out["decisive_rel_mean"], out["decisive_rel_median"] = _mean(rel_pos), _median(rel_pos)
    out["mean_confidence"] = _mean([float(r["confidence"]) for r in failed if r["confidence"] is not None])
    with_outcome = [r for r in rows if r["outcome"] in DECIDED_OUTCOMES]
    survived, fails = survival_counts(
        [int(r["n_steps"] or 0) for r in with_outcome],
        [r["decisive_step"] for r in with_outcome],
        [r["outcome"] in FAILED_OUTCOMES for r in with_outcome],
    )
    rel = step_reliability(survived, fails)
    out["steps_survived"], out["step_failures"], out["p_step"] = survived, fails, rel.p
    if rel.p is not None:
        out["horizon_50"], out["horizon_80"] = horizon(rel.p, 0.5), horizon(rel.p, 0.8)
    out.update(signal_group_metrics(rows))
    return out


def model_metrics(traces: pl.DataFrame, runs: pl.DataFrame | None = None,
                  annotations: pl.DataFrame | None = None, group_by: Sequence[str] = ("model",),
                  steps: pl.DataFrame | pl.LazyFrame | None = None, confidence: float = 0.95,
                  aliases: Mapping[str, str] | None = None,
                  min_runs: int = DEFAULT_MIN_GROUP_RUNS, estimates: pl.DataFrame | None = None) -> pl.DataFrame:
    """Model-selection metrics per group (one row per model, optionally per framework/family).

    Per group: run counts and the pass rate with its Wilson interval (unknown outcomes are
    left out); the distribution of decisive-failure categories over failed runs (count and
    share per taxonomy id), counting the analyst's reviewed label where there is one
    (:func:`analyzer.metrics.labels.effective_labels`) and saying so in ``label_source``;
    the decisive step's absolute and relative position; and the per-step reliability p̂
    with the horizons H_0.5 and H_0.8 (geometric MLE, see :mod:`analyzer.metrics.reliability`).

    Model names are grouped first: provider prefixes are removed and the workspace's alias
    table applied (:mod:`analyzer.metrics.model_names`); ``names`` lists the raw names of each
    group. Every group has its n (``runs``); groups below ``min_runs`` are marked
    ``too_few_runs`` (use :func:`rank_groups` to order groups without letting them win).
    ``rank`` places the groups with at least ``min_runs`` runs and a pass rate by pass rate;
    runs with no recorded model form the ``(unknown)`` group, listed last and never ranked.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        runs: Pipeline output (RUN_COLUMNS) or None when nothing was analysed.
        annotations: Analyst annotations (ANNOTATION_COLUMNS) or None.
        group_by: Grouping columns, from ``model``, ``framework``, ``task_family``; empty for
            one row over all runs.
        steps: Steps frame, used only to name agents of analyst-chosen steps.
        confidence: Confidence level of the intervals.
        aliases: Model alias table (name -> group), e.g. from the workspace.
        min_runs: Minimum group size (below it a group is ``too_few_runs``).
        estimates: Estimated P(failed) of runs without a recorded outcome (``trace_id``,
            ``outcome_p_failed``); default: estimated here when ``steps`` is in memory.

    Returns:
        Frame with the columns of :func:`metric_columns`, sorted by the group columns with the
        ``(unknown)`` rows last.

    Raises:
        ValueError: For an unknown grouping column.
    """
    specs = metric_columns(group_by)
    if estimates is None:
        estimates = in_memory_estimates(traces, steps)
    traces = effective_outcomes(traces, annotations, estimates)  # the analyst's word, else recorded, else estimated
    base = traces.select("trace_id", "outcome", "outcome_source", "n_steps", *group_by)
    if "model" in group_by:
        base = apply_model_groups(base.with_columns(pl.col("model").alias("_raw_model")), aliases)
    if runs is not None and runs.height:
        labels = effective_labels(runs, annotations, steps)
        conf = runs.select("trace_id", "confidence").unique("trace_id", keep="first")
        labels = labels.join(conf, on="trace_id", how="left")
    else:
        labels = effective_labels(pl.DataFrame(schema={"trace_id": pl.Utf8}), annotations, steps)
        labels = labels.with_columns(pl.lit(None, pl.Float64).alias("confidence"))
    frame = base.join(
        labels.select("trace_id", "decisive_step", "category", "decisive_source", "label_source", "confidence"),
        on="trace_id", how="left",
    ).with_columns(pl.col(g).fill_null(UNKNOWN_GROUP).alias(g) for g in group_by)
    frame = frame.join(signal_frame(traces, runs), on="trace_id", how="left")
    out_rows: list[dict[str, Any]] = []
    if frame.height:
        parts = frame.partition_by(list(group_by), maintain_order=True) if group_by else [frame]
        for part in parts:
            rows = part.to_dicts()
            row = {g: rows[0][g] for g in group_by}
            row.update(_group_metrics(rows, confidence, min_runs))
            out_rows.append(row)
    result = frame_from_rows(out_rows, specs)
    if result.height:
        result = _with_rank(result, group_by)
    if not group_by or result.height == 0:
        return result
    return (result.with_columns((~known_group(group_by)).alias("_unknown"))
            .sort(["_unknown", *group_by]).drop("_unknown"))
