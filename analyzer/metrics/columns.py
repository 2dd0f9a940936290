"""Column specs of the metric frames (the headers of ``models.csv``)."""

from __future__ import annotations

import polars as pl

from analyzer.frames.columns import ColumnSpec
from analyzer.metrics.signal_metrics import SIGNAL_MODEL_COLUMNS
from analyzer.taxonomy import CATEGORY_IDS

GROUP_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("model", pl.Utf8, "Model group: the name without provider prefixes and date stamps "
               "(gpt-4o-mini-2024-07-18 -> gpt-4o-mini), or the analyst's alias; '(unknown)' for runs whose "
               "file records no model (listed last, never ranked)."),
    ColumnSpec("framework", pl.Utf8, "Agent framework."),
    ColumnSpec("task_family", pl.Utf8, "Task family / dataset / level."),
)
"""Columns ``model_metrics`` can group by (they lead the frame, in the order asked)."""

COUNT_PREFIX = "n_"
SHARE_PREFIX = "share_"

MODEL_METRIC_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("runs", pl.Int64, "Runs in the group (n)."),
    ColumnSpec("too_few_runs", pl.Boolean, "True when n is below the minimum group size (setting "
               "'min_group_runs', default 10): its rates are too uncertain to rank it."),
    ColumnSpec("rank", pl.Int64, "Place by pass rate (1 = best; ties share a place) among the groups with at "
               "least 'min_group_runs' runs and a pass rate. Empty for groups with too few runs and for "
               "'(unknown)' (runs with no recorded model: not a model, so listed last and never ranked)."),
    ColumnSpec("passes", pl.Int64, "Runs whose outcome is success (recorded, the analyst's or estimated)."),
    ColumnSpec("failures", pl.Int64, "Runs whose outcome is failure (recorded, the analyst's or estimated)."),
    ColumnSpec("unknown", pl.Int64, "Runs with an unknown outcome (left out of the pass rate)."),
    ColumnSpec("estimated", pl.Int64, "Runs among passes and failures whose outcome is an estimate (no recorded "
               "outcome, no analyst's word; see docs/outcome_estimate.md)."),
    ColumnSpec("analyst_outcomes", pl.Int64, "Runs among passes, failures and unknown whose outcome the analyst set."),
    ColumnSpec("pass_rate", pl.Float64, "passes / (passes + failures)."),
    ColumnSpec("pass_rate_low", pl.Float64, "Wilson 95% CI, lower bound."),
    ColumnSpec("pass_rate_high", pl.Float64, "Wilson 95% CI, upper bound."),
    ColumnSpec("mean_steps", pl.Float64, "Mean run length in steps."),
    ColumnSpec("attributed", pl.Int64, "Failed runs with a decisive step."),
    ColumnSpec("labelled", pl.Int64, "Failed runs with a decisive-failure category."),
    ColumnSpec("analyst_labelled", pl.Int64, "Failed runs whose category or decisive step the analyst set."),
    ColumnSpec("label_source", pl.Utf8, "Who chose the counted categories: ranker (detectors and the fitted "
               "ranker, no judge) | judge | analyst | mixed."),
    *(ColumnSpec(f"{COUNT_PREFIX}{c}", pl.Int64, f"Failed runs whose decisive failure is '{c}'.")
      for c in CATEGORY_IDS),
    *(ColumnSpec(f"{SHARE_PREFIX}{c}", pl.Float64, f"Share of labelled failed runs that are '{c}'.")
      for c in CATEGORY_IDS),
    ColumnSpec("decisive_step_mean", pl.Float64, "Mean decisive step (0-based)."),
    ColumnSpec("decisive_step_median", pl.Float64, "Median decisive step (0-based)."),
    ColumnSpec("decisive_rel_mean", pl.Float64, "Mean relative position of the decisive step (0 first, 1 last)."),
    ColumnSpec("decisive_rel_median", pl.Float64, "Median relative position of the decisive step."),
    ColumnSpec("mean_confidence", pl.Float64, "Mean confidence of the pipeline's decisive steps."),
    ColumnSpec("steps_survived", pl.Int64, "Steps survived before the decisive error (all steps of passed runs)."),
    ColumnSpec("step_failures", pl.Int64, "Decisive errors counted for the reliability estimate."),
    ColumnSpec("p_step", pl.Float64, "Per-step reliability p̂ = 1 - failures / (survived + failures), geometric MLE."),
    ColumnSpec("horizon_50", pl.Float64, "Steps until the success chance falls to 50%: ln 0.5 / ln p̂ (null if unbounded)."),
    ColumnSpec("horizon_80", pl.Float64, "Steps until the success chance falls to 80%: ln 0.8 / ln p̂ (null if unbounded)."),
    ColumnSpec("names", pl.Utf8, "Model names as the traces spell them, merged into this group "
               "(provider prefixes, date stamps and '-latest' folded automatically; the workspace's aliases and "
               "splits win), '; '-separated."),
    *SIGNAL_MODEL_COLUMNS,
)

SELF_CONDITIONING_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("k", pl.Utf8, "Earlier errors in the run: '0', '1', ... and 'N+' for the last bucket."),
    ColumnSpec("steps", pl.Int64, "Steps preceded by that many errors (at risk)."),
    ColumnSpec("errors", pl.Int64, "Of those, steps that are errors."),
    ColumnSpec("p_error", pl.Float64, "errors / steps."),
    ColumnSpec("p_error_low", pl.Float64, "Wilson 95% CI, lower bound."),
    ColumnSpec("p_error_high", pl.Float64, "Wilson 95% CI, upper bound."),
)
