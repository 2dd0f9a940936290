"""Contrast tab: the selected failed run side by side with a success of the same task.

Rows are the alignment of :mod:`analyzer.contrast` (the failed run left, the success right):
decisions that match are dimmed, differences tinted, the divergence (the first decision of the
failed run with no good match) highlighted. ``D`` / ``Shift+D`` jump to the next / previous
difference while the table has the focus (the buttons do the same); the picker shows the other
successes of the task, nearest (lowest alignment cost) first. Below, both value curves are
drawn on the aligned rows, so they line up; the current row is marked on both, and clicking the
plot selects the nearest row. This view only draws what :mod:`analyzer.contrast.view` computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from analyzer.contrast.view import (
    AlignedRow,
    RowStatus,
    RunContrast,
    aligned_rows,
    difference_rows,
    run_contrast,
)
from analyzer.session import Selection, Session
from ui.bridge import SessionBridge
from ui.models.contrast_rows import ContrastRowsModel
from ui.theme import ACCENT, CANDIDATE, DECISIVE


class _DifferenceKeys(QObject):
    """Gives ``D`` / ``Shift+D`` to the contrast table (over the window's ``D`` shortcut) while it has the focus."""

    def __init__(self, view: ContrastView) -> None:
        super().__init__(view)
        self.view = view

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and isinstance(event, QKeyEvent):
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if event.key() == Qt.Key.Key_D and mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
                if event.type() == QEvent.Type.ShortcutOverride:
                    event.accept()
                    return True
                self.view.jump(-1 if mods == Qt.KeyboardModifier.ShiftModifier else 1)
                return True
        return False


class ContrastView(QWidget):
    """The failed run against a success of its task, in aligned rows, with linked value curves."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self.contrast: RunContrast | None = None
        self.rows: list[AlignedRow] = []
        self.differences: list[int] = []
        self.current_row: int | None = None
        self._dirty = True
        self._shown_for: str | None = None
        pal = self.palette()
        fg = pal.color(QPalette.ColorRole.Text)
        self._muted = QColor(fg.red(), fg.green(), fg.blue(), 110)
        self._diff_bg = QColor(CANDIDATE)
        self._diff_bg.setAlpha(60)
        self._div_bg = QColor(DECISIVE)
        self._div_bg.setAlpha(110)

        self.title = QLabel(self)
        self.title.setObjectName("contrastTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.picker = QComboBox(self)
        self.picker.setObjectName("contrastSuccess")
        self.picker.setToolTip(self.tr("Successes of the same task, nearest (lowest alignment cost) first"))
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.prev_btn = QPushButton(self.tr("◀ Previous difference"), self)
        self.prev_btn.setObjectName("contrastPrev")
        self.prev_btn.setToolTip(self.tr("Previous difference (Shift+D in the table)"))
        self.prev_btn.clicked.connect(lambda: self.jump(-1))
        self.next_btn = QPushButton(self.tr("Next difference ▶"), self)
        self.next_btn.setObjectName("contrastNext")
        self.next_btn.setToolTip(self.tr("Next difference (D in the table)"))
        self.next_btn.clicked.connect(lambda: self.jump(1))
        self.div_btn = QPushButton(self.tr("Go to divergence"), self)
        self.div_btn.setObjectName("contrastGoDivergence")
        self.div_btn.setToolTip(self.tr("The first decision of the failed run with no good match in this success"))
        self.div_btn.clicked.connect(self.go_to_divergence)
        self.summary = QLabel(self)
        self.summary.setObjectName("contrastSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel(self.tr("Success"), self))
        bar.addWidget(self.picker, 1)
        bar.addSpacing(12)
        bar.addWidget(self.prev_btn)
        bar.addWidget(self.next_btn)
        bar.addWidget(self.div_btn)

        self.table = QTableView(self)
        self.table.setObjectName("contrastTable")
        self.model: ContrastRowsModel | None = None
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        # a light selection, so the current row does not hide what the rows around it show
        tpal = self.table.palette()
        light = QColor(ACCENT)
        light.setAlpha(70)
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            tpal.setColor(group, QPalette.ColorRole.Highlight, light)
            tpal.setColor(group, QPalette.ColorRole.HighlightedText, fg)
        self.table.setPalette(tpal)
        self._headers = [self.tr("Step"), self.tr("Failed run"), self.tr("Step"), self.tr("Success")]
        self._set_model([], {}, {})
        self._keys = _DifferenceKeys(self)
        self.table.installEventFilter(self._keys)

        self.plot = pg.PlotWidget(self)
        self.plot.setObjectName("contrastPlot")
        self.plot.setBackground(pal.color(QPalette.ColorRole.Base))
        self.plot.showGrid(x=False, y=True, alpha=0.2)
        self.plot.setLabel("bottom", self.tr("Aligned row"))
        self.plot.setLabel("left", self.tr("Value"))
        self.plot.setYRange(0, 1.45)  # room above the curves for the legend
        self.plot.addLegend(offset=(-10, 2))
        self.cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen(ACCENT, width=1))
        self.div_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(DECISIVE, width=2, style=Qt.PenStyle.DashLine))
        self.plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self.plot_note = QLabel(self)
        self.plot_note.setObjectName("contrastPlotNote")
        self.plot_note.setWordWrap(True)

        lower = QWidget(self)
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.plot, 1)
        ll.addWidget(self.plot_note)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([620, 240])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(4)
        lay.addWidget(self.title)
        lay.addLayout(bar)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)
        bridge.selectionChanged.connect(self._on_selection)
        bridge.tracesChanged.connect(self._mark_dirty)
        bridge.analysisChanged.connect(self._redraw_curves)
        self._update_buttons()

    # -- refresh ---------------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True
        self._shown_for = None
        if self.isVisible():
            self.refresh()

    def _on_selection(self, sel: Selection) -> None:
        if sel.trace_id != self._shown_for:
            self._dirty = True
            if self.isVisible():
                self.refresh()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._dirty or self.session.selection.trace_id != self._shown_for:
            self.refresh()

    def refresh(self) -> None:
        """Align the current run with the successes of its task and show the nearest one."""
        self._dirty = False
        tid = self.session.selection.trace_id
        self._shown_for = tid
        self.contrast = None
        self.picker.blockSignals(True)
        self.picker.clear()
        self.picker.blockSignals(False)
        if tid is None:
            self._empty(self.tr("Select a failed run whose task also succeeded."))
            return
        row = self.session.traces.filter(pl.col("trace_id") == tid)
        if row.height == 0:
            self._empty(self.tr("Select a failed run whose task also succeeded."))
            return
        if row["outcome"][0] != "failure":
            self._empty(self.tr("This run did not fail: select a failed run to contrast it with a success."))
            return
        contrast = run_contrast(self.session.traces, self._steps_of, tid)
        if contrast is None or not contrast.successes:
            self._empty(self.tr("No other run of this task succeeded, so there is nothing to contrast it with."))
            return
        self.contrast = contrast
        self.title.setText(self.tr("Failed run <b>{run}</b> · task <code>{task}</code> · {n} successes of the task").format(
            run=self._label(tid), task=contrast.task_key, n=len(contrast.successes)))
        self.picker.blockSignals(True)
        for i, sc in enumerate(contrast.successes):
            text = self.tr("{run} · cost {cost}").format(run=self._label(sc.success_id),
                                                         cost=f"{sc.pair.alignment.total:.2f}")
            if i == 0:
                text += " " + self.tr("(nearest)")
            self.picker.addItem(text, sc.success_id)
        self.picker.blockSignals(False)
        self.picker.setCurrentIndex(0)
        self.show_success(0)

    def _steps_of(self, ids: Sequence[str]) -> pl.DataFrame:
        return pl.concat([self.session.run_steps(t) for t in ids], how="vertical_relaxed")

    def _label(self, tid: str) -> str:
        row = self.session.traces.filter(pl.col("trace_id") == tid).select("native_id", "model")
        if row.height == 0:
            return tid[:8]
        native, model = row.row(0)
        name = f"{native} · {tid[:8]}" if native else tid[:8]
        return f"{name} ({model})" if model else name

    def _empty(self, text: str) -> None:
        self.title.setText(text)
        self.summary.setText("")
        self.rows, self.differences, self.current_row = [], [], None
        self._set_model([], {}, {})
        self.plot.clear()
        self.plot_note.setText("")
        self._update_buttons()

    # -- one success ------------------------------------------------------------------------------
    def _on_pick(self, index: int) -> None:
        if index >= 0 and self.contrast is not None:
            self.show_success(index)

    def select_success(self, success_id: str) -> bool:
        """Show the success ``success_id`` (False if it is not a success of this task)."""
        i = self.picker.findData(success_id)
        if i < 0:
            return False
        self.picker.setCurrentIndex(i)
        return True

    @property
    def success_id(self) -> str | None:
        """The success shown."""
        data = self.picker.currentData()
        return str(data) if data is not None else None

    def show_success(self, index: int) -> None:
        """Fill the rows for the ``index``-th success of the picker and go to the divergence."""
        if self.contrast is None or not 0 <= index < len(self.contrast.successes):
            return
        sc = self.contrast.successes[index]
        self.rows = aligned_rows(self.contrast.failed, sc.encoded, sc.pair)
        self.differences = difference_rows(self.rows)
        div = sc.pair.divergence
        if div.step is None:
            self.summary.setText(self.tr("Every decision of the failed run has a good match in this success."))
        else:
            self.summary.setText(self.tr("Diverges at step <b>{step}</b> of the failed run: {kind}. "
                                         "{n} rows differ.").format(step=div.step, kind=self.kind_text(str(div.kind)),
                                                                    n=len(self.differences)))
        self._fill(self.contrast.failed_id, sc.success_id)
        self._redraw_curves()
        self._update_buttons()
        self.go_to_divergence()

    def kind_text(self, kind: str) -> str:
        """The divergence kind in the UI language."""
        return {
            "different_action": self.tr("a different action"),
            "different_arguments": self.tr("the same tool with different arguments"),
            "missing_action": self.tr("an action of the success is missing"),
            "extra_action": self.tr("an extra action"),
        }.get(kind, kind)

    def _set_model(self, rows: list[AlignedRow], failed: dict[int, dict[str, Any]],
                   success: dict[int, dict[str, Any]]) -> None:
        bold = QFont(self.table.font())
        bold.setBold(True)
        colors = {"muted": self._muted, "different": self._diff_bg, "divergence": self._div_bg,
                  "divergence_text": QColor(DECISIVE)}
        old = self.model
        self.model = ContrastRowsModel(rows, failed, success, self._headers, colors, bold)
        self.table.setModel(self.model)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._on_row(cur.row()))
        head = self.table.horizontalHeader()
        step_width = self.fontMetrics().horizontalAdvance("▶ 000000") + 12  # no per-row size hints: long runs
        for col in (0, 2):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            head.resizeSection(col, step_width)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        if old is not None:
            old.deleteLater()

    def _fill(self, failed_id: str, success_id: str) -> None:
        cols = ["step", "kind", "text", "tool_name", "tool_args"]
        fsteps = {int(r["step"]): r for r in self.session.run_steps(failed_id).select(cols).iter_rows(named=True)}
        ssteps = {int(r["step"]): r for r in self.session.run_steps(success_id).select(cols).iter_rows(named=True)}
        self._set_model(self.rows, fsteps, ssteps)

    # -- curves -----------------------------------------------------------------------------------
    def _redraw_curves(self) -> None:
        self.plot.clear()
        if self.contrast is None or not self.rows:
            return
        sid = self.success_id
        drawn = 0
        for tid, which, color, name in ((self.contrast.failed_id, "failed", DECISIVE, self.tr("Failed run")),
                                        (sid, "success", ACCENT, self.tr("Success"))):
            if tid is None:
                continue
            vals = self.session.run_step_values(tid)
            if vals.height == 0:
                continue
            by_step = dict(zip(vals["step"].to_list(), vals["value"].to_list(), strict=True))
            xs, ys = [], []
            for i, r in enumerate(self.rows):
                step = r.failed_step if which == "failed" else r.success_step
                if step is not None and by_step.get(step) is not None:
                    xs.append(i)
                    ys.append(float(by_step[step]))
            if xs:
                self.plot.plot(xs, ys, pen=pg.mkPen(color, width=2), name=name)
                drawn += 1
        self.plot.addItem(self.cursor)
        div_rows = [i for i, r in enumerate(self.rows) if r.status == RowStatus.DIVERGENCE]
        if div_rows:
            self.div_line.setValue(div_rows[0])
            self.plot.addItem(self.div_line)
        self.plot.setXRange(0, max(1, len(self.rows) - 1), padding=0.02)
        self.plot_note.setText("" if drawn == 2 else self.tr(
            "Analyse both runs to see their value curves here (they are drawn on the aligned rows)."))

    def _on_plot_click(self, event: Any) -> None:
        if not self.rows:
            return
        pos = self.plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        self.go_to_row(round(min(max(pos.x(), 0), len(self.rows) - 1)))

    # -- navigation -------------------------------------------------------------------------------
    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        self.current_row = row
        self.cursor.setValue(row)
        self._update_buttons()
        step = self.rows[row].failed_step
        sel = self.session.selection
        if self.contrast is not None and step is not None and sel.trace_id == self.contrast.failed_id \
                and sel.step != step:
            self.session.select(step=step, steps=(step,))  # the run view and the inspector follow

    def go_to_row(self, row: int) -> None:
        """Make ``row`` the current row (the curves' cursor follows)."""
        if 0 <= row < len(self.rows) and self.model is not None:
            index = self.model.index(row, 1)
            self.table.setCurrentIndex(index)
            self.table.scrollTo(index, QTableView.ScrollHint.PositionAtCenter)
            self._on_row(row)

    def divergence_row(self) -> int | None:
        """The row of the divergence (None when every decision matched)."""
        return next((i for i, r in enumerate(self.rows) if r.status == RowStatus.DIVERGENCE), None)

    def go_to_divergence(self) -> None:
        """Go to the divergence row (or the first row when there is none)."""
        row = self.divergence_row()
        self.go_to_row(row if row is not None else 0)

    def jump(self, direction: int) -> bool:
        """Go to the next (1) or previous (-1) differing row; False when there is none that way."""
        cur = self.current_row if self.current_row is not None else -1
        cands = [i for i in self.differences if (i > cur if direction > 0 else i < cur)]
        if not cands:
            return False
        self.go_to_row(cands[0] if direction > 0 else cands[-1])
        return True

    def _update_buttons(self) -> None:
        cur = self.current_row if self.current_row is not None else -1
        self.next_btn.setEnabled(any(i > cur for i in self.differences))
        self.prev_btn.setEnabled(any(i < cur for i in self.differences))
        self.div_btn.setEnabled(self.divergence_row() is not None)
        self.picker.setEnabled(self.picker.count() > 1)
