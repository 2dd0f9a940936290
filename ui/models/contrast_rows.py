"""Table model of the Contrast tab: aligned rows of a failed run and a success (read-only)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from analyzer.contrast.view import AlignedRow, RowStatus
from ui.i18n.labels import kind_label

CELL_CHARS = 220
"""Characters of a step shown in a cell (the tooltip shows more)."""
TIP_CHARS = 1500

Index = QModelIndex | QPersistentModelIndex


def _one_line(text: str, n: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


class ContrastRowsModel(QAbstractTableModel):
    """Step, failed run, step, success: one row per position of the alignment.

    Args:
        rows: The aligned rows.
        failed: Step index -> step fields (``kind``, ``text``, ``tool_name``, ``tool_args``) of the failed run.
        success: The same for the success.
        headers: Column titles (translated by the view).
        colors: ``muted`` text, ``different`` and ``divergence`` backgrounds, ``divergence_text``.
        bold: Font of the divergence row.
    """

    def __init__(self, rows: list[AlignedRow], failed: dict[int, dict[str, Any]], success: dict[int, dict[str, Any]],
                 headers: list[str], colors: dict[str, QColor], bold: QFont) -> None:
        super().__init__()
        self.rows, self.failed, self.success = rows, failed, success
        self.headers, self.colors, self.bold = headers, colors, bold

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 4:
            return self.headers[section]
        return None

    def _step(self, col: int, r: AlignedRow) -> tuple[int | None, dict[str, Any]]:
        step = r.failed_step if col < 2 else r.success_step
        table = self.failed if col < 2 else self.success
        return step, (table.get(step, {}) if step is not None else {})

    @staticmethod
    def _body(s: dict[str, Any]) -> str:
        if s.get("tool_name"):
            return f"{s['tool_name']}({s.get('tool_args') or ''})"
        return str(s.get("text") or "")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        r = self.rows[index.row()]
        col = index.column()
        step, s = self._step(col, r)
        if role == Qt.ItemDataRole.DisplayRole:
            if step is None:
                return ""
            if col in (0, 2):
                mark = "▶ " if r.status == RowStatus.DIVERGENCE and col == 0 else ""
                return f"{mark}{step}"
            return f"[{kind_label(str(s.get('kind') or ''))}] {_one_line(self._body(s), CELL_CHARS)}"
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 3) and step is not None:
            return self._body(s)[:TIP_CHARS]
        if role == Qt.ItemDataRole.ForegroundRole:
            if r.status in (RowStatus.SAME, RowStatus.CONTEXT):
                return QBrush(self.colors["muted"])
            if r.status == RowStatus.DIVERGENCE:
                return QBrush(self.colors["divergence_text"])
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            if r.status == RowStatus.DIFFERENT:
                return QBrush(self.colors["different"])
            if r.status == RowStatus.DIVERGENCE:
                return QBrush(self.colors["divergence"])
            return None
        if role == Qt.ItemDataRole.FontRole and r.status == RowStatus.DIVERGENCE:
            return self.bold
        return None
