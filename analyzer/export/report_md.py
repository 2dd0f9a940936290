"""Markdown report with the same content as the HTML report.

Everything that comes from a trace is escaped before it reaches the page: inline text has
Markdown punctuation backslash-escaped and ``<``/``>``/``&`` turned into entities (no raw
HTML, no links, no images, no table breakage), and step text goes into fenced code blocks
whose fence is longer than any backtick run inside. The template environment escapes every
``{{ … }}`` value by default; only values produced by the helpers here are trusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined

from analyzer.analysis.result import AnalysisResult
from analyzer.export.files import write_text
from analyzer.export.report_i18n import translator
from analyzer.export.report_model import Report, ReportOptions, build_report


class MdSafe(str):
    """A string that is already valid, escaped Markdown."""

    __slots__ = ()


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~!$])")
_LINE_START = re.compile(r"^(?:([#+\-=>])|(\d+)([.)]))")
_URLISH = re.compile(r"(?i)\b(www)\.")


def md_escape(text: Any, line_start: bool = False) -> MdSafe:
    """Escape text for inline Markdown (one line; safe inside a table cell).

    Newlines become spaces, ``< > &`` become entities and the punctuation that starts
    Markdown syntax (backslash, backtick, ``* _ [ ] | ~ ! $``) is backslash-escaped, so the text renders
    literally: no HTML, links, images, emphasis, math or new table cells. ``://`` and
    ``www.`` are broken up so bare URLs are not linkified.

    Args:
        text: Any value (None gives an empty string).
        line_start: The text starts a line: also escape list, heading and quote markers.
    """
    if isinstance(text, MdSafe):
        return text
    s = "" if text is None else str(text)
    s = " ".join(s.split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    if line_start:
        s = _LINE_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3),
                            s, count=1)
    s = s.replace("://", ":\\/\\/")
    s = _URLISH.sub(r"\1\\.", s)
    return MdSafe(s)


def code_block(text: Any, info: str = "text") -> MdSafe:
    """A fenced code block that the text cannot close early.

    The fence is one backtick longer than the longest backtick run in the text (at least
    three), so no line of the text can end the block.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * max(3, longest + 1)
    return MdSafe(f"{fence}{info}\n{s}\n{fence}")


def code_span(text: Any) -> MdSafe:
    """An inline code span that the text cannot break out of (one line)."""
    s = " ".join(("" if text is None else str(text)).split())
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s else ""
    return MdSafe(f"{ticks}{pad}{s}{pad}{ticks}")


def _finalize(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, MdSafe):
        return value
    if isinstance(value, bool | int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3g}"
    return md_escape(value)


def _pct(x: float | None) -> MdSafe:
    return MdSafe("–" if x is None else f"{x * 100:.0f}%")


def _num(x: float | None, fmt: str = "{:.2f}") -> MdSafe:
    return MdSafe("–" if x is None else fmt.format(x))


def _quote(text: Any) -> MdSafe:
    """A block quote of escaped text, paragraph breaks kept."""
    lines = ("" if text is None else str(text)).replace("\r\n", "\n").split("\n")
    return MdSafe("\n".join("> " + md_escape(line, line_start=True) if line.strip() else ">" for line in lines))


@cache
def _env() -> Environment:
    env = Environment(loader=PackageLoader("analyzer.export", "templates"), autoescape=False,
                      finalize=_finalize, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(md=md_escape, code_block=code_block, code_span=code_span, pct=_pct, num=_num, quote=_quote)
    return env


def render_report_markdown(report: Report) -> str:
    """Render a computed report as Markdown."""
    text = _env().get_template("report.md.jinja").render(r=report, t=translator(report.lang))
    return re.sub(r"\n{3,}", "\n\n", text)


def render_markdown(traces: pl.DataFrame, steps: pl.DataFrame, result: AnalysisResult | None = None,
                    annotations: pl.DataFrame | None = None, options: ReportOptions | None = None,
                    problems: Sequence[str] = ()) -> str:
    """Annotated report as Markdown (same sections as the HTML report; plots as sparklines).

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        result: Analysis result, or None.
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        options: What to show.
        problems: Load/analysis problems to list.

    Returns:
        The Markdown document.
    """
    return render_report_markdown(build_report(traces, steps, result, annotations, options, problems))


def write_markdown(path: str | Path, text: str) -> Path:
    """Write a Markdown report atomically (UTF-8)."""
    return write_text(path, text)
