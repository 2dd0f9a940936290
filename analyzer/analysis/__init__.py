"""Analysis results: per-run attribution, per-step values and findings, as frames."""

from analyzer.analysis.result import (
    RUN_COLUMNS,
    STEP_VALUE_COLUMNS,
    AnalysisResult,
    RunAnalysis,
)

__all__ = ["RUN_COLUMNS", "STEP_VALUE_COLUMNS", "AnalysisResult", "RunAnalysis"]
