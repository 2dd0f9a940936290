"""Tagging desk: a review queue over the judge's suggestions and judge-vs-analyst agreement.

The queue walks, run by run in the order of the runs table (so the filter chooses the
scope), each run's suggested decisive step and then its suggested findings. With "Most
informative first" (on by default) the runs whose decisive step the ranker is least sure of
come first (:func:`analyzer.attribution.active.review_order`: the entropy of the run's step
distribution), since their labels teach the adapted ranker most; ties keep the table's order.
``A`` accepts, ``R`` rejects, ``1``-``9``/``0`` relabel with another category, ``D`` makes the
step the run's decisive step, ``S`` or → skips, ← goes back. Each decision is one workspace action.
The agreement panel shows Cohen's kappa overall and per category and the confusion matrix
for the runs the analyst reviewed.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import polars as pl
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from analyzer.analysis.result import uncertain_steps
from analyzer.attribution.active import review_order
from analyzer.export.palette import text_color_on
from analyzer.taxonomy import BY_ID, CATEGORIES, CATEGORY_IDS
from analyzer.workspace import Agreement, judge_analyst_agreement
from ui.i18n.labels import category_title, kind_label, outcome_label
from ui.i18n.messages import finding_text
from ui.models.runs_table import swatch
from ui.theme import CATEGORY_COLORS, is_dark, mix
from ui.views.rationale_html import rationale_text, steps_text

EXCERPT_CHARS = 1200


@dataclass(frozen=True)
class Suggestion:
    """One item of the review queue.

    Attributes:
        trace_id: Run.
        step: Step the suggestion points at.
        category: Suggested taxonomy id.
        finding: Row of the finding in the findings frame; None for the run's suggested decisive step.
        score: Confidence or finding score.
        source: Detector id, or "decisive step".
        rationale: Why it was suggested.
        evidence: Quoted evidence.
        rationale_json: The rationale as message ids (see :mod:`ui.views.rationale_html`), if any.
    """

    trace_id: str
    step: int
    category: str
    finding: int | None = None
    score: float | None = None
    source: str = ""
    rationale: str = ""
    evidence: str = ""
    rationale_json: str = ""


DECISIVE_SOURCE = "decisive step"
"""``Suggestion.source`` of a run's suggested decisive step (shown translated)."""

QUEUE_ORDERS = ("decisive_first", "by_run", "decisive_only")
"""Review orders: every run's suggested decisive step first, then the findings; run by run;
or only the suggested decisive steps."""


def build_queue(runs: pl.DataFrame, findings: pl.DataFrame, order: str = "decisive_first") -> list[Suggestion]:
    """The review queue over the runs' suggested decisive steps and suggested findings.

    Args:
        runs: Runs view rows (``trace_id``, ``decisive_step``, ``category``, ``confidence``, ``rationale``).
        findings: Findings frame (FINDING_COLUMNS); only ``suggested`` ones are queued.
        order: One of :data:`QUEUE_ORDERS`; runs keep the order of ``runs``.

    Returns:
        Suggestions in review order.
    """
    if runs.height == 0:
        return []
    rank = {t: i for i, t in enumerate(runs["trace_id"].to_list())}
    items: list[tuple[tuple[int, int, int, float], Suggestion]] = []
    seen: set[tuple[str, int, str]] = set()
    if {"decisive_step", "category"} <= set(runs.columns):
        cols = [c for c in ("trace_id", "decisive_step", "category", "confidence", "rationale", "rationale_json")
                if c in runs.columns]
        picked = runs.filter(pl.col("decisive_step").is_not_null() & pl.col("category").is_not_null()).select(cols)
        for r in picked.iter_rows(named=True):
            s = Suggestion(str(r["trace_id"]), int(r["decisive_step"]), str(r["category"]), None,
                           r.get("confidence"), DECISIVE_SOURCE, str(r.get("rationale") or ""),
                           rationale_json=str(r.get("rationale_json") or ""))
            seen.add((s.trace_id, s.step, s.category))
            key = (0, rank[s.trace_id], s.step, 0.0) if order != "by_run" else (rank[s.trace_id], 0, s.step, 0.0)
            items.append((key, s))
    if findings.height and order != "decisive_only":
        f = findings.with_row_index("finding").filter(
            pl.col("trace_id").is_in(list(rank)) & (pl.col("status").fill_null("suggested") == "suggested"))
        for r in f.iter_rows(named=True):
            key = (str(r["trace_id"]), int(r["step"]), str(r["category"]))
            if key in seen:
                continue
            seen.add(key)
            score = float(r["score"]) if r.get("score") is not None else None
            s = Suggestion(key[0], key[1], key[2], int(r["finding"]), score, str(r.get("source") or ""),
                           str(r.get("rationale") or ""), str(r.get("evidence_quote") or ""))
            items.append(((1, rank[s.trace_id], s.step, -(score or 0.0)) if order != "by_run"
                          else (rank[s.trace_id], 1, s.step, -(score or 0.0)), s))
    items.sort(key=lambda t: t[0])
    return [s for _k, s in items]


