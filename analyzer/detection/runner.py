"""Run the declared detectors on one trajectory.

A detector that fails to load, raises, or returns something that is not a list of
findings becomes an error string in the result; the other detectors still run.

Detectors run in two phases. ``steps`` detectors (the default) look at the whole run.
``decisive`` detectors (a ``phase = "decisive"`` attribute on the detector object) run after
attribution and read ``ctx.settings["decisive_step"]`` (e.g. the judge's category
classification of the decisive step).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from analyzer.errors import PluginError
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.plugin_host.registry import DetectorSpec, PluginHost
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory

STEPS_PHASE = "steps"
DECISIVE_PHASE = "decisive"
SIGNALS_PHASE = "signals"
"""Signal detectors (:mod:`analyzer.signals`) run after attribution; ``run_detectors`` only runs them when asked."""


@dataclass
class DetectionRun:
    """Findings and problems of the detectors on one run.

    Attributes:
        findings: Valid findings, in detector order.
        errors: ``"<detector id>: <problem>"`` for each detector that failed.
    """

    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def detector_phase(obj: Any) -> str:
    """Phase a loaded detector runs in (``steps`` unless it says ``decisive``)."""
    phase = getattr(obj, "phase", STEPS_PHASE)
    return phase if phase in (DECISIVE_PHASE, SIGNALS_PHASE) else STEPS_PHASE


def _coerce(raw: object, trajectory: Trajectory, spec: DetectorSpec) -> list[Finding]:
    if raw is None:
        return []
    if not isinstance(raw, (list, tuple)):
        raise TypeError(f"returned {type(raw).__name__}, expected a list of findings")
    n = len(trajectory.steps)
    out: list[Finding] = []
    for item in raw:
        f = item if isinstance(item, Finding) else Finding.model_validate(item)
        if f.trace_id != trajectory.id:
            f = f.model_copy(update={"trace_id": trajectory.id})
        if f.step >= n:
            raise ValueError(f"finding points at step {f.step} but the run has {n} steps")
        if not f.source:
            f = f.model_copy(update={"source": spec.id})
        out.append(f)
    return out


def run_detectors(
    trajectory: Trajectory,
    ctx: DetectionContext,
    host: PluginHost,
    *,
    only: Sequence[str] | None = None,
    phase: str = STEPS_PHASE,
    reraise: tuple[type[BaseException], ...] = (),
) -> DetectionRun:
    """Run every declared detector of one phase on one trajectory.

    Args:
        trajectory: The run (gold labels already removed by the caller).
        ctx: Shared inputs (embeddings, settings).
        host: Plugin host declaring the detectors.
        only: Detector ids to run (default: all declared).
        phase: ``steps`` or ``decisive``.
        reraise: Exception types that propagate instead of becoming errors (the pipeline
            passes ``ModelUnavailable`` so a vanished judge is switched off once).

    Returns:
        Findings of the detectors that worked and an error string for each that did not.
    """
    # imported here, not at the top: importing analyzer.signals runs its package init, which imports this module
    from analyzer.signals.steps import with_table

    result = DetectionRun()
    ctx = with_table(trajectory, ctx)  # one step-signal table for every detector of the run
    for spec in host.detectors():
        if only is not None and spec.id not in only:
            continue
        try:
            det = host.load_detector(spec.id)
        except PluginError as exc:
            if phase == STEPS_PHASE:
                result.errors.append(f"{spec.id}: {exc}")
            continue
        if detector_phase(det) != phase:
            continue
        try:
            raw = det(trajectory, ctx)
            result.findings.extend(_coerce(raw, trajectory, spec))
        except reraise:
            raise
        except ValidationError as exc:
            result.errors.append(f"{spec.id}: returned an invalid finding ({exc.error_count()} problems: "
                                 f"{exc.errors()[0].get('msg', '')})")
        except Exception as exc:  # a failing detector is an error row, never a crash
            result.errors.append(f"{spec.id}: {type(exc).__name__}: {exc}")
    return result
