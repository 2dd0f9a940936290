"""Judge-vs-analyst agreement counts the analyst's decisive-failure label, not every accepted finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.analysis.result import RUN_COLUMNS
from analyzer.frames.build import frame_from_rows
from analyzer.workspace import Workspace, judge_analyst_agreement

RUNS = frame_from_rows([
    {"trace_id": "r1", "decisive_step": 7, "category": "goal_drift"},
    {"trace_id": "r2", "decisive_step": 4, "category": "hallucination"},
    {"trace_id": "r3", "decisive_step": 2, "category": "planning_error"},
], RUN_COLUMNS)


def test_accepting_a_finding_elsewhere_does_not_label_the_run(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.db")
    ws.accept([("r1", 3, "repeated_action")])  # a real but non-decisive finding, accepted first
    ws.accept([("r1", 7, "goal_drift")])  # the suggested decisive step and category
    ag = judge_analyst_agreement(RUNS, ws.annotations_frame())
    assert ag.n == 1 and ag.observed == 1.0
    assert ag.step_agreement == 1.0  # accepting on the judge's decisive step accepts that step


def test_relabel_reject_and_run_level_labels(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.db")
    ws.set_category([("r1", 7)], "evidence_action_gap")  # relabelled on the decisive step: disagreement
    ws.reject([("r2", 4)])  # rejected without a category: not comparable
    ws.set_category([("r3", None)], "planning_error")  # a run-level label: agreement, no step
    ag = judge_analyst_agreement(RUNS, ws.annotations_frame())
    assert ag.n == 2
    assert ag.observed == pytest.approx(0.5)
    assert ag.confusion == {("goal_drift", "evidence_action_gap"): 1, ("planning_error", "planning_error"): 1}
    assert ag.step_agreement == 1.0  # relabelling on the judge's step keeps the step, changes the category
    # the latest decision wins: the analyst's own decisive step elsewhere
    ws.mark_decisive("r2", 1, "hallucination")
    ag = judge_analyst_agreement(RUNS, ws.annotations_frame())
    assert ag.n == 3 and ag.step_agreement == pytest.approx(1 / 2)
