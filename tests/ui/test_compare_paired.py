"""Compare tab: alias merge/split (and models.csv), n and "too few runs", the paired view, the horizon axis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from paired_fixture import B_RAW, A, B, paired_frames
from PySide6.QtCore import Qt


def _compare_window(qtbot: Any, traces: pl.DataFrame, steps: pl.DataFrame, workspace: Path) -> Iterator[Any]:
    """A main window on these runs with a workspace open and the Compare tab shown (closed after)."""
    from analyzer.loading.loader import LoadResult
    from analyzer.session import Session
    from ui.main_window import MainWindow

    session = Session()
    session.add_load_result(LoadResult(traces=traces, steps=steps))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w)
    w.resize(1500, 950)
    w.show()
    assert w.tagging.open_workspace(workspace)
    w.bridge.flush()
    assert w.show_tab("compare")
    qtbot.waitUntil(lambda: w.compare.metrics is not None, timeout=5000)
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


@pytest.fixture
def fixture_window(qtbot: Any, app: Any, tmp_path: Path) -> Any:
    traces, steps = paired_frames()
    yield from _compare_window(qtbot, traces, steps, tmp_path / "compare.trajscope")


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
    assert sorted(split) == sorted(["o4-mini", "openai/o4-mini", B_RAW, "anthropic/claude-3-7-sonnet-20250219"])
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


@pytest.fixture
def dated_window(qtbot: Any, app: Any, tmp_path: Path) -> Any:
    """Dated and undated spellings of two models, and runs that record no model."""
    from analyzer.frames.build import frame_from_rows
    from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS

    models = (["gpt-4o-mini"] * 3 + ["gpt-4o-mini-2024-07-18"] * 2 + ["claude-sonnet-4-5-20250929"] * 2
              + ["anthropic/claude-sonnet-4-5"] + [None] * 4)
    traces = frame_from_rows([
        {"trace_id": f"r{i}", "native_id": f"t{i}", "model": m, "outcome": "success" if i % 3 else "failure",
         "n_steps": 2, "task": "a task", "source_file": f"/fixture/r{i}.json", "record": "$"}
        for i, m in enumerate(models)], TRACE_COLUMNS)
    steps = frame_from_rows([{"trace_id": f"r{i}", "step": s, "agent": "agent", "role": "assistant", "kind": "message",
                              "text": "step", "is_error": False} for i in range(len(models)) for s in range(2)],
                            STEP_COLUMNS)
    yield from _compare_window(qtbot, traces, steps, tmp_path / "dated.trajscope")


def _rows(c: Any) -> dict[str, dict[str, str]]:
    headers = [c.table.horizontalHeaderItem(i).text() for i in range(c.table.columnCount())]
    return {c.table.item(r, 0).text(): {h: c.table.item(r, i).text() for i, h in enumerate(headers)}
            for r in range(c.table.rowCount())}


def test_compare_alias_table_shows_the_folded_group_and_splits_it(dated_window: Any, tmp_path: Path) -> None:
    w = dated_window
    c = w.compare
    rows = _rows(c)
    # dated variants and provider prefixes are one model; "(unknown)" is a last row of its own, never ranked
    assert list(rows) == ["gpt-4o-mini", "claude-sonnet-4-5", "(unknown)"]
    assert rows["gpt-4o-mini"]["Grouped names"] == "automatic: gpt-4o-mini, gpt-4o-mini-2024-07-18"
    assert rows["gpt-4o-mini"]["n (runs)"] == "5"
    assert rows["claude-sonnet-4-5"]["Grouped names"] == \
        "automatic: anthropic/claude-sonnet-4-5, claude-sonnet-4-5-20250929"
    assert rows["(unknown)"]["n (runs)"] == "4" and rows["(unknown)"]["Sample"] == "not ranked"
    assert c.table.item(2, 0).font().italic()
    assert c.groups == ["gpt-4o-mini", "claude-sonnet-4-5"]  # drawn groups: "(unknown)" is not one
    assert "4 runs record no model" in c.note.text() and "2 groups" in c.note.text()
    # "(unknown)" cannot be merged, split or paired
    c.select_rows(["gpt-4o-mini", "(unknown)"])
    assert not c.merge_btn.isEnabled() and "not compared" in c.paired.summary.text()
    assert not c.merge(["gpt-4o-mini", "(unknown)"], "x") and not c.split_selected("(unknown)")
    # the analyst splits the automatic group; the split is kept in the workspace
    c.select_rows(["gpt-4o-mini"])
    assert c.split_btn.isEnabled() and c.split_selected()
    rows = _rows(c)
    assert rows["gpt-4o-mini"]["n (runs)"] == "3" and rows["gpt-4o-mini-2024-07-18"]["n (runs)"] == "2"
    assert rows["gpt-4o-mini"]["Grouped names"] == "" and list(rows)[-1] == "(unknown)"
    # another workspace folds them again; reopening this one brings the split back
    assert w.tagging.open_workspace(tmp_path / "other.trajscope")
    c.refresh()
    assert "gpt-4o-mini-2024-07-18" not in _rows(c)
    assert w.tagging.open_workspace(tmp_path / "dated.trajscope")
    c.refresh()
    assert {"gpt-4o-mini", "gpt-4o-mini-2024-07-18"} <= set(_rows(c))
    # merging by hand shows as an alias
    assert c.merge(["gpt-4o-mini", "gpt-4o-mini-2024-07-18"], "4o mini")
    assert _rows(c)["4o mini"]["Grouped names"] == "alias: gpt-4o-mini, gpt-4o-mini-2024-07-18"
