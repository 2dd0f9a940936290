"""Failure insights: the decisive failures of a corpus grouped into kinds of failure.

See ``docs/insights.md``. Entry point: :func:`compute_insights`.
"""

from analyzer.insights.cluster import (
    FAILURE_COLUMNS,
    InsightParams,
    cluster_failures,
    failure_table,
    feature_matrix,
    insight_id,
)
from analyzer.insights.model import (
    INSIGHT_COLUMNS,
    MIN_GROUP,
    NOT_GROUPED,
    Insight,
    InsightSet,
    compute_insights,
)
from analyzer.insights.naming import insight_name, top_terms

__all__ = [
    "FAILURE_COLUMNS",
    "INSIGHT_COLUMNS",
    "MIN_GROUP",
    "NOT_GROUPED",
    "Insight",
    "InsightParams",
    "InsightSet",
    "cluster_failures",
    "compute_insights",
    "failure_table",
    "feature_matrix",
    "insight_id",
    "insight_name",
    "top_terms",
]
