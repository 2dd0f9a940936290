"""Load problems panel: one row per bad file or record, with the reason (never a modal dialog)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.session import Session
from ui.bridge import SessionBridge


class LoadProblemsPanel(QWidget):
    """Lists the session's load errors (file, record, importer, reason)."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.summary = QLabel(self)
        self.summary.setObjectName("loadProblemsSummary")
        copy = QToolButton(self)
        copy.setText(self.tr("Copy all"))
        copy.setToolTip(self.tr("Copy every problem as text (for a bug report)"))
        copy.clicked.connect(self.copy_all)
        clear = QToolButton(self)
        clear.setText(self.tr("Clear"))
        clear.setToolTip(self.tr("Forget the listed problems"))
        clear.clicked.connect(session.clear_load_errors)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("loadProblemsList")
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setHeaderLabels([self.tr("File"), self.tr("Record"), self.tr("Importer"), self.tr("Reason")])
        hh = self.tree.header()
        hh.setStretchLastSection(True)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.resizeSection(0, 260)
        hh.resizeSection(1, 90)
        hh.resizeSection(2, 110)
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(self.summary, 1)
        top.addWidget(copy)
        top.addWidget(clear)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addWidget(self.tree, 1)
        bridge.loadErrorsChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Re-list the problems."""
        errors = self.session.load_errors
        self.tree.clear()
        items = []
        for e in errors:
            item = QTreeWidgetItem([e.file, e.record or "", e.importer or self.tr("(none)"), e.reason])
            item.setToolTip(0, e.file)
            item.setToolTip(3, e.reason)
            item.setData(0, Qt.ItemDataRole.UserRole, str(e))
            items.append(item)
        self.tree.addTopLevelItems(items)
        files = len({e.file for e in errors})
        if errors:
            self.summary.setText(self.tr("{n} problems in {f} files; the other files loaded.").format(n=len(errors), f=files))
        else:
            self.summary.setText(self.tr("No load problems."))

    def text(self) -> str:
        """Every problem as plain text, one per line."""
        return "\n".join(str(e) for e in self.session.load_errors)

    def copy_all(self) -> None:
        """Copy every problem to the clipboard."""
        QApplication.clipboard().setText(self.text())
