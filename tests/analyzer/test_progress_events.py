"""Per-judge-call progress: structured events with the run, the step and an ETA."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from analyzer.analysis.result import RunAnalysis
from analyzer.jobs import CancelFlag, EtaClock, EventProgress, ProgressEvent
from analyzer.loading import LoadResult, load
from analyzer.pipeline import AnalyzeOptions, analyze
from analyzer.schema.models import Trajectory

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


@pytest.fixture(scope="module")
def samples() -> LoadResult:
    return load([SAMPLES])


class StepJudge:
    """A judge whose value curve reports each step, as the llama judge does."""

    model_id = "step-judge@1"

    def candidate_scores(self, trajectory: Trajectory, steps: Sequence[int]) -> dict[int, float]:
        return {s: 0.5 for s in steps}

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        return {"goal_drift": 1.0, "other": 0.0}

    def value_curve(self, trajectory: Trajectory, progress: object = None, cancel: object = None) -> object:
        from analyzer.judge.base import ValueCurve

        n = len(trajectory.steps)
        for i in range(n):
            if callable(progress):
                progress(i + 1, n, "judge value curve")
        return ValueCurve(values=[0.5] * n, prior=0.6, model_id=self.model_id)


class Sink:
    """An EventProgress sink that records everything."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []
        self.events: list[ProgressEvent] = []

    def __call__(self, done: int, total: int, message: str = "") -> None:
        self.calls.append((done, total, message))

    def event(self, event: ProgressEvent) -> None:
        self.events.append(event)


def test_eta_clock_arithmetic() -> None:
    now = [100.0]
    clock = EtaClock(10, clock=lambda: now[0])
    assert clock.eta(0) is None  # nothing done yet: no made-up figure
    now[0] = 130.0
    assert clock.eta(2) == pytest.approx(120.0)  # 15 s per unit, 8 left
    assert clock.eta(2.5) == pytest.approx(30.0 * 7.5 / 2.5)
    assert clock.eta(10) == 0.0 and clock.eta(12) == 0.0


def test_a_plain_callable_is_not_an_event_sink() -> None:
    assert isinstance(Sink(), EventProgress)
    assert not isinstance(lambda d, t, m="": None, EventProgress)


def test_events_per_run_and_per_judge_call(samples: LoadResult) -> None:
    sink = Sink()
    res = analyze(samples.traces, samples.steps, judge=StepJudge(), progress=sink,
                  options=AnalyzeOptions(judge_classify="always", judge_curve=True))
    total = samples.traces.height
    runs = [e for e in sink.events if e.phase == "run"]
    assert [e.run for e in runs] == list(range(total))
    assert all(e.runs == total and e.run_label for e in runs)
    failed = res.runs.filter(res.runs["decisive_step"].is_not_null())
    category = [e for e in sink.events if e.phase == "judge_category"]
    assert len(category) == failed.height
    by_label = {e.run_label: e for e in runs}
    for e in category:  # the category call names the decisive step of its run
        assert e.step is not None and e.steps == by_label[e.run_label].steps
    curve = [e for e in sink.events if e.phase == "judge_value_curve"]
    assert curve, "failed runs get their value curve judged step by step"
    first = next(e for e in curve if e.step == 0)
    steps_of_first = [e.step for e in curve if e.run == first.run]
    assert steps_of_first == list(range(0, (first.steps or 0) + 1))  # before the first step, then after each
    calls = [e.judge_calls for e in sink.events if e.phase not in ("run", "done")]
    assert calls == sorted(calls) and calls[-1] == len(calls)
    assert sink.events[-1].phase == "done" and sink.events[-1].eta_seconds == 0.0
    later = [e for e in sink.events if e.run > 0 and e.eta_seconds is not None]
    assert later and all(e.eta_seconds >= 0 for e in later)
    # the (done, total, message) reports are unchanged
    assert [c[0] for c in sink.calls] == [*range(total), total]


def test_no_judge_sends_run_events_only(samples: LoadResult) -> None:
    sink = Sink()
    analyze(samples.traces, samples.steps, progress=sink)
    assert {e.phase for e in sink.events} == {"run", "done"}


def test_cancel_during_the_last_run_marks_the_result_cancelled(samples: LoadResult) -> None:
    flag = CancelFlag()
    failed = samples.traces.filter(samples.traces["outcome"] == "failure").head(1)
    steps = samples.steps.filter(samples.steps["trace_id"].is_in(failed["trace_id"].implode()))

    class Cancelling(StepJudge):
        def value_curve(self, trajectory: Trajectory, progress: object = None, cancel: object = None) -> object:
            from analyzer.jobs import Cancelled

            flag.cancel()
            raise Cancelled("judge value curve cancelled")

    seen: list[RunAnalysis] = []
    res = analyze(failed, steps, judge=Cancelling(), cancel=flag, on_run=seen.append,
                  options=AnalyzeOptions(judge_curve=True))
    assert res.cancelled and len(seen) == 1  # the cheap analysis of the run is kept
    assert res.step_values["judge_value"].null_count() == res.step_values.height
