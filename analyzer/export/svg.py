"""Plots for reports as small, self-contained SVG documents (no plotting library needed).

Only numbers and our own labels are drawn as geometry; every text that may come from a
trace (model names) is XML-escaped. Reports embed the SVG as a ``data:`` image, so even a
hostile label could never run script.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from analyzer.export.palette import category_color

_FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
_AXIS = "#5B6573"
_GRID = "#E3E7ED"
_CURVE = "#1F3A5F"
_DROP = "#C44E52"


def data_uri(svg: str) -> str:
    """``data:image/svg+xml;base64,...`` URI of an SVG document."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _ticks(n_steps: int, max_ticks: int = 8) -> list[int]:
    if n_steps <= 1:
        return [0]
    raw = (n_steps - 1) / max_ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), 10 * mag)
    step = max(1, int(step))
    return list(range(0, n_steps, step))


@dataclass(frozen=True)
class Marker:
    """A category-coloured mark under the value plot (a finding on a step)."""

    step: int
    category: str | None


def value_plot_svg(values: Sequence[float | None], *, decisive: int | None = None,
                   decisive_category: str | None = None, candidates: Sequence[int] = (),
                   markers: Sequence[Marker] = (), errors: Sequence[int] = (),
                   drop_threshold: float = 0.15, width: int = 680, height: int = 190) -> str:
    """The per-step value curve with drops shaded, the decisive step and findings marked.

    Args:
        values: V(t) per step (None where unknown).
        decisive: Decisive step, drawn as a vertical line in its category colour.
        decisive_category: Category of the decisive step.
        candidates: Runner-up candidate steps (small open triangles on the axis).
        markers: Findings, drawn as coloured ticks in a strip under the plot.
        errors: Steps flagged as errors (small red crosses in the strip).
        drop_threshold: One-step falls at least this large are shaded.
        width: Width in px.
        height: Height in px.

    Returns:
        An SVG document.
    """
    n = len(values)
    left, right, top, strip = 38.0, 12.0, 14.0, 30.0
    bottom = 26.0 + strip
    pw, ph = width - left - right, height - top - bottom

    def x(t: float) -> float:
        return left + (pw * (t + 0.5) / n if n else pw / 2)

    def y(v: float) -> float:
        return top + ph * (1.0 - min(1.0, max(0.0, v)))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} font-size="10">',
           f'<rect width="{width}" height="{height}" fill="#FFFFFF"/>']
    for level in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{_fmt(left)}" x2="{_fmt(left + pw)}" y1="{_fmt(y(level))}" '
                   f'y2="{_fmt(y(level))}" stroke="{_GRID}" stroke-width="1"/>')
        if level in (0.0, 0.5, 1.0):
            out.append(f'<text x="{_fmt(left - 6)}" y="{_fmt(y(level) + 3.5)}" text-anchor="end" '
                       f'fill="{_AXIS}">{level:.1f}</text>')
    band = pw / n if n else pw
    prev: float | None = None
    for t, v in enumerate(values):
        if v is not None and prev is not None and prev - v >= drop_threshold:
            out.append(f'<rect x="{_fmt(x(t) - band)}" y="{_fmt(y(prev))}" width="{_fmt(band)}" '
                       f'height="{_fmt(y(v) - y(prev))}" fill="{_DROP}" fill-opacity="0.18"/>')
        if v is not None:
            prev = v
    if decisive is not None and 0 <= decisive < max(n, 1):
        colour = category_color(decisive_category)
        out.append(f'<line x1="{_fmt(x(decisive))}" x2="{_fmt(x(decisive))}" y1="{_fmt(top)}" '
                   f'y2="{_fmt(top + ph)}" stroke="{colour}" stroke-width="2.5" stroke-dasharray="5 3"/>')
        anchor = "end" if x(decisive) > left + pw * 0.75 else "start"
        dx = -5 if anchor == "end" else 5
        out.append(f'<text x="{_fmt(x(decisive) + dx)}" y="{_fmt(top + 10)}" text-anchor="{anchor}" '
                   f'fill="{_AXIS}" font-weight="bold">decisive step {decisive}</text>')
    segment: list[str] = []
    segments: list[list[str]] = []
    for t, v in enumerate(values):
        if v is None:
            if segment:
                segments.append(segment)
            segment = []
        else:
            segment.append(f"{_fmt(x(t))},{_fmt(y(v))}")
    if segment:
        segments.append(segment)
    for seg in segments:
        if len(seg) == 1:
            px, py = seg[0].split(",")
            out.append(f'<circle cx="{px}" cy="{py}" r="2" fill="{_CURVE}"/>')
        else:
            out.append(f'<polyline points="{" ".join(seg)}" fill="none" stroke="{_CURVE}" '
                       f'stroke-width="1.8" stroke-linejoin="round"/>')
    if not segments:
        out.append(f'<text x="{_fmt(left + pw / 2)}" y="{_fmt(top + ph / 2)}" text-anchor="middle" '
                   f'fill="{_AXIS}">no value curve computed</text>')
    axis_y = top + ph
    out.append(f'<line x1="{_fmt(left)}" x2="{_fmt(left + pw)}" y1="{_fmt(axis_y)}" y2="{_fmt(axis_y)}" '
               f'stroke="{_AXIS}" stroke-width="1"/>')
    for c in candidates:
        if 0 <= c < n and c != decisive:
            cx = x(c)
            out.append(f'<path d="M{_fmt(cx)},{_fmt(axis_y - 7)} l-4,-7 h8 z" fill="none" '
                       f'stroke="{_AXIS}" stroke-width="1.2"/>')
    for t in _ticks(n):
        out.append(f'<line x1="{_fmt(x(t))}" x2="{_fmt(x(t))}" y1="{_fmt(axis_y)}" y2="{_fmt(axis_y + 4)}" '
                   f'stroke="{_AXIS}"/>')
        out.append(f'<text x="{_fmt(x(t))}" y="{_fmt(axis_y + 14)}" text-anchor="middle" fill="{_AXIS}">{t}</text>')
    strip_y = axis_y + 22
    out.append(f'<text x="{_fmt(left - 6)}" y="{_fmt(strip_y + 7)}" text-anchor="end" fill="{_AXIS}" '
               f'font-size="8">findings</text>')
    out.append(f'<rect x="{_fmt(left)}" y="{_fmt(strip_y)}" width="{_fmt(pw)}" height="10" fill="#F5F7FA"/>')
    tick_w = max(2.0, min(band * 0.8, 8.0))
    for m in markers:
        if 0 <= m.step < n:
            out.append(f'<rect x="{_fmt(x(m.step) - tick_w / 2)}" y="{_fmt(strip_y)}" width="{_fmt(tick_w)}" '
                       f'height="10" fill="{category_color(m.category)}"/>')
    for e in errors:
        if 0 <= e < n:
            cx, cy = x(e), strip_y + 5
            out.append(f'<path d="M{_fmt(cx - 3)},{_fmt(cy - 3)} l6,6 M{_fmt(cx + 3)},{_fmt(cy - 3)} l-6,6" '
                       f'stroke="{_DROP}" stroke-width="1.4"/>')
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class BarRow:
    """One model's row in the category chart."""

    label: str
    counts: dict[str, int]