def informative_first(runs: pl.DataFrame) -> pl.DataFrame:
    """The runs reordered most informative first (active learning), ties in their order.

    Args:
        runs: Runs view rows in the table's order, with the analysis's ``label_priority``
            (:func:`analyzer.attribution.active.label_priority`); runs without one (not
            analysed, succeeded, or analysed by an older version) come last, in their order.

    Returns:
        The same rows in :func:`~analyzer.attribution.active.review_order`.
    """
    if runs.height < 2 or "label_priority" not in runs.columns:
        return runs
    rows = review_order(enumerate(runs["label_priority"].to_list()))
    return runs[rows]


def review_states(annotations: pl.DataFrame, author: str) -> dict[tuple[str, int], tuple[str, str | None]]:
    """(run, step) -> (status, category) of one author's step annotations."""
    if annotations.height == 0:
        return {}
    rows = annotations.filter((pl.col("author") == author) & pl.col("step").is_not_null() & (pl.col("step") >= 0))
    return {(str(t), int(s)): (str(st or "accepted"), c)
            for t, s, st, c in rows.select("trace_id", "step", "status", "category").iter_rows()}


def state_of(item: Suggestion, states: dict[tuple[str, int], tuple[str, str | None]]) -> str:
    """``pending``, ``accepted``, ``rejected`` or ``relabelled`` for a queue item."""
    st = states.get((item.trace_id, item.step))
    if st is None:
        return "pending"
    status, cat = st
    if status == "rejected":
        return "rejected"
    if cat is None:
        return "pending"
    return "accepted" if cat == item.category else "relabelled"


