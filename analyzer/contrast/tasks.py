"""The per-task table: how often each task was run, how often it succeeded, by which models."""

from __future__ import annotations

import polars as pl

from analyzer.frames.build import empty_frame
from analyzer.frames.columns import ColumnSpec

TASK_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("task_key", pl.Utf8, "Identity of the task across runs."),
    ColumnSpec("task", pl.Utf8, "Task statement (of its first run)."),
    ColumnSpec("runs", pl.Int64, "Runs of the task."),
    ColumnSpec("successes", pl.Int64, "Successful runs."),
    ColumnSpec("failures", pl.Int64, "Failed runs."),
    ColumnSpec("models", pl.Utf8, "Models that ran it, comma-separated."),
)


def task_table(traces: pl.DataFrame) -> pl.DataFrame:
    """One row per task key: runs, successes, failures and models; tasks run most first.

    Args:
        traces: Traces frame (``task_key``, ``task``, ``outcome``, ``model``).
    """
    if traces.height == 0 or "task_key" not in traces.columns:
        return empty_frame(TASK_COLUMNS)
    df = traces.filter(pl.col("task_key").is_not_null())
    if df.height == 0:
        return empty_frame(TASK_COLUMNS)
    return (df.group_by("task_key", maintain_order=True)
            .agg(pl.col("task").first(), pl.len().cast(pl.Int64).alias("runs"),
                 (pl.col("outcome") == "success").sum().cast(pl.Int64).alias("successes"),
                 (pl.col("outcome") == "failure").sum().cast(pl.Int64).alias("failures"),
                 pl.col("model").drop_nulls().unique().sort().str.join(", ").alias("models"))
            .sort(["runs", "task_key"], descending=[True, False])
            .select([c.name for c in TASK_COLUMNS]))
