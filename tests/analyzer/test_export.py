"""CSV/Parquet exports: columns from the specs, formulas made inert, numbers kept numeric."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from report_fixtures import FORMULAS, hostile_frames

from analyzer.analysis.result import STEP_VALUE_COLUMNS, AnalysisResult
from analyzer.export import (
    EXPORT_RUN_COLUMNS,
    EXPORT_STEP_COLUMNS,
    ExportError,
    neutralise,
    write_analysis,
    write_csv,
)
from analyzer.frames import (
    ANNOTATION_COLUMNS,
    FINDING_COLUMNS,
    STEP_COLUMNS,
    TRACE_COLUMNS,
    empty_frame,
)
from analyzer.metrics import metric_columns

DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def test_neutralise_prefixes_only_formula_starts() -> None:
    for payload in FORMULAS:
        assert neutralise(payload) == "'" + payload
    assert neutralise("plain text = fine") == "plain text = fine"
    assert neutralise("") == ""


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    traces, steps, result, annotations = hostile_frames()
    written = write_analysis(tmp_path / "out", traces, steps, result, annotations)
    names = sorted(p.name for p in written)
    assert names == sorted(f"{t}.{ext}" for t in ("traces", "steps", "findings", "models", "annotations")
                           for ext in ("csv", "parquet"))
    return tmp_path / "out"


def test_csv_headers_come_from_the_column_specs(exported: Path) -> None:
    expected = {
        "traces": [c.name for c in EXPORT_RUN_COLUMNS],
        "steps": [c.name for c in EXPORT_STEP_COLUMNS],
        "findings": [c.name for c in FINDING_COLUMNS],
        "models": [c.name for c in metric_columns(("model",))],
        "annotations": [c.name for c in ANNOTATION_COLUMNS],
    }
    for name, cols in expected.items():
        with (exported / f"{name}.csv").open(encoding="utf-8", newline="") as fh:
            assert next(csv.reader(fh)) == cols
        assert pl.read_parquet(exported / f"{name}.parquet").columns == cols


def test_csv_round_trip_makes_formulas_inert_and_keeps_numbers(exported: Path) -> None:
    runs = pl.read_csv(exported / "traces.csv")
    # numeric columns stay numeric (a negative score is not a formula and gets no quote)
    assert runs.schema["score"] == pl.Float64
    assert runs.schema["n_steps"] == pl.Int64 and runs.schema["decisive_step"] == pl.Int64
    assert runs.schema["confidence"] == pl.Float64
    f1 = runs.filter(pl.col("trace_id") == "f1").row(0, named=True)
    assert f1["score"] == -0.5
    assert f1["task"].startswith("'=HYPERLINK(")
    by_id = {r["trace_id"]: r for r in runs.iter_rows(named=True)}
    assert by_id["f2"]["task"] == "'+1+1" and by_id["s1"]["task"] == "'@SUM(A1:A9)"
    # every text cell of every CSV is inert for a spreadsheet
    for path in exported.glob("*.csv"):
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        for row in rows[1:]:
            for cell in row:
                assert not cell.startswith(DANGEROUS) or _is_number(cell), (path.name, cell)
    steps = pl.read_csv(exported / "steps.csv")
    assert steps.schema["value"] == pl.Float64 and steps.schema["step"] == pl.Int64
    findings = pl.read_csv(exported / "findings.csv")
    assert findings.filter(pl.col("step") == 4)["rationale"][0] == "'=cmd()"
    assert findings.filter(pl.col("step") == 4)["evidence_quote"][0] == "'" + FORMULAS[4]
    notes = pl.read_csv(exported / "annotations.csv")
    assert notes.filter(pl.col("trace_id") == "f2")["note"][0] == "'=1+2 run-level note"


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_parquet_twins_keep_the_original_text(exported: Path) -> None:
    runs = pl.read_parquet(exported / "traces.parquet")
    assert runs.filter(pl.col("trace_id") == "f2")["task"][0] == "+1+1"
    assert runs.schema["score"] == pl.Float64


def test_traces_csv_carries_the_reviewed_attribution(exported: Path) -> None:
    runs = pl.read_csv(exported / "traces.csv")
    f1 = runs.filter(pl.col("trace_id") == "f1").row(0, named=True)
    # the analyst moved the decisive step from 3 to 2 and labelled it
    assert (f1["decisive_step"], f1["decisive_agent"], f1["category"]) == (2, "planner", "planning_error")
    assert (f1["decisive_source"], f1["label_source"]) == ("analyst", "analyst")
    assert (f1["judge_decisive_step"], f1["judge_category"]) == (3, "hallucination")
    assert f1["top_steps"] == "3,4,1"  # top-3 only
    assert f1["top_scores"] == "0.7,0.2,0.05"
    assert (f1["min_value"], f1["largest_drop"], f1["largest_drop_step"]) == (0.1, 0.5, 3)
    assert f1["tags"].startswith("needs-review,")
    f2 = runs.filter(pl.col("trace_id") == "f2").row(0, named=True)
    assert (f2["decisive_step"], f2["decisive_source"], f2["label_source"]) == (1, "judge", "judge")
    assert f2["tags"] == "flaky-env"
    s1 = runs.filter(pl.col("trace_id") == "s1").row(0, named=True)
    assert s1["decisive_step"] is None and s1["outcome"] == "success"
    models = pl.read_csv(exported / "models.csv")
    claude = models.filter(pl.col("model") == "claude").row(0, named=True)
    assert (claude["runs"], claude["passes"], claude["n_repeated_action"]) == (2, 1, 1)
    hostile = models.filter(pl.col("model").str.starts_with("gpt")).row(0, named=True)
    assert hostile["label_source"] == "analyst" and hostile["n_planning_error"] == 1


def test_steps_csv_has_every_step_with_values_where_analysed(tmp_path: Path) -> None:
    traces, steps, result, _ = hostile_frames()
    partial = AnalysisResult(runs=result.runs, findings=result.findings,
                             step_values=result.step_values.filter(pl.col("trace_id") != "s1"))
    write_analysis(tmp_path, traces, steps, partial, formats=("csv",))
    out = pl.read_csv(tmp_path / "steps.csv")
    assert out.height == steps.height
    assert out.filter(pl.col("trace_id") == "s1")["value"].null_count() == 3
    f1 = out.filter(pl.col("trace_id") == "f1").sort("step")
    assert f1["value"].to_list() == [0.9, 0.85, 0.8, 0.3, 0.2, 0.1]
    assert f1["is_error"].to_list() == [False, False, False, False, True, False]
    assert f1.filter(pl.col("step") == 3)["findings"][0] == "hallucination"
    assert not (tmp_path / "steps.parquet").exists()


def test_exports_without_analysis_or_rows(tmp_path: Path) -> None:
    traces, steps, _, _ = hostile_frames()
    write_analysis(tmp_path / "a", traces, steps)
    runs = pl.read_csv(tmp_path / "a" / "traces.csv")
    assert runs.height == 3 and runs["decisive_step"].null_count() == 3
    assert pl.read_csv(tmp_path / "a" / "annotations.csv").height == 0
    write_analysis(tmp_path / "b", empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS),
                   AnalysisResult(step_values=empty_frame(STEP_VALUE_COLUMNS)))
    for name in ("traces", "steps", "findings", "models", "annotations"):
        assert pl.read_parquet(tmp_path / "b" / f"{name}.parquet").height == 0
        assert (tmp_path / "b" / f"{name}.csv").read_text(encoding="utf-8").count("\n") == 1


def test_bad_destinations_give_clear_errors(tmp_path: Path) -> None:
    traces, steps, result, _ = hostile_frames()
    with pytest.raises(ValueError, match="unknown export format"):
        write_analysis(tmp_path, traces, steps, result, formats=("xlsx",))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExportError, match="not a folder"):
        write_analysis(blocker, traces, steps, result)
    with pytest.raises(ExportError, match="cannot write"):
        write_csv(traces, blocker / "sub" / "t.csv")


def test_csv_is_utf8_and_readable_by_the_csv_module(tmp_path: Path) -> None:
    df = pl.DataFrame({"text": ["naïve — 中文, \"quoted\"\nnew line", "=1"], "n": [1, -2]})
    path = write_csv(df, tmp_path / "u.csv")
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows == [["text", "n"], ["naïve — 中文, \"quoted\"\nnew line", "1"], ["'=1", "-2"]]
    back = pl.read_csv(path)
    assert back["n"].to_list() == [1, -2]
