"""Efficiency against the shortest success (a corpus-level metric, not a per-run detector).

Detectors see one run at a time, but "the shortest success" needs every run of a task, so
this is computed over the traces frame. Runs are grouped by task: the whitespace- and
case-normalised task statement, within the same ``task_family``. For every task with at least
one successful run, each run of it is compared with the shortest success (fewest steps; ties
broken by tokens): extra steps, extra tokens (when both runs report tokens) and extra wall
time (when both runs have step timestamps or durations). The per-step "wasted" flags come
from the ``wasted_steps`` signal detector (:mod:`plugins.detectors.wasted_steps`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ColumnSpec

EFFICIENCY_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("shortest_success_steps", pl.Int64, "Steps of the shortest successful run of the same task "
               "(null when the task has no success in the corpus)."),
    ColumnSpec("extra_steps", pl.Int64, "n_steps minus shortest_success_steps (steps)."),
    ColumnSpec("step_overhead", pl.Float64, "extra_steps / shortest_success_steps (ratio; 0 = as short)."),
    ColumnSpec("extra_tokens", pl.Int64, "tokens_total minus that of the shortest success (tokens; null "
               "unless both report tokens)."),
    ColumnSpec("wall_s", pl.Float64, "Wall time of the run: last step end minus first step start, else the "
               "sum of step durations (seconds)."),
    ColumnSpec("extra_wall_s", pl.Float64, "wall_s minus that of the shortest success (seconds)."),
)
"""Columns added to ``traces.csv`` by :func:`efficiency_table`."""


def _ts(text: Any) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def wall_times(steps: pl.DataFrame | pl.LazyFrame) -> dict[str, float]:
    """Wall time per run from the steps frame (timestamps, else summed durations).

    A lazy frame (e.g. a corpus's steps) is read for these three columns only.
    """
    out: dict[str, float] = {}
    names = steps.collect_schema().names()
    cols = [c for c in ("trace_id", "timestamp", "duration_s") if c in names]
    if "trace_id" not in cols or len(cols) == 1:
        return out
    for part in steps.lazy().select(cols).collect().partition_by("trace_id", maintain_order=True):
        rows = part.to_dicts()
        stamps = [(t, r.get("duration_s") or 0.0) for r in rows if (t := _ts(r.get("timestamp"))) is not None]
        if len(stamps) >= 2:
            start = min(t for t, _ in stamps)
            end = max(t + d for t, d in stamps)
            out[str(rows[0]["trace_id"])] = max(0.0, end - start)
            continue
        durations = [float(r["duration_s"]) for r in rows if r.get("duration_s") is not None]
        if durations:
            out[str(rows[0]["trace_id"])] = sum(durations)
    return out


def task_key(task: Any, family: Any) -> str:
    """Grouping key of a task: family plus the normalised statement."""
    return f"{family or ''}\x1f{' '.join(str(task or '').lower().split())}"


def efficiency_table(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per run: the comparison with the shortest success of its task.

    Args:
        traces: Traces frame (needs ``trace_id``, ``task``, ``outcome``, ``n_steps``; uses
            ``task_family`` and ``tokens_total`` when present).
        steps: Steps frame (or lazy frame) for wall times, or None.

    Returns:
        ``trace_id`` then EFFICIENCY_COLUMNS, one row per run of ``traces``.
    """
    specs = (ColumnSpec("trace_id", pl.Utf8, "Run id."), *EFFICIENCY_COLUMNS)
    if not traces.height:
        return frame_from_rows([], specs)
    walls = wall_times(steps) if steps is not None else {}
    rows = traces.to_dicts()
    best: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("outcome") != "success" or r.get("n_steps") is None:
            continue
        key = task_key(r.get("task"), r.get("task_family"))
        cur = best.get(key)
        rank = (int(r["n_steps"]), r.get("tokens_total") if r.get("tokens_total") is not None else 1 << 62)
        if cur is None or rank < cur["_rank"]:
            best[key] = {**r, "_rank": rank}
    out: list[dict[str, Any]] = []
    for r in rows:
        tid = str(r["trace_id"])
        row: dict[str, Any] = {"trace_id": tid, "wall_s": walls.get(tid)}
        b = best.get(task_key(r.get("task"), r.get("task_family")))
        if b is not None and r.get("n_steps") is not None:
            short = int(b["n_steps"])
            row["shortest_success_steps"] = short
            row["extra_steps"] = int(r["n_steps"]) - short
            row["step_overhead"] = (int(r["n_steps"]) - short) / short if short else None
            if r.get("tokens_total") is not None and b.get("tokens_total") is not None:
                row["extra_tokens"] = int(r["tokens_total"]) - int(b["tokens_total"])
            bw = walls.get(str(b["trace_id"]))
            if row["wall_s"] is not None and bw is not None:
                row["extra_wall_s"] = float(row["wall_s"]) - bw
        out.append(row)
    return frame_from_rows(out, specs)
