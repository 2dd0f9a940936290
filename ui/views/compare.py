"""Model comparison tab: what an analyst needs to pick a model.

Pass rate with Wilson CI bars, decisive-failure categories per model (stacked), where the
decisive step falls (relative position histogram), horizon curves (success vs run length
with H50/H80 marked; the length axis fits the bulk of the runs and marks the longer ones) and
the self-conditioning curve. Numbers come from :mod:`analyzer.metrics`; this view only draws
them, over the runs the current filter shows.

Groups are models (provider prefixes and date stamps folded automatically, the workspace's
aliases applied; the "Grouped names" column shows what was folded, and the analyst merges and
splits groups here), frameworks or task families. Every group is listed with its n; groups below
the minimum n (setting ``min_group_runs``) are marked "too few runs" and ranked after the larger
ones; runs with no recorded model ("(unknown)") are a last row of their own, never ranked, drawn
or paired; nothing is pooled. The first groups of the table are drawn. Select two models for the
paired view (:mod:`ui.views.paired`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.contrast.tasks import task_table
from analyzer.metrics.model_names import NAMES_SEPARATOR, apply_model_groups
from analyzer.metrics.models import (
    UNKNOWN_GROUP,
    min_group_runs,
    rank_groups,
    set_min_group_runs,
    split_unknown,
)
from analyzer.metrics.reliability import length_axis
from analyzer.session import Session
from analyzer.taxonomy import CATEGORY_IDS
from analyzer.workspace import Workspace, WorkspaceError
from analyzer.workspace.aliases import merge_models, model_aliases, split_models
from ui.bridge import SessionBridge
from ui.i18n.labels import category_title
from ui.theme import CATEGORY_COLORS
from ui.views.paired import PairedView

MODEL_COLORS = ("#3D7DD8", "#E8743B", "#19A979", "#945ECF", "#ED4A7B", "#13A4B4", "#525DF4", "#BF399E",
                "#6C8893", "#EE6868")
HIST_BINS = 10
DEFAULT_TOP = 8
NAMES_WIDTH = 240
"""Width of the "Grouped names" column (elided; the tooltip lists every name)."""


def model_color(i: int) -> QColor:
    """Colour of the i-th group."""
    return QColor(MODEL_COLORS[i % len(MODEL_COLORS)])


def _short(name: str, n: int = 26) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _arr(values: list[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


class ComparePanel(QWidget):
    """Model-comparison plots and table."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self._dirty = True
        self.metrics: pl.DataFrame | None = None
        self.self_cond: pl.DataFrame | None = None
        self.groups: list[str] = []
        self.all_groups: list[str] = []
        self.unknown_runs = 0
        """Runs of the ``(unknown)`` group (no model recorded): listed apart, never ranked."""
        self.outliers: list[int] = []
        self.workspace_provider: Callable[[], Workspace | None] = lambda: None
        """Returns the workspace holding the model aliases (set by the main window)."""
        pal = self.palette()
        self._fg = pal.color(QPalette.ColorRole.Text)
        self._bg = pal.color(QPalette.ColorRole.Base)
        self._muted = QColor(self._fg.red(), self._fg.green(), self._fg.blue(), 150)
        small = QFont(self.font())
        small.setPointSizeF(max(7.5, self.font().pointSizeF() - 1.5))
        self._small = small

        self.group_box = QComboBox(self)
        self.group_box.setObjectName("compareGroupBy")
        self.group_box.addItem(self.tr("Model"), "model")
        self.group_box.addItem(self.tr("Framework"), "framework")
        self.group_box.addItem(self.tr("Task family"), "task_family")
        self.group_box.setToolTip(self.tr("What to compare"))
        self.group_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.top_box = QSpinBox(self)
        self.top_box.setObjectName("compareTop")
        self.top_box.setRange(2, 30)
        self.top_box.setValue(DEFAULT_TOP)
        self.top_box.setToolTip(self.tr("The first groups of the table are drawn; every group stays in the table"))
        self.top_box.valueChanged.connect(lambda _v: self.refresh())
        self.min_box = QSpinBox(self)
        self.min_box.setObjectName("compareMinRuns")
        self.min_box.setRange(1, 1000)
        self.min_box.setValue(min_group_runs())
        self.min_box.setToolTip(self.tr("Groups with fewer runs are marked “too few runs” and never ranked above "
                                        "larger groups (saved in the settings)"))
        self.min_box.valueChanged.connect(self._min_changed)
        self.merge_btn = QPushButton(self.tr("Merge models…"), self)
        self.merge_btn.setObjectName("compareMerge")
        self.merge_btn.setToolTip(self.tr("Count the selected models as one (saved in the workspace's alias table)"))
        self.merge_btn.clicked.connect(self.merge_dialog)
        self.split_btn = QPushButton(self.tr("Split model"), self)
        self.split_btn.setObjectName("compareSplit")
        self.split_btn.setToolTip(self.tr("Count every name of the selected model on its own again"))
        self.split_btn.clicked.connect(lambda: self.split_selected())
        self.note = QLabel(self)
        self.note.setObjectName("compareNote")
        self.note.setWordWrap(True)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel(self.tr("Compare by"), self))
        controls.addWidget(self.group_box)
        controls.addSpacing(12)
        controls.addWidget(QLabel(self.tr("Groups drawn"), self))
        controls.addWidget(self.top_box)
        controls.addSpacing(12)
        controls.addWidget(QLabel(self.tr("Minimum n"), self))
        controls.addWidget(self.min_box)
        controls.addSpacing(12)
        controls.addWidget(self.merge_btn)
        controls.addWidget(self.split_btn)
        controls.addSpacing(12)
        controls.addWidget(self.note, 1)

        self.table = QTableWidget(self)
        self.table.setObjectName("compareTable")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.ExtendedSelection)
        self.table.itemSelectionChanged.connect(self._on_table_selection)
        self.paired = PairedView(session, self)
        self.paired.setObjectName("comparePaired")
        self.open_contrast: Callable[[str], None] | None = None
        """Shows a failed run in the Contrast tab (set by the main window)."""
        self.tasks_table = QTableWidget(self)
        self.tasks_table.setObjectName("compareTasks")
        self.tasks_table.setColumnCount(5)
        self.tasks_table.setHorizontalHeaderLabels([self.tr("Task"), self.tr("Runs"), self.tr("Successes"),
                                                    self.tr("Failures"), self.tr("Models")])
        self.tasks_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tasks_table.verticalHeader().setVisible(False)
        self.tasks_table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.tasks_table.setShowGrid(False)
        self.tasks_table.setAlternatingRowColors(True)
        self.tasks_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.tasks_table.horizontalHeader().setStretchLastSection(True)
        self.tasks_table.setToolTip(self.tr("Each task with its runs, successes and models; double-click a task that "
                                            "both failed and succeeded to contrast its first failed run with a success"))
        self.tasks_table.cellDoubleClicked.connect(lambda row, _c: self._contrast_task(row))
        self.tasks_table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        act_only = QAction(self.tr("Show only this task's runs"), self.tasks_table)
        act_only.triggered.connect(self._filter_task)
        act_contrast = QAction(self.tr("Contrast its first failed run with a success"), self.tasks_table)
        act_contrast.triggered.connect(lambda: self._contrast_task(self.tasks_table.currentRow()))
        self.tasks_table.addActions([act_only, act_contrast])

        self.glw = pg.GraphicsLayoutWidget(self)
        self.glw.setObjectName("comparePlots")
        self.glw.setBackground(self._bg)
        self.glw.ci.setSpacing(6)
        self.glw.ci.setContentsMargins(6, 6, 6, 6)
        top_row = self.glw.addLayout(row=0, col=0)
        bottom_row = self.glw.addLayout(row=1, col=0)
        self.pass_plot = self._plot(top_row, 0, self.tr("Pass rate with 95% CI"))
        self.cat_plot = self._plot(top_row, 1, self.tr("Decisive failure categories (share of failed runs)"))
        self.cat_legend = pg.LegendItem(labelTextSize=f"{self._small.pointSizeF()}pt", labelTextColor=self._fg,
                                        verSpacing=-4)
        top_row.addItem(self.cat_legend, row=0, col=2)
        self.pos_plot = self._plot(bottom_row, 0, self.tr("Decisive step position (▼ group medians)"))
        self.horizon_plot = self._plot(bottom_row, 1, self.tr("Horizon: success vs run length"))
        self.sc_plot = self._plot(bottom_row, 2, self.tr("Self-conditioning"))
        self.pass_plot.getAxis("left").setWidth(170)
        self.cat_plot.getAxis("left").setStyle(showValues=False)
        self.cat_plot.getAxis("left").setWidth(8)
        top_row.layout.setColumnStretchFactor(0, 5)
        top_row.layout.setColumnStretchFactor(1, 5)
        top_row.layout.setColumnStretchFactor(2, 2)
        for i in range(3):
            bottom_row.layout.setColumnStretchFactor(i, 1)

        split = QSplitter(Qt.Orientation.Vertical, self)
        top = QWidget(self)
        tl = QVBoxLayout(top)
        tl.setContentsMargins(8, 6, 8, 0)
        tl.setSpacing(4)
        tl.addLayout(controls)
        table_split = QSplitter(Qt.Orientation.Horizontal, top)
        table_split.addWidget(self.table)
        table_split.addWidget(self.paired)
        table_split.addWidget(self.tasks_table)
        table_split.setStretchFactor(0, 3)
        table_split.setStretchFactor(1, 2)
        table_split.setStretchFactor(2, 2)
        tl.addWidget(table_split, 1)
        split.addWidget(top)
        split.addWidget(self.glw)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([300, 600])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        bridge.runsChanged.connect(self._mark_dirty)

    def _plot(self, host: Any, col: int, title: str) -> Any:
        p = host.addPlot(row=0, col=col)
        p.setTitle(f"<span style='color:{self._fg.name()}'><b>{html.escape(title)}</b></span>",
                   size=f"{self._small.pointSizeF() + 0.5}pt")
        p.showGrid(x=True, y=True, alpha=0.12)
        p.setMenuEnabled(False)
        p.hideButtons()
        p.setMouseEnabled(x=False, y=False)
        for axis in ("left", "bottom"):
            ax = p.getAxis(axis)
            ax.setPen(pg.mkPen(self._fg))
            ax.setTextPen(pg.mkPen(self._fg))
            ax.setStyle(tickFont=self._small)
        return p

    def _mark_dirty(self) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    @property
    def group_by(self) -> str:
        """Grouping column (``model``, ``framework`` or ``task_family``)."""
        return str(self.group_box.currentData())

    # data -------------------------------------------------------------------------------------
    def aliases(self) -> dict[str, str]:
        """The workspace's model alias table ({} without a workspace)."""
        ws = self.workspace_provider()
        if ws is None:
            return {}
        try:
            return model_aliases(ws)
        except WorkspaceError:
            return {}

    def _min_changed(self, n: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # an unwritable settings file keeps the value for this session
            set_min_group_runs(int(n))
        self.refresh()

    def refresh(self) -> None:
        """Recompute the metrics over the filtered runs and redraw."""
        self._dirty = False
        for p in (self.pass_plot, self.cat_plot, self.pos_plot, self.horizon_plot, self.sc_plot):
            p.clear()
            if p.legend is not None:
                p.legend.clear()
        self.cat_legend.clear()
        view = self.session.filtered_runs()
        self.paired.clear()
        self._update_buttons()
        if view.height == 0:
            self.metrics = None
            self.note.setText(self.tr("Open traces to compare models."))
            self.table.setRowCount(0)
            self.tasks_table.setRowCount(0)
            return
        try:
            from analyzer.metrics import model_metrics, self_conditioning
            from analyzer.metrics.self_conditioning import pooled
        except ImportError as exc:
            self.metrics = None
            self.note.setText(self.tr("Model metrics are not available in this build ({err}).").format(err=exc))
            return
        g = self.group_by
        aliases = self.aliases()
        min_runs = self.min_box.value()
        ids = view["trace_id"].implode()
        raw_traces = self.session.traces.filter(pl.col("trace_id").is_in(ids))
        traces = (apply_model_groups(raw_traces, aliases) if g == "model" else raw_traces) \
            .with_columns(pl.col(g).fill_null(UNKNOWN_GROUP).alias(g))
        runs = self.session.analysis.runs.filter(pl.col("trace_id").is_in(ids))
        # a lazy scan: runs of a corpus folder are aggregated on disk, no step text is read
        steps = self.session.steps_scan().select("trace_id", "step", "agent", "is_error").filter(
            pl.col("trace_id").is_in(ids))
        findings = self.session.findings_scan().filter(pl.col("trace_id").is_in(ids))
        ann = self.session.annotations
        metrics = model_metrics(raw_traces, runs if runs.height else None, ann if ann.height else None,
                                group_by=(g,), steps=steps, aliases=aliases, min_runs=min_runs,
                                estimates=self.session.outcome_estimates())  # counted as in the status bar
        self.metrics = rank_groups(metrics, min_runs, group_by=(g,))
        self.all_groups = [str(x) for x in self.metrics[g].to_list()]
        known, unknown = split_unknown(self.metrics, (g,))  # "(unknown)" is not a group to rank or draw
        self.unknown_runs = int(unknown["runs"].sum()) if unknown.height else 0
        drawn = known.head(self.top_box.value())
        self.groups = [str(x) for x in drawn[g].to_list()]
        self.self_cond = self_conditioning(steps, findings, traces=traces, group_by=(g,))
        pooled_sc = pooled(self.self_cond, (g,))  # the same counts summed: one pass over the steps
        txt = self.tr("{runs} runs in {groups} groups, {analysed} analysed (the runs the current filter shows).").format(
            runs=traces.height, groups=known.height, analysed=runs.height)
        few = int(self.metrics["too_few_runs"].sum())
        if few:
            txt += " " + self.tr("Groups with fewer than {min} runs ({n} here) are marked “too few runs” and ranked "
                                 "after the others.").format(n=few, min=min_runs)
        if self.unknown_runs:
            txt += " " + self.tr("{n} runs record no {what}: they are listed apart as “(unknown)” in the last row "
                                 "and never ranked.").format(n=self.unknown_runs, what=self.group_box.currentText().lower())
        hidden = known.height - drawn.height
        if hidden:
            txt += " " + self.tr("The plots draw the first {n} groups; {hidden} more are in the table.").format(
                n=drawn.height, hidden=hidden)
        if runs.height == 0:
            txt += " " + self.tr("Analyse the runs to see failure categories, decisive steps and horizons.")
        self.note.setText(txt)
        self._fill_table(self.metrics, g)
        self._fill_tasks(raw_traces)
        self._draw_pass(drawn)
        self._draw_categories(drawn)
        self._draw_positions(view.join(traces.select("trace_id", pl.col(g).alias("_group")), on="trace_id", how="inner"))
        self._draw_horizons(drawn, traces)
        self._draw_self_conditioning(self.self_cond, pooled_sc, g)

    # the per-task table -------------------------------------------------------------------------------
    def _fill_tasks(self, traces: pl.DataFrame) -> None:
        tasks = task_table(traces)
        self.tasks_table.setRowCount(tasks.height)
        for i, r in enumerate(tasks.iter_rows(named=True)):
            cells = (str(r["task_key"]), str(r["runs"]), str(r["successes"]), str(r["failures"]), r["models"] or "")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setToolTip(f"{r['task_key']}\n{(r['task'] or '')[:600]}")
                    item.setData(Qt.ItemDataRole.UserRole, r["task_key"])
                elif c < 4:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.tasks_table.setItem(i, c, item)
        self.tasks_table.resizeColumnsToContents()

    def _filter_task(self) -> None:
        item = self.tasks_table.item(self.tasks_table.currentRow(), 0)
        if item is not None:
            self.session.set_filter(dataclasses.replace(self.session.filter, task_keys=(str(item.data(Qt.ItemDataRole.UserRole)),)))

    def _contrast_task(self, row: int) -> None:
        item = self.tasks_table.item(row, 0)
        if item is None or self.open_contrast is None:
            return
        key = item.data(Qt.ItemDataRole.UserRole)
        failed = self.session.traces.filter((pl.col("task_key") == key) & (pl.col("outcome") == "failure"))
        if failed.height:
            self.open_contrast(str(failed["trace_id"][0]))

    # selection, aliases and the paired view ------------------------------------------------------
    def selected_groups(self) -> list[str]:
        """Groups of the selected table rows, in table order."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.all_groups[r] for r in rows if 0 <= r < len(self.all_groups)]

    def _group_names(self, group: str) -> list[str]:
        """Raw model names in a group (from the ``names`` column)."""
        if self.metrics is None or "names" not in self.metrics.columns:
            return [group]
        row = self.metrics.filter(pl.col(self.group_by) == group)
        raw = str(row["names"][0] or "") if row.height else ""
        return [n for n in raw.split(NAMES_SEPARATOR) if n] or [group]

    def _update_buttons(self) -> None:
        sel = self.selected_groups()
        models = self.group_by == "model" and UNKNOWN_GROUP not in sel
        self.merge_btn.setEnabled(models and len(sel) >= 2)
        self.split_btn.setEnabled(models and len(sel) == 1 and len(self._group_names(sel[0])) > 1)

    def _on_table_selection(self) -> None:
        self._update_buttons()
        sel = self.selected_groups()
        if self.group_by != "model":
            self.paired.clear(self.tr("The paired view compares models: compare by Model."))
            return
        if UNKNOWN_GROUP in sel:
            self.paired.clear(self.tr("“(unknown)” holds the runs with no recorded model: it is not compared."))
            return
        if len(sel) != 2:
            self.paired.clear()
            return
        self.select_pair(sel[0], sel[1])

    def select_pair(self, model_a: str, model_b: str) -> Any:
        """Show the paired comparison of two model groups (over the runs the filter shows)."""
        ids = self.session.filtered_runs()["trace_id"].implode()
        traces = self.session.traces.filter(pl.col("trace_id").is_in(ids))
        return self.paired.compare(model_a, model_b, traces, self.aliases())

    def select_rows(self, groups: list[str]) -> None:
        """Select table rows by group name (scripts, tests, screenshots)."""
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QTableWidget.SelectionMode.MultiSelection)
        for name in groups:
            if name in self.all_groups:
                self.table.selectRow(self.all_groups.index(name))
        self.table.setSelectionMode(mode)

    def merge_dialog(self) -> None:
        """Merge the selected models under a name the analyst types."""
        sel = self.selected_groups()
        if len(sel) < 2:
            return
        name, ok = QInputDialog.getText(self, self.tr("Merge models"),
                                        self.tr("Count these models as one, named:"), text=sel[0])
        if ok and name.strip():
            self.merge(sel, name.strip())

    def merge(self, groups: list[str], into: str) -> bool:
        """Merge model groups into one (saved in the workspace); False without a workspace."""
        ws = self.workspace_provider()
        if UNKNOWN_GROUP in groups:
            return False
        if ws is None:
            self.note.setText(self.tr("Open a workspace to keep model aliases."))
            return False
        try:
            merge_models(ws, [n for g in groups for n in (g, *self._group_names(g))], into)
        except WorkspaceError as exc:
            self.note.setText(self.tr("Cannot save the alias: {err}").format(err=exc))
            return False
        self.refresh()
        return True

    def split_selected(self, group: str | None = None) -> bool:
        """Split a merged model group back into its raw names (saved in the workspace)."""
        target = group or (self.selected_groups() or [None])[0]
        ws = self.workspace_provider()
        if target is None or target == UNKNOWN_GROUP:
            return False
        if ws is None:
            self.note.setText(self.tr("Open a workspace to keep model aliases."))
            return False
        try:
            split_models(ws, self._group_names(target))
        except WorkspaceError as exc:
            self.note.setText(self.tr("Cannot save the alias: {err}").format(err=exc))
            return False
        self.refresh()
        return True

    def _fill_table(self, m: pl.DataFrame, g: str) -> None:
        cols = [(g, self.group_box.currentText()), *([("names", self.tr("Grouped names"))] if g == "model" else []),
                ("runs", self.tr("n (runs)")), ("too_few_runs", self.tr("Sample")),
                ("pass_rate", self.tr("Pass rate")),
                ("ci", self.tr("95% CI")), ("failures", self.tr("Failed")), ("attributed", self.tr("Attributed")),
                ("top_category", self.tr("Top failure category")), ("decisive_rel_median", self.tr("Decisive step (median position)")),
                ("p_step", self.tr("Per-step reliability p̂")), ("horizon_50", self.tr("H50 (steps)")),
                ("horizon_80", self.tr("H80 (steps)")), ("label_source", self.tr("Labels"))]
        self.table.setColumnCount(len(cols))
        self.table.setHorizontalHeaderLabels([c[1] for c in cols])
        header = self.table.horizontalHeader()
        for c, (key, _title) in enumerate(cols):  # the names column is elided; its tooltip lists every name
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive if key == "names"
                                        else QHeaderView.ResizeMode.ResizeToContents)
            if key == "names":
                self.table.setColumnWidth(c, NAMES_WIDTH)
        self.table.setRowCount(m.height)
        aliases = self.aliases() if g == "model" else {}
        for r, row in enumerate(m.iter_rows(named=True)):
            unknown = row.get(g) == UNKNOWN_GROUP
            for c, (key, _title) in enumerate(cols):
                item = QTableWidgetItem(self._cell(key, row))
                if key not in (g, "names", "top_category", "label_source", "too_few_runs"):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if unknown:
                    self._unknown_item(item, key, g)
                elif key == "names":
                    self._names_item(item, row, g, aliases)
                elif key == g:
                    item.setForeground(model_color(r))
                    names = [n for n in str(row.get("names") or "").split(NAMES_SEPARATOR) if n]
                    tip = str(row.get(g))
                    if names and names != [tip]:
                        tip += "\n" + self.tr("Names in the traces: {names}").format(names=", ".join(names))
                    item.setToolTip(tip)
                elif key in ("pass_rate", "failures") and row.get("estimated"):
                    item.setToolTip(self.tr("{k} of these outcomes are estimates (no outcome recorded, none set by "
                                            "the analyst)").format(k=row["estimated"]))
                elif key == "too_few_runs" and row.get("too_few_runs"):
                    item.setForeground(QColor("#C77700"))
                    item.setToolTip(self.tr("Fewer than {n} runs: too uncertain to rank").format(n=self.min_box.value()))
                self.table.setItem(r, c, item)

    def _unknown_item(self, item: QTableWidgetItem, key: str, g: str) -> None:
        """The ``(unknown)`` row: set apart (italic, muted), never ranked."""
        font = QFont(item.font())
        font.setItalic(True)
        item.setFont(font)
        item.setForeground(self._muted)
        item.setToolTip(self.tr("The files of these runs record no {what}. “(unknown)” is not a group: it is listed "
                                "apart, never ranked, drawn or paired.").format(what=self.group_box.currentText().lower()))
        if key == g:
            item.setText(self.tr("(unknown)"))
        elif key == "too_few_runs":
            item.setText(self.tr("not ranked"))

    def _names_item(self, item: QTableWidgetItem, row: dict[str, Any], g: str, aliases: dict[str, str]) -> None:
        """The raw names of a group and whether they were folded automatically or by an alias."""
        group = str(row.get(g))
        names = [n for n in str(row.get("names") or "").split(NAMES_SEPARATOR) if n]
        if not names or names == [group]:
            item.setText("")
            return
        by_alias = any(aliases.get(n, n) != n for n in names)
        how = self.tr("alias") if by_alias else self.tr("automatic")
        item.setText(f"{how}: {', '.join(names)}")
        item.setToolTip(
            self.tr("Merged by the alias table of the workspace. Select the row and press “Split model” to count "
                    "each name on its own.") if by_alias else
            self.tr("Folded automatically: provider prefixes, date stamps and “-latest” are not part of a model's "
                    "name. Select the row and press “Split model” to count each name on its own (kept in the "
                    "workspace)."))

    def _cell(self, key: str, row: dict[str, Any]) -> str:
        def f(v: Any, fmt: str = "{:.2f}") -> str:
            return "—" if v is None else fmt.format(v)
        if key == "names":
            return ""
        if key == "ci":
            lo, hi = row.get("pass_rate_low"), row.get("pass_rate_high")
            return "—" if lo is None or hi is None else f"{lo:.2f}–{hi:.2f}"
        if key == "too_few_runs":
            return self.tr("too few runs") if row.get(key) else ""
        if key == "label_source":
            sources = {"ranker": self.tr("ranker"), "judge": self.tr("judge"), "analyst": self.tr("analyst"),
                       "mixed": self.tr("mixed")}
            v = row.get(key)
            return "—" if v is None else sources.get(str(v), str(v))
        if key == "top_category":
            best = max(CATEGORY_IDS, key=lambda c: row.get(f"n_{c}") or 0)
            return category_title(best) if (row.get(f"n_{best}") or 0) > 0 else "—"
        if key == "p_step":
            return f(row.get(key), "{:.3f}")
        if key in ("pass_rate", "decisive_rel_median"):
            return f(row.get(key))
        if key in ("horizon_50", "horizon_80"):
            return f(row.get(key), "{:.1f}")
        v = row.get(key)
        return "—" if v is None else str(v)

    # drawing -------------------------------------------------------------------------------------
    def _group_axis(self, plot: Any, n: int) -> None:
        """Groups on the left axis, first group at the top."""
        plot.getAxis("left").setTicks([[(n - 1 - i, _short(name)) for i, name in enumerate(self.groups)]])
        plot.setYRange(-0.6, n - 0.4, padding=0)
        plot.showGrid(x=True, y=False, alpha=0.12)

    def _draw_pass(self, m: pl.DataFrame) -> None:
        n = m.height
        y = np.arange(n - 1, -1, -1, dtype=float)
        rate, lo, hi = _arr(m["pass_rate"].to_list()), _arr(m["pass_rate_low"].to_list()), _arr(m["pass_rate_high"].to_list())
        ok = ~np.isnan(rate)
        if ok.any():
            brushes = [pg.mkBrush(model_color(i)) for i in range(n) if ok[i]]
            self.pass_plot.addItem(pg.BarGraphItem(x0=np.zeros(int(ok.sum())), y=y[ok], height=0.62, width=rate[ok],
                                                   brushes=brushes, pen=pg.mkPen(None)))
            self.pass_plot.addItem(pg.ErrorBarItem(x=rate[ok], y=y[ok], left=(rate - lo)[ok], right=(hi - rate)[ok],
                                                   beam=0.25, pen=pg.mkPen(self._fg, width=1.3)))
        for i, runs in enumerate(m["runs"].to_list()):
            t = pg.TextItem(f"n={runs}", color=self._muted, anchor=(0, 0.5))
            t.setFont(self._small)
            t.setPos(1.04, float(y[i]))
            self.pass_plot.addItem(t)
        self._group_axis(self.pass_plot, n)
        self.pass_plot.setXRange(0, 1.28, padding=0)
        self.pass_plot.getAxis("bottom").setTicks([[(v, f"{v:.1f}") for v in (0, 0.2, 0.4, 0.6, 0.8, 1.0)]])

    def _draw_categories(self, m: pl.DataFrame) -> None:
        n = m.height
        y = np.arange(n - 1, -1, -1, dtype=float)
        left = np.zeros(n)
        drawn = False
        for cat in CATEGORY_IDS:
            col = f"share_{cat}"
            if col not in m.columns:
                continue
            share = np.nan_to_num(_arr(m[col].to_list()))
            if not share.any():
                continue
            item = pg.BarGraphItem(x0=left.copy(), y=y, height=0.62, width=share, brush=pg.mkBrush(QColor(CATEGORY_COLORS[cat])),
                                   pen=pg.mkPen(self._bg, width=0.6))
            self.cat_plot.addItem(item)
            self.cat_legend.addItem(item, category_title(cat))
            left += share
            drawn = True
        if not drawn:
            self._empty(self.cat_plot, self.tr("No categorised failures yet"), 0.5, n / 2 - 0.5)
        for i, failures in enumerate(m["failures"].to_list()):
            if not failures:
                t = pg.TextItem(self.tr("no failures"), color=self._muted, anchor=(0, 0.5))
                t.setFont(self._small)
                t.setPos(0.02, float(y[i]))
                self.cat_plot.addItem(t)
        self._group_axis(self.cat_plot, n)
        self.cat_plot.setXRange(0, 1.0, padding=0.01)

    def _draw_positions(self, data: pl.DataFrame) -> None:
        data = data.select("_group", "decisive_step", "n_steps").drop_nulls("decisive_step")
        edges = np.linspace(0, 1, HIST_BINS + 1)
        if data.height == 0:
            self._empty(self.pos_plot, self.tr("No decisive steps yet"), 0.5, 0.5)
            self.pos_plot.setYRange(0, 1)
        else:
            rel = np.array([d / max(1, (n or 1) - 1) for d, n in data.select("decisive_step", "n_steps").iter_rows()], dtype=float)
            counts, _ = np.histogram(np.clip(rel, 0, 1), bins=edges)
            self.pos_plot.addItem(pg.BarGraphItem(x0=edges[:-1], x1=edges[1:], y0=np.zeros(HIST_BINS), height=counts,
                                                  brush=pg.mkBrush(QColor("#8A8F98").lighter(130)),
                                                  pen=pg.mkPen(self._bg, width=1)))
            # per-group medians as ticks above the bars
            top = float(counts.max()) * 1.08 + 0.2
            for i, name in enumerate(self.groups):
                sub = data.filter(pl.col("_group") == name)
                if sub.height == 0:
                    continue
                r = np.array([d / max(1, (n or 1) - 1) for d, n in sub.select("decisive_step", "n_steps").iter_rows()])
                self.pos_plot.addItem(pg.ScatterPlotItem(x=[float(np.median(r))], y=[top], symbol="t", size=11,
                                                         brush=pg.mkBrush(model_color(i)), pen=pg.mkPen(self._bg)))
            self.pos_plot.setYRange(0, top * 1.1, padding=0)
        self.pos_plot.setLabel("bottom", self.tr("relative position (0 first step, 1 last)"))
        self.pos_plot.setLabel("left", self.tr("failed runs"))
        self.pos_plot.setXRange(0, 1, padding=0.02)

    def _draw_horizons(self, m: pl.DataFrame, traces: pl.DataFrame) -> None:
        from analyzer.metrics import horizon_curve

        lengths = [int(n) for n in traces["n_steps"].drop_nulls().to_list()] if traces.height else []
        span, self.outliers = length_axis(lengths)
        for level in (0.5, 0.8):
            line = pg.InfiniteLine(pos=level, angle=0, movable=False, pen=pg.mkPen(self._muted, width=0.8, style=Qt.PenStyle.DotLine),
                                   label=f"{int(level * 100)}%", labelOpts={"position": 0.97, "color": self._muted})
            self.horizon_plot.addItem(line)
        drawn = False
        for i, row in enumerate(m.iter_rows(named=True)):
            p = row.get("p_step")
            if p is None:
                continue
            curve = horizon_curve(float(p), min(span, 2000))
            color = model_color(i)
            item = self.horizon_plot.plot(curve["steps"].to_numpy(), curve["success"].to_numpy(), pen=pg.mkPen(color, width=2))
            item.setToolTip(str(row[self.group_by]))
            marks = [(h, lv) for h, lv in ((row.get("horizon_50"), 0.5), (row.get("horizon_80"), 0.8)) if h is not None and h <= span]
            if marks:
                self.horizon_plot.addItem(pg.ScatterPlotItem(x=[h for h, _ in marks], y=[lv for _, lv in marks], size=8,
                                                             brush=pg.mkBrush(color), pen=pg.mkPen(self._bg)))
            drawn = True
        if not drawn:
            self._empty(self.horizon_plot, self.tr("Needs analysed runs (decisive steps)"), span / 2, 0.5)
        if self.outliers:
            # runs longer than the axis: a marker at the right edge instead of stretching the axis
            self.horizon_plot.addItem(pg.ScatterPlotItem(x=[span * 0.985] * len(self.outliers),
                                                         y=np.linspace(0.06, 0.06 + 0.025 * (len(self.outliers) - 1),
                                                                       len(self.outliers)).tolist(),
                                                         symbol="t2", size=9, brush=pg.mkBrush(self._fg), pen=None))
            t = pg.TextItem(self.tr("{n} longer runs (up to {max} steps) ▶").format(n=len(self.outliers), max=max(self.outliers)),
                            color=self._muted, anchor=(1, 1))
            t.setFont(self._small)
            t.setPos(span * 0.97, 0.04)
            self.horizon_plot.addItem(t)
        self.horizon_plot.setLabel("bottom", self.tr("run length (steps); ● H80, H50"))
        self.horizon_plot.setXRange(0, span, padding=0)
        self.horizon_plot.setYRange(0, 1.02, padding=0)

    def _draw_self_conditioning(self, sc: pl.DataFrame | None, pooled: pl.DataFrame, g: str) -> None:
        if pooled.height == 0:
            self._empty(self.sc_plot, self.tr("No steps"), 1, 0.5)
            return
        buckets = sorted(pooled["k"].unique().to_list(), key=lambda k: int(str(k).rstrip("+")))
        xpos = {k: i for i, k in enumerate(buckets)}
        legend = self.sc_plot.addLegend(offset=(4, 4), labelTextSize=f"{self._small.pointSizeF()}pt", labelTextColor=self._fg,
                                        verSpacing=-6, brush=pg.mkBrush(self._bg.red(), self._bg.green(), self._bg.blue(), 200))
        ymax = 0.0
        if sc is not None and sc.height:
            for i, name in enumerate(self.groups):
                sub = sc.filter(pl.col(g) == name).drop_nulls("p_error")
                if sub.height < 2:
                    continue
                x = np.array([xpos[k] for k in sub["k"].to_list()], dtype=float)
                y = sub["p_error"].to_numpy()
                self.sc_plot.plot(x, y, pen=pg.mkPen(model_color(i), width=1.2), symbol="o", symbolSize=4,
                                  symbolBrush=model_color(i), symbolPen=None)
                ymax = max(ymax, float(np.nanmax(y)))
        allp = pooled.drop_nulls("p_error")
        if allp.height:
            x = np.array([xpos[k] for k in allp["k"].to_list()], dtype=float)
            y = allp["p_error"].to_numpy()
            lo, hi = allp["p_error_low"].to_numpy(), allp["p_error_high"].to_numpy()
            self.sc_plot.addItem(pg.ErrorBarItem(x=x, y=y, top=hi - y, bottom=y - lo, beam=0.12, pen=pg.mkPen(self._fg, width=1.4)))
            self.sc_plot.plot(x, y, pen=pg.mkPen(self._fg, width=3), symbol="o", symbolSize=8, symbolBrush=self._fg,
                              symbolPen=None, name=self.tr("all runs (95% CI)"))
            ymax = max(ymax, float(np.nanmax(hi)))
        if not legend.items:
            legend.hide()
        self.sc_plot.getAxis("bottom").setTicks([[(i, str(k)) for i, k in enumerate(buckets)]])
        self.sc_plot.setLabel("bottom", self.tr("k prior errors; thin lines: groups"))
        self.sc_plot.setXRange(-0.3, len(buckets) - 0.7, padding=0)
        self.sc_plot.setYRange(0, max(0.1, min(1.0, ymax * 1.15)), padding=0)

    def _empty(self, plot: Any, text: str, x: float, y: float) -> None:
        t = pg.TextItem(text, color=self._muted, anchor=(0.5, 0.5))
        t.setFont(self._small)
        t.setPos(x, y)
        plot.addItem(t)
