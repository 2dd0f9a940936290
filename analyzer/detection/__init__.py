"""Running failure detectors (declared as plugins) and the text helpers they share."""

from analyzer.detection.runner import (
    DECISIVE_PHASE,
    STEPS_PHASE,
    DetectionRun,
    detector_phase,
    run_detectors,
)

__all__ = ["DECISIVE_PHASE", "STEPS_PHASE", "DetectionRun", "detector_phase", "run_detectors"]
