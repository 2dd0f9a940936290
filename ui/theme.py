"""Colours and palettes: light and dark palettes following the system, taxonomy colours.

Category colours (Tableau 10) are the same in every view, export and report screenshot so
an analyst learns them once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

CATEGORY_COLORS: dict[str, str] = {
    "planning_error": "#4E79A7",
    "goal_drift": "#F28E2B",
    "evidence_action_gap": "#59A14F",
    "error_accumulation": "#E15759",
    "repeated_action": "#B07AA1",
    "failed_recovery": "#9C755F",
    "false_success": "#FF9DA7",
    "hallucination": "#EDC948",
    "environment_failure": "#76B7B2",
    "other": "#BAB0AC",
}

OUTCOME_COLORS: dict[str, str] = {"success": "#2E9E5B", "failure": "#D64545", "error": "#B8322B", "unknown": "#8A8F98"}

ROLE_COLORS: dict[str, str] = {
    "assistant": "#4E79A7",
    "tool": "#8A8F98",
    "environment": "#76B7B2",
    "user": "#59A14F",
    "system": "#B07AA1",
}

ACCENT = "#3D7DD8"
DECISIVE = "#D64545"
CANDIDATE = "#F28E2B"
ERROR = "#D64545"
VALUE_CURVE = "#3D7DD8"
ALIGNMENT_CURVE = "#59A14F"
JUDGE_CURVE = "#B07AA1"

THEMES = ("system", "light", "dark")


def category_color(category: str | None) -> QColor:
    """Colour of a taxonomy id (grey for unknown ids)."""
    return QColor(CATEGORY_COLORS.get(category or "", "#BAB0AC"))


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the palette has a dark window background."""
    pal = palette or QGuiApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def system_prefers_dark() -> bool:
    """True when the platform asks for a dark colour scheme."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return bool(scheme is not None and scheme() == Qt.ColorScheme.Dark)


def light_palette() -> QPalette:
    """A calm light palette."""
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#F3F4F6", QPalette.ColorRole.WindowText: "#1F2328",
        QPalette.ColorRole.Base: "#FFFFFF", QPalette.ColorRole.AlternateBase: "#F6F8FA",
        QPalette.ColorRole.ToolTipBase: "#FFFFFF", QPalette.ColorRole.ToolTipText: "#1F2328",
        QPalette.ColorRole.Text: "#1F2328", QPalette.ColorRole.Button: "#F6F7F9",
        QPalette.ColorRole.ButtonText: "#1F2328", QPalette.ColorRole.BrightText: "#D64545",
        QPalette.ColorRole.Highlight: "#3D7DD8", QPalette.ColorRole.HighlightedText: "#FFFFFF",
        QPalette.ColorRole.Link: "#2F6BC2", QPalette.ColorRole.PlaceholderText: "#8A8F98",
        QPalette.ColorRole.Mid: "#C9CDD3", QPalette.ColorRole.Midlight: "#E3E6EA",
        QPalette.ColorRole.Dark: "#A0A6AE", QPalette.ColorRole.Light: "#FFFFFF",
        QPalette.ColorRole.Shadow: "#6E7681",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#9AA0A6"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#9AA0A6"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#9AA0A6"))
    return p


def dark_palette() -> QPalette:
    """A dark palette with enough contrast for long reading."""
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#1E2126", QPalette.ColorRole.WindowText: "#E6E8EB",
        QPalette.ColorRole.Base: "#16181C", QPalette.ColorRole.AlternateBase: "#1C1F24",
        QPalette.ColorRole.ToolTipBase: "#2A2E35", QPalette.ColorRole.ToolTipText: "#E6E8EB",
        QPalette.ColorRole.Text: "#E6E8EB", QPalette.ColorRole.Button: "#2A2E35",
        QPalette.ColorRole.ButtonText: "#E6E8EB", QPalette.ColorRole.BrightText: "#FF7B72",
        QPalette.ColorRole.Highlight: "#3D7DD8", QPalette.ColorRole.HighlightedText: "#FFFFFF",
        QPalette.ColorRole.Link: "#79B8FF", QPalette.ColorRole.PlaceholderText: "#7D8590",
        QPalette.ColorRole.Mid: "#3A3F47", QPalette.ColorRole.Midlight: "#30353C",
        QPalette.ColorRole.Dark: "#0E1013", QPalette.ColorRole.Light: "#3A3F47",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#6E7681"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#6E7681"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#6E7681"))
    return p


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Set the Fusion style and the light or dark palette.

    Args:
        app: The application.
        theme: ``"system"`` (follow the platform), ``"light"`` or ``"dark"``.
    """
    app.setStyle("Fusion")
    dark = system_prefers_dark() if theme == "system" else theme == "dark"
    app.setPalette(dark_palette() if dark else light_palette())
    font = app.font()
    if font.pointSizeF() < 10:
        font.setPointSizeF(10)
        app.setFont(font)


def mono_font(point_size: float | None = None) -> QFont:
    """The monospace font used for tool arguments and code."""
    f = QFont("DejaVu Sans Mono")
    f.setStyleHint(QFont.StyleHint.Monospace)
    f.setFixedPitch(True)
    base = QGuiApplication.font().pointSizeF()
    f.setPointSizeF(point_size or max(8.0, base - 1))
    return f


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """Blend two colours (``t`` = share of ``b``)."""
    return QColor(
        round(a.red() * (1 - t) + b.red() * t),
        round(a.green() * (1 - t) + b.green() * t),
        round(a.blue() * (1 - t) + b.blue() * t),
    )
