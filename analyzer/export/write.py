"""``write_analysis``: every export table as CSV and/or Parquet in one folder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from analyzer.analysis.result import AnalysisResult
from analyzer.export.csv_export import write_csv, write_parquet
from analyzer.export.files import ExportError
from analyzer.export.tables import annotations_table, findings_table, run_table, step_table
from analyzer.metrics.models import min_group_runs, model_metrics

if TYPE_CHECKING:
    from analyzer.insights.model import InsightSet

FORMATS = ("csv", "parquet")
TABLES = ("traces", "steps", "findings", "models", "annotations", "insights")
"""Export tables; ``insights`` is written only when insights were computed."""


def export_tables(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, result: AnalysisResult | None = None,
                  annotations: pl.DataFrame | None = None,
                  group_by: Sequence[str] = ("model",),
                  aliases: Mapping[str, str] | None = None,
                  insights: InsightSet | None = None) -> dict[str, pl.DataFrame]:
    """The export tables by name: ``traces``, ``steps``, ``findings``, ``models``, ``annotations`` (+ ``insights``).

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS), or a lazy one: each table then reads only the
            columns (and runs) it uses, so the step texts of a corpus stay on disk.
        result: Analysis result, or None.
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        group_by: Grouping of ``models`` (see :func:`analyzer.metrics.model_metrics`).
        aliases: Model alias table of the workspace (``models`` groups by it).
        insights: Failure insights (``insights.csv`` and the ``insight`` column), or None.

    Returns:
        Table name -> frame.
    """
    runs = result.runs if result is not None else None
    if insights is not None:  # per-model shares group the models as models.csv does
        insights = insights.with_aliases(aliases)
    tables = {
        "traces": run_table(traces, result, annotations, steps, insights.run_column() if insights else None),
        "steps": step_table(steps, result),
        "findings": findings_table(result),
        "models": model_metrics(traces, runs, annotations, group_by=group_by, steps=steps, aliases=aliases,
                                min_runs=min_group_runs()),
        "annotations": annotations_table(annotations),
    }
    if insights is not None:
        tables["insights"] = insights.table()
    return tables


def write_analysis(out_dir: str | Path, traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                   result: AnalysisResult | None = None, annotations: pl.DataFrame | None = None,
                   formats: Sequence[str] = FORMATS, group_by: Sequence[str] = ("model",),
                   aliases: Mapping[str, str] | None = None,
                   insights: InsightSet | None = None) -> list[Path]:
    """Write ``traces``, ``steps``, ``findings``, ``models`` and ``annotations`` tables (and ``insights``).

    CSV files are UTF-8 with a header and spreadsheet-safe (see
    :mod:`analyzer.export.csv_export`); Parquet files are their typed twins.

    Args:
        out_dir: Folder (created if missing).
        traces: Traces frame.
        steps: Steps frame, or a lazy one (see :func:`export_tables`).
        result: Analysis result, or None.
        annotations: Analyst annotations, or None.
        formats: Any of ``"csv"``, ``"parquet"``.
        group_by: Grouping of ``models``.
        aliases: Model alias table of the workspace.
        insights: Failure insights, or None (then no ``insights`` table).

    Returns:
        What :func:`write_tables` returns (it also raises what that raises).
    """
    _check_formats(formats)  # before the tables are built
    return write_tables(out_dir, export_tables(traces, steps, result, annotations, group_by, aliases, insights),
                        formats)


def _check_formats(formats: Sequence[str]) -> None:
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ValueError(f"unknown export format(s) {bad}; choose from {list(FORMATS)}")


def write_tables(out_dir: str | Path, tables: Mapping[str, pl.DataFrame],
                 formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write tables :func:`export_tables` built (``<name>.csv`` / ``<name>.parquet``).

    Args:
        out_dir: Folder (created if missing).
        tables: Table name -> frame.
        formats: Any of ``"csv"``, ``"parquet"``.

    Returns:
        Paths written, in table order.

    Raises:
        ValueError: For an unknown format.
        ExportError: If a file cannot be written.
    """
    _check_formats(formats)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: exists and is not a folder")
    written: list[Path] = []
    for name, df in tables.items():
        if "csv" in formats:
            written.append(write_csv(df, out / f"{name}.csv"))
        if "parquet" in formats:
            written.append(write_parquet(df, out / f"{name}.parquet"))
    return written
