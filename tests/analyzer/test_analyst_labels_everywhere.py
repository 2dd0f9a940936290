"""The analyst's decisive step and category win everywhere: traces.csv, drop_note and the reports (issue 31 item 7)."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, AnalysisResult
from analyzer.attribution.value_curve import ValueCurve, drop_note
from analyzer.detection.messages import TERM_LABELS
from analyzer.export import (
    build_report,
    render_html,
    render_markdown,
    render_pdf,
    run_table,
    write_analysis,
)
from analyzer.frames import ANNOTATION_COLUMNS, STEP_COLUMNS, TRACE_COLUMNS, frame_from_rows
from analyzer.metrics.labels import OVERLAY_COLUMNS, effective_labels, overlay_labels

N = 16
VALUES = [0.9, 0.88, 0.87, 0.86, 0.85, 0.35, 0.34, 0.33, 0.32, 0.31, 0.30, 0.29, 0.2, 0.19, 0.18, 0.1]


def _curve() -> ValueCurve:
    drops = [max(0.0, (VALUES[i - 1] if i else 0.9) - v) for i, v in enumerate(VALUES)]
    reasons = [""] * N
    reasons[5] = TERM_LABELS["error"]
    return ValueCurve(VALUES, [round(d, 6) for d in drops], 0.9, [0.0] * N, reasons)


def _frames(with_labels: bool = True) -> tuple[pl.DataFrame, pl.DataFrame, AnalysisResult, pl.DataFrame]:
    curve = _curve()
    traces = frame_from_rows([
        {"trace_id": "r1", "native_id": "task-1", "model": "m", "outcome": "failure", "n_steps": N, "task": "do it"},
        {"trace_id": "r2", "native_id": "task-2", "model": "m", "outcome": "failure", "n_steps": N, "task": "again"},
    ], TRACE_COLUMNS)
    steps = frame_from_rows([
        {"trace_id": t, "step": i, "agent": "coder" if i == 12 else "planner", "role": "assistant",
         "kind": "message", "text": f"step {i} of {t}"}
        for t in ("r1", "r2") for i in range(N)
    ], STEP_COLUMNS)
    ranker_note = drop_note(curve, 1)
    runs = frame_from_rows([
        {"trace_id": t, "decisive_step": 1, "decisive_agent": "planner", "category": "planning_error",
         "confidence": 0.6, "top_steps": "1,12,5", "top_scores": "0.4,0.3,0.2", "decisive_uncertain": "1;12;5",
         "min_value": min(VALUES), "largest_drop": max(curve.drops), "largest_drop_step": 5,
         "drop_note": ranker_note, "rationale": "the plan was wrong", "value_estimator": "evidence-v1"}
        for t in ("r1", "r2")
    ], RUN_COLUMNS)
    step_values = frame_from_rows([
        {"trace_id": t, "step": i, "value": v, "drop": curve.drops[i], "value_estimator": "evidence-v1"}
        for t in ("r1", "r2") for i, v in enumerate(VALUES)
    ], STEP_VALUE_COLUMNS)
    annotations = frame_from_rows([
        {"trace_id": "r1", "step": 12, "category": "goal_drift", "status": "decisive", "author": "mei",
         "timestamp": "2026-12-04T10:00:00"},
    ] if with_labels else [], ANNOTATION_COLUMNS)
    return traces, steps, AnalysisResult(runs=runs, step_values=step_values), annotations


def test_traces_csv_analyst_step_and_category_override_the_ranker_and_drop_note_follows(tmp_path: Path) -> None:
    traces, steps, result, annotations = _frames()
    ranker_note = result.runs["drop_note"][0]
    assert "the decisive decision at step 1;" in ranker_note  # what the ranker's row says
    table = run_table(traces, result, annotations, steps)
    mine, other = table.row(0, named=True), table.row(1, named=True)
    assert (mine["decisive_step"], mine["category"], mine["decisive_agent"]) == (12, "goal_drift", "coder")
    assert (mine["decisive_source"], mine["label_source"]) == ("analyst", "analyst")
    assert (mine["judge_decisive_step"], mine["judge_category"]) == (1, "planning_error")
    assert mine["decisive_uncertain"] is None
    note = mine["drop_note"]
    assert note == drop_note(_curve(), 12)  # the same words drop_note writes for step 12 on the full curve
    assert "step 12" in note and "before the decisive decision at step 12" in note
    assert f"({TERM_LABELS['error']})" in note and "step 1;" not in note and "step 1 " not in note
    # the run without a label keeps the ranker's step, category and note
    assert (other["decisive_step"], other["category"], other["drop_note"]) == (1, "planning_error", ranker_note)
    # the file says the same
    write_analysis(tmp_path / "out", traces, steps, result, annotations, formats=("csv",))
    with (tmp_path / "out" / "traces.csv").open(encoding="utf-8") as fh:
        rows = {r["trace_id"]: r for r in csv.DictReader(fh)}
    assert (rows["r1"]["decisive_step"], rows["r1"]["category"]) == ("12", "goal_drift")
    assert "step 12" in rows["r1"]["drop_note"] and "decisive decision at step 1;" not in rows["r1"]["drop_note"]
    assert rows["r2"]["category"] == "planning_error"


def test_analyst_step_next_to_the_largest_drop_has_no_note_and_no_curve_gives_none() -> None:
    traces, steps, result, _ = _frames()
    near = frame_from_rows([{"trace_id": "r1", "step": 6, "category": None, "status": "decisive", "author": "mei",
                             "timestamp": "2026-12-04T10:00:00"}], ANNOTATION_COLUMNS)
    row = run_table(traces, result, near, steps).row(0, named=True)
    assert (row["decisive_step"], row["category"], row["drop_note"]) == (6, "planning_error", None)
    bare = AnalysisResult(runs=result.runs)  # no stored curve: nothing said rather than the ranker's words
    annotations = _frames()[3]
    assert run_table(traces, bare, annotations, steps).row(0, named=True)["drop_note"] is None


def test_runs_view_overlay_uses_the_same_rules() -> None:
    traces, steps, result, annotations = _frames()
    view = traces.join(result.runs, on="trace_id", how="left")
    out = overlay_labels(view, annotations, steps, result.step_values)
    assert out["trace_id"].to_list() == ["r1", "r2"]
    table = run_table(traces, result, annotations, steps)
    for col in ("decisive_step", "decisive_agent", "category", "decisive_source", "label_source",
                "decisive_uncertain", "drop_note"):
        assert out[col].to_list() == table[col].to_list(), col
    # runs nobody reviewed take the quick path: the same labels as effective_labels gives
    view = view.with_columns(pl.when(pl.col("trace_id") == "r2").then(pl.lit(" judge-1 ")).alias("judge_model"),
                             pl.when(pl.col("trace_id") == "r2").then(pl.lit(" ")).otherwise(pl.col("category"))
                             .alias("category"))
    for anns in (annotations, None):
        quick = overlay_labels(view, anns, steps, result.step_values).select("trace_id", *OVERLAY_COLUMNS)
        assert quick.to_dicts() == effective_labels(view, anns, steps).select("trace_id", *OVERLAY_COLUMNS).to_dicts()


def test_reports_show_the_analyst_step_category_and_note(tmp_path: Path) -> None:
    traces, steps, result, annotations = _frames()
    report = build_report(traces, steps, result, annotations)
    run = next(r for r in report.runs if r.trace_id == "r1")
    assert run.decisive_step == 12 and run.category is not None and run.category.id == "goal_drift"
    assert run.decisive_source == "analyst" and "step 12" in run.drop_note
    assert "decisive decision at step 1;" not in run.drop_note
    for text in (render_html(traces, steps, result, annotations), render_markdown(traces, steps, result, annotations)):
        assert "before the decisive decision at step 12" in text
        assert "decisive decision at step 1;" not in text.split("task-2")[0]  # r1's section (r2 keeps its own)
    if shutil.which("pdftotext"):
        path = tmp_path / "r.pdf"
        path.write_bytes(render_pdf(traces, steps, result, annotations))
        flat = " ".join(subprocess.run(["pdftotext", str(path), "-"], check=True, capture_output=True, text=True,
                                       timeout=60).stdout.split())
        assert "before the decisive decision at step 12" in flat
