"""Conditional-logit ranker of candidate decisive steps (softmax over the steps of a run).

The fitted parameters live in a small versioned JSON file inside the package
(``params/ranker-v4.json``), written by ``trajscope eval fit`` (:mod:`analyzer.evaluation.selection`).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.category_params import CategoryParams
from analyzer.attribution.features import FEATURE_NAMES
from analyzer.attribution.symptom_rule import SymptomRule

PARAMS_VERSION = "ranker-v4"
"""Version of the shipped parameter file (bump when features or their meaning change)."""

DEFAULT_PARAMS_FILE = f"{PARAMS_VERSION}.json"


@dataclass
class RankerParams:
    """Fitted parameters of the ranker.

    Attributes:
        version: Params file version.
        features: Feature names the weights refer to.
        mean: Per-feature mean used for standardisation.
        scale: Per-feature scale used for standardisation.
        weights: One weight per feature (on standardised features).
        lo: Per-feature minimum seen in training; inputs are clipped to [lo, hi] so the
            ranker never extrapolates (e.g. to positions far beyond the training runs).
        hi: Per-feature maximum seen in training.
        evidence_weight: Weight of the detector-evidence prior added to the fitted logits on
            runs as long as the training runs (chosen by cross-validation).
        evidence_weight_long: Its weight on runs three or more times longer than the longest
            training run, where the fitted structural weights are extrapolated (a design
            constant: detectors, not positions learnt on short runs, carry long runs).
        evidence_weight_grounded: Its weight on runs that log tool or environment output
            (observation steps): there the detectors' findings rest on what the tools
            returned, not only on the agent's own words (0: same as ``evidence_weight``).
        train_max_steps: Longest training run (steps); between it and three times it the
            evidence weight moves from ``evidence_weight`` to ``evidence_weight_long``.
        judge_weight: Weight of the judge's log-odds when re-ranking the top candidates.
        judge_top_k: How many top candidates the judge re-ranks.
        value_prior: V before the first step of the cheap value curve.
        agent_temperature: Temperature of the agent mass that names the responsible agent
            (0: the agent of the top step), chosen by cross-validation.
        actor_weight: Weight of each agent's share of the run's acting decisions (tool calls,
            code, action sections) added to its agent mass when naming the responsible agent
            (0: the mass alone). See :func:`analyzer.attribution.attribute.responsible_agent`.
        first_runner_weight: Weight added to the agent that first runs something (a tool call,
            an action, a runnable code block: :func:`analyzer.detection.text.runs_code`) when
            naming the responsible agent (0: no such term).
        calibration_temperature: Temperature of the reported probabilities: the one that
            maximises the likelihood of the labelled decisive steps on held-out systems
            (chosen by the fit command, :mod:`analyzer.evaluation.selection`).
        uncertain_below: Calibrated probability of the decisive step below which the answer is
            shown as "uncertain: steps a, b, c" instead of one decisive step.
        uncertain_top: How many steps that "uncertain" answer names.
        evidence_classes: Weights of the evidence column
            (:data:`~analyzer.attribution.features.EVIDENCE_KEYS`; a missing key is 1).
        symptom_rule: Which findings the evidence column reads as symptoms (the file's
            ``symptom_rule`` section; without it, none).
        category: Tunables of the category chooser (the file's ``category`` section).
        meta: Training details (data, CV figures, date).
    """

    version: str
    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    lo: list[float] | None = None
    hi: list[float] | None = None
    evidence_weight: float = 0.0
    evidence_weight_long: float = 0.0
    evidence_weight_grounded: float = 0.0
    train_max_steps: int = 0
    judge_weight: float = 0.0
    judge_top_k: int = 3
    value_prior: float = 0.9
    agent_temperature: float = 0.0
    actor_weight: float = 0.0
    first_runner_weight: float = 0.0
    calibration_temperature: float = 1.0
    uncertain_below: float = 0.0
    uncertain_top: int = 3
    evidence_classes: dict[str, float] = field(default_factory=dict)
    symptom_rule: SymptomRule = field(default_factory=SymptomRule)
    category: CategoryParams = field(default_factory=CategoryParams)
    meta: dict[str, Any] = field(default_factory=dict)

    def judge_weight_for(self, model_id: str | None) -> float:
        """The judge weight to use with the judge ``model_id``.

        ``trajscope eval fit --judge MODEL`` chooses the weight for one judge model and records
        it in ``meta.judge.model``; another model's answers are on another scale, so with any
        other judge the weight is 0 (the judge re-ranks nothing). The in-set fit
        (``python -m analyzer.evaluation.fit --judge``) records the model as ``meta.judge_model``,
        which counts the same. A params file with neither record applies its weight to any judge.
        """
        record = self.meta.get("judge")
        chosen_for = record.get("model") if isinstance(record, dict) else self.meta.get("judge_model")
        if chosen_for is not None and chosen_for != model_id:
            return 0.0
        return self.judge_weight

    def to_json(self) -> dict[str, Any]:
        """Plain dict for the params file."""
        return {
            "version": self.version, "features": self.features, "mean": self.mean, "scale": self.scale,
            "weights": self.weights, "lo": self.lo, "hi": self.hi,
            "evidence_weight": self.evidence_weight, "evidence_weight_long": self.evidence_weight_long,
            "evidence_weight_grounded": self.evidence_weight_grounded,
            "train_max_steps": self.train_max_steps, "judge_weight": self.judge_weight, "judge_top_k": self.judge_top_k,
            "value_prior": self.value_prior, "agent_temperature": self.agent_temperature,
            "actor_weight": self.actor_weight, "first_runner_weight": self.first_runner_weight,
            "calibration_temperature": self.calibration_temperature, "uncertain_below": self.uncertain_below,
            "uncertain_top": self.uncertain_top, "evidence_classes": self.evidence_classes,
            "symptom_rule": self.symptom_rule.to_json(), "category": self.category.to_json(), "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RankerParams:
        """Parse a params dict; raises ValueError on a malformed file."""
        try:
            p = cls(version=str(data["version"]), features=[str(f) for f in data["features"]],
                    mean=[float(v) for v in data["mean"]], scale=[float(v) for v in data["scale"]],
                    weights=[float(v) for v in data["weights"]],
                    lo=[float(v) for v in data["lo"]] if data.get("lo") is not None else None,
                    hi=[float(v) for v in data["hi"]] if data.get("hi") is not None else None,
                    evidence_weight=float(data.get("evidence_weight", 0.0)),
                    evidence_weight_long=float(data.get("evidence_weight_long", data.get("evidence_weight", 0.0))),
                    evidence_weight_grounded=float(data.get("evidence_weight_grounded", 0.0)),
                    train_max_steps=int(data.get("train_max_steps", 0)),
                    judge_weight=float(data.get("judge_weight", 0.0)),
                    judge_top_k=int(data.get("judge_top_k", 3)),
                    value_prior=float(data.get("value_prior", 0.9)),
                    agent_temperature=float(data.get("agent_temperature", 0.0)),
                    actor_weight=float(data.get("actor_weight", 0.0)),
                    first_runner_weight=float(data.get("first_runner_weight", 0.0)),
                    calibration_temperature=float(data.get("calibration_temperature", 1.0)),
                    uncertain_below=float(data.get("uncertain_below", 0.0)),
                    uncertain_top=int(data.get("uncertain_top", 3)),
                    evidence_classes={str(k): float(v) for k, v in dict(data.get("evidence_classes") or {}).items()},
                    symptom_rule=SymptomRule.from_json(data.get("symptom_rule")),
                    category=CategoryParams.from_json(data.get("category")),
                    meta=dict(data.get("meta", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad ranker params: {type(exc).__name__}: {exc}") from None
        lengths = {len(p.features), len(p.mean), len(p.scale), len(p.weights)}
        lengths |= {len(v) for v in (p.lo, p.hi) if v is not None}
        if len(lengths) != 1:
            raise ValueError("bad ranker params: per-feature lists differ in length")
        return p


class Ranker:
    """Scores the steps of a run as the decisive step.

    Features the params do not know get weight 0; features the params know but the code no
    longer computes are ignored, so an old params file degrades gracefully.
    """

    def __init__(self, params: RankerParams) -> None:
        self.params = params
        index = {f: k for k, f in enumerate(params.features)}
        self._w = np.zeros(len(FEATURE_NAMES))
        self._mu = np.zeros(len(FEATURE_NAMES))
        self._sd = np.ones(len(FEATURE_NAMES))
        self._lo = np.full(len(FEATURE_NAMES), -np.inf)
        self._hi = np.full(len(FEATURE_NAMES), np.inf)
        for j, name in enumerate(FEATURE_NAMES):
            k = index.get(name)
            if k is not None:
                self._w[j] = params.weights[k]
                self._mu[j] = params.mean[k]
                self._sd[j] = params.scale[k] if params.scale[k] > 0 else 1.0
                if params.lo is not None and params.hi is not None:
                    self._lo[j], self._hi[j] = params.lo[k], params.hi[k]

    @classmethod
    def load(cls, path: str | Path | None = None) -> Ranker:
        """Load the shipped params (or a params file)."""
        if path is None:
            text = resources.files("analyzer.attribution").joinpath("params", DEFAULT_PARAMS_FILE).read_text("utf-8")
        else:
            text = Path(path).read_text("utf-8")
        return cls(RankerParams.from_json(json.loads(text)))

    @classmethod
    def shipped(cls) -> Ranker:
        """The shipped params, loaded once per process (do not mutate)."""
        return _shipped()

    @property
    def weights(self) -> np.ndarray:
        """Fitted weights, one per column of :meth:`design` (a copy)."""
        return self._w.copy()

    def design(self, features: np.ndarray) -> np.ndarray:
        """The standardised, clipped design matrix of one run (steps x FEATURE_NAMES).

        ``logits(x) == design(x) @ weights + offset(x)``: adapting the ranker to new labels
        refits only the weights on this design.
        """
        if features.size == 0:
            return np.zeros((features.shape[0], len(FEATURE_NAMES)))
        z: np.ndarray = (np.clip(features, self._lo, self._hi) - self._mu) / self._sd
        return z

    def offset(self, features: np.ndarray) -> np.ndarray:
        """The fixed (not fitted) part of the logits of one run: the detector-evidence prior."""
        p = self.params
        return evidence_offset(features, p.evidence_weight, p.evidence_weight_long, p.train_max_steps,
                               p.evidence_weight_grounded)

    def confidence_temperature(self, features: np.ndarray | None = None, logits: np.ndarray | None = None) -> float:
        """Temperature of the reported probabilities: the params' fitted ``calibration_temperature``.

        The fit command chooses it to maximise the likelihood of the labelled decisive steps on
        held-out systems, so a reported 0.3 means about three hits in ten there. The arguments are
        accepted for callers that pass the run; the temperature does not depend on it.
        """
        t = self.params.calibration_temperature
        return t if t > 0.0 else 1.0

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Unnormalised scores of each step (higher = more likely decisive)."""
        if features.size == 0:
            return np.zeros(features.shape[0])
        total: np.ndarray = self.design(features) @ self._w + self.offset(features)
        return total


@functools.cache
def _shipped() -> Ranker:
    return Ranker.load()


_COL = {n: k for k, n in enumerate(FEATURE_NAMES)}

PRIOR_FEATURES: tuple[str, ...] = ("evidence", "finding_max", "finding_agent", "n_findings_log")
"""Features that are never fitted (weight 0): the detector evidence enters only through the
fixed-weight prior. The development set (short group chats with few, noisy findings) would
otherwise fit weights that cancel the detectors, which carry the signal on long traces of
other systems."""


def evidence_weight_for(n_steps: int, short: float, long: float, train_max_steps: int) -> float:
    """Evidence weight for a run of ``n_steps`` (log-linear from ``short`` to ``long``)."""
    if train_max_steps <= 0 or n_steps <= train_max_steps:
        return short
    t = min(1.0, math.log(n_steps / train_max_steps) / math.log(3.0))
    return short + t * (long - short)


def evidence_offset(features: np.ndarray, short: float, long: float, train_max_steps: int,
                    grounded: float = 0.0) -> np.ndarray:
    """The detector-evidence prior added to the fitted logits of one run.

    The weight is :func:`evidence_weight_for` the run's length, raised to ``grounded`` when
    the run logs tool/environment output (some step is an observation).
    """
    w = evidence_weight_for(features.shape[0], short, long, train_max_steps)
    if grounded and features.shape[0] and bool(features[:, _COL["observation"]].any()):
        w = max(w, grounded)
    if not w:
        return np.zeros(features.shape[0])
    out: np.ndarray = w * detector_evidence(features)
    return out


def detector_evidence(features: np.ndarray) -> np.ndarray:
    """Per-step detector evidence 0-1 (the ``evidence`` feature column)."""
    out: np.ndarray = features[:, _COL["evidence"]].astype(np.float64)
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    """Numerically stable softmax."""
    if logits.size == 0:
        return logits
    z = logits - logits.max()
    e = np.exp(z)
    out: np.ndarray = e / e.sum()
    return out
