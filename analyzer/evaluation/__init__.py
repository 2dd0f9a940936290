"""Evaluation of decisive-step attribution: scoring rules, Wilson intervals, baselines, harness."""

from analyzer.evaluation.baselines import BASELINES, baseline_predictions
from analyzer.evaluation.harness import EvalReport, evaluate, format_report, predictions_from_result
from analyzer.evaluation.scoring import (
    METRIC_NAMES,
    Gold,
    Metric,
    Prediction,
    Scores,
    normalise_agent,
    score,
    wilson,
)

__all__ = [
    "BASELINES",
    "METRIC_NAMES",
    "EvalReport",
    "Gold",
    "Metric",
    "Prediction",
    "Scores",
    "baseline_predictions",
    "evaluate",
    "format_report",
    "normalise_agent",
    "predictions_from_result",
    "score",
    "wilson",
]
