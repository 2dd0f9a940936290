"""Contrast tab: open it on a failed run, jump to the divergence and between differences, switch success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from PySide6.QtCore import Qt

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_reruns" / "retail_trials.json"


@pytest.fixture
def contrast_window(qtbot: Any, app: Any) -> Any:
    from analyzer.loading import load
    from analyzer.session import Session
    from ui.main_window import MainWindow

    session = Session()
    session.add_load_result(load([SAMPLE], cache=None))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w)
    w.resize(1500, 950)
    w.show()
    w.bridge.flush()
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


def _failed_with_two_successes(traces: pl.DataFrame) -> str:
    counts = traces.group_by("task_key").agg((pl.col("outcome") == "success").sum().alias("won"))
    keys = counts.filter(pl.col("won") >= 2)["task_key"].to_list()
    failed = traces.filter(pl.col("task_key").is_in(keys) & (pl.col("outcome") == "failure"))
    return str(failed["trace_id"][0])


def test_open_jump_and_switch_success(contrast_window: Any, qtbot: Any) -> None:
    w = contrast_window
    tid = _failed_with_two_successes(w.session.traces)
    w.session.select(trace_id=tid, trace_ids=(tid,))
    w.bridge.flush()
    w.act_tab_contrast.trigger()  # Ctrl+4
    v = w.contrast
    assert w.tabs.currentWidget() is v
    qtbot.waitUntil(lambda: v.contrast is not None and bool(v.rows), timeout=10000)
    assert v.picker.count() >= 2
    nearest = v.success_id
    # opened on the divergence: the one traces.csv gives for the nearest success
    from analyzer.contrast.corpus import contrast_corpus

    core = contrast_corpus(w.session.traces, w.session.steps).runs.filter(pl.col("trace_id") == tid).row(0, named=True)
    assert core["contrast_run"] == nearest
    div = v.divergence_row()
    assert div is not None and v.current_row == div
    assert v.rows[div].failed_step == core["divergence_step"]
    # D / Shift+D walk the differences from the table
    v.table.setFocus()
    v.go_to_row(0)
    qtbot.keyClick(v.table, Qt.Key.Key_D)
    assert v.current_row == v.differences[0]
    if len(v.differences) > 1:
        qtbot.keyClick(v.table, Qt.Key.Key_D)
        assert v.current_row == v.differences[1]
        qtbot.keyClick(v.table, Qt.Key.Key_D, Qt.KeyboardModifier.ShiftModifier)
        assert v.current_row == v.differences[0]
    v.div_btn.click()
    assert v.current_row == div
    # matched decisions are dimmed, the divergence is not
    same = [i for i, r in enumerate(v.rows) if r.status == "same"]
    m = v.table.model()
    assert same and m.data(m.index(same[0], 1), Qt.ItemDataRole.ForegroundRole).color().alpha() < 255
    assert m.data(m.index(div, 1), Qt.ItemDataRole.FontRole).bold()
    assert m.data(m.index(div, 0)).startswith("▶")
    # another success of the task
    other = v.picker.itemData(1)
    assert v.select_success(str(other))
    assert v.success_id == other != nearest
    qtbot.waitUntil(lambda: v.current_row is not None, timeout=5000)
    assert v.rows and all(r.success_step is None or r.success_step >= 0 for r in v.rows)


def test_a_success_or_a_task_without_success_says_why(contrast_window: Any) -> None:
    w = contrast_window
    ok = str(w.session.traces.filter(pl.col("outcome") == "success")["trace_id"][0])
    w.session.select(trace_id=ok, trace_ids=(ok,))
    w.bridge.flush()
    w.show_tab("contrast")
    assert w.contrast.contrast is None and w.contrast.table.model().rowCount() == 0
    assert "did not fail" in w.contrast.title.text()


def test_compare_tab_lists_tasks(contrast_window: Any, qtbot: Any) -> None:
    w = contrast_window
    w.show_tab("compare")
    qtbot.waitUntil(lambda: w.compare.tasks_table.rowCount() > 0, timeout=10000)
    t = w.compare.tasks_table
    assert t.rowCount() == w.session.traces["task_key"].n_unique()
    headers = [t.horizontalHeaderItem(i).text() for i in range(t.columnCount())]
    assert headers == ["Task", "Runs", "Successes", "Failures", "Models"]
    t.selectRow(1)
    key = t.item(1, 0).text()
    w.compare._filter_task()  # right-click ▸ Show only this task's runs
    assert w.session.filter.task_keys == (key,)
    assert set(w.session.filtered_runs()["task_key"].to_list()) == {key}
    w.compare._contrast_task(0)
    assert w.tabs.currentWidget() is w.contrast
