"""The report's "Beyond the decisive step" section: risk, missed checks, waste, tool-answer use.

Built from ``traces.csv`` (the run table, with the signal and efficiency columns) and
``models.csv`` (the per-model aggregates). Risky runs come first, then the rest by how much
the signals say (missed check, overhead, waste).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

MAX_SIGNAL_RUNS = 50
"""Runs listed in the section (the rest are in ``traces.csv``)."""


@dataclass
class SignalRunView:
    """One run's signals."""

    trace_id: str
    native_id: str
    model: str
    outcome: str
    risk_score: float | None
    risk_rules: list[str]
    risk_predictable_step: int | None
    check_kind: str | None
    check_step: int | None
    check_lead: int | None
    extra_steps: int | None
    shortest_success_steps: int | None
    wasted_steps: int | None
    wasted_share: float | None
    context_saveable_share: float | None
    context_saveable_tokens: int | None
    understood_mean: float | None
    used_mean: float | None
    used_trend: float | None


@dataclass
class SignalModelView:
    """One model's signal aggregates, with the checkpoint sentence."""

    model: str
    median_step_overhead: float | None
    wasted_step_share: float | None
    wasted_share_failed: float | None
    wasted_share_passed: float | None
    risky_runs: int
    check_caught_share: float | None
    checkpoint_k: int | None
    checkpoint_share: float | None
    context_saveable_share: float | None
    understood_mean: float | None
    used_mean: float | None


@dataclass
class SignalSection:
    """What the section renders."""

    runs: list[SignalRunView] = field(default_factory=list)
    models: list[SignalModelView] = field(default_factory=list)
    risky_runs: int = 0
    omitted: int = 0


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def _float(v: Any) -> float | None:
    return None if v is None else float(v)


def _has_signal(r: dict[str, Any]) -> bool:
    return bool(r.get("risk_rules") or r.get("check_kind") or (r.get("extra_steps") or 0) > 0
                or (r.get("wasted_steps") or 0) > 0 or (r.get("context_saveable_share") or 0) >= 0.2
                or (r.get("understood_mean") is not None and r["understood_mean"] < 1.0))


def signal_section(table: pl.DataFrame, metrics: pl.DataFrame, limit: int = MAX_SIGNAL_RUNS) -> SignalSection | None:
    """The section, or None when no run was analysed by the signal detectors.

    Args:
        table: ``traces.csv`` rows (:func:`analyzer.export.tables.run_table`).
        metrics: ``models.csv`` rows (:func:`analyzer.metrics.model_metrics`, grouped by model).
        limit: Runs listed at most.
    """
    if "risk_score" not in table.columns or table["risk_score"].is_null().all():
        return None
    rows = [r for r in table.to_dicts() if _has_signal(r)]
    rows.sort(key=lambda r: (-(r.get("risk_score") or 0.0) if r.get("risk_rules") else 1.0,
                             r.get("check_step") is None, -(r.get("extra_steps") or 0),
                             -(r.get("wasted_share") or 0.0)))
    views = [SignalRunView(
        trace_id=str(r["trace_id"]), native_id=str(r.get("native_id") or ""), model=str(r.get("model") or "(unknown)"),
        outcome=str(r.get("outcome") or "unknown"), risk_score=_float(r.get("risk_score")),
        risk_rules=[x for x in str(r.get("risk_rules") or "").split(";") if x],
        risk_predictable_step=_int(r.get("risk_predictable_step")), check_kind=r.get("check_kind"),
        check_step=_int(r.get("check_step")), check_lead=_int(r.get("check_lead")),
        extra_steps=_int(r.get("extra_steps")), shortest_success_steps=_int(r.get("shortest_success_steps")),
        wasted_steps=_int(r.get("wasted_steps")), wasted_share=_float(r.get("wasted_share")),
        context_saveable_share=_float(r.get("context_saveable_share")),
        context_saveable_tokens=_int(r.get("context_saveable_tokens")),
        understood_mean=_float(r.get("understood_mean")), used_mean=_float(r.get("used_mean")),
        used_trend=_float(r.get("used_trend")),
    ) for r in rows[:limit]]
    models = [SignalModelView(
        model=str(m.get("model") or "(unknown)"), median_step_overhead=_float(m.get("median_step_overhead")),
        wasted_step_share=_float(m.get("wasted_step_share")), wasted_share_failed=_float(m.get("wasted_share_failed")),
        wasted_share_passed=_float(m.get("wasted_share_passed")), risky_runs=int(m.get("risky_runs") or 0),
        check_caught_share=_float(m.get("check_caught_share")), checkpoint_k=_int(m.get("checkpoint_k")),
        checkpoint_share=_float(m.get("checkpoint_share")),
        context_saveable_share=_float(m.get("context_saveable_share")),
        understood_mean=_float(m.get("understood_mean")), used_mean=_float(m.get("used_mean")),
    ) for m in metrics.to_dicts()] if "risky_runs" in metrics.columns else []
    risky = sum(1 for r in rows if r.get("risk_rules"))
    return SignalSection(runs=views, models=models, risky_runs=risky, omitted=max(0, len(rows) - limit))
