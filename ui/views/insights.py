"""The Insights view: the decisive failures of the corpus grouped into kinds of failure.

Left, the insights (name, category, size, share of each model's failed runs, typical step
position); right, the selected insight's details and runs. Selecting a run shows it in the run
view (double-click brings the run view to the front).

Keys while the insights table has the focus (through :class:`ui.actions.tagging.TaggingController`):
``1``-``9``/``0`` tag the decisive step of every run of the selected insight with that category,
``A``/``R`` accept/reject the judge's category for all of them, each as one undoable action.
Rename, split (re-cluster into two) and merge (two selected insights) are kept in the workspace
(:meth:`analyzer.workspace.Workspace.save_insights`) and come back after a restart. Models are
grouped through the workspace's model alias table, as in the Compare tab (regrouped when the tab
is shown after an alias change).
"""

from __future__ import annotations

from typing import Any

import polars as pl
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.insights import Insight, InsightSet, compute_insights
from analyzer.insights import text as insight_text
from analyzer.jobs import Cancelled
from analyzer.metrics.labels import effective_labels
from analyzer.taxonomy import CATEGORIES
from ui.analysis_store import window_aliases
from ui.i18n import current_language
from ui.i18n.labels import category_title
from ui.workers import Job


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.0f}%"


class _TranslatedHeaderModel(QAbstractTableModel):
    """A flat table model over a list (``_rows``) with translated ``HEADERS`` (context "Insights")."""

    HEADERS: tuple[str, ...] = ()

    def _rows(self) -> list[Any]:
        raise NotImplementedError

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows())

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return QCoreApplication.translate("Insights", self.HEADERS[section])
        return None


