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
    return _error_steps(steps.lazy(), None if findings is None else findings.lazy()).collect()


def _error_steps(steps: pl.LazyFrame, findings: pl.LazyFrame | None) -> pl.LazyFrame:
    base = steps.select("trace_id", "step", pl.col("is_error").fill_null(False).alias("error"))
    if findings is not None:
        flagged = findings
        if "status" in flagged.collect_schema().names():
            flagged = flagged.filter(pl.col("status").fill_null("suggested") != "rejected")
        flagged = flagged.select("trace_id", "step").unique().with_columns(pl.lit(True).alias("_f"))
        base = base.join(flagged, on=["trace_id", "step"], how="left").with_columns(
            (pl.col("error") | pl.col("_f").fill_null(False)).alias("error")).drop("_f")
    return base.sort(["trace_id", "step"])


_HASH_SEED = 20_240_601


def _run_keyed(steps: pl.LazyFrame, findings: pl.LazyFrame | None) -> pl.LazyFrame:
    """``_run`` (hash of the run id), ``step``, ``error``: :func:`error_steps` in numbers only."""
    run = pl.col("trace_id").hash(_HASH_SEED).alias("_run")
    base = steps.select(run, "step", pl.col("is_error").fill_null(False).alias("error"))
    if findings is not None:
        if "status" in findings.collect_schema().names():
            findings = findings.filter(pl.col("status").fill_null("suggested") != "rejected")
        flagged = findings.select(run, "step").unique().with_columns(pl.lit(True).alias("_f"))
        base = base.join(flagged, on=["_run", "step"], how="left").with_columns(
            (pl.col("error") | pl.col("_f").fill_null(False)).alias("error")).drop("_f")
    return base


def _bucket_counts(small: pl.DataFrame, max_k: int) -> pl.DataFrame:
    """Per run: steps (``_s<b>``) and errors (``_x<b>``) in each bucket ``b`` of earlier errors.

    With ``e_j`` the step of the run's j-th error and ``C_j`` the number of its steps up to and
    including ``e_j`` (``n``, the run's length, when it has fewer errors), bucket ``b < max_k``
    holds ``C_b - C_(b-1)`` steps (``C_-1 = 0``) and one error when ``e_b`` exists; the last
    bucket holds the remaining ``n - C_(max_k-1)`` steps and the errors after the first ``max_k``.
    """
    firsts = (small.lazy().filter(pl.col("error")).group_by("_run")
              .agg(pl.col("step").sort().head(max_k).alias("_e"), pl.len().alias("_ne")))
    firsts = firsts.with_columns(pl.col("_e").list.get(j, null_on_oob=True).alias(f"_e{j}") for j in range(max_k))
    per = (small.lazy().join(firsts.drop("_e"), on="_run", how="left").group_by("_run").agg(
        pl.len().alias("_n"), pl.col("_ne").first().fill_null(0),
        *((pl.col("step") <= pl.col(f"_e{j}")).sum().alias(f"_c{j}") for j in range(max_k)),
        *(pl.col(f"_e{j}").first().is_not_null().alias(f"_h{j}") for j in range(max_k))))
    ends = [pl.when(pl.col(f"_h{j}")).then(pl.col(f"_c{j}")).otherwise(pl.col("_n")).cast(pl.Int64)
            for j in range(max_k)]
    cols = []
    for b in range(max_k):
        before = ends[b - 1] if b else pl.lit(0, pl.Int64)
        cols.append((ends[b] - before).alias(f"_s{b}"))
        cols.append(pl.col(f"_h{b}").cast(pl.Int64).alias(f"_x{b}"))
    cols.append((pl.col("_n").cast(pl.Int64) - ends[max_k - 1]).alias(f"_s{max_k}"))
    cols.append((pl.col("_ne").cast(pl.Int64) - max_k).clip(lower_bound=0).alias(f"_x{max_k}"))
    return per.select("_run", *cols).collect(engine="streaming")


