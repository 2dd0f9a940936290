"""The analyst's outcome (Shift+F / Shift+S / Shift+U) with undo, a restart, the export; the
judge value curve on a run with no recorded outcome starts, or says why it cannot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
from judge_stub import StubJudge
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tagging_helpers import make_window

from analyzer.export.tables import run_table
from ui.models.runs_table import COLUMNS

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
N_RUNS = 12


def write_unknown_runs(folder: Path, n: int = N_RUNS) -> Path:
    """``n`` generic-JSONL runs without a recorded outcome: even ones give up after errors, odd ones finish."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "runs.jsonl"
    lines = []
    for i in range(n):
        tid = f"run-{i:03d}"
        bad = i % 2 == 0
        steps = [("assistant", "action", f"run {i}: pytest -q", False),
                 ("tool", "observation", "ImportError: cannot import name 'x'" if bad else "collected 7 items", bad),
                 ("assistant", "action", "pip install x" if bad else "edit src/app.py", False),
                 ("tool", "observation", "ERROR: No matching distribution found for x" if bad else "7 passed", bad),
                 ("assistant", "message", "I'm sorry, I was unable to complete the task." if bad
                  else "Fixed the bug; all tests pass now.", False)]
        for s, (role, kind, text, err) in enumerate(steps):
            row: dict[str, Any] = {"schema_version": "1.0", "trace_id": tid, "step": s, "agent": "agent",
                                   "role": role, "kind": kind, "text": text, "is_error": err}
            if s == 0:
                row.update({"task": f"Task {i}: make the test suite pass", "model": "model-a"})
            lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _outcomes(w: Any) -> dict[str, tuple[str, str | None]]:
    view = w.session.runs_view()
    return {r["trace_id"]: (r["outcome"], r["outcome_source"]) for r in view.iter_rows(named=True)}


def _focus(qtbot: Any, widget: Any) -> None:
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=3000)


def test_bulk_outcome_marking_with_undo_survives_a_restart(qtbot: Any, app: Any, tmp_path: Path) -> None:
    traces = write_unknown_runs(tmp_path / "traces")
    ws_path = tmp_path / "outcomes.trajscope"
    w = make_window(qtbot, ws_path, traces)
    table = w.runs_panel.table
    assert w.runs_panel.model.rowCount() == N_RUNS
    # nothing is recorded: every run has an estimate, shown as "likely failed (0.xx)" / "likely passed (0.xx)"
    before = _outcomes(w)
    assert {src for _o, src in before.values()} == {"estimate"}
    col = [c.key for c in COLUMNS].index("outcome")
    shown = {w.runs_panel.model.index(r, col).data() for r in range(N_RUNS)}
    assert "failure?" in shown, shown  # compact in the table; the tooltip says "likely failed (0.xx)"
    tip = w.runs_panel.model.index(0, col).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("likely ") and "P(failed) = " in tip
    likely_failed = sum(o == "failure" for o, _s in before.values())
    if likely_failed:
        assert f"{likely_failed} failed ({likely_failed} likely)" in w.count_failed.text()

    # every run: Shift+F
    _focus(qtbot, table)
    qtbot.keyClick(table, Qt.Key.Key_A, CTRL)
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == N_RUNS, timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_F, SHIFT)
    assert set(_outcomes(w).values()) == {("failure", "analyst")}
    qtbot.waitUntil(lambda: w.count_failed.text() == f"{N_RUNS} failed", timeout=3000)
    assert w.runs_panel.model.index(0, col).data() == "failure ✎"
    assert "Outcome failure" in w.tagging.act_undo.text()

    # three runs: Shift+S, then one of them Shift+U
    w.runs_panel.select_row(0)
    for _ in range(2):
        qtbot.keyClick(table, Qt.Key.Key_Down, SHIFT)
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == 3, timeout=3000)
    three = set(w.session.selection.trace_ids)
    qtbot.keyClick(table, Qt.Key.Key_S, SHIFT)
    now = _outcomes(w)
    assert {t for t, (o, _s) in now.items() if o == "success"} == three
    qtbot.waitUntil(lambda: w.count_failed.text() == f"{N_RUNS - 3} failed", timeout=3000)
    # undo (Ctrl+Z) brings the failures back; redo (Ctrl+Shift+Z) the successes
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL)
    assert set(_outcomes(w).values()) == {("failure", "analyst")}
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL | SHIFT)
    assert {t for t, (o, _s) in _outcomes(w).items() if o == "success"} == three
    one = sorted(three)[0]
    w.runs_panel.select_row(w.runs_panel.model.frame["trace_id"].to_list().index(one))
    qtbot.waitUntil(lambda: w.session.selection.trace_ids == (one,), timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_U, SHIFT)
    expected = _outcomes(w)
    assert expected[one] == ("unknown", "analyst")
    ws = w.tagging.workspace
    stored = ws.analyst_outcomes()
    w.close()
    ws.close()

    # a brand-new window and session on the same workspace: every outcome is back, and counted
    w2 = make_window(qtbot, ws_path, traces)
    assert _outcomes(w2) == expected
    assert w2.tagging.workspace.analyst_outcomes() == stored
    assert w2.count_failed.text() == f"{N_RUNS - 3} failed"
    table2 = run_table(w2.session.traces, None, w2.session.annotations, w2.session.steps)
    row = table2.filter(pl.col("trace_id") == one).row(0, named=True)
    assert (row["outcome"], row["outcome_source"], row["outcome_recorded"], row["outcome_analyst"]) == (
        "unknown", "analyst", "unknown", "unknown")
    assert row["outcome_p_failed"] is not None  # the estimate is still there to read
    w2.jobs.cancel_all()
    w2.jobs.wait(30000)




def test_judge_value_curve_on_a_run_without_recorded_outcome(qtbot: Any, app: Any, tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    from ui import settings as ui_settings
    from ui.dialogs.judge_dialog import store_choice

    ui_settings.set_str("analysis/use_embedder", "0")
    monkeypatch.setattr("ui.workers.resolve_judge", lambda choice: StubJudge())
    store_choice(True, None)
    w = make_window(qtbot, tmp_path / "w.trajscope", write_unknown_runs(tmp_path / "traces", 4))
    view = w.session.runs_view()
    failed = view.filter(pl.col("outcome") == "failure")
    assert failed.height and set(failed["outcome_source"]) == {"estimate"}  # likely failed, nothing recorded
    tid = str(failed["trace_id"][0])
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    job = w.judge_curve_current()
    assert job is not None  # it starts
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=60000)
    w.bridge.flush()
    values = w.session.run_step_values(tid)
    assert values["judge_value"].drop_nulls().len() == values.height > 0
    rationale = w.session.run_row(tid)["rationale"] or ""
    assert "likely failed" in rationale  # the analysis says the failure is an estimate

    # a run the estimate calls likely passed: the curve does not start, and the message bar says why
    ok = view.filter((pl.col("outcome") == "success") & (pl.col("outcome_source") == "estimate"))
    assert ok.height
    other = str(ok["trace_id"][0])
    w.session.select(trace_ids=(other,), trace_id=other)
    w.bridge.flush()
    assert w.judge_curve_current() is None
    assert any("likely passed" in t and "Shift+F" in t for t in w.message_bar.texts())
    # the analyst says it failed: now it starts
    w.tagging.set_outcome("failure", [other])
    assert w.judge_curve_current() is not None
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=60000)
    w.jobs.cancel_all()
    w.jobs.wait(30000)
