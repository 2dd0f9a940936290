"""Causal chains: primary -> secondary -> tertiary with evidence, and the impact classification."""

from __future__ import annotations

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import FINDING_COLUMNS, STEP_COLUMNS
from analyzer.insights.chains import causal_chain


def _steps(n: int, errors: tuple[int, ...] = ()) -> pl.DataFrame:
    return frame_from_rows([{"trace_id": "r", "step": s, "text": f"step {s}", "is_error": s in errors}
                            for s in range(n)], STEP_COLUMNS)


def _finding(step: int, category: str, score: float = 0.8, start: int | None = None, status: str = "suggested",
             quote: str | None = None) -> dict[str, object]:
    return {"trace_id": "r", "step": step, "category": category, "score": score, "evidence_start": start,
            "evidence_end": step, "evidence_quote": quote or f"quote {step}", "rationale": f"why {step}",
            "source": "test", "status": status}


def test_planted_chain_with_evidence_and_stop() -> None:
    findings = frame_from_rows([
        _finding(2, "environment_failure", quote="504 gateway timeout"),
        _finding(4, "failed_recovery", quote="retried the same call"),
        _finding(6, "hallucination", start=2, quote="the answer is 42"),
        _finding(9, "false_success", quote="TERMINATE"),
    ], FINDING_COLUMNS)
    chain = causal_chain("r", 2, "environment_failure", _steps(10), findings)
    assert chain.primary_evidence == "504 gateway timeout"
    assert [(lk.source, lk.target, lk.level, lk.rule) for lk in chain.links] == [
        (2, 4, "secondary", "consequence"),
        (4, 6, "tertiary", "evidence"),  # its evidence span reaches back over step 4
        (4, 9, "tertiary", "consequence"),
    ]
    assert chain.links[0].evidence == "retried the same call"
    assert chain.steps() == [2, 4, 6, 9]
    assert chain.impact == "stopped"


def test_negatives_give_no_link() -> None:
    findings = frame_from_rows([
        _finding(1, "planning_error"),
        _finding(3, "false_success", status="rejected"),  # rejected by the analyst
        _finding(4, "error_accumulation", score=0.1),  # too weak
        _finding(0, "goal_drift"),  # before the primary
        _finding(20, "goal_drift"),  # unrelated and far away
    ], FINDING_COLUMNS)
    chain = causal_chain("r", 1, "planning_error", _steps(40), findings)
    assert chain.links == ()
    assert chain.impact == "recovered"  # nothing follows and no later error


def test_evidence_rule_reaches_back_beyond_the_window() -> None:
    findings = frame_from_rows([_finding(30, "goal_drift", start=1)], FINDING_COLUMNS)
    chain = causal_chain("r", 1, "planning_error", _steps(40), findings)
    assert [(lk.target, lk.rule) for lk in chain.links] == [(30, "evidence")]
    assert chain.impact == "degraded"


def test_recovery_from_the_value_curve_and_error_end() -> None:
    values = pl.DataFrame({"step": list(range(10)), "value": [0.8, 0.7, 0.3, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5]})
    empty = frame_from_rows([], FINDING_COLUMNS)
    assert causal_chain("r", 2, "environment_failure", _steps(10), empty, values).impact == "recovered"
    flat = values.with_columns(pl.lit(0.2).alias("value"))
    assert causal_chain("r", 2, "environment_failure", _steps(10), empty, flat).impact == "degraded"
    assert causal_chain("r", 2, "environment_failure", _steps(10, errors=(9,)), empty, values).impact == "stopped"
