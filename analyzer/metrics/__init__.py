"""Model-selection metrics: pass rates, failure categories, reliability, horizons, pairs."""

from analyzer.metrics.columns import (
    GROUP_COLUMNS,
    MODEL_METRIC_COLUMNS,
    SELF_CONDITIONING_COLUMNS,
)
from analyzer.metrics.labels import LABEL_COLUMNS, effective_labels
from analyzer.metrics.model_names import apply_model_groups, model_group, normalise_model
from analyzer.metrics.models import metric_columns, model_metrics, rank_groups
from analyzer.metrics.paired import PairedComparison, TaskDifference, paired_comparison
from analyzer.metrics.reliability import (
    Reliability,
    horizon,
    horizon_curve,
    step_reliability,
    survival_counts,
)
from analyzer.metrics.self_conditioning import error_steps, self_conditioning
from analyzer.metrics.stats import mcnemar_exact, wilson_interval

__all__ = [
    "GROUP_COLUMNS",
    "LABEL_COLUMNS",
    "MODEL_METRIC_COLUMNS",
    "SELF_CONDITIONING_COLUMNS",
    "PairedComparison",
    "Reliability",
    "TaskDifference",
    "apply_model_groups",
    "effective_labels",
    "error_steps",
    "horizon",
    "horizon_curve",
    "mcnemar_exact",
    "metric_columns",
    "model_group",
    "model_metrics",
    "normalise_model",
    "paired_comparison",
    "rank_groups",
    "self_conditioning",
    "step_reliability",
    "survival_counts",
    "wilson_interval",
]