def pooled(grouped: pl.DataFrame, group_by: Sequence[str], confidence: float = 0.95) -> pl.DataFrame:
    """The pooled curve from a grouped :func:`self_conditioning` table (every step is in one group).

    Args:
        grouped: Output of :func:`self_conditioning` with ``group_by``.
        group_by: Its grouping columns.
        confidence: Confidence level of the Wilson intervals.

    Returns:
        The SELF_CONDITIONING_COLUMNS table :func:`self_conditioning` gives without grouping.
    """
    order = list(dict.fromkeys(grouped["k"].to_list()))
    sums = grouped.group_by("k").agg(pl.col("steps").sum(), pl.col("errors").sum())
    got = {str(k): (int(n), int(e)) for k, n, e in sums.iter_rows()}
    rows: list[dict[str, Any]] = []
    for k in order:
        n, e = got.get(k, (0, 0))
        row: dict[str, Any] = {"k": k, "steps": n, "errors": e, "p_error": e / n if n else None}
        if n:
            row["p_error_low"], row["p_error_high"] = wilson_interval(e, n, confidence)
        rows.append(row)
    return frame_from_rows(rows, SELF_CONDITIONING_COLUMNS)


def self_conditioning(steps: pl.DataFrame | pl.LazyFrame, findings: pl.DataFrame | pl.LazyFrame | None = None, *,
                      traces: pl.DataFrame | None = None, group_by: Sequence[str] = (),
                      max_k: int = 2, confidence: float = 0.95) -> pl.DataFrame:
    """P(error at step t | k earlier errors) for k = 0 .. ``max_k``+.

    Args:
        steps: Steps frame (STEP_COLUMNS), or a lazy frame (a corpus on disk): it is aggregated
            without being collected, and only ``trace_id``, ``step`` and ``is_error`` are read.
        findings: Detector findings (a frame or lazy frame); when given, their steps count as errors too.
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
    # No sort: per run, only its length, its error count and the positions of its first
    # ``max_k`` errors decide how many of its steps fall in each bucket. Runs are keyed by a
    # 64-bit hash of their id, so 10^7 steps of a corpus on disk stream into three numeric
    # columns and one hash aggregation over the runs.
    small = _run_keyed(steps.lazy(), None if findings is None else findings.lazy()).collect(engine="streaming")
    per_run = _bucket_counts(small, max_k)
    keys: list[str] = []
    group_table: pl.DataFrame | None = None
    if group_by and traces is not None:
        of_run = traces.select(pl.col("trace_id").hash(_HASH_SEED).alias("_run"),
                               *(pl.col(g).fill_null(UNKNOWN_GROUP) for g in group_by)).unique("_run")
        group_table = of_run.select(*group_by).unique(maintain_order=True).with_row_index("_g")
        of_run = of_run.join(group_table, on=list(group_by), how="left").select("_run", "_g")
        per_run = per_run.join(of_run, on="_run", how="left")
        keys = ["_g"]
    sums = [pl.col(f"_s{b}").sum() for b in range(max_k + 1)] + [pl.col(f"_x{b}").sum() for b in range(max_k + 1)]
    agg = per_run.group_by(keys).agg(*sums) if keys else per_run.select(*sums)
    if group_table is not None:
        agg = agg.join(group_table, on="_g", how="left").with_columns(
            pl.col(g).fill_null(UNKNOWN_GROUP) for g in group_by)  # steps of runs the traces lack
        agg = agg.group_by(list(group_by)).agg(pl.all().exclude("_g").sum())
    agg = pl.concat([agg.select(*group_by, pl.lit(b, pl.Int64).alias("bucket"), pl.col(f"_s{b}").alias("steps"),
                                pl.col(f"_x{b}").alias("errors")) for b in range(max_k + 1)], how="vertical_relaxed")
    agg = agg.filter(pl.col("steps") > 0)
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
