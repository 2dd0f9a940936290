"""Self-contained HTML report (jinja2 with autoescape on; no script, strict CSP)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path

import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from analyzer.analysis.result import AnalysisResult
from analyzer.export.files import write_text
from analyzer.export.report_i18n import language_css, translator
from analyzer.export.report_model import Report, ReportOptions, build_report

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""Content-Security-Policy of every HTML report: no script, no network, inline styles only."""


@cache
def _env() -> Environment:
    return Environment(loader=PackageLoader("analyzer.export", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


@cache
def report_css() -> str:
    """The report stylesheet (inlined into every HTML report)."""
    css = resources.files("analyzer.export").joinpath("templates/report.css").read_text(encoding="utf-8")
    if "</" in css:
        raise ValueError("report.css must not contain '</'")
    return css


def render_report_html(report: Report) -> str:
    """Render a computed report as one self-contained HTML document."""
    return _env().get_template("report.html.jinja").render(
        r=report, css=Markup(report_css()), t=translator(report.lang), lang_css=Markup(language_css(report.lang)))


def render_html(traces: pl.DataFrame, steps: pl.DataFrame, result: AnalysisResult | None = None,
                annotations: pl.DataFrame | None = None, options: ReportOptions | None = None,
                problems: Sequence[str] = ()) -> str:
    """Annotated report as a self-contained HTML page.

    Summary, model comparison, and each failed run with its value plot (inline SVG image),
    decisive step excerpt, findings and the analyst's tags and notes. Every trace text is
    escaped; the page carries no script and a CSP that forbids script and network access.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        result: Analysis result, or None.
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        options: What to show.
        problems: Load/analysis problems to list.

    Returns:
        The HTML document.
    """
    return render_report_html(build_report(traces, steps, result, annotations, options, problems))


def write_html(path: str | Path, html: str) -> Path:
    """Write an HTML report atomically (UTF-8)."""
    return write_text(path, html)
