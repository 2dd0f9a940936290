"""Compare tab: alias merge/split (and models.csv), n and "too few runs", the paired view, the horizon axis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from paired_fixture import A, B, paired_frames
from PySide6.QtCore import Qt


@pytest.fixture
def fixture_window(qtbot: Any, app: Any, tmp_path: Path) -> Any:
    from analyzer.loading.loader import LoadResult
    from analyzer.session import Session
    from ui.main_window import MainWindow

    traces, steps = paired_frames()
    session = Session()
    session.add_load_result(LoadResult(traces=traces, steps=steps))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w)
    w.resize(1500, 950)
    w.show()
    assert w.tagging.open_workspace(tmp_path / "compare.trajscope")
    w.bridge.flush()
    assert w.show_tab("compare")
    qtbot.waitUntil(lambda: w.compare.metrics is not None, timeout=5000)
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


def _models_csv(w: Any, out: Path) -> dict[str, dict[str, Any]]:
    from ui.analysis_store import window_aliases
    from ui.dialogs.export_dialog import ExportRequest, run_export

    res = run_export(ExportRequest(out_dir=out, tables=("csv",), reports=()), w.session.traces, w.session.steps,
                     None, None, aliases=window_aliases(w))
    assert not res.errors
    return {r["model"]: r for r in pl.read_csv(out / "models.csv").iter_rows(named=True)}


def test_paired_view_matches_the_hand_calculation(fixture_window: Any, qtbot: Any) -> None:
    w = fixture_window
    c = w.compare
    # provider prefixes are gone: two groups, each with its n, both below the default minimum of 10
    assert sorted(c.all_groups) == sorted([A, B])
    assert dict(zip(c.metrics["model"].to_list(), c.metrics["runs"].to_list(), strict=True)) == {A: 9, B: 7}
    headers = [c.table.horizontalHeaderItem(i).text() for i in range(c.table.columnCount())]
    assert "n (runs)" in headers
    col = headers.index("Sample")
    assert {c.table.item(r, col).text() for r in range(c.table.rowCount())} == {"too few runs"}
    assert not c.paired.table.isVisible() and "Select two models" in c.paired.summary.text()
    c.select_rows([A, B])
    pc = c.paired.result
    assert pc is not None and (pc.model_a, pc.model_b) == (A, B)
    # the hand calculation is in tests/analyzer/test_paired.py: 4 wins, 1 loss, 2 ties, p = 2 * 6 / 32
    assert (pc.wins, pc.losses, pc.ties, pc.shared) == (4, 1, 2, 7)
    assert pc.p_value == pytest.approx(0.375)
    text = c.paired.summary.text()
    assert "Wins 4 · losses 1 · ties 2" in text and "p = 0.375" in text and "+42.9%" in text
    assert f"[{pc.diff_low:+.1%}, {pc.diff_high:+.1%}]" in text
    tasks = [c.paired.table.item(r, 0).text() for r in range(c.paired.table.rowCount())]
    assert tasks == ["t2", "t3", "t4", "t7", "t5"]
    assert c.paired.table.item(4, 1).text() == B and c.paired.table.columnCount() == 2  # t5: only B passed
    # clicking a task opens both runs side by side and selects them
    rect = c.paired.table.visualItemRect(c.paired.table.item(4, 0))
    qtbot.mouseClick(c.paired.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    dlg = c.paired.dialog
    assert dlg is not None and dlg.isVisible() and dlg.runs == ("a5", "b5")
    assert "a5 step 0: gave up" in dlg.left.toPlainText() and "b5 step 1: done" in dlg.right.toPlainText()
    assert w.session.selection.trace_ids == ("a5", "b5")
    dlg.close()


def test_alias_merge_and_split_in_the_compare_tab_change_models_csv(fixture_window: Any, tmp_path: Path) -> None:
    w = fixture_window
    c = w.compare
    before = _models_csv(w, tmp_path / "before")
    assert sorted(before) == sorted([A, B]) and before[A]["names"] == "o4-mini; openai/o4-mini"
    c.select_rows([A, B])
    assert c.merge_btn.isEnabled()
    assert c.merge([A, B], "all models")
    assert c.all_groups == ["all models"] and c.metrics["runs"][0] == 16
    merged = _models_csv(w, tmp_path / "merged")
    assert list(merged) == ["all models"] and merged["all models"]["runs"] == 16
    # split it again: every raw name counts on its own, prefixes included
    c.select_rows(["all models"])
    assert c.split_btn.isEnabled()
    assert c.split_selected()
    split = _models_csv(w, tmp_path / "split")
    assert sorted(split) == sorted(["o4-mini", "openai/o4-mini", B, "anthropic/claude-3-7-sonnet-20250219"])
    assert split["openai/o4-mini"]["runs"] == 1 and split["o4-mini"]["runs"] == 8


def test_horizon_axis_fits_the_bulk_and_marks_outliers(fixture_window: Any) -> None:
    from analyzer.metrics.reliability import length_axis

    span, outliers = length_axis([10] * 40 + [5000])
    assert span == 15 and outliers == [5000]
    assert length_axis([]) == (10, [])
    w = fixture_window
    w.session.traces = w.session.traces.with_columns(
        pl.when(pl.col("trace_id") == "a1").then(5000).otherwise(pl.col("n_steps")).alias("n_steps"))
    w.compare.refresh()
    _x0, x1 = w.compare.horizon_plot.viewRange()[0]
    assert x1 < 100 and w.compare.outliers == [5000]
