"""Decisive-step attribution: per-step features, a fitted ranker, judge re-ranking, cheap value curve."""

from analyzer.attribution.attribute import (
    Attribution,
    Candidate,
    attribute,
    choose_category,
    combine_with_judge,
)
from analyzer.attribution.features import FEATURE_NAMES, step_features
from analyzer.attribution.ranker import PARAMS_VERSION, Ranker, RankerParams, softmax
from analyzer.attribution.value_curve import (
    CHEAP_ESTIMATOR,
    CheapCurve,
    cheap_value_curve,
    success_curve,
)

__all__ = [
    "CHEAP_ESTIMATOR",
    "FEATURE_NAMES",
    "PARAMS_VERSION",
    "Attribution",
    "Candidate",
    "CheapCurve",
    "Ranker",
    "RankerParams",
    "attribute",
    "cheap_value_curve",
    "choose_category",
    "combine_with_judge",
    "softmax",
    "step_features",
    "success_curve",
]
