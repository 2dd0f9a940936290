"""The effective outcome of each run: the analyst's word, else the recorded one, else the estimate.

Rules (the same in the runs table, the counts, ``traces.csv``, the reports and the analysis):

* the analyst's outcome (a run-level annotation's ``outcome``; the latest one when several
  analysts gave one) wins: ``outcome_source = "analyst"``;
* else a recorded ``success`` or ``failure`` stays, with its source (``file`` when the importer
  did not name one);
* else, when the estimate (:mod:`analyzer.outcome.estimate`) gives ``outcome_p_failed``, the run
  counts as ``failure`` when that probability is at least one half and as ``success`` below,
  with ``outcome_source = "estimate"``; views say "likely failed (0.82)";
* else the outcome stays ``unknown``.

``outcome_recorded`` keeps what the file (or its sidecar) said and ``outcome_analyst`` the
analyst's value, so nothing is hidden.
"""

from __future__ import annotations

import polars as pl

from analyzer.frames.columns import ColumnSpec
from analyzer.outcome.estimate import P_FAILED
from analyzer.schema.outcome_source import DECIDED_OUTCOMES

ANALYST = "analyst"
ESTIMATE = "estimate"
FILE = "file"

OUTCOME_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("outcome_source", pl.Utf8, "Where the effective outcome comes from: file, a sidecar's kind, labels, "
               "analyst (set in TrajScope) or estimate (outcome_p_failed)."),
    ColumnSpec("outcome_recorded", pl.Utf8, "The outcome the file (or its sidecar) recorded: success | failure | unknown."),
    ColumnSpec("outcome_analyst", pl.Utf8, "The analyst's outcome, when one was given: success | failure | unknown."),
    ColumnSpec(P_FAILED, pl.Float64, "Estimated probability that the run failed (runs without a recorded outcome; "
               "trajscope outcome-fit, docs/outcome_estimate.md)."),
)
"""Columns the overlay adds next to ``outcome``."""


def analyst_outcomes(annotations: pl.DataFrame | None) -> pl.DataFrame:
    """Run id -> the analyst's outcome (``trace_id``, ``outcome_analyst``); the latest word wins."""
    schema = {"trace_id": pl.Utf8, "outcome_analyst": pl.Utf8}
    if annotations is None or annotations.height == 0 or "outcome" not in annotations.columns:
        return pl.DataFrame(schema=schema)
    rows = annotations.filter(pl.col("outcome").is_not_null())
    if "step" in rows.columns:
        rows = rows.filter(pl.col("step").is_null() | (pl.col("step") < 0))
    if rows.height == 0:
        return pl.DataFrame(schema=schema)
    if "timestamp" in rows.columns:
        rows = rows.with_row_index("_order").sort(["timestamp", "_order"], nulls_last=False)
    return (rows.group_by("trace_id", maintain_order=True).agg(pl.col("outcome").last().alias("outcome_analyst"))
            .select(pl.col("trace_id").cast(pl.Utf8), pl.col("outcome_analyst").cast(pl.Utf8)))


def effective_outcomes(traces: pl.DataFrame, annotations: pl.DataFrame | None = None,
                       estimates: pl.DataFrame | None = None) -> pl.DataFrame:
    """``traces`` with the effective ``outcome`` and ``outcome_source`` and the :data:`OUTCOME_COLUMNS`.

    Applying it twice gives the same frame (the recorded outcome is read back from
    ``outcome_recorded`` when present).

    Args:
        traces: Traces frame (``trace_id``, ``outcome``, ``outcome_source``).
        annotations: Analyst annotations (ANNOTATION_COLUMNS) or None.
        estimates: ``trace_id``, ``outcome_p_failed`` (:func:`analyzer.outcome.estimate.estimate_p_failed`) or None.

    Returns:
        The traces, same rows and order, with the overlay (see the module docstring).
    """
    df = traces
    if "outcome_recorded" in df.columns:  # already overlaid: start again from what was recorded
        df = df.with_columns(pl.col("outcome_recorded").alias("outcome"),
                             pl.col("_outcome_source_recorded").alias("outcome_source")
                             if "_outcome_source_recorded" in df.columns else pl.col("outcome_source"))
        df = df.drop([c for c in ("outcome_recorded", "outcome_analyst", P_FAILED, "_outcome_source_recorded")
                      if c in df.columns])
    if "outcome_source" not in df.columns:
        df = df.with_columns(pl.lit(None, pl.Utf8).alias("outcome_source"))
    df = df.join(analyst_outcomes(annotations), on="trace_id", how="left", maintain_order="left")
    est = estimates if estimates is not None and estimates.height else pl.DataFrame(
        schema={"trace_id": pl.Utf8, P_FAILED: pl.Float64})
    df = df.join(est.unique("trace_id", keep="last"), on="trace_id", how="left", maintain_order="left")
    recorded = pl.col("outcome").fill_null("unknown")
    known = recorded.is_in(DECIDED_OUTCOMES)  # an errored run is a verdict too
    # an estimate only stands for a run whose recorded outcome is not known
    p = pl.when(known).then(None).otherwise(pl.col(P_FAILED))
    analyst = pl.col("outcome_analyst")
    outcome = (pl.when(analyst.is_not_null()).then(analyst)
               .when(known).then(recorded)
               .when(p.is_not_null()).then(pl.when(p >= 0.5).then(pl.lit("failure")).otherwise(pl.lit("success")))
               .otherwise(pl.lit("unknown")))
    source = (pl.when(analyst.is_not_null()).then(pl.lit(ANALYST))
              .when(known).then(pl.col("outcome_source").fill_null(FILE))
              .when(p.is_not_null()).then(pl.lit(ESTIMATE))
              .otherwise(pl.col("outcome_source")))
    return df.with_columns(recorded.alias("outcome_recorded"), pl.col("outcome_source").alias("_outcome_source_recorded"),
                           p.cast(pl.Float64).alias(P_FAILED)).with_columns(
        outcome.alias("outcome"), source.cast(pl.Utf8).alias("outcome_source"))


def plain(traces: pl.DataFrame) -> pl.DataFrame:
    """The overlaid traces without the helper column (for frames handed on)."""
    return traces.drop([c for c in ("_outcome_source_recorded",) if c in traces.columns])
