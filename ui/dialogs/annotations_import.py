"""Result of merging another analyst's annotations: counts, bad lines and conflicts to review.

Nothing is lost by the merge (the other analyst's rows are kept beside yours); a conflict
is the same step labelled with different categories. For each conflict the analyst can
adopt the other category as their own (one undoable action) or keep theirs; double-clicking
a conflict shows that run and step.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.workspace import ImportReport, MergeConflict
from ui.i18n.labels import category_title


class ImportReportDialog(QDialog):
    """Shows an :class:`analyzer.workspace.ImportReport` and lets the analyst settle conflicts."""

    def __init__(self, report: ImportReport, controller: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Imported annotations"))
        self.setObjectName("importReportDialog")
        self.resize(760, 480)
        self.report = report
        self.controller = controller
        self.resolved: dict[int, str] = {}
        summary = QLabel(self.tr("{added} added, {updated} updated, {same} already present. "
                                 "{conflicts} conflicts, {errors} lines skipped.").format(
            added=report.added, updated=report.updated, same=report.unchanged,
            conflicts=len(report.conflicts), errors=len(report.errors)), self)
        summary.setObjectName("importSummary")
        summary.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(summary)

        self.table = QTableWidget(len(report.conflicts), 6, self)
        self.table.setObjectName("conflictsTable")
        self.table.setHorizontalHeaderLabels([self.tr("Run"), self.tr("Step"), self.tr("Yours"), self.tr("Theirs"),
                                              self.tr("Their note"), self.tr("Resolution")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        for r, c in enumerate(report.conflicts):
            self._fill_row(r, c)
        self.table.cellDoubleClicked.connect(lambda r, _c: self.show_conflict(r))
        if report.conflicts:
            lay.addWidget(QLabel(self.tr("Conflicts (same step, different category). Both labels are kept; "
                                         "choose whose category you adopt:"), self))
            lay.addWidget(self.table, 1)
            row = QHBoxLayout()
            self.theirs_btn = QPushButton(self.tr("Adopt theirs"), self)
            self.theirs_btn.setObjectName("adoptTheirs")
            self.theirs_btn.setToolTip(self.tr("Set your category of the selected conflicts to the other analyst's"))
            self.theirs_btn.clicked.connect(self.adopt_selected)
            self.ours_btn = QPushButton(self.tr("Keep mine"), self)
            self.ours_btn.setObjectName("keepMine")
            self.ours_btn.clicked.connect(self.keep_selected)
            self.show_btn = QPushButton(self.tr("Show in transcript"), self)
            self.show_btn.clicked.connect(lambda: self.show_conflict(self.table.currentRow()))
            for b in (self.theirs_btn, self.ours_btn, self.show_btn):
                row.addWidget(b)
            row.addStretch(1)
            lay.addLayout(row)
        else:
            self.table.hide()
        if report.errors:
            lay.addWidget(QLabel(self.tr("Lines that could not be imported:"), self))
            errors = QPlainTextEdit("\n".join(report.errors), self)
            errors.setObjectName("importErrors")
            errors.setReadOnly(True)
            errors.setMaximumHeight(140)
            lay.addWidget(errors)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)

    def _fill_row(self, r: int, c: MergeConflict) -> None:
        cells = [str(c.trace_id)[:12], "" if c.step is None else str(c.step),
                 f"{category_title(c.ours.category)} ({c.ours.author})",
                 f"{category_title(c.theirs.category)} ({c.theirs.author})", c.theirs.note or "",
                 self.tr("both kept")]
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col == 0:
                item.setToolTip(c.trace_id)
            if col == 1:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(r, col, item)

    def _selected_rows(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return rows or ([self.table.currentRow()] if self.table.currentRow() >= 0 else [])

    def adopt(self, rows: list[int]) -> int | None:
        """Adopt the other analyst's category for these conflicts (one undoable action)."""
        conflicts = [self.report.conflicts[r] for r in rows if 0 <= r < len(self.report.conflicts)]
        by_cat: dict[str | None, list[tuple[str, int | None]]] = {}
        for c in conflicts:
            by_cat.setdefault(c.theirs.category, []).append((c.trace_id, c.step))
        n = 0
        for cat, targets in by_cat.items():
            done = self.controller.set_category(targets, cat)
            if done is None:
                return None
            n += done
        for r in rows:
            self.resolved[r] = "theirs"
            item = self.table.item(r, 5)
            if item is not None:
                item.setText(self.tr("adopted theirs"))
        return n

    def adopt_selected(self) -> None:
        """Adopt theirs for the selected conflicts."""
        self.adopt(self._selected_rows())

    def keep_selected(self) -> None:
        """Keep your category for the selected conflicts (nothing to write)."""
        for r in self._selected_rows():
            self.resolved[r] = "mine"
            item = self.table.item(r, 5)
            if item is not None:
                item.setText(self.tr("kept mine"))

    def show_conflict(self, row: int) -> None:
        """Select the conflict's run and step in every view."""
        if not 0 <= row < len(self.report.conflicts):
            return
        c = self.report.conflicts[row]
        session = self.controller.session
        if c.step is None:
            session.select(trace_ids=(c.trace_id,), trace_id=c.trace_id)
        else:
            session.select(trace_ids=(c.trace_id,), trace_id=c.trace_id, step=c.step, steps=(c.step,))
