"""Per-group aggregates of the signal detectors and the efficiency metric (``models.csv`` columns).

Read from the run columns of :mod:`analyzer.signals.columns` and from
:func:`analyzer.metrics.efficiency.efficiency_table`; units in ``docs/detectors.md``.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import polars as pl

from analyzer.frames.columns import ColumnSpec
from analyzer.metrics.efficiency import efficiency_table

SIGNAL_MODEL_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("median_step_overhead", pl.Float64, "Median of (steps / steps of the task's shortest success) - 1 "
               "over runs whose task has a success (ratio; 0 = as short)."),
    ColumnSpec("median_extra_steps", pl.Float64, "Median extra steps against the task's shortest success (steps)."),
    ColumnSpec("wasted_step_share", pl.Float64, "Wasted steps / all steps (repeated reads, unchanged re-runs, "
               "unused outputs)."),
    ColumnSpec("wasted_share_failed", pl.Float64, "Same, over failed runs only."),
    ColumnSpec("wasted_share_passed", pl.Float64, "Same, over successful runs only."),
    ColumnSpec("risky_runs", pl.Int64, "Runs in which a whole risky combination occurred."),
    ColumnSpec("check_caught", pl.Int64, "Failed runs where a cheap check would have shown the divergence."),
    ColumnSpec("check_caught_share", pl.Float64, "check_caught / failed runs."),
    ColumnSpec("checkpoint_k", pl.Int64, "Step k: median (rounded up) of the earliest check steps of failed runs."),
    ColumnSpec("checkpoint_share", pl.Float64, "Share of failed runs a verification checkpoint after step "
               "checkpoint_k would have caught (check step <= k)."),
    ColumnSpec("median_check_lead", pl.Float64, "Median steps between the earliest check and the failure."),
    ColumnSpec("context_saveable_share", pl.Float64, "Saveable re-sent input tokens / input tokens, summed over "
               "runs (tokens estimated as chars/4 where not reported)."),
    ColumnSpec("understood_mean", pl.Float64, "Mean of the runs' mean 'understood' scores (0-1)."),
    ColumnSpec("used_mean", pl.Float64, "Mean of the runs' mean 'used' scores (0-1)."),
)
"""Appended to ``MODEL_METRIC_COLUMNS``."""

_RUN_FIELDS = ("risk_rules", "check_step", "check_lead", "wasted_steps", "context_tokens_in",
               "context_saveable_tokens", "understood_mean", "used_mean")
_EFF_FIELDS = ("step_overhead", "extra_steps")


def signal_frame(traces: pl.DataFrame, runs: pl.DataFrame | None) -> pl.DataFrame:
    """``trace_id`` plus the per-run fields the aggregates read (null where not analysed)."""
    eff = efficiency_table(traces).select("trace_id", *_EFF_FIELDS)
    if runs is None or not runs.height:
        return eff.with_columns(pl.lit(None).alias(c) for c in _RUN_FIELDS)
    have = [c for c in _RUN_FIELDS if c in runs.columns]
    sig = runs.unique("trace_id", keep="last").select("trace_id", *have).with_columns(
        pl.lit(None).alias(c) for c in _RUN_FIELDS if c not in have)
    return eff.join(sig, on="trace_id", how="left")


def _values(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [float(r[key]) for r in rows if r.get(key) is not None]


def _median(xs: list[float]) -> float | None:
    return float(statistics.median(xs)) if xs else None


def _mean(xs: list[float]) -> float | None:
    return round(float(statistics.fmean(xs)), 4) if xs else None


def _share(rows: list[dict[str, Any]]) -> float | None:
    done = [r for r in rows if r.get("wasted_steps") is not None and r.get("n_steps")]
    steps = sum(int(r["n_steps"]) for r in done)
    return round(sum(int(r["wasted_steps"]) for r in done) / steps, 4) if steps else None


def signal_group_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The SIGNAL_MODEL_COLUMNS of one group (rows carry outcome, n_steps and the signal fields)."""
    failed = [r for r in rows if r.get("outcome") == "failure"]
    checks = [int(r["check_step"]) for r in failed if r.get("check_step") is not None]
    out: dict[str, Any] = {
        "median_step_overhead": _median(_values(rows, "step_overhead")),
        "median_extra_steps": _median(_values(rows, "extra_steps")),
        "wasted_step_share": _share(rows),
        "wasted_share_failed": _share(failed),
        "wasted_share_passed": _share([r for r in rows if r.get("outcome") == "success"]),
        "risky_runs": sum(1 for r in rows if r.get("risk_rules")),
        "check_caught": len(checks),
        "check_caught_share": round(len(checks) / len(failed), 4) if failed else None,
        "median_check_lead": _median(_values(failed, "check_lead")),
        "understood_mean": _mean(_values(rows, "understood_mean")),
        "used_mean": _mean(_values(rows, "used_mean")),
    }
    if checks:
        k = math.ceil(statistics.median(checks))
        out["checkpoint_k"] = k
        out["checkpoint_share"] = round(sum(1 for c in checks if c <= k) / len(failed), 4)
    sent = sum(int(r["context_tokens_in"]) for r in rows if r.get("context_tokens_in"))
    saved = sum(int(r["context_saveable_tokens"]) for r in rows
                if r.get("context_tokens_in") and r.get("context_saveable_tokens") is not None)
    out["context_saveable_share"] = round(saved / sent, 4) if sent else None
    return out