class InsightsModel(_TranslatedHeaderModel):
    """The insights of two or more runs of an :class:`InsightSet`, largest first, then one "not grouped" row.

    The runs that joined no group (:attr:`InsightSet.ungrouped`) are one last row, not groups of one;
    selecting it lists them, so every run stays reachable.
    """

    HEADERS = (QT_TRANSLATE_NOOP("Insights", "Insight"), QT_TRANSLATE_NOOP("Insights", "Category"),
               QT_TRANSLATE_NOOP("Insights", "Runs"), QT_TRANSLATE_NOOP("Insights", "Share of failed"),
               QT_TRANSLATE_NOOP("Insights", "Most affected model"), QT_TRANSLATE_NOOP("Insights", "Typical position"))

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.items: list[Insight] = []
        self.ungrouped: tuple[str, ...] = ()
        self.total = 0

    def set_insights(self, iset: InsightSet | None) -> None:
        """Show another set (None: nothing)."""
        self.beginResetModel()
        self.items = list(iset.groups) if iset is not None else []
        self.ungrouped = iset.ungrouped if iset is not None else ()
        self.total = iset.failures.height if iset is not None else 0
        self.endResetModel()

    def _rows(self) -> list[Any]:
        return [*self.items, *([self.ungrouped] if self.ungrouped else [])]

    def is_ungrouped_row(self, row: int) -> bool:
        """Whether ``row`` is the "not grouped" row."""
        return bool(self.ungrouped) and row == len(self.items)

    def _ungrouped_data(self, col: int, role: int) -> Any:
        n = len(self.ungrouped)
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return QCoreApplication.translate("Insights", "Not grouped ({n})").format(n=n)
            if col == 2:
                return str(n)
            if col == 3:
                return _pct(n / self.total if self.total else None)
            return "–" if col in (1, 4, 5) else None
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            return QCoreApplication.translate("Insights", "Runs that joined no group of two or more")
        if role == Qt.ItemDataRole.FontRole and col == 0:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if self.is_ungrouped_row(index.row()):
            return self._ungrouped_data(index.column(), role)
        if index.row() >= len(self.items):
            return None
        ins = self.items[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return insight_text.insight_name(ins, current_language())
            if col == 1:
                return category_title(ins.category)
            if col == 2:
                return str(ins.size)
            if col == 3:
                return _pct(ins.size / self.total if self.total else None)
            if col == 4:
                top = next(iter(ins.share_by_model.items()), None)
                return f"{insight_text.model_name(top[0], current_language())} ({_pct(top[1])})" if top else "–"
            if col == 5:
                return _pct(ins.median_position)
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            return f"{insight_text.insight_name(ins, current_language())}\n{ins.id}"
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class InsightRunsModel(_TranslatedHeaderModel):
    """The runs of one insight (representatives first)."""

    HEADERS = (QT_TRANSLATE_NOOP("Insights", "Run"), QT_TRANSLATE_NOOP("Insights", "Model"),
               QT_TRANSLATE_NOOP("Insights", "Decisive step"), QT_TRANSLATE_NOOP("Insights", "Category"),
               QT_TRANSLATE_NOOP("Insights", "Tool"))

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        """Show these runs."""
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def _rows(self) -> list[Any]:
        return self.rows

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        r = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                ident = (str(r["native_id"] or "").strip().splitlines() or [str(r["trace_id"])])[0]
                return ("★ " if r["representative"] else "") + ident
            if col == 1:
                return str(r["model"] or "")
            if col == 2:
                return "" if r["decisive_step"] is None else str(r["decisive_step"])
            if col == 3:
                return category_title(r["category"]) if r["category"] else "–"
            if col == 4:
                return str(r["tool"] or "")
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            return str(r["trace_id"])
        return None


class InsightsJob(Job):
    """Compute the insights of a corpus in the background."""

    kind = "insights"

    def __init__(self, runs: pl.DataFrame, traces: pl.DataFrame, steps: pl.DataFrame, findings: pl.DataFrame,
                 embedder: Any) -> None:
        super().__init__()
        self.args = (runs, traces, steps, findings, embedder)

    def work(self) -> Any:
        """The insight set (None when cancelled)."""
        runs, traces, steps, findings, embedder = self.args
        try:
            return compute_insights(runs, traces, steps, embedder, findings, progress=self._progress,
                                    cancel=self.cancel_flag)
        except Cancelled:
            return None


class InsightsPanel(QWidget):
    """The Insights tab (see the module docstring).

    Args:
        controller: The tagging controller (workspace, commits, undo).
        window: The main window.

    Attributes:
        embedder: Embedder used to compute insights; None means the app's default (MiniLM, or
            the hashing fallback when it is not installed).
    """

    def __init__(self, controller: Any, window: Any) -> None:
        super().__init__(window)
        self.setObjectName("insightsPanel")
        self.controller = controller
        self.window_ = window
        self.session = window.session
        self.embedder: Any = None
        self.iset: InsightSet | None = None
        self._auto: InsightSet | None = None
        self._aliases: dict[str, str] = {}
        self._dirty = True

        self.summary = QLabel(self)
        self.summary.setObjectName("insightsSummary")
        self.summary.setWordWrap(True)
        self.btn_compute = QPushButton(self.tr("Find insights"), self)
        self.btn_compute.setObjectName("insightsCompute")
        self.btn_compute.setToolTip(self.tr("Group the decisive failures of all analysed runs into insights"))
        self.btn_compute.clicked.connect(lambda: self.compute())
        self.btn_rename = QPushButton(self.tr("Rename…"), self)
        self.btn_rename.clicked.connect(self.rename_dialog)
        self.btn_recommend = QPushButton(self.tr("What to change…"), self)
        self.btn_recommend.setToolTip(self.tr("Edit or accept the suggested change that would prevent this failure"))
        self.btn_recommend.clicked.connect(self.recommend_dialog)
        self.btn_split = QPushButton(self.tr("Split"), self)
        self.btn_split.setToolTip(self.tr("Re-cluster the selected insight's runs into two insights"))
        self.btn_split.clicked.connect(lambda: self.split_selected())
        self.btn_merge = QPushButton(self.tr("Merge"), self)
        self.btn_merge.setToolTip(self.tr("Merge the two selected insights into one"))
        self.btn_merge.clicked.connect(lambda: self.merge_selected())
        self.btn_tag = QToolButton(self)
        self.btn_tag.setText(self.tr("Tag all runs as"))
        self.btn_tag.setToolTip(self.tr("Tag the decisive step of every run of the insight (keys 1-9, 0)"))
        self.btn_tag.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.btn_tag)
        for info in CATEGORIES:
            menu.addAction(f"{info.key}  {category_title(info.id)}", lambda c=info.id.value: self.tag_insight(c))
        self.btn_tag.setMenu(menu)
        self.btn_accept = QPushButton(self.tr("Accept categories"), self)
        self.btn_accept.setToolTip(self.tr("Accept the judge's category of every run of the insight (A)"))
        self.btn_accept.clicked.connect(lambda: self.accept_insight())
        self.btn_reject = QPushButton(self.tr("Reject categories"), self)
        self.btn_reject.setToolTip(self.tr("Reject the judge's category of every run of the insight (R)"))
        self.btn_reject.clicked.connect(lambda: self.reject_insight())
        bar = QHBoxLayout()
        for w in (self.btn_compute, self.btn_rename, self.btn_split, self.btn_merge, self.btn_recommend, self.btn_tag,
                  self.btn_accept, self.btn_reject):
            bar.addWidget(w)
        bar.addStretch(1)

        self.model = InsightsModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("insightsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(4, 190)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.selectionModel().selectionChanged.connect(lambda *_a: self._show_selected())

        self.detail = QLabel(self)
        self.detail.setObjectName("insightDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.runs_model = InsightRunsModel(self)
        self.runs = QTableView(self)
        self.runs.setObjectName("insightRuns")
        self.runs.setModel(self.runs_model)
        self.runs.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.runs.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.runs.verticalHeader().hide()
        self.runs.setWordWrap(False)
        self.runs.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.runs.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.runs.selectionModel().selectionChanged.connect(lambda *_a: self._select_run())
        self.runs.doubleClicked.connect(lambda *_a: self.window_.show_tab("run"))

        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.detail)
        rl.addWidget(self.runs, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setSizes([1000, 560])
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addLayout(bar)
        lay.addWidget(split, 1)

        window.bridge.analysisChanged.connect(self._mark_dirty)
        window.bridge.tracesChanged.connect(self._mark_dirty)
        window.bridge.annotationsChanged.connect(self._show_selected)
        controller.workspaceChanged.connect(lambda *_a: self._apply_saved())
        self._refresh()

    # -- computing --------------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True
        if self.isVisible():
            self.summary.setText(self.tr("The analysis changed: press “Find insights” to regroup the failures."))

    def _inputs(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        s = self.session
        runs = s.analysis.runs
        steps = s.steps_for(runs["trace_id"].to_list())  # the analysed runs (read from a corpus if needed)
        labels = effective_labels(runs, s.annotations, steps)
        if "rationale" in runs.columns:
            labels = labels.join(runs.select("trace_id", "rationale").unique("trace_id", keep="last"),
                                 on="trace_id", how="left", maintain_order="left")
        return labels, s.traces, steps, s.analysis.findings

    def _embedder(self) -> Any:
        if self.embedder is None:
            from ui.workers import resolve_embedder

            self.embedder = resolve_embedder()
            if self.embedder is None:
                from analyzer.embedding import HashingEmbedder

                self.embedder = HashingEmbedder()
        return self.embedder

    def compute(self, background: bool = True) -> None:
        """Group the failures (in a worker unless ``background`` is False), then apply saved edits."""
        runs, traces, steps, findings = self._inputs()
        job = InsightsJob(runs, traces, steps, findings, self._embedder())
        self._dirty = False
        if not background:
            self._computed(job.work())
            return
        self.btn_compute.setEnabled(False)
        self.summary.setText(self.tr("Grouping the decisive failures…"))
        job.signals.finished.connect(self._computed)
        job.signals.failed.connect(self._failed)
        self.window_.jobs.start(job)

    def _failed(self, message: str, details: str) -> None:
        self.btn_compute.setEnabled(True)
        self.window_.show_error(self.tr("Insights could not be computed: {err}").format(err=message), details)

    def _computed(self, iset: Any) -> None:
        self.btn_compute.setEnabled(True)
        if iset is None:
            self._refresh()
            return
        self._auto = iset
        self._apply_saved()

    def _apply_saved(self) -> None:
        if self._auto is None:
            return
        ws = self.controller.workspace
        iset = self._auto
        if ws is not None:
            try:
                assignment, names = ws.saved_insights()
            except Exception as exc:  # a damaged workspace must not hide the insights
                self.window_.show_error(self.tr("Saved insight edits could not be read: {err}").format(err=exc))
            else:
                iset = iset.with_saved(assignment, names, ws.saved_recommendations())
        self._aliases = self._alias_table()
        self._set(iset.with_aliases(self._aliases))

    def _set(self, iset: InsightSet | None, keep: str | None = None) -> None:
        self.iset = iset
        self.model.set_insights(iset)
        self._refresh()
        if iset is not None and len(iset):
            row = next((i for i, ins in enumerate(self.model.items) if ins.id == keep), 0)
            self.table.selectRow(row)

    def showEvent(self, event: Any) -> None:
        """Compute on first show when analysed failures exist."""
        super().showEvent(event)
        if self._dirty and self.session.analysis.runs.height and not self.window_.jobs.running("insights"):
            self.compute()
        elif self.iset is not None and self._alias_table() != self._aliases:
            self.apply_aliases()

    def _alias_table(self) -> dict[str, str]:
        return window_aliases(self.window_)

    def _current_id(self) -> str | None:
        ins = self.current()
        return ins.id if ins is not None else None

    def apply_aliases(self) -> None:
        """Regroup the insights' models by the workspace's alias table (as the Compare tab does)."""
        if self.iset is None:
            return
        self._aliases = self._alias_table()
        self._set(self.iset.with_aliases(self._aliases), self._current_id())

    # -- display -------------------------------------------------------------------------------------
    def _refresh(self) -> None:
        iset = self.iset
        if iset is None or not len(iset):
            self.summary.setText(self.tr("No insights yet: analyse runs (Analysis ▸ Analyze all runs), then press "
                                         "“Find insights”."))
            self.detail.setText("")
            self.runs_model.set_rows([])
        else:
            text = (self.tr("{n} insights over {failed} failed runs. Keys 1-9, 0 tag every run of the "
                            "selected insight; A/R accept/reject their categories; Ctrl+Z undoes.")
                    .format(n=len(iset.groups), failed=iset.failures.height))
            if iset.ungrouped:
                text += " " + self.tr("{n} runs joined no group of two or more: see “Not grouped”.").format(
                    n=len(iset.ungrouped))
            self.summary.setText(text)
        self._update_buttons()

    def _update_buttons(self) -> None:
        sel = self.selected()
        for b in (self.btn_rename, self.btn_recommend, self.btn_tag, self.btn_accept, self.btn_reject):
            b.setEnabled(len(sel) == 1)
        self.btn_split.setEnabled(len(sel) == 1 and sel[0].size > 1)
        self.btn_merge.setEnabled(len(sel) == 2)

    def selected(self) -> list[Insight]:
        """The insights selected in the table."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.items[r] for r in rows if r < len(self.model.items)]

    def ungrouped_selected(self) -> bool:
        """Whether the "not grouped" row alone is selected."""
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return len(rows) == 1 and self.model.is_ungrouped_row(next(iter(rows)))

    def current(self) -> Insight | None:
        """The one selected insight, or None."""
        sel = self.selected()
        return sel[0] if len(sel) == 1 else None

    def _show_selected(self) -> None:
        self._update_buttons()
        ins = self.current()
        if self.iset is not None and self.ungrouped_selected():
            self.detail.setText(self.tr("{n} failed runs joined no group of two or more: each failed unlike the "
                                        "others of its category. Select a run to show it.")
                                .format(n=len(self.iset.ungrouped)))
            self.runs_model.set_rows(self._member_rows(self.iset.ungrouped, ()))
            return
        if ins is None or self.iset is None:
            self.detail.setText("")
            self.runs_model.set_rows([])
            return
        lang = current_language()
        shares = ", ".join(f"{insight_text.model_name(m, lang)} {_pct(s)}" for m, s in ins.share_by_model.items())
        tools = ", ".join(f"{t} ({n})" for t, n in ins.tools[:4])
        self.detail.setText(self.tr("{name}\n{size} runs · typical position {pos} · named by {who}\nShare of each "
                                    "model's failed runs: {shares}\nTools: {tools}\nShared terms: {terms}")
                            .format(name=insight_text.insight_name(ins, lang), size=ins.size,
                                    pos=_pct(ins.median_position),
                                    who=self.tr("the analyst") if ins.named_by == "analyst" else self.tr("shared terms"),
                                    shares=shares, tools=tools, terms=", ".join(ins.terms) or "–")
                            + "\n" + self.tr("What to change ({kind}, {by}): {text}\nWhy: {evidence}").format(
                                kind=self._kind_title(ins.recommendation.kind),
                                by=self.tr("the analyst") if ins.recommendation.by == "analyst" else self.tr("rule"),
                                text=insight_text.recommendation_text(ins.recommendation, lang),
                                evidence=insight_text.evidence_text(ins.recommendation, lang)))
        self.runs_model.set_rows(self._member_rows(ins.members, ins.representatives))

    def _member_rows(self, members: tuple[str, ...], representatives: tuple[str, ...]) -> list[dict[str, Any]]:
        assert self.iset is not None
        f = self.iset.failures.filter(pl.col("trace_id").is_in(list(members)))
        view = self.session.runs_view().select("trace_id", "native_id")
        f = f.join(view, on="trace_id", how="left")
        labels = effective_labels(self.session.analysis.runs, self.session.annotations, self.session.steps_scan())
        f = f.drop("category").join(labels.select("trace_id", "category"), on="trace_id", how="left")
        reps = {r: i for i, r in enumerate(representatives)}
        rows = [dict(r, representative=r["trace_id"] in reps) for r in f.iter_rows(named=True)]
        rows.sort(key=lambda r: (reps.get(r["trace_id"], len(reps)), str(r["trace_id"])))
        return rows

    def _select_run(self) -> None:
        idx = self.runs.selectionModel().selectedRows()
        if not idx:
            return
        r = self.runs_model.rows[idx[0].row()]
        self.session.select(trace_id=r["trace_id"], trace_ids=(r["trace_id"],), step=r["decisive_step"])

    # -- edits (kept in the workspace) ------------------------------------------------------------
    def _kind_title(self, kind: str) -> str:
        titles = {"model": self.tr("the model"), "infrastructure": self.tr("tool or infrastructure"),
                  "tool_description": self.tr("tool description or schema"),
                  "verification": self.tr("verification checkpoint"), "system_prompt": self.tr("system prompt")}
        return titles.get(kind, kind)

    def _save(self, new: InsightSet, label: str, keep: str | None = None) -> bool:
        def write(ws: Any) -> int:
            ws.save_insights(new.assignment(), new.names, recommendations=new.recommendations)
            return 1

        if self.controller.commit(label, write) is None:
            return False
        self._set(new, keep)
        return True

    def rename(self, iid: str, name: str) -> bool:
        """Rename an insight (empty: back to the automatic name); kept in the workspace."""
        if self.iset is None:
            return False
        return self._save(self.iset.rename(iid, name), self.tr("Renamed an insight"), iid)

    def rename_dialog(self) -> None:
        """Ask for a new name of the selected insight."""
        ins = self.current()
        if ins is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename insight"),
                                        self.tr("Name (empty: named from the shared terms):"), text=ins.name)
        if ok:
            self.rename(ins.id, name)

    def set_recommendation(self, iid: str, text: str) -> bool:
        """Replace an insight's recommendation (empty: back to the rule's); kept in the workspace."""
        if self.iset is None:
            return False
        return self._save(self.iset.recommend_text(iid, text), self.tr("Edited what to change for an insight"), iid)

    def recommend_dialog(self) -> None:
        """Edit (or accept, by leaving it) the selected insight's recommendation."""
        ins = self.current()
        if ins is None:
            return
        text, ok = QInputDialog.getMultiLineText(
            self, self.tr("What to change"),
            self.tr("Suggested change ({kind}). Why: {evidence}\nEmpty: back to the rule's suggestion.").format(
                kind=self._kind_title(ins.recommendation.kind),
                evidence=insight_text.evidence_text(ins.recommendation, current_language())),
            shown := insight_text.recommendation_text(ins.recommendation, current_language()))
        if ok and text.strip() != shown:
            self.set_recommendation(ins.id, text)

    def split_selected(self) -> bool:
        """Split the selected insight in two; kept in the workspace."""
        ins = self.current()
        if ins is None or self.iset is None or ins.size < 2:
            return False
        new = self.iset.split(ins.id)
        return self._save(new, self.tr("Split an insight of {n} runs").format(n=ins.size))

    def merge_selected(self) -> bool:
        """Merge the two selected insights; kept in the workspace."""
        sel = self.selected()
        if len(sel) != 2 or self.iset is None:
            return False
        new = self.iset.merge(sel[0].id, sel[1].id)
        merged = new.of_run(sel[0].members[0])
        return self._save(new, self.tr("Merged two insights ({n} runs)").format(n=sel[0].size + sel[1].size), merged)

    # -- bulk review (one undoable action each) ------------------------------------------------------
    def _targets(self) -> list[tuple[str, int]]:
        ins = self.current()
        return self.iset.decisive_targets(ins.id) if ins is not None and self.iset is not None else []

    def tag_insight(self, category: str | None) -> int | None:
        """Tag the decisive step of every run of the selected insight (one undoable action)."""
        targets = self._targets()
        if not targets:
            return None
        what = category_title(category) if category else self.tr("no category")
        label = self.tr("Tagged the {n} runs of an insight as {category}").format(n=len(targets), category=what)
        result: int | None = self.controller.commit(label, lambda ws: ws.set_category(list(targets), category),
                                                    undo_action=True)
        return result

    def accept_insight(self) -> int | None:
        """Accept the judge's category of every run of the selected insight (one undoable action)."""
        targets = self._targets()
        if not targets or self.iset is None:
            return None
        runs = self.session.analysis.runs.unique("trace_id", keep="last")
        cats = dict(zip(runs["trace_id"].to_list(), runs["category"].to_list(), strict=True))
        items = [(t, s, str(cats[t])) for t, s in targets if cats.get(t)]
        label = self.tr("Accepted the categories of the {n} runs of an insight").format(n=len(items))
        result: int | None = self.controller.commit(label, lambda ws: ws.accept(items), undo_action=True)
        return result

    def reject_insight(self) -> int | None:
        """Reject the judge's category of every run of the selected insight (one undoable action)."""
        targets = self._targets()
        if not targets:
            return None
        label = self.tr("Rejected the categories of the {n} runs of an insight").format(n=len(targets))
        result: int | None = self.controller.commit(label, lambda ws: ws.reject(list(targets)), undo_action=True)
        return result
