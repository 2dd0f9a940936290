"""Decisive-step attribution: per-step features, a fitted ranker, judge re-ranking, evidence value curve."""

from analyzer.attribution.attribute import (
    Attribution,
    Candidate,
    attribute,
    choose_category,
    combine_with_judge,
)
from analyzer.attribution.features import FEATURE_NAMES, TRANSFER_FEATURES, step_features
from analyzer.attribution.hazards import StepEvidence, step_evidence
from analyzer.attribution.ranker import PARAMS_VERSION, Ranker, RankerParams, softmax
from analyzer.attribution.value_curve import (
    CHEAP_ESTIMATOR,
    EVIDENCE_ESTIMATOR,
    ValueCurve,
    drop_note,
    value_curve,
)

__all__ = [
    "CHEAP_ESTIMATOR",
    "EVIDENCE_ESTIMATOR",
    "FEATURE_NAMES",
    "PARAMS_VERSION",
    "TRANSFER_FEATURES",
    "Attribution",
    "Candidate",
    "Ranker",
    "RankerParams",
    "StepEvidence",
    "ValueCurve",
    "attribute",
    "choose_category",
    "combine_with_judge",
    "drop_note",
    "softmax",
    "step_evidence",
    "step_features",
    "value_curve",
]
