"""Colours of the taxonomy categories (reports; the UI may reuse them)."""

from __future__ import annotations

from analyzer.taxonomy import BY_ID

CATEGORY_COLORS: dict[str, str] = {
    "planning_error": "#4C72B0",
    "goal_drift": "#DD8452",
    "evidence_action_gap": "#55A868",
    "error_accumulation": "#C44E52",
    "repeated_action": "#8172B3",
    "failed_recovery": "#937860",
    "false_success": "#DA8BC3",
    "hallucination": "#CCB974",
    "environment_failure": "#64B5CD",
    "other": "#8C8C8C",
}
"""Category id -> fill colour (seaborn "deep", distinguishable and print-safe)."""

UNLABELLED_COLOR = "#B0B7C3"


def category_color(category: str | None) -> str:
    """Fill colour of a category (a neutral grey for none/unknown ids)."""
    return CATEGORY_COLORS.get(category or "", UNLABELLED_COLOR)


def text_color_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#RRGGBB``)."""
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    return "#111111" if lum > 0.23 else "#FFFFFF"


def category_title(category: str | None) -> str:
    """Human title of a category id ("Unlabelled" for none; unknown ids as given)."""
    if not category:
        return "Unlabelled"
    info = BY_ID.get(category)
    return info.title if info else category
