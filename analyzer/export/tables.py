"""The exported tables, built from the frames (column names from the specs)."""

from __future__ import annotations

import polars as pl

from analyzer.analysis.result import AnalysisResult
from analyzer.contrast.corpus import CONTRAST_COLUMNS, contrast_corpus, task_groups
from analyzer.export.columns import EXPORT_RUN_COLUMNS, EXPORT_STEP_COLUMNS, TOP_K
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import ANNOTATION_COLUMNS, FINDING_COLUMNS, ColumnSpec, schema_of
from analyzer.metrics.efficiency import efficiency_table
from analyzer.metrics.labels import LABEL_COLUMNS, analyst_step_overrides, effective_labels
from analyzer.outcome.effective import effective_outcomes
from analyzer.outcome.estimate import in_memory_estimates


def conform(df: pl.DataFrame, columns: tuple[ColumnSpec, ...]) -> pl.DataFrame:
    """Exactly the declared columns, in order and with their dtypes (missing ones null)."""
    exprs = [
        (pl.col(c.name) if c.name in df.columns else pl.lit(None)).cast(c.dtype, strict=False).alias(c.name)
        for c in columns
    ]
    return df.select(exprs) if df.width else pl.DataFrame(schema=schema_of(columns))


def contrast_frame(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame | None,
                   result: AnalysisResult | None) -> pl.DataFrame:
    """CONTRAST_COLUMNS of every failed run of ``traces`` whose task also succeeded.

    Computed over all the runs with the pairs the analysis aligned as cache (only pairs it does not
    hold are aligned: runs it did not analyse, results read back from a workspace); without steps,
    the analysis's own rows.
    """
    if steps is None:
        return result.contrast if result is not None else empty_frame(CONTRAST_COLUMNS)
    if not task_groups(traces):
        return empty_frame(CONTRAST_COLUMNS)
    return contrast_corpus(traces, steps, cached=result.pairs if result is not None else None).runs


def _first_k(expr: pl.Expr, k: int) -> pl.Expr:
    return expr.str.split(",").list.eval(pl.element().str.strip_chars()).list.head(k).list.join(",")


def run_table(traces: pl.DataFrame, result: AnalysisResult | None = None,
              annotations: pl.DataFrame | None = None, steps: pl.DataFrame | pl.LazyFrame | None = None,
              insights: pl.DataFrame | None = None) -> pl.DataFrame:
    """``traces.csv``: one row per run with the effective (analyst-reviewed) attribution.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        result: Analysis result, or None when nothing was analysed.
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        steps: Steps frame (or lazy frame: only the columns used are read), used to name the
            agent of an analyst-chosen decisive step and for wall times.
        insights: ``trace_id`` -> ``insight`` (``InsightSet.run_column()``), or None.

    Returns:
        Frame with EXPORT_RUN_COLUMNS, in the order of ``traces``; where an analyst set the
        decisive step, ``decisive_uncertain`` is null and ``drop_note`` speaks of their step
        (:func:`analyzer.metrics.labels.analyst_step_overrides`).
    """
    # the effective outcome (the analyst's, else recorded, else estimated from the steps)
    traces = effective_outcomes(traces, annotations, in_memory_estimates(traces, steps))
    runs = result.runs if result is not None else empty_frame(())
    if "trace_id" not in runs.columns:
        runs = pl.DataFrame(schema={"trace_id": pl.Utf8})
    runs = runs.unique("trace_id", keep="last", maintain_order=True)
    labels = effective_labels(runs, annotations, steps)
    label_names = [c.name for c in LABEL_COLUMNS]
    run_extra = runs.drop([c for c in runs.columns if c in label_names and c != "trace_id"])
    trace_names = [c for c in traces.columns if c not in run_extra.columns or c == "trace_id"]
    df = (traces.select(trace_names)
          .join(run_extra, on="trace_id", how="left", maintain_order="left")
          .join(labels, on="trace_id", how="left", maintain_order="left"))
    df = df.join(efficiency_table(traces, steps), on="trace_id", how="left", maintain_order="left")
    contrast = contrast_frame(traces, steps, result).select("trace_id", "contrast_run", "contrast_cost",
                                                            "divergence_step", "divergence_kind")
    df = df.drop([c for c in contrast.columns if c in df.columns and c != "trace_id"])
    df = df.join(contrast, on="trace_id", how="left", maintain_order="left")
    if insights is not None and insights.height:
        df = df.join(insights.select("trace_id", "insight").unique("trace_id", keep="last"), on="trace_id",
                     how="left", maintain_order="left")
    for col in ("top_steps", "top_scores"):
        if col in df.columns:
            df = df.with_columns(_first_k(pl.col(col).cast(pl.Utf8), TOP_K).alias(col))
    # the analyst's own decisive step is not uncertain, and the curve's note speaks of it
    df = analyst_step_overrides(df, result.step_values if result is not None else None)
    return conform(df, EXPORT_RUN_COLUMNS)


def step_table(steps: pl.DataFrame | pl.LazyFrame, result: AnalysisResult | None = None) -> pl.DataFrame:
    """``steps.csv``: every step of every run, with values where the analysis computed them.

    Args:
        steps: Steps frame (STEP_COLUMNS), or a lazy one (a corpus's steps): then only the
            exported columns are read, never the step texts.
        result: Analysis result, or None.

    Returns:
        Frame with EXPORT_STEP_COLUMNS, sorted by run (in ``steps`` order) and step.
    """
    base = steps.lazy().select("trace_id", "step", "agent", "kind", "role", "tool_name", "is_error", "native_step_id")
    if result is not None and result.step_values.height:
        values = result.step_values.drop([c for c in ("agent", "kind") if c in result.step_values.columns])
        values = values.unique(["trace_id", "step"], keep="last")
        base = base.join(values.lazy(), on=["trace_id", "step"], how="left", maintain_order="left")
    return conform(base.collect(), EXPORT_STEP_COLUMNS)


def findings_table(result: AnalysisResult | None) -> pl.DataFrame:
    """``findings.csv`` (FINDING_COLUMNS)."""
    if result is None:
        return empty_frame(FINDING_COLUMNS)
    return conform(result.findings, FINDING_COLUMNS)


def annotations_table(annotations: pl.DataFrame | None) -> pl.DataFrame:
    """``annotations.csv`` (ANNOTATION_COLUMNS; empty with a header when there are none)."""
    if annotations is None:
        return empty_frame(ANNOTATION_COLUMNS)
    return conform(annotations, ANNOTATION_COLUMNS)
