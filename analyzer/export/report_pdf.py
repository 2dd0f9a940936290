"""PDF report: the HTML report laid out for print by WeasyPrint (same content, A4 pages).

WeasyPrint is pure Python on top of Pango (Debian: ``libpango-1.0-0`` and
``libpangoft2-1.0-0``). It fetches nothing from the network: only ``data:`` URLs (the
embedded plots) are allowed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.result import AnalysisResult
from analyzer.export.files import ExportError, write_bytes
from analyzer.export.report_html import render_report_html
from analyzer.export.report_model import Report, ReportOptions, build_report

INSTALL_HINT = ("PDF export needs WeasyPrint and the Pango library: `pip install weasyprint` and, on "
                "Debian/Ubuntu, `apt-get install libpango-1.0-0 libpangoft2-1.0-0`")


class PdfUnavailable(ExportError):
    """WeasyPrint (or the Pango library under it) is not installed."""


def _weasyprint() -> Any:
    try:
        import weasyprint
    except ImportError as exc:
        raise PdfUnavailable(f"{INSTALL_HINT} ({exc})") from None
    except OSError as exc:  # the Python package is there but libpango is not
        raise PdfUnavailable(f"{INSTALL_HINT} (cannot load Pango: {exc})") from None
    return weasyprint


def _fetcher(weasyprint: Any) -> Any:
    try:
        from weasyprint.urls import URLFetcher
    except ImportError:  # WeasyPrint < 66: plain callable fetchers
        default = weasyprint.default_url_fetcher

        def fetch(url: str, *args: Any, **kwargs: Any) -> Any:
            if not url.startswith("data:"):
                raise ValueError(f"report PDF refuses to fetch {url[:80]!r}")
            return default(url, *args, **kwargs)

        return fetch
    return URLFetcher(allowed_protocols={"data"}, timeout=1)


def html_to_pdf(html: str) -> bytes:
    """Lay out an HTML document as PDF (only ``data:`` resources are loaded).

    Raises:
        PdfUnavailable: If WeasyPrint or Pango is missing.
        ExportError: If the layout fails.
    """
    weasyprint = _weasyprint()
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)  # unsupported screen-only CSS is expected, not a problem
    try:
        doc = weasyprint.HTML(string=html, url_fetcher=_fetcher(weasyprint), media_type="print")
        pdf: bytes = doc.write_pdf()
    except Exception as exc:  # WeasyPrint raises many types; report them as one clear error
        raise ExportError(f"PDF layout failed: {exc}") from exc
    finally:
        log.setLevel(level)
    return pdf


def render_report_pdf(report: Report) -> bytes:
    """PDF of a computed report."""
    return html_to_pdf(render_report_html(report))


def render_pdf(traces: pl.DataFrame, steps: pl.DataFrame, result: AnalysisResult | None = None,
               annotations: pl.DataFrame | None = None, options: ReportOptions | None = None,
               problems: Sequence[str] = ()) -> bytes:
    """Annotated report as PDF, with the same content as :func:`analyzer.export.render_html`.

    Raises:
        PdfUnavailable: If WeasyPrint or Pango is missing.
        ExportError: If the layout fails.
    """
    return render_report_pdf(build_report(traces, steps, result, annotations, options, problems))


def write_pdf(path: str | Path, pdf: bytes) -> Path:
    """Write a PDF atomically."""
    return write_bytes(path, pdf)
