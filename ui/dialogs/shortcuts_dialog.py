"""Help ▸ Keyboard shortcuts: every shortcut of the window, generated from its actions."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def shortcut_rows(actions: list[QAction], extra: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(keys, what it does) for actions with a shortcut, then the extra rows."""
    rows = []
    for a in actions:
        keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts())
        if keys:
            rows.append((keys, a.text().replace("&", "").rstrip("…").strip()))
    return rows + extra


class ShortcutsDialog(QDialog):
    """Table of keyboard shortcuts."""

    def __init__(self, rows: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.resize(520, 560)
        table = QTableWidget(len(rows), 2, self)
        table.setObjectName("shortcutsTable")
        table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("Action")])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        for r, (keys, what) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(keys))
            table.setItem(r, 1, QTableWidgetItem(what))
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(table)
        lay.addWidget(buttons)
