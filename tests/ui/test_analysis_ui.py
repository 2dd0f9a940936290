"""Analysis from the UI: a real cheap analysis run, and cancelling a (slow, fake) one midway."""

from __future__ import annotations

import threading
from typing import Any

import polars as pl
from judge_stub import StubJudge
from PySide6.QtCore import Qt

from analyzer.analysis.result import AnalysisResult, RunAnalysis


def test_real_analysis_from_ui_with_progress(loaded, qtbot):
    from ui import settings as ui_settings

    ui_settings.set_str("analysis/use_embedder", "0")  # lexical signals only: keeps the test fast
    w = loaded
    seen: list[tuple[str, int, int]] = []
    w.jobs.progress.connect(lambda kind, done, total, _m: seen.append((kind, done, total)))
    partial_counts: list[int] = []
    w.bridge.analysisChanged.connect(lambda: partial_counts.append(w.session.analysis.runs.height))
    job = w.act_analyze_all.trigger()
    assert job is None  # QAction.trigger returns nothing; the job runs in the pool
    qtbot.waitUntil(lambda: bool(w.jobs.running("analyze")) or w.session.analysis.runs.height > 0, timeout=5000)
    assert w.cancel_button.isVisible() or w.session.analysis.runs.height > 0
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=600000)
    w.bridge.flush()
    n = w.session.traces.height
    assert w.session.analysis.runs.height == n
    assert any(k == "analyze" and total == n for k, _d, total in seen)
    assert partial_counts and partial_counts[-1] == n
    view = w.session.runs_view()
    failed = view.filter(pl.col("outcome") == "failure")
    assert failed["decisive_step"].null_count() < failed.height
    assert any("Analysed" in t for t in w.message_bar.texts())
    # the table shows the analysis columns
    frame = w.runs_panel.model.frame
    assert frame["value_estimator"].null_count() == 0
    assert w.progress.isHidden() and not w.act_cancel.isEnabled()


def _fake_slow_analyze(started: threading.Event, gate: threading.Event, calls: dict[str, Any]):  # type: ignore[no-untyped-def]
    def analyze(traces, steps, *, judge=None, embedder=None, progress, cancel, on_run):  # type: ignore[no-untyped-def]
        ids = traces["trace_id"].to_list()
        calls["total"] = len(ids)
        runs = []
        cancelled = False
        for i, tid in enumerate(ids):
            if cancel.cancelled:
                cancelled = True
                break
            progress(i, len(ids), tid)
            ra = RunAnalysis(run={"trace_id": tid, "decisive_step": 0, "category": "other", "confidence": 0.5,
                                  "value_estimator": "cheap"},
                             steps=[{"trace_id": tid, "step": 0, "value": 0.5, "drop": 0.0}])
            runs.append(ra)
            on_run(ra)
            started.set()
            gate.wait(20)  # one run at a time, released by the test
        calls["analysed"] = len(runs)
        return AnalysisResult.from_runs(runs, cancelled=cancelled)

    return analyze


def test_cancel_analysis_midway(loaded, qtbot, monkeypatch):
    w = loaded
    started, gate, calls = threading.Event(), threading.Event(), {}
    fake = _fake_slow_analyze(started, gate, calls)
    monkeypatch.setattr("ui.workers.resolve_analyze", lambda: fake)
    monkeypatch.setattr("ui.main_window.resolve_analyze", lambda: fake)
    monkeypatch.setattr("ui.workers.resolve_embedder", lambda: None)
    w.analyze_all()
    qtbot.waitUntil(started.is_set, timeout=10000)
    # progress and Cancel are shown while it runs; the first run's result is already in
    qtbot.waitUntil(lambda: w.progress.isVisible() and w.cancel_button.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: w.session.analysis.runs.height == 1, timeout=5000)
    assert "Cancel stops after the current run" in w.progress.toolTip()
    qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=10000)
    w.bridge.flush()
    assert calls["analysed"] == 1 < calls["total"]
    assert w.session.analysis.runs.height == 1
    assert w.session.analysis.cancelled
    assert any("cancelled" in t for t in w.message_bar.texts())
    assert w.progress.isHidden() and w.cancel_button.isHidden()


def test_missing_analysis_engine_is_reported(loaded, monkeypatch):
    def missing() -> Any:
        raise ImportError("No module named 'analyzer.pipeline'")

    monkeypatch.setattr("ui.main_window.resolve_analyze", missing)
    assert loaded.analyze_all() is None
    assert any("not available" in t for t in loaded.message_bar.texts())


def test_judge_unavailable_falls_back_to_cheap(loaded, qtbot, monkeypatch, tmp_path):
    from analyzer.errors import ModelUnavailable

    def no_judge(choice: str | None) -> Any:
        raise ModelUnavailable(f"judge model file not found: {choice}")

    started, gate, calls = threading.Event(), threading.Event(), {}
    gate.set()
    fake = _fake_slow_analyze(started, gate, calls)
    monkeypatch.setattr("ui.workers.resolve_analyze", lambda: fake)
    monkeypatch.setattr("ui.main_window.resolve_analyze", lambda: fake)
    monkeypatch.setattr("ui.workers.resolve_embedder", lambda: None)
    monkeypatch.setattr("ui.workers.resolve_judge", no_judge)
    from ui.dialogs.judge_dialog import store_choice

    store_choice(True, str(tmp_path / "missing.gguf"))
    tid = loaded.session.traces["trace_id"][0]
    loaded.session.select(trace_ids=(tid,), trace_id=tid)
    loaded.analyze_selected()
    qtbot.waitUntil(lambda: not loaded.jobs.running(), timeout=10000)
    texts = loaded.message_bar.texts()
    assert any("judge model could not be loaded" in t and "missing.gguf" in t for t in texts)
    assert calls["analysed"] == 1




def test_opening_a_failed_run_computes_the_judge_curve_in_background(loaded, qtbot, monkeypatch):
    from ui import settings as ui_settings
    from ui.dialogs.judge_dialog import store_choice

    ui_settings.set_str("analysis/use_embedder", "0")
    ui_settings.set_str("jobs/auto_start", "1")  # off by default: opening a run starts nothing
    monkeypatch.setattr("ui.workers.resolve_judge", lambda choice: StubJudge())
    store_choice(True, None)
    w = loaded
    failed = w.session.traces.filter(pl.col("outcome") == "failure")["trace_id"][0]
    w.session.select(trace_ids=(failed,), trace_id=failed)
    w.bridge.flush()
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=60000)
    w.bridge.flush()
    values = w.session.run_step_values(failed)
    assert values["judge_value"].drop_nulls().len() == values.height > 0
    assert w.plots.trace_id == failed
    # the plot shows the judge curve next to the cheap one
    names = [item.name() for item in w.plots.value_plot.listDataItems()]
    assert "judge value" in names
