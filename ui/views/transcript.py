"""Transcript of the selected run: steps as cards in a virtualised list.

One QListView with a painting delegate (no widget per step), so a 5,000-step run scrolls
smoothly. Findings appear as coloured dots in the gutter, the decisive step and the
runner-up candidates are marked (in a run the ranker is uncertain of, the header says
"uncertain: steps a, b, c" and those steps are marked as candidates), long content folds behind "show more". Search within the
run; J/K move between steps and N/P between findings (shortcuts live on the main window).
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.analysis.result import uncertain_steps
from analyzer.insights.chains import run_chain
from analyzer.session import Selection, Session
from ui.bridge import SessionBridge
from ui.i18n.labels import category_title, run_outcome_label
from ui.models.steps_list import (
    StepListModel,
    analysis_fingerprint,
    build_cards,
    match_spans,
    run_annotations,
    search_steps,
)
from ui.theme import CANDIDATE, CATEGORY_COLORS, OUTCOME_COLORS
from ui.views.chain_overlay import ChainOverlay
from ui.views.rationale_html import steps_text
from ui.views.step_delegate import ANALYST_MARK, FOLD_LINES, StepCardDelegate

FOLDED_CHARS = 300
"""A match further into a step's text than this unfolds the card when the search steps to it."""


class TranscriptView(QWidget):
    """Header, search bar and the step-card list of the current run."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self._syncing = False
        self._matches: list[int] = []
        self._fingerprint: tuple[object, ...] | None = None

        self.title = QLabel(self)
        self.title.setObjectName("transcriptTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.task = QLabel(self)
        self.task.setObjectName("transcriptTask")
        self.task.setWordWrap(True)
        self.task.setMaximumHeight(self.fontMetrics().lineSpacing() * 3 + 4)
        self.task.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.search = QLineEdit(self)
        self.search.setObjectName("transcriptSearch")
        self.search.setPlaceholderText(self.tr("Find in this run…"))
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(180)  # stays usable when the match count and buttons crowd the bar
        self.search.setToolTip(self.tr("Search this run's steps (Ctrl+F); Enter jumps to the next match, Shift+Enter to the previous"))
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(150)
        self._search_timer.timeout.connect(self._run_search)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(lambda: self.next_match(1))
        _back_shortcuts(self.search, lambda: self.next_match(-1))
        self._mirrored = ""
        self.match_label = QLabel(self)
        self.match_label.setObjectName("matchLabel")
        self.prev_btn = self._tool_button("▲", self.tr("Previous match (Shift+Enter)"), lambda: self.next_match(-1))
        self.next_btn = self._tool_button("▼", self.tr("Next match (Enter)"), lambda: self.next_match(1))
        self.expand_btn = self._tool_button(self.tr("Expand all"), self.tr("Unfold every step card"), lambda: self.set_all_expanded(True))
        self.collapse_btn = self._tool_button(self.tr("Collapse all"), self.tr("Fold every step card"), lambda: self.set_all_expanded(False))
        self.hint = QLabel(self.tr("J/K step · N/P finding"), self)
        self.hint.setObjectName("navHint")
        self.hint.setToolTip(self.tr("Keyboard: J next step, K previous step, N next finding, P previous finding"))
        self.hint.setEnabled(False)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(4)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.match_label)
        bar.addWidget(self.prev_btn)
        bar.addWidget(self.next_btn)
        bar.addSpacing(8)
        bar.addWidget(self.expand_btn)
        bar.addWidget(self.collapse_btn)
        bar.addSpacing(8)
        bar.addWidget(self.hint)

        self.model = StepListModel(self)
        self.list = QListView(self)
        self.list.setObjectName("transcriptList")
        self.list.setModel(self.model)
        self.delegate = StepCardDelegate(self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.setUniformItemSizes(False)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.verticalScrollBar().setSingleStep(24)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setMouseTracking(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # stable width: heights stay cached
        self.list.setFrameShape(QListView.Shape.NoFrame)
        self.list.setSpacing(0)
        self.chain_overlay = ChainOverlay(self.list)
        self.delegate.toggleRequested.connect(self.toggle_row)
        self.list.selectionModel().currentChanged.connect(self._on_current)
        self.list.selectionModel().selectionChanged.connect(self._on_selection)

        self.placeholder = QLabel(self.tr("Select a run in the table to read its transcript.\n\n"
                                          "Open traces with File ▸ Open, or drop files and folders on the window."), self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setObjectName("transcriptPlaceholder")
        self.placeholder.setEnabled(False)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.list)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 0)
        lay.setSpacing(4)
        lay.addWidget(self.title)
        lay.addWidget(self.task)
        lay.addLayout(bar)
        lay.addWidget(self.stack, 1)

        bridge.selectionChanged.connect(self._apply_selection)
        bridge.analysisChanged.connect(self.reload)
        bridge.annotationsChanged.connect(self.reload)
        bridge.tracesChanged.connect(self._traces_changed)
        self._show_header(None)

    def _tool_button(self, text: str, tip: str, slot: Any) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        b.clicked.connect(slot)
        return b

    # run -------------------------------------------------------------------------------
    @property
    def trace_id(self) -> str | None:
        """Run shown."""
        return self.model.trace_id

    def show_run(self, trace_id: str | None) -> None:
        """Show a run (None: the placeholder)."""
        if trace_id is None:
            self.chain_overlay.set_chain(None, [])
            self.model.set_cards(None, [])
            self.stack.setCurrentWidget(self.placeholder)
            self._show_header(None)
            return
        cards = build_cards(self.session, trace_id)
        self._fingerprint = analysis_fingerprint(self.session, trace_id)
        self._syncing = True
        try:
            self.model.set_cards(trace_id, cards)
        finally:
            self._syncing = False
        self.stack.setCurrentWidget(self.list)
        self._show_chain(trace_id, cards)
        self._show_header(trace_id)
        if self.search.text().strip():
            self._run_search()
        else:
            self._matches = []
            self.match_label.clear()

    def _show_chain(self, trace_id: str, cards: list[Any]) -> None:
        """Arrows of the run's causal chain (failed runs with a decisive step only)."""
        run = self.session.run_row(trace_id) or {}
        chain = None
        if run.get("outcome") != "success" and run.get("decisive_step") is not None:
            a = self.session.analysis
            chain = run_chain(trace_id, a.runs, self.session.run_steps(trace_id), a.findings, a.step_values)
        self.chain_overlay.set_chain(chain, [c.step for c in cards])

    def reload(self) -> None:
        """Rebuild the cards of the shown run when its analysis or annotations changed."""
        tid = self.model.trace_id
        if tid is None:
            return
        mark = analysis_fingerprint(self.session, tid)
        if mark == self._fingerprint:
            return
        self.show_run(tid)
        self._apply_selection(self.session.selection)

    def _traces_changed(self) -> None:
        tid = self.model.trace_id
        if tid is not None and self.session.run_row(tid) is None:
            self.show_run(None)

    def _show_header(self, trace_id: str | None) -> None:
        row = self.session.run_row(trace_id) if trace_id else None
        if row is None:
            title = self.tr("Transcript")
            self.title.setText(f"<b>{html.escape(title)}</b>")
            self.task.clear()
            self.task.setToolTip("")
            return
        outcome = str(row.get("outcome") or "unknown")
        run_label = self.tr("Run")
        parts = [f"<b>{html.escape(run_label)} {html.escape(str(trace_id)[:12])}</b>"]
        if row.get("model"):
            parts.append(html.escape(str(row["model"])))
        parts.append(f"<span style='color:{OUTCOME_COLORS.get(outcome, '#8A8F98')}'><b>"
                     f"{html.escape(run_outcome_label(outcome, row.get('outcome_source'), row.get('outcome_p_failed')))}</b></span>")
        parts.append(html.escape(self.tr("{n} steps").format(n=row.get("n_steps") or 0)))
        unsure = uncertain_steps(row.get("decisive_uncertain"))
        # the analysis' own step and category here; the analyst's step follows as "analyst: step N"
        step = row.get("judge_decisive_step") if row.get("decisive_source") == "analyst" else row.get("decisive_step")
        if step is not None:
            cat = row.get("judge_category") if row.get("label_source") == "analyst" else row.get("category")
            color = CATEGORY_COLORS.get(str(cat), "#8A8F98")
            text = self.tr("decisive step {step}").format(step=step)
            if unsure:  # the ranker does not know: the likeliest steps, not one decisive step
                label = self.tr("uncertain: {steps}").format(steps=steps_text(unsure))
                text = f"<span style='color:{CANDIDATE}'><b>{html.escape(label)}</b></span>"
            if cat:
                text += f" · <span style='color:{color}'>■</span> {html.escape(category_title(str(cat)))}"
            parts.append(text)
        analyst = self._analyst_decisive(str(trace_id))
        if analyst:
            steps = ", ".join(str(s) for s in analyst)
            label = self.tr("analyst: step {step}").format(step=steps)
            parts.append(f"<span style='color:{ANALYST_MARK}'><b>"
                         f"{html.escape(label).replace(' ', '&nbsp;')}</b></span>")
        self.title.setText(" &nbsp;·&nbsp; ".join(parts))
        task = str(row.get("task") or "")
        short = task.replace("\n", " ")
        self.task.setText(short if len(short) < 400 else short[:399] + "…")
        self.task.setToolTip(task[:4000])

    def _analyst_decisive(self, trace_id: str) -> list[int]:
        """Steps the analysts marked as the run's decisive step (key D), in order."""
        ann = run_annotations(self.session, trace_id)
        if ann.height == 0:
            return []
        return sorted({int(s) for s in ann.filter(pl.col("status") == "decisive")["step"].to_list()})

    # selection ------------------------------------------------------------------------------
    def _apply_selection(self, sel: Selection) -> None:
        if sel.trace_id != self.model.trace_id:
            self.show_run(sel.trace_id)
        if sel.trace_id is None:
            return
        row = self.model.row_of(sel.step)
        sm = self.list.selectionModel()
        self._syncing = True
        try:
            if row < 0:
                sm.clearSelection()
                return
            idx = self.model.index(row)
            if self.list.currentIndex() != idx or not sm.isSelected(idx):
                flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
                if len(sel.steps) > 1 and sel.step in sel.steps:
                    flags = QItemSelectionModel.SelectionFlag.NoUpdate
                sm.setCurrentIndex(idx, flags)
            self.list.scrollTo(idx, QAbstractItemView.ScrollHint.EnsureVisible)
        finally:
            self._syncing = False

    def _on_current(self, current: QModelIndex, _prev: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        card = self.model.card(current.row())
        if card is None:
            return
        sel = self.session.selection
        finding = sel.finding
        if finding is not None and not any(f.row == finding for f in card.findings):
            finding = None
        self.session.select(step=card.step, steps=self._selected_steps() or (card.step,), finding=finding)

    def _on_selection(self, *_a: Any) -> None:
        if self._syncing:
            return
        steps = self._selected_steps()
        if steps:
            self.session.select(steps=steps)

    def _selected_steps(self) -> tuple[int, ...]:
        rows = sorted(i.row() for i in self.list.selectionModel().selectedIndexes())
        return tuple(c.step for c in (self.model.card(r) for r in rows) if c is not None)

    # navigation ---------------------------------------------------------------------------------
    def step_by(self, delta: int) -> None:
        """Select the next (delta>0) or previous step."""
        if not self.model.cards:
            return
        row = self.model.row_of(self.session.selection.step)
        row = 0 if row < 0 else max(0, min(len(self.model.cards) - 1, row + delta))
        card = self.model.cards[row]
        self.session.select(step=card.step, steps=(card.step,), finding=None)

    def finding_by(self, delta: int) -> None:
        """Select the next (delta>0) or previous finding of the run."""
        tid = self.model.trace_id
        if tid is None:
            return
        found = self.session.run_findings(tid)
        if found.height == 0:
            return
        items = [(int(s), int(f)) for s, f in found.select("step", "finding").iter_rows()]
        sel = self.session.selection
        pos = next((i for i, (_s, f) in enumerate(items) if f == sel.finding), None)
        if pos is None:
            cur = -1 if sel.step is None else sel.step
            if delta > 0:
                pos = next((i for i, (s, _f) in enumerate(items) if s > cur), 0)
            else:
                pos = next((i for i in range(len(items) - 1, -1, -1) if items[i][0] < cur), len(items) - 1)
        else:
            pos = (pos + delta) % len(items)
        step, finding = items[pos]
        self.session.select(step=step, steps=(step,), finding=finding)

    def toggle_row(self, row: int) -> None:
        """Fold or unfold one card."""
        card = self.model.card(row)
        if card is None:
            return
        self.model.set_expanded(row, not card.expanded)
        self.delegate.sizeHintChanged.emit(self.model.index(row))

    def set_all_expanded(self, expanded: bool) -> None:
        """Fold or unfold every card."""
        for c in self.model.cards:
            c.expanded = expanded
        self.list.doItemsLayout()
        self.list.viewport().update()
        idx = self.list.currentIndex()
        if idx.isValid():
            self.list.scrollTo(idx)

    # search ----------------------------------------------------------------------------------------
    def _run_search(self) -> None:
        tid = self.model.trace_id
        text = self.search.text()
        self._matches = search_steps(self.session.run_steps(tid), text) if tid else []
        self.model.set_matches(set(self._matches), text)
        if not text.strip():
            self.match_label.clear()
        elif not self._matches:
            self.match_label.setText(self.tr("no match"))
        else:
            self.match_label.setText(self.tr("{n} matches").format(n=len(self._matches)))

    def next_match(self, delta: int) -> None:
        """Jump to the next (delta>0) or previous search match."""
        if self._search_timer.isActive():
            self._search_timer.stop()
            self._run_search()
        if not self._matches:
            return
        cur = self.session.selection.step
        if delta > 0:
            target = next((s for s in self._matches if cur is None or s > cur), self._matches[0])
        else:
            target = next((s for s in reversed(self._matches) if cur is None or s < cur), self._matches[-1])
        i = self._matches.index(target)
        self.match_label.setText(self.tr("{i} of {n}").format(i=i + 1, n=len(self._matches)))
        self._unfold_to_match(target)
        self.session.select(step=target, steps=(target,), finding=None)

    def _unfold_to_match(self, step: int) -> None:
        """Unfold a card whose first match lies below what the folded card shows."""
        row = self.model.row_of(step)
        card = self.model.card(row)
        if card is None or card.expanded:
            return
        spans = match_spans(card.text, self.search.text())
        if spans and (spans[0][0] > FOLDED_CHARS or card.text[: spans[0][0]].count("\n") >= FOLD_LINES - 1):
            self.model.set_expanded(row, True)

    def follow_runs_search(self, box: QLineEdit) -> None:
        """Highlight the runs table's search text in the open run as well.

        While the transcript's own find field is empty (or still holds the mirrored text), it
        follows ``box``; Enter / Shift+Enter in ``box`` step through the matches of the open run.
        """
        box.textChanged.connect(self._mirror_runs_search)
        box.returnPressed.connect(lambda: self.next_match(1))
        _back_shortcuts(box, lambda: self.next_match(-1))

    def _mirror_runs_search(self, text: str) -> None:
        if self.search.text() in ("", self._mirrored):  # the analyst's own find text wins
            self._mirrored = text
            self.search.setText(text)

    def focus_search(self) -> None:
        """Put the cursor in the search field."""
        self.search.setFocus()
        self.search.selectAll()


def _back_shortcuts(box: QLineEdit, slot: Any) -> None:
    """Shift+Enter (both Return keys) calls ``slot`` while ``box`` has the focus."""
    for keys in ("Shift+Return", "Shift+Enter"):
        sc = QShortcut(QKeySequence(keys), box, activated=slot)
        sc.setContext(Qt.ShortcutContext.WidgetShortcut)