def category_bars_svg(rows: Sequence[BarRow], categories: Sequence[str], width: int = 680) -> str:
    """Horizontal 100%-stacked bars: each model's decisive-failure categories.

    Args:
        rows: One row per model.
        categories: Category ids in drawing order.
        width: Width in px.

    Returns:
        An SVG document.
    """
    label_w, right, bar_h, gap, top = 170.0, 46.0, 18.0, 8.0, 6.0
    height = int(top * 2 + max(1, len(rows)) * (bar_h + gap))
    pw = width - label_w - right
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#FFFFFF"/>']
    for i, row in enumerate(rows):
        y0 = top + i * (bar_h + gap)
        label = row.label if len(row.label) <= 26 else row.label[:25] + "…"
        out.append(f'<text x="{_fmt(label_w - 8)}" y="{_fmt(y0 + bar_h / 2 + 4)}" text-anchor="end" '
                   f'fill="#1B2430">{escape(label)}</text>')
        total = sum(row.counts.get(c, 0) for c in categories)
        out.append(f'<rect x="{_fmt(label_w)}" y="{_fmt(y0)}" width="{_fmt(pw)}" height="{_fmt(bar_h)}" '
                   f'fill="#F1F3F6"/>')
        x0 = label_w
        for c in categories:
            k = row.counts.get(c, 0)
            if not k or not total:
                continue
            w = pw * k / total
            out.append(f'<rect x="{_fmt(x0)}" y="{_fmt(y0)}" width="{_fmt(w)}" height="{_fmt(bar_h)}" '
                       f'fill="{category_color(c)}" stroke="#FFFFFF" stroke-width="1"/>')
            x0 += w
        out.append(f'<text x="{_fmt(label_w + pw + 6)}" y="{_fmt(y0 + bar_h / 2 + 4)}" fill="#5B6573">'
                   f'n={total}</text>')
    out.append("</svg>")
    return "".join(out)


def sparkline(values: Sequence[float | None], width: int = 60) -> str:
    """A Unicode block sparkline of a value curve (for Markdown), resampled to ``width``."""
    blocks = "▁▂▃▄▅▆▇█"
    known = [v for v in values if v is not None]
    if not known:
        return ""
    n = len(values)
    out = []
    for i in range(min(width, n)):
        lo, hi = i * n // min(width, n), max(i * n // min(width, n) + 1, (i + 1) * n // min(width, n))
        chunk = [v for v in values[lo:hi] if v is not None]
        if not chunk:
            out.append(" ")
            continue
        v = min(1.0, max(0.0, min(chunk)))
        out.append(blocks[min(len(blocks) - 1, int(v * (len(blocks) - 1) + 0.5))])
    return "".join(out)
