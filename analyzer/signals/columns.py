"""Columns the signal detectors fill (``steps.csv`` and ``traces.csv``); units in ``docs/detectors.md``."""

from __future__ import annotations

import polars as pl

from analyzer.frames.columns import ColumnSpec

SIGNAL_STEP_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("risk_cum", pl.Float64, "Cumulative risk 0-1 of the risky-combination rules up to this step."),
    ColumnSpec("check_point", pl.Utf8, "Kind of cheap check that would have shown the divergence right after "
               "this step (earliest one per failed run), else null."),
    ColumnSpec("wasted", pl.Utf8, "Why the step had no effect: repeated_read | rerun_unchanged | unused_output."),
    ColumnSpec("droppable_tokens", pl.Int64, "Estimated tokens of this step's content that later model calls "
               "re-sent although it could have been dropped (tokens, chars/4)."),
    ColumnSpec("context_waste_cum", pl.Int64, "Re-sent droppable tokens accumulated over the model calls up to "
               "this step (tokens, chars/4)."),
    ColumnSpec("understood", pl.Float64, "Agreement 0-1 of this decision step with the tool output it follows."),
    ColumnSpec("used", pl.Float64, "Dependence 0-1 of this decision step on the tool output it follows."),
)
"""Per-step signal columns (appended to ``STEP_VALUE_COLUMNS``)."""

SIGNAL_RUN_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("risk_score", pl.Float64, "Highest cumulative risk 0-1 over the run."),
    ColumnSpec("risk_rules", pl.Utf8, "Ids of the risk rules whose whole combination occurred, ';'-separated."),
    ColumnSpec("risk_predictable_step", pl.Int64, "Earliest step at which a completed risky combination was "
               "predictable (all but its last stage seen)."),
    ColumnSpec("check_step", pl.Int64, "Failed runs: earliest step after which a cheap check would have shown "
               "the divergence."),
    ColumnSpec("check_kind", pl.Utf8, "Kind of that check: test_run | count_vs_plan | reread_constraints | "
               "result_exists."),
    ColumnSpec("check_lead", pl.Int64, "Steps between that check and the failure (the run's last step)."),
    ColumnSpec("wasted_steps", pl.Int64, "Decision steps with no effect on the outcome (see ``wasted``)."),
    ColumnSpec("wasted_share", pl.Float64, "wasted_steps / decision steps."),
    ColumnSpec("context_tokens_in", pl.Int64, "Input tokens sent over the run's model calls (reported counts, "
               "else estimated as the history's chars/4)."),
    ColumnSpec("context_saveable_tokens", pl.Int64, "Of those, re-sent tokens that could have been dropped "
               "(estimated, chars/4)."),
    ColumnSpec("context_saveable_share", pl.Float64, "context_saveable_tokens / context_tokens_in."),
    ColumnSpec("understood_mean", pl.Float64, "Mean ``understood`` over scored decision steps."),
    ColumnSpec("understood_trend", pl.Float64, "Least-squares slope of ``understood`` against relative position "
               "(0 first step, 1 last); negative = worsening."),
    ColumnSpec("used_mean", pl.Float64, "Mean ``used`` over scored decision steps."),
    ColumnSpec("used_trend", pl.Float64, "Least-squares slope of ``used`` against relative position."),
)
"""Per-run signal columns (appended to ``RUN_COLUMNS``)."""

STEP_SIGNAL_NAMES = frozenset(c.name for c in SIGNAL_STEP_COLUMNS)
RUN_SIGNAL_NAMES = frozenset(c.name for c in SIGNAL_RUN_COLUMNS)
