"""Run the signals-phase detectors on one run and merge their output into its analysis.

A signals detector is a detector object with ``phase = "signals"`` and, besides
``__call__`` (findings only), an ``analyse(trajectory, ctx) -> SignalOutput`` method that also
returns per-step and per-run values. Only the names declared in
:mod:`analyzer.signals.columns` reach the tables; other keys are reported as errors, so a
plugin cannot silently write columns nobody documented.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from analyzer.detection.runner import SIGNALS_PHASE
from analyzer.errors import PluginError
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.columns import RUN_SIGNAL_NAMES, STEP_SIGNAL_NAMES
from analyzer.signals.steps import with_table

if TYPE_CHECKING:
    from analyzer.analysis.result import RunAnalysis

__all__ = ["SIGNALS_PHASE", "SignalOutput", "SignalRun", "apply_signals", "run_signals"]


@dataclass
class SignalOutput:
    """What one signals detector says about one run.

    Attributes:
        findings: Findings (taxonomy categories; the detector id as ``source``).
        step_values: Column name -> one value per step (None where it does not apply).
        run_values: Column name -> value for the run.
    """

    findings: list[Finding] = field(default_factory=list)
    step_values: dict[str, list[Any]] = field(default_factory=dict)
    run_values: dict[str, Any] = field(default_factory=dict)


class SignalDetector:
    """Base of a signal detector: it declares the signals phase, and calling it gives the findings.

    Subclasses implement :meth:`analyse`, which returns the findings together with the step and
    run values (``SignalOutput``).
    """

    phase = SIGNALS_PHASE

    def __call__(self, trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
        """Findings only (the detector protocol)."""
        return self.analyse(trajectory, ctx).findings

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Findings, per-step and per-run values of one run."""
        raise NotImplementedError


@dataclass
class SignalRun:
    """Merged output of every signals detector on one run, and their problems."""

    findings: list[Finding] = field(default_factory=list)
    step_values: dict[str, list[Any]] = field(default_factory=dict)
    run_values: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _check(out: SignalOutput, n: int, trace_id: str) -> list[str]:
    problems = [f"unknown step column '{k}'" for k in out.step_values if k not in STEP_SIGNAL_NAMES]
    problems += [f"unknown run column '{k}'" for k in out.run_values if k not in RUN_SIGNAL_NAMES]
    problems += [f"column '{k}' has {len(v)} values for {n} steps" for k, v in out.step_values.items()
                 if len(v) != n]
    problems += [f"finding points at step {f.step} but the run has {n} steps" for f in out.findings if f.step >= n]
    problems += ["finding of another run" for f in out.findings if f.trace_id != trace_id]
    return problems


def run_signals(trajectory: Trajectory, ctx: DetectionContext, host: PluginHost,
                only: Sequence[str] | None = None) -> SignalRun:
    """Run every declared signals-phase detector on one (blinded) run.

    A detector that fails to load, raises or returns inconsistent output becomes an error
    string; the others still run.
    """
    result = SignalRun()
    n = len(trajectory.steps)
    ctx = with_table(trajectory, ctx)  # one step-signal table for every detector of the run
    for spec in host.detectors():
        if only is not None and spec.id not in only:
            continue
        try:
            det = host.load_detector(spec.id)
        except PluginError:
            continue  # reported once by the steps phase
        if getattr(det, "phase", None) != SIGNALS_PHASE:
            continue
        try:
            analyse = getattr(det, "analyse", None)
            out = analyse(trajectory, ctx) if analyse is not None else SignalOutput(findings=list(det(trajectory, ctx)))
            if not isinstance(out, SignalOutput):
                raise TypeError(f"returned {type(out).__name__}, expected a SignalOutput")
            problems = _check(out, n, trajectory.id)
            if problems:
                raise ValueError("; ".join(problems[:3]))
        except Exception as exc:  # a failing detector is an error row, never a crash
            result.errors.append(f"{spec.id}: {type(exc).__name__}: {exc}")
            continue
        result.findings.extend(f if f.source else f.model_copy(update={"source": spec.id}) for f in out.findings)
        result.step_values.update(out.step_values)
        result.run_values.update(out.run_values)
    return result


def apply_signals(trajectory: Trajectory, ra: RunAnalysis, host: PluginHost,
                  only: Sequence[str] | None = None, table: pl.DataFrame | None = None) -> None:
    """Run the signals detectors on a run and add their findings, step and run values to ``ra``.

    The run's ``findings`` step column and ``n_findings`` include the new findings; the
    decisive step, category and value curve are left as the attribution made them. ``table`` is
    the run's step-signal table (:mod:`analyzer.signals.steps`), handed to the detectors on their
    context (they compute it when it is None).
    """
    sig = run_signals(trajectory, DetectionContext(step_table=table), host, only)
    if not (sig.findings or sig.step_values or sig.run_values or sig.errors):
        return
    for name, values in sig.step_values.items():
        for row, v in zip(ra.steps, values, strict=False):
            row[name] = v
    by_step: dict[int, list[str]] = {}
    for f in sig.findings:
        by_step.setdefault(f.step, []).append(str(f.category))
    for row in ra.steps:
        extra = by_step.get(int(str(row["step"])), [])
        if extra:
            have = [c for c in str(row.get("findings") or "").split(";") if c]
            row["findings"] = ";".join(dict.fromkeys([*have, *extra]))
    ra.run.update(sig.run_values)
    ra.findings.extend(sig.findings)
    ra.run["n_findings"] = len(ra.findings)
    if sig.errors:
        errs = [e for e in [ra.run.get("error")] if e]
        ra.run["error"] = "; ".join([*map(str, errs), *sig.errors])
        ra.errors.extend(f"{trajectory.id}: {e}" for e in sig.errors)
