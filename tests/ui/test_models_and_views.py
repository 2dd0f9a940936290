"""Runs table model over 100,000 runs and the transcript over a 5,000-step run."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
from PySide6.QtCore import Qt

from analyzer.session import RunFilter, Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import ui_bench


def test_runs_table_model_over_100k_runs(qtbot, app):
    from ui.models.runs_table import COLUMNS, TRACE_ID_ROLE, RunsTableModel

    session = Session()
    session.add_load_result(ui_bench.many_runs(100_000, steps_per_run=1))
    model = RunsTableModel()
    model.set_frame(session.runs_view())
    assert model.rowCount() == 100_000 and model.columnCount() == len(COLUMNS)
    assert model._lists == {}  # nothing converted until painted
    task = [c.key for c in COLUMNS].index("task")
    idx = model.index(99_999, task)
    assert model.data(idx) and model.data(idx, Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(5, 0), TRACE_ID_ROLE) == "run-000005"
    assert model.headerData(task, Qt.Orientation.Horizontal) == "Task"
    assert model.rows_of(["run-000007", "run-099998"]) == [7, 99_998]
    # long text is elided in the cell, complete in the tooltip
    long = session.runs_view().head(1).with_columns(pl.lit("x" * 5000).alias("task"))
    model.set_frame(long)
    assert len(model.data(model.index(0, task))) <= 160
    assert len(model.data(model.index(0, task), Qt.ItemDataRole.ToolTipRole)) > 1000


def test_filtering_and_sorting_100k_runs_in_polars(qtbot, app):
    from ui.main_window import MainWindow

    session = Session()
    session.add_load_result(ui_bench.many_runs(100_000, steps_per_run=2))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w)
    w.bridge.flush()
    panel = w.runs_panel
    panel.sort_by("n_steps", descending=True)
    steps = panel.model.frame["n_steps"]
    assert steps.is_sorted(descending=True)
    session.set_filter(RunFilter(outcomes=("failure",), models=("o4-mini",)))
    w.bridge.flush()
    frame = panel.model.frame
    assert frame.height == session.runs_view().filter((pl.col("outcome") == "failure") & (pl.col("model") == "o4-mini")).height
    assert frame["n_steps"].is_sorted(descending=True)
    # multi-select across the big table
    panel.table.selectAll()
    w.bridge.flush()
    assert len(session.selection.trace_ids) == frame.height


def test_transcript_shows_a_5000_step_run(qtbot, app):
    from ui.main_window import MainWindow

    session = Session()
    res, analysis = ui_bench.long_run(5000)
    session.add_load_result(res)
    session.merge_analysis(analysis)
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    session.select(trace_ids=("long-run-5000",), trace_id="long-run-5000", step=1234, steps=(1234,))
    w.bridge.flush()
    t = w.transcript
    assert t.model.rowCount() == 5000
    assert t.list.currentIndex().row() == 1234
    assert t.model.card(1234).rank == 1  # decisive step marked
    assert (t.model.card(2000).rank, t.model.card(40).rank) == (2, 3)  # the runner-up candidates
    assert w.plots.values is not None and len(w.plots.values) == 5000
    # the decisive card is visible (scrolled to) and painting measured its exact height
    rect = t.list.visualRect(t.model.index(1234))
    assert t.list.viewport().rect().intersects(rect)
    w.grab()
    card = t.model.card(1234)
    assert card.layouts
    # J moves one step, across the whole run
    w.act_next_step.trigger()
    w.bridge.flush()
    assert session.selection.step == 1235
