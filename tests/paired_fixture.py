"""A small paired-comparison fixture: two models on the same seven tasks (plus one only A tried).

| task | A (o4-mini)              | B (claude-3-7-sonnet) |
|------|--------------------------|-----------------------|
| t1   | pass                     | pass                  |
| t2   | pass                     | fail                  |
| t3   | pass                     | fail                  |
| t4   | pass (as openai/o4-mini) | fail                  |
| t5   | fail                     | pass                  |
| t6   | fail                     | fail                  |
| t7   | pass, pass (two runs)    | fail                  |
| t8   | pass                     | (not tried)           |
"""

from __future__ import annotations

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS

A = "o4-mini"
B = "claude-3-7-sonnet"
"""The group of B's runs: the date stamp of ``claude-3-7-sonnet-20250219`` folds away."""
B_RAW = "claude-3-7-sonnet-20250219"
ROWS = [
    ("a1", "o4-mini", "t1", "success"), ("b1", "anthropic/claude-3-7-sonnet-20250219", "t1", "success"),
    ("a2", "o4-mini", "t2", "success"), ("b2", B_RAW, "t2", "failure"),
    ("a3", "o4-mini", "t3", "success"), ("b3", B_RAW, "t3", "failure"),
    ("a4", "openai/o4-mini", "t4", "success"), ("b4", B_RAW, "t4", "failure"),
    ("a5", "o4-mini", "t5", "failure"), ("b5", B_RAW, "t5", "success"),
    ("a6", "o4-mini", "t6", "failure"), ("b6", B_RAW, "t6", "failure"),
    ("a7", "o4-mini", "t7", "success"), ("a7b", "o4-mini", "t7", "success"), ("b7", B_RAW, "t7", "failure"),
    ("a8", "o4-mini", "t8", "success"),
]


def paired_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Traces and steps (two steps per run) of the fixture."""
    traces = frame_from_rows([
        {"trace_id": tid, "native_id": task, "model": model, "outcome": outcome, "n_steps": 2,
         "task": f"Solve task {task}", "source_file": f"/fixture/{tid}.json", "record": "$"}
        for tid, model, task, outcome in ROWS], TRACE_COLUMNS)
    steps = frame_from_rows([
        {"trace_id": tid, "step": i, "agent": "agent", "role": "assistant", "kind": "message",
         "text": f"{tid} step {i}: {'done' if outcome == 'success' else 'gave up'}", "is_error": False}
        for tid, _m, _t, outcome in ROWS for i in range(2)], STEP_COLUMNS)
    return traces, steps
