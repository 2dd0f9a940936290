"""The adaptation learning curve (step@1 against the number of the analyst's labels) as SVG."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def learning_curve_svg(curves: Mapping[str, Sequence[Mapping[str, Any]]], width: int = 640,
                       height: int = 380) -> str:
    """SVG of step@1 (with its Wilson 95% band) against K, one line per set.

    Args:
        curves: Set name -> points ``{"k": K, "metrics": {"step@1": {"p", "ci95"}}}``.
        width: Image width in px.
        height: Image height in px.
    """
    left, right, top, bottom = 56, 170, 20, 44
    pw, ph = width - left - right, height - top - bottom
    ks = sorted({int(p["k"]) for pts in curves.values() for p in pts}) or [0]
    kmax = max(ks) or 1

    def x(k: float) -> float:
        return left + pw * k / kmax

    def y(v: float) -> float:
        return top + ph * (1.0 - v)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for v in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0%}</text>')
    for k in ks:
        out.append(f'<text x="{x(k):.1f}" y="{top + ph + 16}" text-anchor="middle">{k}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle">'
               "K = the analyst's labelled runs</text>")
    out.append(f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + ph / 2:.1f})">step@1</text>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(0.35):.1f}" y2="{y(0.35):.1f}" '
               'stroke="#888" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{left + pw + 4}" y="{y(0.35) + 4:.1f}" fill="#666">target 35%</text>')
    for n, (name, pts) in enumerate(curves.items()):
        c = _COLOURS[n % len(_COLOURS)]
        pts = sorted(pts, key=lambda p: int(p["k"]))
        if not pts:
            continue
        band_hi = [(x(int(p["k"])), y(float(p["metrics"]["step@1"]["ci95"][1]))) for p in pts]
        band_lo = [(x(int(p["k"])), y(float(p["metrics"]["step@1"]["ci95"][0]))) for p in reversed(pts)]
        poly = " ".join(f"{a:.1f},{b:.1f}" for a, b in band_hi + band_lo)
        out.append(f'<polygon points="{poly}" fill="{c}" fill-opacity="0.12" stroke="none"/>')
        line = " ".join(f"{x(int(p['k'])):.1f},{y(float(p['metrics']['step@1']['p'])):.1f}" for p in pts)
        out.append(f'<polyline points="{line}" fill="none" stroke="{c}" stroke-width="2"/>')
        for p in pts:
            out.append(f'<circle cx="{x(int(p["k"])):.1f}" cy="{y(float(p["metrics"]["step@1"]["p"])):.1f}" '
                       f'r="3" fill="{c}"/>')
        ly = top + 18 * n + 30
        out.append(f'<line x1="{left + pw + 8}" x2="{left + pw + 26}" y1="{ly}" y2="{ly}" stroke="{c}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 30}" y="{ly + 4}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def write_learning_curve(curves: Mapping[str, Sequence[Mapping[str, Any]]], path: Path) -> Path:
    """Write the learning curve as an SVG file (``path`` gets the ``.svg`` suffix)."""
    out = path.with_suffix(".svg")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(learning_curve_svg(curves), encoding="utf-8")
    return out
