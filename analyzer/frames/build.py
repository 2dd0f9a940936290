"""Build polars frames from canonical objects, and objects back from frames."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson
import polars as pl

from analyzer import guard
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS, ColumnSpec, schema_of
from analyzer.schema.models import Step, Trajectory


def empty_frame(columns: tuple[ColumnSpec, ...]) -> pl.DataFrame:
    """An empty frame with the declared columns."""
    return pl.DataFrame(schema=schema_of(columns))


def frame_from_rows(rows: Sequence[Mapping[str, Any]], columns: tuple[ColumnSpec, ...]) -> pl.DataFrame:
    """Frame with exactly the declared columns (missing keys become null, extra keys dropped)."""
    if not rows:
        return empty_frame(columns)
    data = {c.name: [r.get(c.name) for r in rows] for c in columns}
    return pl.DataFrame(data, schema=schema_of(columns), strict=False)


def _json(value: Mapping[str, Any]) -> str | None:
    """JSON text of a metadata object; nesting past ``load_limits.max_depth`` is cut and marked."""
    return guard.dumps(value) if value else None


def trace_row(t: Trajectory) -> dict[str, Any]:
    """Row of the traces frame for one trajectory."""
    tokens = [(s.tokens_in or 0) + (s.tokens_out or 0) for s in t.steps if s.tokens_in or s.tokens_out]
    return {
        "trace_id": t.id,
        "native_id": t.native_id,
        "source_file": t.source_file,
        "source_format": t.source_format,
        "record": t.record,
        "task": t.task,
        "model": t.model,
        "framework": t.framework,
        "task_family": t.task_family,
        "task_key": t.task_key,
        "outcome": str(t.outcome),
        "outcome_raw": t.outcome_raw,
        "outcome_source": t.outcome_source,
        "score": t.score,
        "final_answer": t.final_answer,
        "ground_truth": t.ground_truth,
        "gold_decisive_step": t.gold_decisive_step,
        "gold_decisive_agent": t.gold_decisive_agent,
        "gold_reason": t.gold_reason,
        "n_steps": len(t.steps),
        "n_errors": sum(1 for s in t.steps if s.is_error),
        "tokens_total": sum(tokens) if tokens else None,
        "metadata_json": _json(t.metadata),
        "schema_version": t.schema_version,
    }


def step_rows(t: Trajectory) -> list[dict[str, Any]]:
    """Rows of the steps frame for one trajectory."""
    out = []
    for s in t.steps:
        row = s.model_dump(exclude={"metadata", "index"})
        row["trace_id"] = t.id
        row["step"] = s.index
        row["role"] = str(s.role)
        row["kind"] = str(s.kind)
        row["metadata_json"] = _json(s.metadata)
        out.append(row)
    return out


def traces_frame(trajectories: Iterable[Trajectory]) -> pl.DataFrame:
    """Traces frame (one row per run)."""
    return frame_from_rows([trace_row(t) for t in trajectories], TRACE_COLUMNS)


def steps_frame(trajectories: Iterable[Trajectory]) -> pl.DataFrame:
    """Steps frame (one row per step)."""
    rows: list[dict[str, Any]] = []
    for t in trajectories:
        rows.extend(step_rows(t))
    return frame_from_rows(rows, STEP_COLUMNS)


_TRACE_FIELDS = set(Trajectory.model_fields) - {"steps", "metadata", "id"}
_STEP_FIELDS = set(Step.model_fields) - {"metadata", "index"}


def trajectories_from_frames(traces: pl.DataFrame, steps: pl.DataFrame) -> list[Trajectory]:
    """Rebuild trajectories (with steps) from the traces and steps frames.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).

    Returns:
        Trajectories in the order of ``traces``.
    """
    by_trace: dict[str, list[Step]] = {}
    for row in steps.sort(["trace_id", "step"]).iter_rows(named=True):
        kw = {k: row[k] for k in _STEP_FIELDS if k in row and row[k] is not None}
        meta = orjson.loads(row["metadata_json"]) if row.get("metadata_json") else {}
        by_trace.setdefault(row["trace_id"], []).append(Step(index=row["step"], metadata=meta, **kw))
    out = []
    for row in traces.iter_rows(named=True):
        kw = {k: row[k] for k in _TRACE_FIELDS if k in row and row[k] is not None}
        meta = orjson.loads(row["metadata_json"]) if row.get("metadata_json") else {}
        out.append(Trajectory(id=row["trace_id"], metadata=meta, steps=by_trace.get(row["trace_id"], []), **kw))
    return out
