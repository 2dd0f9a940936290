"""The status bar's jobs indicator: every job with what it does now, Cancel, and the auto-start setting."""

from __future__ import annotations

import threading
from typing import Any

import polars as pl
from PySide6.QtCore import Qt

from analyzer.jobs import Cancelled, ProgressEvent


class GatedJudge:
    """A Judge-protocol stand-in whose value curve reads one step, then waits until it is cancelled.

    Everything around it is real: the AnalyzeJob, the pipeline, the cancel token, the indicator.
    """

    model_id = "gated-judge@1"

    def __init__(self) -> None:
        self.reading = threading.Event()
        self.stopped = threading.Event()

    def candidate_scores(self, trajectory, steps):  # type: ignore[no-untyped-def]
        return {int(s): 0.5 for s in steps}

    def classify(self, trajectory, step):  # type: ignore[no-untyped-def]
        from analyzer.taxonomy import CATEGORY_IDS

        return {c: (0.9 if c == "failed_recovery" else 0.01) for c in CATEGORY_IDS}

    def value_curve(self, trajectory, progress=None, cancel=None):  # type: ignore[no-untyped-def]
        n = len(trajectory.steps)
        if progress is not None:
            progress(1, n, "judge value curve")
        self.reading.set()
        for _ in range(600):  # at most 60 s
            if cancel is not None and cancel.cancelled:
                self.stopped.set()
                raise Cancelled("judge value curve cancelled")
            threading.Event().wait(0.1)
        raise AssertionError("the job was never cancelled")


def _setup(monkeypatch: Any, judge: Any) -> None:
    from ui import settings as ui_settings
    from ui.dialogs.judge_dialog import store_choice

    ui_settings.set_str("analysis/use_embedder", "0")
    monkeypatch.setattr("ui.workers.resolve_judge", lambda choice: judge)
    store_choice(True, None)


def _failed_run(w: Any) -> str:
    return str(w.session.traces.filter(pl.col("outcome") == "failure").sort("n_steps", descending=True)["trace_id"][0])


def test_a_real_judge_curve_job_is_cancelled_through_the_jobs_list(loaded, qtbot, monkeypatch):
    judge = GatedJudge()
    _setup(monkeypatch, judge)
    w = loaded
    tid = _failed_run(w)
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    assert not w.jobs.running()  # auto-start is off by default: opening a run starts nothing
    finished: list[Any] = []
    job = w.act_judge_curve.trigger() or w.jobs.running("judge_curve")[0]
    job.signals.finished.connect(finished.append)
    qtbot.waitUntil(judge.reading.is_set, timeout=20000)
    ind = w.jobs_indicator
    # the label names the run, the step the judge reads and (once measurable) the time left
    qtbot.waitUntil(lambda: "judge value curve: step 1/" in ind.label.text(), timeout=5000)
    assert ind.label.text().startswith(f"Judge value curve of {tid[:12]}")
    assert " left" in ind.label.toolTip()
    assert ind.cancel_button.isVisible() and ind.jobs_button.text() == "Jobs (1) ▾"
    assert "judge call" in ind.cancel_button.toolTip()
    qtbot.mouseClick(ind.jobs_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(ind.jobs_list.isVisible, timeout=2000)
    row = ind.jobs_list.row_for(job)
    assert row is not None and row.isVisible()
    assert row.title.text().startswith("Judge value curve of") and "step 1/" in row.detail.text()
    qtbot.mouseClick(row.cancel, Qt.MouseButton.LeftButton)
    assert job.cancelling and not row.cancel.isEnabled()
    assert "cancelling" in row.detail.text()
    qtbot.waitUntil(judge.stopped.is_set, timeout=10000)
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=20000)
    w.bridge.flush()
    assert finished and finished[0].cancelled
    values = w.session.run_step_values(tid)
    assert values["judge_value"].drop_nulls().len() == 0  # nothing half-done was merged
    assert ind.label.isHidden() and ind.jobs_button.isHidden() and not ind.jobs_list.isVisible()


def test_auto_start_setting_and_two_jobs_in_one_list(loaded, qtbot, monkeypatch):
    from ui import settings as ui_settings

    judge = GatedJudge()
    _setup(monkeypatch, judge)
    ui_settings.set_str("jobs/auto_start", "1")
    w = loaded
    tid = _failed_run(w)
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    qtbot.waitUntil(lambda: bool(w.jobs.running("judge_curve")), timeout=5000)
    (curve,) = w.jobs.running("judge_curve")
    assert curve.background
    qtbot.waitUntil(judge.reading.is_set, timeout=20000)
    # the analyst starts an analysis of two runs: it waits for the judge and says so
    ids = w.session.traces["trace_id"].to_list()[:2]
    w.session.select(trace_ids=tuple(ids), trace_id=ids[0])
    analysis = w.analyze_selected()
    assert analysis is not None and len(w.jobs.running()) == 2
    ind = w.jobs_indicator
    assert ind.shown_job() is analysis  # the status bar shows what the analyst started
    qtbot.waitUntil(lambda: "waiting for another judge job" in ind.label.text(), timeout=10000)
    assert ind.jobs_button.text() == "Jobs (2) ▾"
    ind.toggle_list()
    titles = [t for t, _d in ind.texts()["rows"]]
    assert any("started on its own" in t for t in titles) and any(t.startswith("Analysing 2 runs") for t in titles)
    # cancelling the background job lets the analysis go on
    qtbot.mouseClick(ind.jobs_list.row_for(curve).cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=60000)
    w.bridge.flush()
    assert w.session.analysis.runs.filter(pl.col("trace_id").is_in(ids)).height == 2
    assert not w.session.analysis.cancelled


def test_event_text_names_run_step_and_eta(app):
    from ui.views.jobs_indicator import describe_event, format_eta

    ev = ProgressEvent("judge_category", 2, 60, "swe-123", step=14, steps=40, judge_calls=3, eta_seconds=250)
    assert describe_event(ev) == "run 3/60 · swe-123 · judge: category of step 14 · about 4 min left"
    assert format_eta(None) == "" and format_eta(12.2) == "about 12 s left"
    assert format_eta(7260) == "about 2 h 1 min left"
    cand = ProgressEvent("judge_candidates", 0, 1, "r", candidates=(4, 9), eta_seconds=None)
    assert describe_event(cand) == "judge: comparing steps 4, 9"  # a one-run job's title names the run


def test_a_new_job_does_not_wait_behind_jobs_that_fill_the_pool(app, qtbot):  # type: ignore[no-untyped-def]
    import threading

    from ui.workers import Job, JobRunner

    release = threading.Event()

    class Blocker(Job):
        kind = "block"

        def work(self) -> object:
            release.wait(30)
            return "blocked"

    class Quick(Job):
        kind = "quick"

        def work(self) -> object:
            return "quick"

    runner = JobRunner()
    before = runner.pool.maxThreadCount()
    try:
        blockers = [runner.start(Blocker()) for _ in range(runner.pool.maxThreadCount())]
        qtbot.waitUntil(lambda: runner.pool.activeThreadCount() >= len(blockers), timeout=5000)
        quick = Quick()
        with qtbot.waitSignal(quick.signals.finished, timeout=10_000) as got:
            runner.start(quick)
        assert got.args == ["quick"] and not release.is_set()  # the blockers still hold their threads
    finally:
        release.set()
        assert runner.wait(10_000)
        runner.pool.setMaxThreadCount(before)
