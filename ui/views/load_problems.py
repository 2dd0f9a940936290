"""Load problems panel: one row per bad file or record, with the reason (never a modal dialog).

The reason column wraps; the details view under the list shows the selected problem whole
(file, record, importer and reason, selectable for copying). Runs skipped because they were
already loaded are one grouped, grey note at the end (its files as children), not a problem: the
count in the summary is the status bar's and the banner's. The list scrolls to each new problem,
and **Enlarge** gives the panel most of the window's height (again: back to its size).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.session import Session, skipped_runs
from ui.bridge import SessionBridge
from ui.i18n.messages import reason_text

REASON_COLUMN = 3
MIN_VISIBLE_ROWS = 5
"""Rows the list always has room for (the dock cannot be squeezed below them)."""
NOTE_COLOR = "#8A8F98"


class _WrappingDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped reason (the tree's word wrap alone keeps one line per row)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if index.column() == REASON_COLUMN:
            width = max(60, self.tree.header().sectionSize(REASON_COLUMN) - 10)
            text = str(index.data() or "")
            height = option.fontMetrics.boundingRect(QRect(0, 0, width, 10**6), int(Qt.TextFlag.TextWordWrap),
                                                     text).height() + 6
            size.setHeight(max(size.height(), height))
        return size


class LoadProblemsPanel(QWidget):
    """Lists the session's load errors (file, record, importer, reason) and one note for duplicates.

    Signals:
        enlargeRequested(bool): The Enlarge button was toggled (True: give the panel more room).
    """

    enlargeRequested = Signal(bool)

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._shown = 0
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
        self.enlarge = QToolButton(self)
        self.enlarge.setObjectName("loadProblemsEnlarge")
        self.enlarge.setText(self.tr("Enlarge"))
        self.enlarge.setCheckable(True)
        self.enlarge.setToolTip(self.tr("Give the load problems most of the window's height (again: back to its size)"))
        self.enlarge.toggled.connect(self.enlargeRequested.emit)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("loadProblemsList")
        self.tree.setRootIsDecorated(True)  # only the duplicates note has children
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)  # the reason wraps instead of being cut
        self.tree.setItemDelegate(_WrappingDelegate(self.tree))
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # only the file paths: the reason wraps
        self.tree.setHeaderLabels([self.tr("File"), self.tr("Record"), self.tr("Importer"), self.tr("Reason")])
        hh = self.tree.header()
        hh.setStretchLastSection(True)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(REASON_COLUMN, QHeaderView.ResizeMode.Stretch)  # the reason gets the room, and wraps in it
        # the file's name (its path in the tooltip and the details view), short record and importer
        # columns: in a narrow dock the reason keeps most of the width, so a row stays a few lines tall
        hh.resizeSection(0, 130)
        hh.resizeSection(1, 56)
        hh.resizeSection(2, 64)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        hh.sectionResized.connect(lambda *_a: self.tree.doItemsLayout())  # wrapped rows take their new height
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(self.summary, 1)
        top.addWidget(self.enlarge)
        top.addWidget(copy)
        top.addWidget(clear)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.details = QPlainTextEdit(self)
        self.details.setObjectName("loadProblemDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText(self.tr("Select a problem to read it whole."))
        self.tree.currentItemChanged.connect(lambda cur, _prev: self.show_details(cur))
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tree)
        split.addWidget(self.details)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        self.tree.setMinimumHeight(self.tree.fontMetrics().height() * (MIN_VISIBLE_ROWS + 2))
        self.details.setMinimumHeight(self.details.fontMetrics().height() * 2)
        self.summary.setWordWrap(True)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        bridge.loadErrorsChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Re-list the problems (and the duplicates note); scroll to the newest problem."""
        errors = self.session.load_errors
        notices = self.session.load_notices
        self.tree.clear()
        items = []
        for i, e in enumerate(errors):
            reason = reason_text(e)
            item = QTreeWidgetItem([Path(e.file).name or e.file, e.record or "", e.importer or self.tr("(none)"), reason])
            item.setToolTip(0, e.file)
            item.setToolTip(3, reason)
            item.setData(0, Qt.ItemDataRole.UserRole, i)
            items.append(item)
        self.tree.addTopLevelItems(items)
        skipped = skipped_runs(notices)
        if notices:
            grey = QBrush(QColor(NOTE_COLOR))
            note = QTreeWidgetItem([self.tr("Already loaded"), "", "", self.tr(
                "{n} duplicate runs skipped in {f} files (not a problem: the same runs were loaded before)").format(
                n=skipped, f=len({e.file for e in notices}))])
            note.setData(0, Qt.ItemDataRole.UserRole, "notes")
            for col in range(4):
                note.setForeground(col, grey)
            for j, e in enumerate(notices):
                reason = reason_text(e)
                child = QTreeWidgetItem([Path(e.file).name or e.file, e.record or "", e.importer or "", reason])
                child.setToolTip(0, e.file)
                child.setToolTip(3, reason)
                child.setData(0, Qt.ItemDataRole.UserRole, f"note:{j}")
                for col in range(4):
                    child.setForeground(col, grey)
                note.addChild(child)
            self.tree.addTopLevelItem(note)
        self.details.clear()
        files = len({e.file for e in errors})
        if errors:
            text = self.tr("{n} problems in {f} files; the other files loaded.").format(n=len(errors), f=files)
        else:
            text = self.tr("No load problems.")
        if skipped:
            text += " " + self.tr("{n} duplicate runs skipped.").format(n=skipped)
        self.summary.setText(text)
        if len(errors) > self._shown and items:  # follow new entries
            self.tree.scrollToItem(items[-1])
        self._shown = len(errors)

    def problem_count(self) -> int:
        """Problems listed (the number the status bar and the banner show)."""
        return len(self.session.load_errors)

    def show_details(self, item: QTreeWidgetItem | None) -> None:
        """Show one problem whole in the details view."""
        if item is None:
            self.details.clear()
            return
        i = item.data(0, Qt.ItemDataRole.UserRole)
        errors = self.session.load_errors
        if isinstance(i, str) and i.startswith("note:"):  # one file of the duplicates note
            errors, i = self.session.load_notices, int(i[5:])
        if not isinstance(i, int) or not 0 <= i < len(errors):
            self.details.clear()
            return
        e = errors[i]
        lines = [self.tr("File: {v}").format(v=e.file)]
        if e.record:
            lines.append(self.tr("Record: {v}").format(v=e.record))
        lines.append(self.tr("Importer: {v}").format(v=e.importer or self.tr("(none)")))
        lines.append("")
        lines.append(reason_text(e))
        self.details.setPlainText("\n".join(lines))

    def text(self) -> str:
        """Every problem as plain text, one per line."""
        lines = [str(e) for e in self.session.load_errors]
        lines += [f"note: {e}" for e in self.session.load_notices]
        return "\n".join(lines)

    def copy_all(self) -> None:
        """Copy every problem to the clipboard."""
        QApplication.clipboard().setText(self.text())
