"""Qt-free session: runs view, filters (in polars), analyst labels, counts, selection."""

from __future__ import annotations

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, AnalysisResult
from analyzer.errors import LoadError
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ANNOTATION_COLUMNS, STEP_COLUMNS, TRACE_COLUMNS
from analyzer.loading.loader import LoadResult
from analyzer.session import RunFilter, Selection, Session, filter_runs, run_labels


def _session() -> Session:
    traces = frame_from_rows([
        {"trace_id": "a", "task": "Fix the parser", "model": "m1", "outcome": "failure", "n_steps": 3},
        {"trace_id": "b", "task": "Write a report", "model": "m2", "outcome": "success", "n_steps": 2},
        {"trace_id": "c", "task": "Sort the table", "model": "m1", "outcome": "failure", "n_steps": 1},
    ], TRACE_COLUMNS)
    steps = frame_from_rows([
        {"trace_id": "a", "step": 0, "text": "open file"}, {"trace_id": "a", "step": 1, "text": "ZEBRA stripes"},
        {"trace_id": "a", "step": 2, "text": "done"}, {"trace_id": "b", "step": 0, "text": "hello"},
        {"trace_id": "b", "step": 1, "text": "bye"}, {"trace_id": "c", "step": 0, "text": "x"},
    ], STEP_COLUMNS)
    s = Session()
    s.add_load_result(LoadResult(traces=traces, steps=steps,
                                 errors=[LoadError("bad.json", None, None, "not JSON")]))
    s.merge_analysis(AnalysisResult(runs=frame_from_rows([
        {"trace_id": "a", "decisive_step": 1, "category": "goal_drift", "confidence": 0.8, "value_estimator": "cheap"},
        {"trace_id": "c", "decisive_step": 0, "category": "other", "confidence": 0.3, "value_estimator": "cheap"},
    ], RUN_COLUMNS)))
    return s


def test_runs_view_has_every_column_even_before_analysis():
    s = Session()
    view = s.runs_view()
    for col in ("trace_id", "decisive_step", "category", "confidence", "tags", "analyst_status"):
        assert col in view.columns


def test_filter_runs_by_every_field():
    s = _session()
    view, steps = s.runs_view(), s.steps
    ids = lambda f: sorted(filter_runs(view, steps, f)["trace_id"].to_list())  # noqa: E731
    assert ids(RunFilter(outcomes=("failure",))) == ["a", "c"]
    assert ids(RunFilter(models=("m2",))) == ["b"]
    assert ids(RunFilter(categories=("goal_drift",))) == ["a"]
    assert ids(RunFilter(min_confidence=0.5)) == ["a"]
    assert ids(RunFilter(max_confidence=0.5)) == ["c"]
    assert ids(RunFilter(text="zebra")) == ["a"]  # step text, case-insensitive
    assert ids(RunFilter(text="report")) == ["b"]  # task text
    assert ids(RunFilter(text="a(b")) == []  # regex characters are literal


def test_filter_state_signal_and_counts():
    s = _session()
    fired = []
    s.filter_changed.connect(lambda: fired.append(1))
    s.set_filter(RunFilter(outcomes=("failure",)))
    s.set_filter(RunFilter(outcomes=("failure",)))
    assert fired == [1]
    c = s.counts()
    assert (c.runs, c.failed, c.analysed, c.load_problems, c.shown, c.tagged) == (3, 2, 2, 1, 2, 0)


def test_annotations_give_tags_and_status():
    s = _session()
    ann = frame_from_rows([
        {"trace_id": "a", "step": 1, "category": "goal_drift", "tags": "urgent, parser", "status": "accepted"},
        {"trace_id": "a", "step": 2, "category": "hallucination", "tags": "", "status": "decisive"},
        {"trace_id": "c", "step": 0, "category": "other", "tags": "", "status": "rejected"},
    ], ANNOTATION_COLUMNS)
    events = []
    s.annotations_changed.connect(lambda: events.append(1))
    s.set_annotations(ann)
    assert events == [1]
    labels = {r["trace_id"]: r for r in run_labels(ann).iter_rows(named=True)}
    assert labels["a"]["tags"] == "goal_drift, hallucination, parser, urgent"
    assert labels["a"]["analyst_status"] == "decisive"
    assert labels["c"]["tags"] is None and labels["c"]["analyst_status"] == "rejected"
    assert s.counts().tagged == 1
    assert sorted(filter_runs(s.runs_view(), s.steps, RunFilter(tags=("urgent",)))["trace_id"].to_list()) == ["a"]


def test_run_filter_json_roundtrip_and_bad_input():
    f = RunFilter(text="x", outcomes=("failure",), min_confidence=0.2)
    assert RunFilter.from_json(f.to_json()) == f
    assert RunFilter.from_json({"text": 3, "outcomes": "no", "min_confidence": "high"}) == RunFilter()
    assert RunFilter.from_json(None) == RunFilter()


def test_selection_resets_step_when_run_changes():
    s = _session()
    seen: list[Selection] = []
    s.selection_changed.connect(seen.append)
    s.select(trace_id="a", step=2, steps=(2,))
    s.select(trace_id="c")
    assert s.selection.step is None and s.selection.steps == ()
    s.select(trace_id="c")
    assert len(seen) == 2


def test_run_helpers_and_clear():
    s = _session()
    assert s.run_row("a")["category"] == "goal_drift"
    assert s.run_row("zzz") is None
    assert s.run_steps("a")["step"].to_list() == [0, 1, 2]
    assert "finding" in s.run_findings("a").columns
    s.clear()
    assert s.traces.height == 0 and s.load_errors == [] and s.analysis.runs.height == 0
    assert isinstance(s.runs_view(), pl.DataFrame)
