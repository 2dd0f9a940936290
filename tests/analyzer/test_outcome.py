"""Outcomes from the analyst (workspace v5) and from the estimate; the effective outcome everywhere."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analyzer.export.tables import run_table
from analyzer.frames.build import steps_frame, traces_frame
from analyzer.loading import load
from analyzer.metrics.models import model_metrics
from analyzer.outcome.cues import CUE_NAMES, cue_frame
from analyzer.outcome.effective import effective_outcomes
from analyzer.outcome.estimate import OutcomeParams, estimate_p_failed, shipped_params
from analyzer.outcome.fit import auc, fit_outcome
from analyzer.schema.models import Role, Step, StepKind, Trajectory
from analyzer.session import Session
from analyzer.workspace import Workspace
from analyzer.workspace.store import WORKSPACE_SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]


def _run(name: str, texts: list[tuple[str, str, bool]], outcome: str = "unknown", model: str = "m") -> Trajectory:
    kinds = {"assistant": StepKind.MESSAGE, "tool": StepKind.OBSERVATION, "call": StepKind.TOOL_CALL}
    roles = {"assistant": Role.ASSISTANT, "tool": Role.TOOL, "call": Role.ASSISTANT}
    steps = [Step(index=i, role=roles[r], kind=kinds[r], text=t, is_error=e) for i, (r, t, e) in enumerate(texts)]
    return Trajectory(task=f"task {name}", native_id=name, outcome=outcome, model=model, source_format="generic",
                      steps=steps).with_id()


GAVE_UP = _run("gave-up", [("call", "pytest", False), ("tool", "ImportError: no module named x", True),
                           ("call", "pip install x", False), ("tool", "ERROR: could not find x", True),
                           ("assistant", "I'm sorry, I was unable to complete the task.", False)])
DONE = _run("done", [("call", "pytest", False), ("tool", "1 failed", True), ("call", "edit file", False),
                     ("tool", "5 passed", False), ("assistant", "Fixed: all tests pass now.", False)])
RECORDED = _run("recorded", [("call", "ls", False), ("tool", "a b", False)], outcome="success")


def _frames(*runs: Trajectory) -> tuple[pl.DataFrame, pl.DataFrame]:
    return traces_frame(runs), steps_frame(runs)


def test_cues_read_the_steps_not_the_outcome() -> None:
    traces, steps = _frames(GAVE_UP, DONE)
    cues = cue_frame(traces, steps)
    assert cues.columns == ["trace_id", *CUE_NAMES]
    bad = cues.row(0, named=True)
    good = cues.row(1, named=True)
    assert bad["end_error"] == 1.0 and bad["give_up"] == 1.0 and bad["claims_done"] == 0.0
    assert good["end_error"] == 0.0 and good["give_up"] == 0.0 and good["claims_done"] == 1.0
    assert bad["errors_after_success"] > 0 and good["errors_after_success"] == 0
    # hiding the outcome changes nothing: the cues never read it
    flipped = traces.with_columns(pl.lit("failure").alias("outcome"))
    assert cue_frame(flipped, steps).equals(cues)
    empty = Trajectory(task="nothing", steps=[]).with_id()
    none = cue_frame(traces_frame([empty]), steps).row(0, named=True)
    assert none["no_final_answer"] == 1.0 and none["log_steps"] == 0.0 and none["end_error"] == 0.0


def test_estimate_only_where_nothing_is_recorded_and_shipped_params_load() -> None:
    params = shipped_params()
    assert params is not None and params.cues == CUE_NAMES
    assert params.meta.get("fitted_by") == "trajscope outcome-fit"
    traces, steps = _frames(GAVE_UP, DONE, RECORDED)
    est = estimate_p_failed(traces, steps)
    assert set(est["trace_id"]) == {GAVE_UP.id, DONE.id}  # the recorded run needs no estimate
    p = dict(est.iter_rows())
    assert 0.0 < p[DONE.id] < p[GAVE_UP.id] < 1.0
    assert estimate_p_failed(traces, steps, all_runs=True).height == 3
    rt = OutcomeParams.from_json(params.to_json())
    assert rt == params
    with pytest.raises(ValueError):
        OutcomeParams.from_json({"version": 2})


def test_effective_outcome_rules_and_idempotent() -> None:
    traces, _steps = _frames(GAVE_UP, DONE, RECORDED)
    est = pl.DataFrame({"trace_id": [GAVE_UP.id, DONE.id, RECORDED.id], "outcome_p_failed": [0.8, 0.2, 0.9]})
    ann = pl.DataFrame({"trace_id": [DONE.id], "step": [None], "outcome": ["failure"],
                        "timestamp": ["2026-12-07T00:00:00"]}, schema_overrides={"step": pl.Int64})
    eff = effective_outcomes(traces, ann, est)
    rows = {r["trace_id"]: r for r in eff.iter_rows(named=True)}
    assert (rows[GAVE_UP.id]["outcome"], rows[GAVE_UP.id]["outcome_source"]) == ("failure", "estimate")
    assert rows[GAVE_UP.id]["outcome_p_failed"] == 0.8
    assert (rows[DONE.id]["outcome"], rows[DONE.id]["outcome_source"]) == ("failure", "analyst")
    assert rows[DONE.id]["outcome_recorded"] == "unknown" and rows[DONE.id]["outcome_analyst"] == "failure"
    # a recorded outcome is never replaced by an estimate, and the estimate is not shown for it
    assert (rows[RECORDED.id]["outcome"], rows[RECORDED.id]["outcome_source"]) == ("success", "file")
    assert rows[RECORDED.id]["outcome_p_failed"] is None
    again = effective_outcomes(eff, ann, est)
    assert again.select(eff.columns).equals(eff)
    # without an estimate or a word, the outcome stays unknown
    plain = effective_outcomes(traces)
    assert plain["outcome"].to_list() == ["unknown", "unknown", "success"]


def test_old_workspace_opens_and_gets_the_outcome_column(tmp_path: Path) -> None:
    path = tmp_path / "v4.trajscope"
    ws = Workspace(path, author="ana")
    ws.set_category([("r1", None)], "goal_drift")
    ws.close()
    # make it a version-4 file as the previous release wrote it (no outcome column)
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE annotations DROP COLUMN outcome")
    db.execute("UPDATE meta SET value='4' WHERE key='schema_version'")
    db.commit()
    db.close()
    ro = Workspace(path, author="ana", read_only=True)  # read as it is, not migrated
    assert ro.get("r1", None).category == "goal_drift" and ro.analyst_outcomes() == {}
    assert ro.annotations_frame()["outcome"].to_list() == [None]
    ro.close()
    ws = Workspace(path, author="ana")
    assert ws.get("r1", None).category == "goal_drift" and ws.get("r1", None).outcome is None
    row = ws._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    assert int(row[0]) == WORKSPACE_SCHEMA_VERSION == 5
    assert ws.set_outcome(["r1", "r2"], "failure") == 2
    assert ws.analyst_outcomes() == {"r1": "failure", "r2": "failure"}
    assert ws.get("r1", None).category == "goal_drift"  # the tag stays on the same row
    assert ws.undo() == "Outcome failure"
    assert ws.analyst_outcomes() == {} and ws.get("r2", None) is None
    ws.redo()
    ws.set_outcome(["r2"], None)
    assert ws.analyst_outcomes() == {"r1": "failure"}
    out = tmp_path / "ann.jsonl"
    ws.export_jsonl(out)
    other = Workspace(tmp_path / "other.trajscope", author="bo")
    other.import_jsonl(out)
    assert other.analyst_outcomes() == {"r1": "failure"}
    frame = other.annotations_frame()
    assert "outcome" in frame.columns


def test_session_counts_and_exports_use_the_effective_outcome(tmp_path: Path) -> None:
    traces, steps = _frames(GAVE_UP, DONE, RECORDED)
    s = Session()
    from analyzer.loading.loader import LoadResult

    s.add_load_result(LoadResult(traces=traces, steps=steps, formats={"generic": 3}))
    view = {r["trace_id"]: r for r in s.runs_view().iter_rows(named=True)}
    assert view[GAVE_UP.id]["outcome_source"] == "estimate" and view[GAVE_UP.id]["outcome"] == "failure"
    c = s.counts()
    likely = sum(r["outcome"] == "failure" for r in view.values())
    assert likely >= 1 and c.failed == likely and c.failed_estimated == likely  # the recorded run succeeded
    ws = Workspace(tmp_path / "w.trajscope")
    ws.set_outcome([DONE.id, GAVE_UP.id], "failure")
    ws.set_outcome([RECORDED.id], "failure")  # the analyst overrides the file
    s.set_annotations(ws.annotations_frame())
    c = s.counts()
    assert c.failed == 3 and c.failed_estimated == 0
    eff = s.effective_traces()
    assert eff.columns == s.traces.columns and set(eff["outcome_source"]) == {"analyst"}
    table = run_table(s.traces, None, s.annotations, s.steps)
    for col in ("outcome_source", "outcome_recorded", "outcome_analyst", "outcome_p_failed"):
        assert col in table.columns
    rec = table.filter(pl.col("trace_id") == RECORDED.id).row(0, named=True)
    assert (rec["outcome"], rec["outcome_recorded"], rec["outcome_analyst"], rec["outcome_source"]) == (
        "failure", "success", "failure", "analyst")
    metrics = model_metrics(s.traces, None, s.annotations, steps=s.steps)
    assert metrics["failures"][0] == 3 and metrics["analyst_outcomes"][0] == 3 and metrics["passes"][0] == 0
    ws.undo()
    ws.undo()
    s.set_annotations(ws.annotations_frame())
    metrics = model_metrics(s.traces, None, s.annotations, steps=s.steps)
    assert metrics["estimated"][0] == 2 and metrics["passes"][0] + metrics["failures"][0] == 3


def test_auc_and_the_shipped_params_are_reproduced_by_outcome_fit() -> None:
    assert auc([1, 1, 0, 0], [0.9, 0.8, 0.1, 0.2]) == 1.0
    assert auc([1, 0], [0.5, 0.5]) == 0.5
    assert auc([1, 1], [0.1, 0.2]) is None
    from analyzer.cli.outcome_cmd import DEFAULT_PATHS

    res = load([p for p in DEFAULT_PATHS if p.exists()], cache=None)
    report = fit_outcome(res.traces, res.steps)
    shipped = shipped_params()
    assert shipped is not None
    assert report.n_runs == shipped.meta["n_runs"] and report.n_failed == shipped.meta["n_failed"]
    assert report.params.weights == pytest.approx(shipped.weights, abs=1e-5)
    assert report.auc == pytest.approx(shipped.meta["loso_auc"])
    assert report.auc is not None and report.auc > 0.5  # better than chance, held out by source
    assert sum(c["n"] for c in report.calibration) == sum(s["estimated"] for s in report.per_source)
    assert all(np.isfinite(report.params.weights))
