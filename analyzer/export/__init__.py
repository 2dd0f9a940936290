"""Exports: spreadsheet-safe CSV, Parquet, and annotated reports (HTML, PDF, Markdown)."""

from analyzer.export.columns import EXPORT_RUN_COLUMNS, EXPORT_STEP_COLUMNS
from analyzer.export.csv_export import neutralise, neutralise_frame, write_csv, write_parquet
from analyzer.export.files import ExportError
from analyzer.export.palette import CATEGORY_COLORS, category_color
from analyzer.export.report_html import CSP, render_html, render_report_html, write_html
from analyzer.export.report_md import (
    md_escape,
    render_markdown,
    render_report_markdown,
    write_markdown,
)
from analyzer.export.report_model import Report, ReportOptions, build_report
from analyzer.export.report_pdf import PdfUnavailable, render_pdf, render_report_pdf, write_pdf
from analyzer.export.tables import annotations_table, findings_table, run_table, step_table
from analyzer.export.write import FORMATS, TABLES, export_tables, write_analysis, write_tables

__all__ = [
    "CATEGORY_COLORS",
    "CSP",
    "EXPORT_RUN_COLUMNS",
    "EXPORT_STEP_COLUMNS",
    "FORMATS",
    "TABLES",
    "ExportError",
    "PdfUnavailable",
    "Report",
    "ReportOptions",
    "annotations_table",
    "build_report",
    "category_color",
    "export_tables",
    "findings_table",
    "md_escape",
    "neutralise",
    "neutralise_frame",
    "render_html",
    "render_markdown",
    "render_pdf",
    "render_report_html",
    "render_report_markdown",
    "render_report_pdf",
    "run_table",
    "step_table",
    "write_analysis",
    "write_csv",
    "write_html",
    "write_markdown",
    "write_parquet",
    "write_pdf",
    "write_tables",
]
