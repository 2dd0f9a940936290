"""The run plots show the signal-detector overlays (risk curve, missed check, re-sent context, waste)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pytest

from analyzer.loading import load
from analyzer.pipeline import analyze
from analyzer.session import Session
from ui.bridge import SessionBridge
from ui.views.plots import RunPlots

SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "signals"


@pytest.fixture
def plots(qtbot: Any, app: Any) -> tuple[RunPlots, Session]:
    session = Session()
    session.add_load_result(load([SAMPLE], cache=None))
    session.merge_analysis(analyze(session.traces, session.steps))
    bridge = SessionBridge(session)
    widget = RunPlots(session, bridge)
    widget._test_bridge = bridge  # type: ignore[attr-defined]
    qtbot.addWidget(widget)
    return widget, session


def _show(widget: RunPlots, session: Session, native: str) -> None:
    view = session.runs_view()
    tid = str(view.filter(view["native_id"] == native)["trace_id"][0])
    session.select(trace_ids=(tid,), trace_id=tid, step=None, steps=())
    widget._test_bridge.flush()  # type: ignore[attr-defined]
    assert widget.trace_id == tid


def test_risky_run_shows_risk_check_and_waste(plots: tuple[RunPlots, Session]) -> None:
    widget, session = plots
    _show(widget, session, "orders-export-flailing-failure")
    names = [item.name() for item in widget.value_plot.listDataItems()]
    assert "cumulative risk" in names
    labels = [i.toPlainText() for i in widget.value_plot.items if isinstance(i, pg.InfiniteLine)
              for i in i.childItems() if isinstance(i, pg.TextItem)]
    assert "check: test run" in labels
    hatched = [i for i in widget.tokens_plot.items if isinstance(i, pg.BarGraphItem)
               and "dropped" in (i.toolTip() or "")]
    assert len(hatched) == 1
    circles = [i for i in widget.tokens_plot.items if isinstance(i, pg.ScatterPlotItem)
               and i.opts.get("symbol") == "o"]
    assert [list(c.getData()[0]) for c in circles] == [[8.0]]  # the repeated read of step 8


def test_clean_run_has_no_overlays(plots: tuple[RunPlots, Session]) -> None:
    widget, session = plots
    _show(widget, session, "orders-export-short-success")
    assert "cumulative risk" not in [item.name() for item in widget.value_plot.listDataItems()]
    assert not [i for i in widget.tokens_plot.items if isinstance(i, pg.BarGraphItem) and "dropped" in (i.toolTip() or "")]
