"""Load problems panel: one row per bad file or record, with the reason (never a modal dialog).

The reason column wraps; the details view under the list shows the selected problem whole
(file, record, importer and reason, selectable for copying).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
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

from analyzer.session import Session
from ui.bridge import SessionBridge
from ui.i18n.messages import reason_text

REASON_COLUMN = 3


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
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)  # the reason wraps instead of being cut
        self.tree.setItemDelegate(_WrappingDelegate(self.tree))
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # only the file paths: the reason wraps
        self.tree.setHeaderLabels([self.tr("File"), self.tr("Record"), self.tr("Importer"), self.tr("Reason")])
        hh = self.tree.header()
        hh.setStretchLastSection(True)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(REASON_COLUMN, QHeaderView.ResizeMode.Stretch)  # the reason gets the room, and wraps in it
        hh.resizeSection(0, 180)  # paths are elided in the middle; the details view shows them whole
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        hh.sectionResized.connect(lambda *_a: self.tree.doItemsLayout())  # wrapped rows take their new height
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(self.summary, 1)
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
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        bridge.loadErrorsChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Re-list the problems."""
        errors = self.session.load_errors
        self.tree.clear()
        items = []
        for i, e in enumerate(errors):
            reason = reason_text(e)
            item = QTreeWidgetItem([e.file, e.record or "", e.importer or self.tr("(none)"), reason])
            item.setToolTip(0, e.file)
            item.setToolTip(3, reason)
            item.setData(0, Qt.ItemDataRole.UserRole, i)
            items.append(item)
        self.tree.addTopLevelItems(items)
        self.details.clear()
        files = len({e.file for e in errors})
        if errors:
            self.summary.setText(self.tr("{n} problems in {f} files; the other files loaded.").format(n=len(errors), f=files))
        else:
            self.summary.setText(self.tr("No load problems."))

    def show_details(self, item: QTreeWidgetItem | None) -> None:
        """Show one problem whole in the details view."""
        if item is None:
            self.details.clear()
            return
        i = item.data(0, Qt.ItemDataRole.UserRole)
        errors = self.session.load_errors
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
        return "\n".join(str(e) for e in self.session.load_errors)

    def copy_all(self) -> None:
        """Copy every problem to the clipboard."""
        QApplication.clipboard().setText(self.text())
