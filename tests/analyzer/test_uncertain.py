"""Saying when it does not know: uncertain attributions, ``decisive_uncertain`` in traces.csv and the reports."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analyzer.analysis.result import RUN_COLUMNS, uncertain_cell, uncertain_steps
from analyzer.attribution import attribute, step_features
from analyzer.attribution.ranker import Ranker
from analyzer.attribution.rationale import Rationale, rationale_text
from analyzer.export import (
    EXPORT_RUN_COLUMNS,
    ReportOptions,
    build_report,
    run_table,
    write_analysis,
)
from analyzer.frames import ANNOTATION_COLUMNS
from analyzer.frames.build import frame_from_rows
from analyzer.loading import load
from analyzer.pipeline import analyze
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

ROOT = Path(__file__).resolve().parents[2]
LOGITS = np.array([0.0, 1.0, -1.0, 3.0, -2.0, 0.5, -1.0])
"""Ranker logits of :func:`_run`: step 3 first (p=0.76), then 1 and 5."""


def _run() -> Trajectory:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="Count open bugs per component.")]
    for k in range(3):
        steps.append(Step(index=len(steps), agent=f"agent{k % 2}", kind=StepKind.TOOL_CALL, tool_name="bash",
                          tool_args=json.dumps({"cmd": f"python step{k}.py"}),
                          text="Let's assume the sample data has 42 rows." if k == 1 else ""))
        steps.append(Step(index=len(steps), agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                          text="Traceback: boom" if k == 1 else "ok", is_error=k == 1))
    return Trajectory(id="r1", task="Count open bugs per component.", outcome=Outcome.FAILURE, steps=steps)


# -- attribute ------------------------------------------------------------------------------------


def test_a_confident_answer_is_not_uncertain() -> None:
    t = _run()
    plain = attribute(t, LOGITS, features=step_features(t))
    assert plain.uncertain_steps == []  # the default threshold 0 never is uncertain
    assert plain.confidence is not None
    at = attribute(t, LOGITS, features=step_features(t), uncertain_below=plain.confidence)
    assert at.uncertain_steps == []  # at the threshold: certain
    assert "uncertain" not in at.rationale and "runner-up step 1" in at.rationale


def test_below_the_threshold_the_attribution_names_the_likeliest_steps() -> None:
    t = _run()
    plain = attribute(t, LOGITS, features=step_features(t))
    assert plain.confidence is not None
    att = attribute(t, LOGITS, features=step_features(t), uncertain_below=plain.confidence + 0.01)
    assert att.uncertain_steps == [3, 1, 5]  # best first
    # the best candidate stays the decisive step, so nothing downstream changes
    assert (att.decisive_step, att.decisive_agent, att.category, att.confidence) == (
        plain.decisive_step, plain.decisive_agent, plain.category, plain.confidence)
    assert [c.step for c in att.candidates] == [c.step for c in plain.candidates]
    assert att.rationale.endswith(f"(uncertain: no step stands out (p={att.confidence:.2f}); "
                                  "the likeliest are steps 3, 1, 5)")
    assert att.explanation is not None and {3, 1, 5} <= set(att.explanation.steps())
    two = attribute(t, LOGITS, features=step_features(t), uncertain_below=1.0, uncertain_top=2)
    assert two.uncertain_steps == [3, 1]


def test_the_uncertain_rationale_reads_in_chinese_and_round_trips() -> None:
    t = _run()
    att = attribute(t, LOGITS, features=step_features(t), uncertain_below=1.0)
    assert att.explanation is not None
    back = Rationale.from_json(att.explanation.to_json())
    assert back == att.explanation and back.render() == att.rationale
    zh = rationale_text(att.explanation.to_json(), att.rationale, "zh_CN")
    assert f"不确定：没有哪个步骤明显突出（p={att.confidence:.2f}）；最可能的是步骤 3、1、5" in zh


def test_uncertain_cells_round_trip() -> None:
    assert uncertain_cell([7, 2, 11]) == "7;2;11" and uncertain_steps("7;2;11") == [7, 2, 11]
    assert uncertain_cell([]) is None and uncertain_steps(None) == []


# -- pipeline and traces.csv ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def samples() -> tuple[pl.DataFrame, pl.DataFrame]:
    res = load([ROOT / "sample_traces" / "tau_bench", ROOT / "sample_traces" / "who_and_when"], cache=None)
    return res.traces, res.steps


def _ranker(below: float, top: int = 3) -> Ranker:
    shipped = Ranker.load().params
    return Ranker(replace(shipped, uncertain_below=below, uncertain_top=top))


def test_the_pipeline_passes_the_params_threshold(samples: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    traces, steps = samples
    certain = analyze(traces, steps, ranker=_ranker(0.0)).runs
    assert certain.columns == [c.name for c in RUN_COLUMNS]
    assert certain["decisive_uncertain"].null_count() == certain.height
    unsure = analyze(traces, steps, ranker=_ranker(1.01, top=2)).runs  # above any probability: every run
    attributed = unsure.filter(pl.col("decisive_step").is_not_null())
    assert attributed.height >= 2
    for row in attributed.iter_rows(named=True):
        named = uncertain_steps(row["decisive_uncertain"])
        assert named == [int(s) for s in row["top_steps"].split(",")][:2]
        assert named[0] == row["decisive_step"]  # the decisive step is still the best candidate
        assert "uncertain: no step stands out" in row["rationale"]
    assert unsure.filter(pl.col("decisive_step").is_null())["decisive_uncertain"].null_count() == \
        unsure.filter(pl.col("decisive_step").is_null()).height
    same = certain.select("trace_id", "decisive_step", "category", "confidence", "top_steps")
    assert unsure.select(same.columns).equals(same)


def test_traces_csv_has_decisive_uncertain_except_where_the_analyst_decided(
        samples: tuple[pl.DataFrame, pl.DataFrame], tmp_path: Path) -> None:
    traces, steps = samples
    result = analyze(traces, steps, ranker=_ranker(1.01))
    attributed = result.runs.filter(pl.col("decisive_step").is_not_null())
    decided, other = str(attributed["trace_id"][0]), str(attributed["trace_id"][1])
    ann = frame_from_rows([{"trace_id": decided, "step": 0, "category": "planning_error", "status": "decisive",
                            "author": "ana", "timestamp": "2026-12-04T10:00:00Z"}], ANNOTATION_COLUMNS)
    assert "decisive_uncertain" in [c.name for c in EXPORT_RUN_COLUMNS]
    table = run_table(traces, result, ann, steps)
    by_id = {r["trace_id"]: r for r in table.iter_rows(named=True)}
    assert by_id[decided]["decisive_source"] == "analyst" and by_id[decided]["decisive_uncertain"] is None
    want = result.runs.filter(pl.col("trace_id") == other)["decisive_uncertain"][0]
    assert want and by_id[other]["decisive_uncertain"] == want
    write_analysis(tmp_path / "out", traces, steps, result, ann)
    with (tmp_path / "out" / "traces.csv").open(encoding="utf-8", newline="") as fh:
        rows = {r["trace_id"]: r for r in csv.DictReader(fh)}
    assert rows[other]["decisive_uncertain"] == want and ";" in want
    assert rows[decided]["decisive_uncertain"] == ""


def test_the_report_says_uncertain_instead_of_one_decisive_step(
        samples: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    from analyzer.export import render_report_html, render_report_markdown

    traces, steps = samples
    result = analyze(traces, steps, ranker=_ranker(1.01))
    opts = {"generated": "2026-12-04 12:00 UTC"}
    report = build_report(traces, steps, result, None, ReportOptions(**opts))
    shown = [r for r in report.runs if r.uncertain_steps]
    assert shown
    run = shown[0]
    text = ", ".join(str(s) for s in run.uncertain_steps)
    html = render_report_html(report)
    assert f"uncertain: steps {text}" in html
    assert not any(s.is_decisive for s in run.excerpt) and any(s.is_candidate for s in run.excerpt)
    assert f"uncertain: steps {text}" in render_report_markdown(report)
    zh = render_report_html(build_report(traces, steps, result, None, ReportOptions(lang="zh_CN", **opts)))
    assert "不确定：步骤 " + "、".join(str(s) for s in run.uncertain_steps) in zh
