"""Search across every run: a non-modal dialog that lists each hit (run, step, snippet).

The search itself is :func:`analyzer.search.search_runs`; clicking (or Enter on) a hit opens
that run at that step in the run view, with the text highlighted in the transcript.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.search import SearchHits, search_runs
from analyzer.session import Session

HIT_ROLE = Qt.ItemDataRole.UserRole + 1
DEBOUNCE_MS = 250


class SearchAllDialog(QDialog):
    """Every hit of a text search over all loaded runs.

    Attributes:
        hits: The last search result.
    """

    def __init__(self, session: Session, open_hit: Any, parent: QWidget | None = None) -> None:
        """Build the dialog.

        Args:
            session: The session whose runs are searched.
            open_hit: Called with (trace_id, step or None, needle) when the analyst opens a hit.
            parent: Parent widget (the main window).
        """
        super().__init__(parent)
        self.setObjectName("searchAllDialog")
        self.setWindowTitle(self.tr("Search all runs"))
        self.session = session
        self._open_hit = open_hit
        self.hits = SearchHits(pl.DataFrame(), 0)
        self.query = QLineEdit(self)
        self.query.setObjectName("searchAllQuery")
        self.query.setPlaceholderText(self.tr("Text to find in every run's task and steps…"))
        self.query.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.run_search)
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self._enter)
        self.summary = QLabel(self)
        self.summary.setObjectName("searchAllSummary")
        self.list = QTreeWidget(self)
        self.list.setObjectName("searchAllHits")
        self.list.setRootIsDecorated(False)
        self.list.setAlternatingRowColors(True)
        self.list.setUniformRowHeights(True)
        self.list.setHeaderLabels([self.tr("Run"), self.tr("Model"), self.tr("Step"), self.tr("Where"), self.tr("Snippet")])
        hh = self.list.header()
        hh.setStretchLastSection(True)
        for col, width in ((0, 150), (1, 140), (2, 50), (3, 90)):
            hh.resizeSection(col, width)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.list.itemActivated.connect(lambda item, _c: self.open_item(item))
        self.list.itemClicked.connect(lambda item, _c: self.open_item(item))
        QShortcut(QKeySequence("Escape"), self, activated=self.close)
        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.summary)
        lay.addWidget(self.list, 1)
        self.resize(900, 520)

    def _field_label(self, field: str) -> str:
        labels = {"task": self.tr("task"), "text": self.tr("text"), "tool_name": self.tr("tool"),
                  "tool_args": self.tr("arguments"), "error_text": self.tr("error"), "agent": self.tr("agent")}
        return labels.get(field, field)

    def search(self, text: str) -> SearchHits:
        """Put ``text`` in the field and search now."""
        self.query.setText(text)
        self._timer.stop()
        return self.run_search()

    def run_search(self) -> SearchHits:
        """Search the session's runs for the field's text and list the hits."""
        needle = self.query.text()
        self.hits = search_runs(self.session.traces, self.session.steps_scan(), needle)
        models = dict(self.session.traces.select("trace_id", pl.col("model").fill_null("")).iter_rows()) \
            if self.session.traces.height else {}
        natives = dict(self.session.traces.select("trace_id", pl.col("native_id").fill_null("")).iter_rows()) \
            if self.session.traces.height else {}
        self.list.clear()
        items = []
        for hit in self.hits.hits.iter_rows(named=True):
            tid = str(hit["trace_id"])
            step = hit["step"]
            item = QTreeWidgetItem([natives.get(tid) or tid[:12], models.get(tid, ""),
                                    "" if step is None else str(step), self._field_label(str(hit["field"])),
                                    str(hit["snippet"])])
            item.setData(0, HIT_ROLE, (tid, step))
            item.setToolTip(0, tid)
            item.setToolTip(4, str(hit["snippet"]))
            items.append(item)
        self.list.addTopLevelItems(items)
        if not needle.strip():
            self.summary.setText(self.tr("Type to search every loaded run."))
        elif self.hits.total == 0:
            self.summary.setText(self.tr("No run contains “{q}”.").format(q=needle.strip()))
        else:
            runs = self.hits.hits["trace_id"].n_unique()
            text = self.tr("{n} hits in {runs} runs; click one to open it.").format(n=self.hits.total, runs=runs)
            if self.hits.truncated:
                text = self.tr("First {shown} of {n} hits; narrow the search to see the rest.").format(
                    shown=self.hits.hits.height, n=self.hits.total)
            self.summary.setText(text)
        return self.hits

    def _enter(self) -> None:
        self._timer.stop()
        self.run_search()
        if self.list.topLevelItemCount():
            self.list.setCurrentItem(self.list.topLevelItem(0))
            self.list.setFocus()

    def open_item(self, item: QTreeWidgetItem | None) -> None:
        """Open the run and step of a listed hit."""
        if item is None:
            return
        data = item.data(0, HIT_ROLE)
        if data:
            tid, step = data
            self._open_hit(tid, step, self.query.text())

    def open_row(self, row: int) -> None:
        """Open the hit on a row of the list (as a click does)."""
        self.open_item(self.list.topLevelItem(row))
