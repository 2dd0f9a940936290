"""Self-conditioning: does an agent err more once it has erred before?

For every step ``t`` of a run, ``k`` is the number of error steps before ``t`` in the same
run. The curve is P(step t is an error | k earlier errors), pooled over runs and steps, for
k = 0, 1, ... and a last bucket ``max_k+`` (default buckets 0, 1, 2+). A curve that rises
with ``k`` means errors condition later errors (TAXONOMY ``error_accumulation``).

What counts as an error: a step whose ``is_error`` flag is set by the importer (tool
failure, exception, non-zero exit, error observation) and, when ``findings`` are given, a
step that carries at least one detector finding that was not rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.metrics.columns import GROUP_COLUMNS, SELF_CONDITIONING_COLUMNS
from analyzer.metrics.models import UNKNOWN_GROUP
from analyzer.metrics.stats import wilson_interval


def error_steps(steps: pl.DataFrame, findings: pl.DataFrame | None = None) -> pl.DataFrame:
    """Steps with an ``error`` flag (see the module docstring for the definition).

    Args:
        steps: Steps frame (needs ``trace_id``, ``step``, ``is_error``).
        findings: Findings frame (FINDING_COLUMNS) or None.

    Returns:
        ``trace_id``, ``step``, ``error`` (Boolean), sorted by run and step.
    """
    base = steps.select("trace_id", "step", pl.col("is_error").fill_null(False).alias("error"))
    if findings is not None and findings.height:
        flagged = findings
        if "status" in flagged.columns:
            flagged = flagged.filter(pl.col("status").fill_null("suggested") != "rejected")
        flagged = flagged.select("trace_id", "step").unique().with_columns(pl.lit(True).alias("_f"))
        base = base.join(flagged, on=["trace_id", "step"], how="left").with_columns(
            (pl.col("error") | pl.col("_f").fill_null(False)).alias("error")).drop("_f")
    return base.sort(["trace_id", "step"])


def self_conditioning(steps: pl.DataFrame, findings: pl.DataFrame | None = None, *,
                      traces: pl.DataFrame | None = None, group_by: Sequence[str] = (),
                      max_k: int = 2, confidence: float = 0.95) -> pl.DataFrame:
    """P(error at step t | k earlier errors) for k = 0 .. ``max_k``+.

    Args:
        steps: Steps frame (STEP_COLUMNS).
        findings: Detector findings; when given, their steps count as errors too.
        traces: Traces frame, needed only when ``group_by`` is not empty.
        group_by: Grouping columns of the traces frame (``model``, ``framework``, ``task_family``).
        max_k: Last bucket; ``k >= max_k`` pools into ``"{max_k}+"``.
        confidence: Confidence level of the Wilson intervals.

    Returns:
        Frame with the group columns then SELF_CONDITIONING_COLUMNS, one row per group and
        bucket (every bucket present, with ``steps = 0`` when nothing was at risk).

    Raises:
        ValueError: On a bad ``max_k`` or grouping, or grouping without ``traces``.
    """
    if max_k < 1:
        raise ValueError(f"max_k must be >= 1, got {max_k}")
    group_specs = {c.name: c for c in GROUP_COLUMNS}
    if any(g not in group_specs for g in group_by):
        raise ValueError(f"cannot group by {list(group_by)}; choose from {sorted(group_specs)}")
    if group_by and traces is None:
        raise ValueError("grouping needs the traces frame")
    flagged = error_steps(steps, findings).with_columns(
        pl.col("error").cast(pl.Int64).cum_sum().shift(1, fill_value=0).over("trace_id").alias("k"))
    flagged = flagged.with_columns(pl.min_horizontal(pl.col("k"), pl.lit(max_k)).alias("bucket"))
    if group_by and traces is not None:
        flagged = flagged.join(traces.select("trace_id", *group_by), on="trace_id", how="left").with_columns(
            pl.col(g).fill_null(UNKNOWN_GROUP) for g in group_by)
    agg = flagged.group_by([*group_by, "bucket"]).agg(
        pl.len().alias("steps"), pl.col("error").cast(pl.Int64).sum().alias("errors"))
    counts: dict[tuple[Any, ...], tuple[int, int]] = {
        tuple(r[: len(group_by) + 1]): (int(r[-2]), int(r[-1])) for r in agg.iter_rows()}
    groups = sorted({k[:-1] for k in counts}) if group_by else [()]
    rows: list[dict[str, Any]] = []
    for g in groups:
        for b in range(max_k + 1):
            n, e = counts.get((*g, b), (0, 0))
            row: dict[str, Any] = dict(zip(group_by, g, strict=True))
            row.update(k=f"{b}+" if b == max_k else str(b), steps=n, errors=e,
                       p_error=e / n if n else None)
            if n:
                row["p_error_low"], row["p_error_high"] = wilson_interval(e, n, confidence)
            rows.append(row)
    specs = (*(group_specs[g] for g in group_by), *SELF_CONDITIONING_COLUMNS)
    return frame_from_rows(rows, specs)