class TaggingDesk(QWidget):
    """Review queue (left) and judge-vs-analyst agreement (right)."""

    def __init__(self, controller: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taggingDesk")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.controller = controller
        self.session = controller.session
        self.bridge = controller.bridge
        self.queue: list[Suggestion] = []
        self.position = 0
        self._states: dict[tuple[str, int], tuple[str, str | None]] = {}
        self.agreement = Agreement()

        # -- queue ---------------------------------------------------------------------------------
        queue_title = self.tr("Review queue")
        title = QLabel(f"<b>{html.escape(queue_title)}</b>", self)
        self.scope_label = QLabel(self)
        self.scope_label.setObjectName("queueScope")
        self.hide_reviewed = QCheckBox(self.tr("Skip reviewed"), self)
        self.hide_reviewed.setObjectName("skipReviewed")
        self.hide_reviewed.setToolTip(self.tr("Move only between suggestions you have not decided yet"))
        self.hide_reviewed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.failed_only = QCheckBox(self.tr("Failed runs only"), self)
        self.failed_only.setObjectName("failedOnly")
        self.failed_only.setToolTip(self.tr("Queue only runs whose outcome is not a success"))
        self.failed_only.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.failed_only.setChecked(True)
        self.failed_only.toggled.connect(lambda _on: self.rebuild())
        self.order_box = QComboBox(self)
        self.order_box.setObjectName("queueOrder")
        self.order_box.setToolTip(self.tr("What the queue walks, in which order"))
        self.order_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for key, label in (("decisive_first", self.tr("Decisive steps first, then findings")),
                           ("by_run", self.tr("Run by run")), ("decisive_only", self.tr("Decisive steps only"))):
            self.order_box.addItem(label, key)
        self.order_box.activated.connect(lambda _i: self.rebuild())
        self.informative = QCheckBox(self.tr("Most informative first"), self)
        self.informative.setObjectName("informativeFirst")
        self.informative.setToolTip(self.tr(
            "Runs whose decisive step the ranker is least sure of come first (its probabilities spread "
            "over many steps): labelling them teaches the adapted ranker most. Off: the runs table's order."))
        self.informative.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.informative.setChecked(True)
        self.informative.toggled.connect(lambda _on: self.rebuild())
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("queueProgress")
        f = self.progress_label.font()
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setBold(True)
        self.progress_label.setFont(f)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("queueReviewed")
        self.progress.setTextVisible(True)
        self.progress.setMaximumHeight(16)
        self.card = QTextBrowser(self)
        self.card.setObjectName("queueCard")
        self.card.setOpenLinks(False)
        self.card.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.card.document().setDocumentMargin(10)

        self.back_btn = self._button("◀ " + self.tr("Back"), self.tr("Previous suggestion (←)"), self.back)
        self.accept_btn = self._button(self.tr("Accept (A)"), self.tr("The judge is right"), self.accept)
        self.reject_btn = self._button(self.tr("Reject (R)"), self.tr("The judge is wrong here"), self.reject)
        self.decisive_btn = self._button(self.tr("Decisive (D)"), self.tr("Accept and make this the run's decisive step"),
                                         self.mark_decisive)
        self.skip_btn = self._button(self.tr("Skip (S)") + " ▶", self.tr("Decide later (S or →)"), self.skip)
        self.accept_btn.setObjectName("queueAccept")
        self.reject_btn.setObjectName("queueReject")
        self.skip_btn.setObjectName("queueSkip")
        self.relabel_box = QComboBox(self)
        self.relabel_box.setObjectName("queueRelabel")
        self.relabel_box.setToolTip(self.tr("The failure is real but of another category (keys 1-9, 0)"))
        self.relabel_box.addItem(self.tr("Relabel as…"), None)
        for info in CATEGORIES:
            self.relabel_box.addItem(f"{info.key}  {category_title(info.id)}", info.id.value)
        self.relabel_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.relabel_box.activated.connect(self._relabel_chosen)

        btns = QHBoxLayout()
        btns.setSpacing(6)
        for b in (self.back_btn, self.accept_btn, self.reject_btn, self.decisive_btn):
            btns.addWidget(b)
        btns.addWidget(self.relabel_box)
        btns.addStretch(1)
        btns.addWidget(self.skip_btn)

        self.legend = QWidget(self)
        grid = QGridLayout(self.legend)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(2)
        for i, info in enumerate(CATEGORIES):
            lab = QLabel(f"<b>{info.key}</b> <span style='color:{CATEGORY_COLORS[info.id.value]}'>■</span> "
                         f"{html.escape(category_title(info.id))}", self.legend)
            lab.setToolTip(info.description)
            grid.addWidget(lab, i % 5, i // 5)
        keys = QLabel(self.tr("A accept · R reject · D decisive · S/→ skip · ← back · Ctrl+Z undo"), self)
        keys.setEnabled(False)

        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.scope_label, 1)
        head.addWidget(self.informative)  # here, not with the options below: that row would widen the desk
        opts = QHBoxLayout()
        opts.addWidget(self.order_box)
        opts.addWidget(self.failed_only)
        opts.addWidget(self.hide_reviewed)
        opts.addStretch(1)
        prog = QHBoxLayout()
        prog.addWidget(self.progress_label)
        prog.addWidget(self.progress, 1)
        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(10, 8, 6, 8)
        ll.addLayout(head)
        ll.addLayout(opts)
        ll.addLayout(prog)
        ll.addWidget(self.card, 1)
        ll.addLayout(btns)
        ll.addWidget(self._rule())
        ll.addWidget(self.legend)
        ll.addWidget(keys)

        # -- agreement -----------------------------------------------------------------------------
        agreement_title = self.tr("Judge vs analyst")
        a_title = QLabel(f"<b>{html.escape(agreement_title)}</b>", self)
        self.author_box = QComboBox(self)
        self.author_box.setObjectName("agreementAuthor")
        self.author_box.setToolTip(self.tr("Whose reviews to compare with the judge"))
        self.author_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.author_box.activated.connect(lambda _i: self.refresh_agreement())
        self.summary = QLabel(self)
        self.summary.setObjectName("agreementSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.kappa_table = QTableWidget(0, 5, self)
        self.kappa_table.setObjectName("kappaTable")
        self.kappa_table.setHorizontalHeaderLabels([self.tr("Category"), self.tr("κ"), self.tr("Judge"),
                                                    self.tr("Analyst"), self.tr("Both")])
        self._table_style(self.kappa_table)
        self.kappa_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.confusion_title = QLabel(self.tr("Confusion matrix (rows: judge, columns: analyst; category keys as above)"), self)
        self.confusion_title.setWordWrap(True)
        self.confusion = QTableWidget(0, 0, self)
        self.confusion.setObjectName("confusionTable")
        self._table_style(self.confusion)
        a_head = QHBoxLayout()
        a_head.addWidget(a_title, 1)
        a_head.addWidget(QLabel(self.tr("Analyst"), self))
        a_head.addWidget(self.author_box)
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(6, 8, 10, 8)
        rl.addLayout(a_head)
        rl.addWidget(self.summary)
        rl.addWidget(self.kappa_table, 2)
        rl.addWidget(self.confusion_title)
        rl.addWidget(self.confusion, 3)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 420])
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keyseq, slot in (("S", self.skip), ("Right", self.skip), ("Left", self.back)):
            sc = QShortcut(QKeySequence(keyseq), self, activated=slot)
            sc.setContext(ctx)

        self._card_pending = False
        """The card waits for the desk to be shown (see :meth:`_show`)."""
        self.bridge.analysisChanged.connect(self.rebuild)
        self.bridge.filterChanged.connect(self.rebuild)
        self.bridge.tracesChanged.connect(self.rebuild)
        self.bridge.annotationsChanged.connect(self._annotations_changed)
        controller.workspaceChanged.connect(lambda _p: self._annotations_changed())
        self.rebuild()

    # -- small helpers ------------------------------------------------------------------------------------
    def _button(self, text: str, tip: str, slot: Any) -> QPushButton:
        b = QPushButton(text, self)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.clicked.connect(slot)
        return b

    def _rule(self) -> QFrame:
        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        return line

    @staticmethod
    def _table_style(t: QTableWidget) -> None:
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        t.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 8)
        t.setAlternatingRowColors(False)

    def _author(self) -> str:
        return str(self.controller.author)

    # -- queue ---------------------------------------------------------------------------------------------
    @property
    def current(self) -> Suggestion | None:
        """The suggestion on screen."""
        return self.queue[self.position] if 0 <= self.position < len(self.queue) else None

    def rebuild(self) -> None:
        """Recompute the queue from the runs the table shows (keeps the current item if it is still there)."""
        cur = self.current
        runs = self.session.filtered_runs()
        # an estimated success is still a run nobody said succeeded: it stays in the queue
        passed = (pl.col("outcome").fill_null("unknown") == "success") & (pl.col("outcome_source").fill_null("") != "estimate")
        queued = runs.filter(~passed) if self.failed_only.isChecked() else runs
        if self.informative.isChecked():
            queued = informative_first(queued)
        self.queue = build_queue(queued, self.session.analysis.findings, str(self.order_box.currentData()))
        self._states = review_states(self.session.annotations, self._author())
        self.position = self.queue.index(cur) if cur in self.queue else self._first_pending()
        total = self.session.traces.height
        self.scope_label.setText(self.tr("{queued} of {total} runs (the runs table's filter)").format(
            queued=queued.height, total=total))
        self._show()
        self.refresh_agreement()

    def _first_pending(self) -> int:
        for i, s in enumerate(self.queue):
            if state_of(s, self._states) == "pending":
                return i
        return 0

    def _annotations_changed(self) -> None:
        self._states = review_states(self.session.annotations, self._author())
        self._show()
        self.refresh_agreement()

    def reviewed_count(self) -> int:
        """Queue items the analyst has decided."""
        return sum(1 for s in self.queue if state_of(s, self._states) != "pending")

    def progress_text(self) -> str:
        """"12 / 85" (position in the queue)."""
        if not self.queue:
            return "0 / 0"
        return f"{self.position + 1} / {len(self.queue)}"

    def _show(self) -> None:
        n = len(self.queue)
        done = self.reviewed_count()
        self.progress_label.setText(self.progress_text())
        self.progress.setRange(0, max(1, n))
        self.progress.setValue(done)
        self.progress.setFormat(self.tr("{done} of {n} reviewed").format(done=done, n=n))
        item = self.current
        for b in (self.accept_btn, self.reject_btn, self.decisive_btn, self.skip_btn, self.back_btn, self.relabel_box):
            b.setEnabled(item is not None)
        self._card_pending = False
        if item is None:
            msg = (self.tr("No suggestions to review. Analyse runs first (Analysis ▸ Analyze all runs), "
                           "or widen the runs table's filter.") if not self.queue else "")
            self.card.setHtml(f"<p style='color:gray'>{html.escape(msg)}</p>")
            return
        if not self.isVisible():
            # The card quotes the item's step, and a corpus run's steps are read from disk when
            # read at all: a hidden desk must not read (and keep in memory) a run nobody opened.
            self._card_pending = True
            self.card.clear()
            return
        self.card.setHtml(self._card_html(item))

    def showEvent(self, event: Any) -> None:
        """Render the card the queue changed to while the desk was hidden."""
        super().showEvent(event)
        if self._card_pending:
            self._show()

    def _card_html(self, s: Suggestion) -> str:
        run = self.session.run_row(s.trace_id) or {}
        color = CATEGORY_COLORS.get(s.category, "#BAB0AC")
        state = state_of(s, self._states)
        state_text = {"pending": self.tr("not reviewed yet"), "accepted": self.tr("accepted"),
                      "rejected": self.tr("rejected"), "relabelled": self.tr("relabelled")}[state]
        if state == "relabelled":
            other = self._states.get((s.trace_id, s.step), ("", None))[1]
            state_text = self.tr("relabelled as {category}").format(category=category_title(other))
        state_color = {"pending": "#8A8F98", "accepted": "#2E9E5B", "rejected": "#D64545", "relabelled": "#D9A400"}[state]
        kind = self.tr("Suggested decisive step") if s.finding is None else self.tr("Finding")
        e = html.escape
        out = [f"<p style='font-size:large'><b>{e(kind)}</b> &nbsp;"
               f"<span style='background:{color}; color:{text_color_on(color)}; padding:2px 6px'>&nbsp;{e(category_title(s.category))}&nbsp;</span>"
               f" &nbsp;<span style='color:{state_color}'><b>{e(state_text)}</b></span></p>"]
        meta = [self.tr("run {id}").format(id=s.trace_id[:12]), self.tr("step {n}").format(n=s.step)]
        if run.get("model"):
            meta.append(str(run["model"]))
        if run.get("outcome"):
            meta.append(outcome_label(str(run["outcome"])))
        if s.score is not None:
            meta.append(self.tr("score {s:.2f}").format(s=float(s.score)))
        unsure = uncertain_steps(run.get("decisive_uncertain")) if s.finding is None else []
        if unsure:  # the ranker does not know: this is only the likeliest of a few
            meta.append(self.tr("uncertain: {steps}").format(steps=steps_text(unsure)))
        elif s.source == DECISIVE_SOURCE:
            meta.append(self.tr("decisive step"))
        elif s.source:
            meta.append(s.source)
        out.append(f"<p style='color:gray'>{' · '.join(e(m) for m in meta)}</p>")
        if run.get("task"):
            task = str(run["task"]).replace("\n", " ")
            task_label = self.tr("Task:")
            out.append(f"<p><b>{e(task_label)}</b> {e(task[:400] + ('…' if len(task) > 400 else ''))}</p>")
        why = rationale_text(s.rationale_json or None, s.rationale) if s.finding is None else finding_text(s.rationale)
        if why:
            why_label = self.tr("Why:")
            out.append(f"<p><b>{e(why_label)}</b> {e(why[:800])}</p>")
        if s.evidence:
            out.append(f"<p style='color:gray'>“{e(s.evidence[:500])}”</p>")
        steps = self.session.run_steps(s.trace_id)
        row = steps.filter(pl.col("step") == s.step)
        if row.height:
            st = row.row(0, named=True)
            head = " · ".join(x for x in (str(st.get("agent") or ""), kind_label(st.get("kind")),
                                          str(st.get("tool_name") or "")) if x)
            text = str(st.get("text") or "")
            if st.get("tool_args"):
                text = (text + "\n" if text else "") + str(st["tool_args"])
            more = "…" if len(text) > EXCERPT_CHARS else ""
            bg = "#22262c" if is_dark(self.palette()) else "#f3f4f6"
            step_label = self.tr("Step {n}").format(n=s.step)
            out.append(f"<p><b>{e(step_label)}</b> <span style='color:gray'>{e(head)}</span></p>"
                       f"<pre style='background:{bg}; padding:6px; white-space:pre-wrap'>{e(text[:EXCERPT_CHARS])}{more}</pre>")
            if st.get("error_text"):
                out.append(f"<p style='color:#D64545'>⚠ {e(str(st['error_text'])[:400])}</p>")
        return "".join(out)

    def _select_current(self) -> None:
        s = self.current
        if s is None:
            return
        self.session.select(trace_ids=(s.trace_id,), trace_id=s.trace_id, step=s.step, steps=(s.step,), finding=s.finding)

    def go_to(self, position: int) -> None:
        """Show the queue item at ``position`` (and select it everywhere)."""
        if not self.queue:
            return
        self.position = max(0, min(len(self.queue) - 1, position))
        self._show()
        self._select_current()

    def _advance(self) -> None:
        if not self.queue:
            return
        i = self.position + 1
        if self.hide_reviewed.isChecked():
            while i < len(self.queue) and state_of(self.queue[i], self._states) != "pending":
                i += 1
        if i >= len(self.queue):
            self._show()
            self.controller.window.message_bar.show_message(
                "success", self.tr("End of the review queue: {done} of {n} suggestions reviewed.").format(
                    done=self.reviewed_count(), n=len(self.queue)))
            return
        self.go_to(i)

    def skip(self) -> None:
        """Leave the current suggestion undecided and move on."""
        self._advance()

    def back(self) -> None:
        """Go back one suggestion."""
        self.go_to(self.position - 1)

    def _decide(self, fn: Any) -> int | None:
        s = self.current
        if s is None:
            return None
        n = fn(s)
        if n is not None:
            self._states = review_states(self.session.annotations, self._author())
            self._advance()
        return n

    def accept(self) -> int | None:
        """Accept the current suggestion."""
        return self._decide(lambda s: self.controller.accept([(s.trace_id, s.step, s.category)]))

    def reject(self) -> int | None:
        """Reject the current suggestion."""
        return self._decide(lambda s: self.controller.reject([(s.trace_id, s.step)]))

    def relabel(self, category: str) -> int | None:
        """The failure is real but of another category."""
        return self._decide(lambda s: self.controller.set_category([(s.trace_id, s.step)], category))

    def mark_decisive(self) -> int | None:
        """Accept the current suggestion as the run's decisive step."""
        return self._decide(lambda s: self.controller.mark_decisive(s.trace_id, s.step, s.category))

    def apply_decisions(self, keys: str) -> int:
        """Walk the queue applying one decision per character (scripts, screenshots, tests).

        ``A`` accept, ``R`` reject, ``D`` decisive, ``S`` skip, ``1``-``9``/``0`` relabel.

        Returns:
            Decisions written.
        """
        by_key = {c.key: c.id.value for c in CATEGORIES}
        done = 0
        for k in keys.upper():
            if self.current is None:
                break
            if k == "S":
                self.skip()
                continue
            fn = {"A": self.accept, "R": self.reject, "D": self.mark_decisive}.get(k)
            n = fn() if fn is not None else (self.relabel(by_key[k]) if k in by_key else None)
            done += 1 if n else 0
        return done

    def _relabel_chosen(self, _i: int) -> None:
        cat = self.relabel_box.currentData()
        self.relabel_box.setCurrentIndex(0)
        if cat:
            self.relabel(str(cat))

    # -- agreement ---------------------------------------------------------------------------------------------
    def refresh_agreement(self) -> None:
        """Recompute kappa and the confusion matrix for the chosen analyst."""
        ann = self.session.annotations
        authors = sorted({str(a) for a in ann["author"].drop_nulls().unique().to_list()}) if ann.height else []
        me = self._author()
        if me not in authors:
            authors.insert(0, me)
        chosen = self.author_box.currentData() or me
        self.author_box.blockSignals(True)
        self.author_box.clear()
        for a in authors:
            self.author_box.addItem(a + (" " + self.tr("(you)") if a == me else ""), a)
        self.author_box.setCurrentIndex(max(0, self.author_box.findData(chosen)))
        self.author_box.blockSignals(False)
        author = self.author_box.currentData() or me
        mine = ann.filter(pl.col("author") == author) if ann.height else ann
        self.agreement = judge_analyst_agreement(self.session.analysis.runs, mine)
        self._show_agreement(self.agreement)

    @staticmethod
    def _fmt(x: float | None, pct: bool = False) -> str:
        if x is None:
            return "—"
        return f"{100 * x:.0f}%" if pct else f"{x:.2f}"

    def _show_agreement(self, ag: Agreement) -> None:
        e = html.escape
        if ag.n == 0:
            self.summary.setText(e(self.tr("No reviewed runs with a judge attribution yet. Accept, reject or relabel "
                                           "suggestions in the queue, or tag failed runs, to measure agreement.")))
        else:
            kappa = self.tr("Cohen’s κ")
            compared = self.tr("{n} runs compared").format(n=ag.n)
            observed = self.tr("observed agreement")
            same_step = self.tr("same decisive step")
            self.summary.setText(
                f"<span style='font-size:x-large'>{e(kappa)} <b>{self._fmt(ag.kappa)}</b></span><br>"
                f"{e(compared)}"
                f" &nbsp;·&nbsp; {e(observed)} <b>{self._fmt(ag.observed, True)}</b>"
                f" &nbsp;·&nbsp; {e(same_step)} <b>{self._fmt(ag.step_agreement, True)}</b>")
        judge_n: dict[str, int] = {}
        analyst_n: dict[str, int] = {}
        both_n: dict[str, int] = {}
        for (j, a), c in ag.confusion.items():
            judge_n[j] = judge_n.get(j, 0) + c
            analyst_n[a] = analyst_n.get(a, 0) + c
            if j == a:
                both_n[j] = both_n.get(j, 0) + c
        cats = [c for c in CATEGORY_IDS if c in ag.per_category or c in judge_n or c in analyst_n]
        t = self.kappa_table
        t.setRowCount(len(cats))
        t.verticalHeader().setVisible(False)
        for r, c in enumerate(cats):
            name = QTableWidgetItem(f"{BY_ID[c].key}  {category_title(c)}")
            name.setIcon(swatch(CATEGORY_COLORS.get(c, "#BAB0AC")))
            name.setToolTip(c)
            t.setItem(r, 0, name)
            k = ag.per_category.get(c)
            kitem = QTableWidgetItem(self._fmt(k))
            if k is None:
                kitem.setToolTip(self.tr("Undefined: only one side used this category, or every run has it"))
            for col, item in ((1, kitem), (2, QTableWidgetItem(str(judge_n.get(c, 0)))),
                              (3, QTableWidgetItem(str(analyst_n.get(c, 0)))), (4, QTableWidgetItem(str(both_n.get(c, 0))))):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                t.setItem(r, col, item)
        for col in range(1, 5):
            t.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self._fill_confusion(ag, cats)

    def _fill_confusion(self, ag: Agreement, cats: list[str]) -> None:
        t = self.confusion
        t.clear()
        t.setRowCount(len(cats))
        t.setColumnCount(len(cats))
        short = {c: category_title(c) for c in cats}
        for i, c in enumerate(cats):
            col = QTableWidgetItem(BY_ID[c].key)
            col.setIcon(swatch(CATEGORY_COLORS.get(c, "#BAB0AC")))
            col.setToolTip(self.tr("analyst: {category}").format(category=short[c]))
            t.setHorizontalHeaderItem(i, col)
            row = QTableWidgetItem(BY_ID[c].key)
            row.setIcon(swatch(CATEGORY_COLORS.get(c, "#BAB0AC")))
            row.setToolTip(self.tr("judge: {category}").format(category=short[c]))
            t.setVerticalHeaderItem(i, row)
        peak = max(ag.confusion.values(), default=1)
        base = self.palette().color(self.backgroundRole())
        for r, j in enumerate(cats):
            for c, a in enumerate(cats):
                n = ag.confusion.get((j, a), 0)
                item = QTableWidgetItem(str(n) if n else "")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(self.tr("judge {j}, analyst {a}: {n} runs").format(j=short[j], a=short[a], n=n))
                if n:
                    hue = QColor("#2E9E5B") if j == a else QColor("#D64545")
                    item.setBackground(QBrush(mix(base, hue, 0.15 + 0.6 * n / peak)))
                t.setItem(r, c, item)
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        t.horizontalHeader().setMinimumSectionSize(30)
        t.verticalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
