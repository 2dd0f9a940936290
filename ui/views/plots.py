"""Per-run plots (pyqtgraph): value curve, task alignment, tokens per step, errors and findings.

Signal-detector overlays (docs/detectors.md): the cumulative risk on the value plot, a dash-dot
line after the step where a cheap check would have caught the failure, and on the token track
the steps whose content was re-sent although it could have been dropped (hatched) and the
wasted steps (circles).

All plots share one x axis (the step). Clicking anywhere on a plot selects the nearest step
everywhere (through the session); hovering shows the step's summary. Drops of the value
curve are shaded and the largest are labelled; the decisive step and the runner-up
candidates are marked with vertical lines. The causal chain of a failed run
(:mod:`analyzer.insights.chains`) is drawn as arrows from the decisive step to the failures that
follow from it, with the impact (stopped / degraded / recovered) at its end.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QCursor, QFont, QPalette
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from analyzer.analysis.result import uncertain_steps
from analyzer.insights.chains import CausalChain, causal_chain
from analyzer.session import Selection, Session
from ui.bridge import SessionBridge
from ui.models.steps_list import analysis_fingerprint, parse_steps_list
from ui.theme import (
    ALIGNMENT_CURVE,
    CANDIDATE,
    DECISIVE,
    ERROR,
    JUDGE_CURVE,
    ROLE_COLORS,
    VALUE_CURVE,
    category_color,
)

DROP_SHADE = 0.08
"""Drops at least this large are shaded."""

DROP_LABELS = 3
"""How many of the largest drops get a label."""

RISK_CURVE = "#D97706"
"""Cumulative risk of the risky-combination rules (signal detectors, docs/detectors.md)."""

CONTEXT_WASTE = "#B45309"
"""Outline of token bars whose content later calls re-sent although it could have been dropped."""

CHAIN_LANES = {"secondary": 0.97, "tertiary": 0.9}
"""Height of the causal-chain arrows on the value plot, by link level."""

IMPACT_COLORS = {"stopped": "#D64545", "degraded": "#D98E04", "recovered": "#2E9E5B"}

pg.setConfigOptions(antialias=True)


def _pen(color: str, width: float = 1.5, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> Any:
    return pg.mkPen(QColor(color), width=width, style=style)


class RunPlots(QWidget):
    """The plots of the current run, below the transcript."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self.trace_id: str | None = None
        self.steps_x = np.zeros(0)
        self.values: np.ndarray | None = None
        self._hover_step: int | None = None
        self._sum_steps: Any = None
        self._fingerprint: tuple[object, ...] | None = None
        self._sum_values: dict[int, tuple[Any, Any]] = {}
        pal = self.palette()
        bg = pal.color(QPalette.ColorRole.Base)
        fg = pal.color(QPalette.ColorRole.Text)
        self._fg = fg
        self.glw = pg.GraphicsLayoutWidget(self)
        self.glw.setObjectName("runPlots")
        self.glw.setBackground(bg)
        self.glw.ci.setContentsMargins(4, 4, 8, 4)
        self.glw.ci.setSpacing(2)
        small = QFont(self.font())
        small.setPointSizeF(max(7.5, self.font().pointSizeF() - 1.5))
        self._small = small

        self.value_plot = self.glw.addPlot(row=0, col=0)
        self.tokens_plot = self.glw.addPlot(row=1, col=0)
        self.glw.ci.layout.setRowStretchFactor(0, 3)
        self.glw.ci.layout.setRowStretchFactor(1, 1)
        for p in (self.value_plot, self.tokens_plot):
            p.showGrid(x=True, y=True, alpha=0.15)
            p.setMouseEnabled(x=True, y=False)
            p.setMenuEnabled(False)
            p.hideButtons()
            for axis in ("left", "bottom"):
                ax = p.getAxis(axis)
                ax.setPen(pg.mkPen(fg))
                ax.setTextPen(pg.mkPen(fg))
                ax.setStyle(tickFont=small)
            p.getAxis("left").setWidth(52)
        self.tokens_plot.setXLink(self.value_plot)
        self.value_plot.getAxis("bottom").setStyle(showValues=False)
        self.value_plot.setLabel("left", self.tr("value"), **{"font-size": f"{small.pointSizeF()}pt"})
        self.tokens_plot.setLabel("left", self.tr("tokens"), **{"font-size": f"{small.pointSizeF()}pt"})
        self.tokens_plot.setLabel("bottom", self.tr("step"), **{"font-size": f"{small.pointSizeF()}pt"})
        self.value_plot.setYRange(0, 1.08, padding=0)
        self.legend = self.value_plot.addLegend(offset=(-8, 4), labelTextSize=f"{small.pointSizeF()}pt",
                                                labelTextColor=fg, brush=pg.mkBrush(QColor(bg.red(), bg.green(), bg.blue(), 200)))
        self.legend.setColumnCount(4)
        self.cursor_lines = [pg.InfiniteLine(angle=90, movable=False, pen=_pen("#3D7DD8", 1.2)) for _ in range(2)]
        self.chain: CausalChain | None = None
        self.chain_items: list[Any] = []
        self.message = QLabel(self)
        self.message.setObjectName("plotMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setEnabled(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.glw, 1)
        lay.addWidget(self.message)

        self.glw.scene().sigMouseClicked.connect(self._on_click)
        self.glw.scene().sigMouseMoved.connect(self._on_move)
        bridge.selectionChanged.connect(self._apply_selection)
        bridge.analysisChanged.connect(self._analysis_changed)
        bridge.tracesChanged.connect(self._traces_changed)
        self.redraw()

    # drawing ---------------------------------------------------------------------------
    def _analysis_changed(self) -> None:
        if self.trace_id is None or analysis_fingerprint(self.session, self.trace_id) != self._fingerprint:
            self.redraw()

    def _traces_changed(self) -> None:
        if self.trace_id is not None and self.session.run_row(self.trace_id) is None:
            self.trace_id = None
            self.redraw()

    def redraw(self) -> None:
        """Redraw every plot for the current run."""
        for p in (self.value_plot, self.tokens_plot):
            p.clear()
        self.legend.clear()
        self.chain = None
        self.chain_items = []
        tid = self.trace_id
        if tid is None:
            self.steps_x = np.zeros(0)
            self.values = None
            self.message.setText(self.tr("Select a run to plot its value curve."))
            self.message.show()
            return
        self._fingerprint = analysis_fingerprint(self.session, tid)
        steps = self.session.run_steps(tid)
        values = self.session.run_step_values(tid)
        findings = self.session.run_findings(tid)
        run = self.session.run_row(tid) or {}
        n = steps.height
        x = steps["step"].to_numpy().astype(float) if n else np.zeros(0)
        self.steps_x = x
        self._make_summaries(steps, values)
        self.value_plot.setLimits(xMin=-1.5, xMax=max(n, 1) + 0.5, yMin=-0.05, yMax=1.15)
        self.tokens_plot.setLimits(xMin=-1.5, xMax=max(n, 1) + 0.5)
        self.value_plot.setXRange(-0.5, max(n - 0.5, 0.5), padding=0.01)
        self.value_plot.setYRange(0, 1.08, padding=0)

        has_values = values.height > 0 and values["value"].drop_nulls().len() > 0
        if has_values:
            vmap = dict(zip(values["step"].to_list(), values["value"].to_list(), strict=False))
            v = np.array([vmap.get(int(s)) if vmap.get(int(s)) is not None else np.nan for s in x], dtype=float)
            self.values = v
            self._draw_drops(values)
            self.value_plot.plot(x, v, pen=_pen(VALUE_CURVE, 2.2), symbol="o", symbolSize=5,
                                 symbolBrush=QColor(VALUE_CURVE), symbolPen=None, name=self.tr("value"))
            if "judge_value" in values.columns and values["judge_value"].drop_nulls().len():
                jmap = dict(zip(values["step"].to_list(), values["judge_value"].to_list(), strict=False))
                jv = np.array([jmap.get(int(s)) if jmap.get(int(s)) is not None else np.nan for s in x], dtype=float)
                self.value_plot.plot(x, jv, pen=_pen(JUDGE_CURVE, 1.6, Qt.PenStyle.DashLine), name=self.tr("judge value"))
            if "alignment" in values.columns and values["alignment"].drop_nulls().len():
                amap = dict(zip(values["step"].to_list(), values["alignment"].to_list(), strict=False))
                av = np.array([amap.get(int(s)) if amap.get(int(s)) is not None else np.nan for s in x], dtype=float)
                self.value_plot.plot(x, np.clip(av, 0, 1), pen=_pen(ALIGNMENT_CURVE, 1.4, Qt.PenStyle.DashLine),
                                     name=self.tr("task alignment"))
            self.message.hide()
        else:
            self.values = None
            self.message.setText(self.tr("Not analysed yet: Analysis ▸ Analyze selected runs (Ctrl+R) draws the value curve."))
            self.message.show()

        self._draw_markers(steps, findings, run)
        self._draw_signals(values, run)
        self._draw_chain(tid, steps, findings, values, run)
        self._draw_tokens(steps, values)
        for line, plot in zip(self.cursor_lines, (self.value_plot, self.tokens_plot), strict=True):
            plot.addItem(line, ignoreBounds=True)
            line.setVisible(False)
        self._apply_selection(self.session.selection)

    def _make_summaries(self, steps: Any, values: Any) -> None:
        self._sum_steps = steps.select("step", "agent", "kind", "text", "tool_name")
        self._sum_values = ({int(s): (v, d) for s, v, d in values.select("step", "value", "drop").iter_rows()}
                            if values.height else {})

    def _summary(self, idx: int) -> str:
        steps = self._sum_steps
        if steps is None or not 0 <= idx < steps.height:
            return ""
        s, agent, kind, text, tool = steps.row(idx)
        body = (text or "").strip().replace("\n", " ")
        if tool:
            body = f"{tool}: {body}"
        body = body if len(body) < 180 else body[:179] + "…"
        line = f"#{s} · {agent or ''} ({kind})\n{body}"
        v, d = self._sum_values.get(int(s), (None, None))
        if v is not None:
            line += "\n" + self.tr("value {v:.2f}").format(v=v)
            if d:
                line += "  " + self.tr("drop {d:.2f}").format(d=d)
        return line

    def _draw_drops(self, values: Any) -> None:
        drops = values.select("step", "drop", "value").filter(
            pl.col("drop").is_not_null() & (pl.col("drop") >= DROP_SHADE))
        if drops.height == 0:
            return
        xs = drops["step"].to_numpy().astype(float)
        bars = pg.BarGraphItem(x0=xs - 1, x1=xs, y0=np.zeros(len(xs)), height=np.full(len(xs), 1.08),
                               brush=pg.mkBrush(214, 69, 69, 38), pen=pg.mkPen(None))
        self.value_plot.addItem(bars)
        top = drops.sort("drop", descending=True).head(DROP_LABELS)
        for s, d, v in top.select("step", "drop", "value").iter_rows():
            label = pg.TextItem(f"−{d:.2f}", color=QColor(DECISIVE), anchor=(0.5, 1.2))
            label.setFont(self._small)
            label.setPos(float(s), float(v if v is not None else 0.5) + d)
            self.value_plot.addItem(label, ignoreBounds=True)

    def _draw_markers(self, steps: Any, findings: Any, run: dict[str, Any]) -> None:
        errs = steps.filter(steps["is_error"].fill_null(False))["step"].to_numpy().astype(float) if steps.height else []
        if len(errs):
            self.value_plot.addItem(pg.ScatterPlotItem(x=errs, y=np.full(len(errs), 0.03), symbol="x", size=11,
                                                       pen=_pen(ERROR, 2.0), brush=QColor(ERROR), name=self.tr("error")))
        if findings.height:
            fx = findings["step"].to_numpy().astype(float)
            brushes = [pg.mkBrush(category_color(c)) for c in findings["category"].to_list()]
            self.value_plot.addItem(pg.ScatterPlotItem(x=fx, y=np.full(len(fx), 1.04), symbol="t", size=10,
                                                       pen=pg.mkPen(QColor(0, 0, 0, 90)), brush=brushes))
        decisive = run.get("decisive_step")
        unsure = uncertain_steps(run.get("decisive_uncertain"))
        if unsure:  # the ranker does not know: a light dashed line at each of the likeliest steps
            for i, s in enumerate(unsure):
                line = pg.InfiniteLine(pos=float(s), angle=90, movable=False, pen=_pen(CANDIDATE, 1.3, Qt.PenStyle.DashLine),
                                       label=self.tr("uncertain") if i == 0 else None,
                                       labelOpts={"position": 0.42, "color": QColor(CANDIDATE),
                                                  "fill": pg.mkBrush(255, 255, 255, 0)})
                self.value_plot.addItem(line, ignoreBounds=True)
        elif decisive is not None:
            line = pg.InfiniteLine(pos=float(decisive), angle=90, movable=False, pen=_pen(DECISIVE, 1.6, Qt.PenStyle.DashLine),
                                   label=self.tr("decisive"), labelOpts={"position": 0.42, "color": QColor(DECISIVE),
                                                                          "fill": pg.mkBrush(255, 255, 255, 0)})
            self.value_plot.addItem(line, ignoreBounds=True)
        runners = [] if unsure else [t for t in parse_steps_list(run.get("top_steps")) if t != decisive]
        for i, s in enumerate(runners):
            if i >= 2:
                break
            self.value_plot.addItem(pg.InfiniteLine(pos=float(s), angle=90, movable=False,
                                                    pen=_pen(CANDIDATE, 1.0, Qt.PenStyle.DotLine)), ignoreBounds=True)
        gold = run.get("gold_decisive_step")
        if gold is not None:
            mark = pg.ScatterPlotItem(x=[float(gold)], y=[-0.0], symbol="star", size=13,
                                      pen=pg.mkPen(QColor("#6E7681")), brush=pg.mkBrush(QColor("#FFFFFF")))
            mark.setToolTip(self.tr("Decisive step labelled in the file"))
            self.value_plot.addItem(mark)

    def _draw_signals(self, values: Any, run: dict[str, Any]) -> None:
        """Overlays of the signal detectors on the value plot: cumulative risk and the missed check."""
        if "risk_cum" in values.columns and (values["risk_cum"].max() or 0) > 0:
            rx = values["step"].to_numpy().astype(float)
            ry = values["risk_cum"].fill_null(strategy="forward").fill_null(0.0).to_numpy().astype(float)
            self.value_plot.plot(rx, ry, pen=_pen(RISK_CURVE, 1.6), stepMode=None, name=self.tr("cumulative risk"))
        check = run.get("check_step")
        if check is not None:
            kind = str(run.get("check_kind") or "").replace("_", " ")
            line = pg.InfiniteLine(pos=float(check) + 0.5, angle=90, movable=False,
                                   pen=_pen(RISK_CURVE, 1.2, Qt.PenStyle.DashDotLine),
                                   label=self.tr("check: {kind}").format(kind=kind),
                                   labelOpts={"position": 0.3, "color": QColor(RISK_CURVE),
                                              "fill": pg.mkBrush(255, 255, 255, 0)})
            line.setToolTip(self.tr("A cheap {kind} check after this step would have shown the divergence "
                                    "{lead} steps before the failure").format(kind=kind, lead=run.get("check_lead")))
            self.value_plot.addItem(line, ignoreBounds=True)

    def _draw_waste(self, values: Any, x: Any, tokens: Any) -> None:
        """Token-track overlay: content re-sent although droppable (outlined) and wasted steps (circles)."""
        if values.height == 0:
            return
        pos = {int(s): i for i, s in enumerate(x)}
        if "droppable_tokens" in values.columns:
            rows = values.filter(pl.col("droppable_tokens").fill_null(0) > 0).select("step", "droppable_tokens")
            idx = [pos[int(s)] for s in rows["step"].to_list() if int(s) in pos]
            if idx:
                bars = pg.BarGraphItem(x=x[idx], height=tokens[idx], width=0.8, pen=_pen(CONTEXT_WASTE, 1.6),
                                       brush=pg.mkBrush(QColor(CONTEXT_WASTE), style=Qt.BrushStyle.BDiagPattern))
                total = int(rows["droppable_tokens"].sum())
                bars.setToolTip(self.tr("Re-sent although it could have been dropped: ≈ {n} tokens over the "
                                        "later model calls").format(n=f"{total:,}"))
                self.tokens_plot.addItem(bars)
        if "wasted" in values.columns:
            wasted = values.filter(pl.col("wasted").is_not_null())["step"].to_list()
            idx = [pos[int(s)] for s in wasted if int(s) in pos]
            if idx:
                self.tokens_plot.addItem(pg.ScatterPlotItem(
                    x=x[idx], y=tokens[idx], symbol="o", size=7, pen=_pen(CONTEXT_WASTE, 1.4),
                    brush=pg.mkBrush(255, 255, 255, 0)))

    def _draw_chain(self, tid: str, steps: Any, findings: Any, values: Any, run: dict[str, Any]) -> None:
        """Arrows of the run's causal chain (only failed runs with a decisive step)."""
        self.chain = None
        self.chain_items = []
        decisive = run.get("decisive_step")
        if decisive is None or run.get("outcome") == "success":
            return
        chain = causal_chain(tid, int(decisive), run.get("category"), steps, findings, values,
                             run.get("rationale"))  # type: ignore[arg-type]
        self.chain = chain
        color = QColor(IMPACT_COLORS.get(chain.impact, DECISIVE))
        for link in chain.links:
            y = CHAIN_LANES.get(link.level, 0.9)
            line = pg.PlotCurveItem(x=[float(link.source), float(link.target)], y=[y, y],
                                    pen=pg.mkPen(color, width=1.8))
            head = pg.ArrowItem(pos=(float(link.target), y), angle=180, headLen=11, tipAngle=35,
                                pen=pg.mkPen(color), brush=pg.mkBrush(color))
            tip = self.tr("{level}: step {source} → step {target} ({rule})\n{evidence}").format(
                level=self.tr("secondary") if link.level == "secondary" else self.tr("tertiary"),
                source=link.source, target=link.target, rule=link.rule, evidence=link.evidence)
            head.setToolTip(tip)
            for item in (line, head):
                self.value_plot.addItem(item, ignoreBounds=True)
                self.chain_items.append(item)
        end = chain.links[-1].target if chain.links else chain.primary_step
        impact = {"stopped": self.tr("stopped"), "degraded": self.tr("degraded"),
                  "recovered": self.tr("contained and recovered")}.get(chain.impact, chain.impact)
        label = pg.TextItem(impact, color=color, anchor=(0, 0.5))
        label.setFont(self._small)
        label.setToolTip(chain.impact_reason)
        label.setPos(float(end) + 0.2, CHAIN_LANES["secondary"])
        self.value_plot.addItem(label, ignoreBounds=True)
        self.chain_items.append(label)

    def _draw_tokens(self, steps: Any, values: Any = None) -> None:
        if steps.height == 0:
            return
        tin = steps["tokens_in"].fill_null(0).to_numpy()
        tout = steps["tokens_out"].fill_null(0).to_numpy()
        tokens = (tin + tout).astype(float)
        estimated = not tokens.any()
        if estimated:
            tokens = np.array([len(t or "") / 4.0 for t in steps["text"].to_list()], dtype=float)
            self.tokens_plot.setLabel("left", self.tr("≈ tokens"), **{"font-size": f"{self._small.pointSizeF()}pt"})
            self.tokens_plot.getAxis("left").setToolTip(self.tr("Token counts are missing from the file: estimated as text length / 4"))
        else:
            self.tokens_plot.setLabel("left", self.tr("tokens"), **{"font-size": f"{self._small.pointSizeF()}pt"})
            self.tokens_plot.getAxis("left").setToolTip("")
        roles = steps["role"].fill_null("").to_numpy()
        x = steps["step"].to_numpy().astype(float)
        for role in np.unique(roles):
            sel = roles == role
            self.tokens_plot.addItem(pg.BarGraphItem(x=x[sel], height=tokens[sel], width=0.8, pen=pg.mkPen(None),
                                                     brush=pg.mkBrush(QColor(ROLE_COLORS.get(str(role), "#8A8F98")))))
        errs = steps["is_error"].fill_null(False).to_numpy()
        if errs.any():
            self.tokens_plot.addItem(pg.ScatterPlotItem(x=x[errs], y=tokens[errs], symbol="x", size=8, pen=_pen(ERROR, 1.6)))
        if values is not None:
            self._draw_waste(values, x, tokens)
        self.tokens_plot.setYRange(0, float(tokens.max()) * 1.1 if tokens.size and tokens.max() > 0 else 1, padding=0)

    # selection --------------------------------------------------------------------------------
    def _apply_selection(self, sel: Selection) -> None:
        if sel.trace_id != self.trace_id:
            self.trace_id = sel.trace_id
            self.redraw()
            return
        for line in self.cursor_lines:
            if sel.step is None:
                line.setVisible(False)
            else:
                line.setPos(float(sel.step))
                line.setVisible(True)

    def step_at(self, scene_pos: QPointF) -> int | None:
        """Nearest step to a scene position inside one of the plots (None outside)."""
        if self.steps_x.size == 0:
            return None
        for plot in (self.value_plot, self.tokens_plot):
            vb = plot.getViewBox()
            if vb.sceneBoundingRect().contains(scene_pos):
                x = vb.mapSceneToView(scene_pos).x()
                i = int(np.argmin(np.abs(self.steps_x - x)))
                return int(self.steps_x[i])
        return None

    def _on_click(self, ev: Any) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        step = self.step_at(ev.scenePos())
        if step is not None:
            ev.accept()
            self.session.select(step=step, steps=(step,), finding=None)

    def _on_move(self, pos: QPointF) -> None:
        step = self.step_at(pos)
        if step is None:
            if self._hover_step is not None:
                QToolTip.hideText()
            self._hover_step = None
            return
        if step == self._hover_step:
            return
        self._hover_step = step
        text = self.hover_text(step)
        if text:
            QToolTip.showText(QCursor.pos(), text, self.glw)

    def hover_text(self, step: int) -> str:
        """Hover summary of a step."""
        return self._summary(int(np.searchsorted(self.steps_x, step)))

    def point_in_view(self, step: int) -> QPoint:
        """Widget coordinates (in the plot widget's viewport) of a step's value point (tests)."""
        y = 0.5
        if self.values is not None:
            idx = int(np.searchsorted(self.steps_x, step))
            if 0 <= idx < len(self.values) and not np.isnan(self.values[idx]):
                y = float(self.values[idx])
        scene = self.value_plot.getViewBox().mapViewToScene(QPointF(float(step), y))
        return self.glw.mapFromScene(scene)

