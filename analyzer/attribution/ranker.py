"""Conditional-logit ranker of candidate decisive steps (softmax over the steps of a run).

The fitted parameters live in a small versioned JSON file inside the package
(``params/ranker-v1.json``), written by :mod:`analyzer.attribution.fit`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.features import FEATURE_NAMES

PARAMS_VERSION = "ranker-v3"
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
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain dict for the params file."""
        return {
            "version": self.version, "features": self.features, "mean": self.mean, "scale": self.scale,
            "weights": self.weights, "lo": self.lo, "hi": self.hi,
            "evidence_weight": self.evidence_weight, "evidence_weight_long": self.evidence_weight_long,
            "evidence_weight_grounded": self.evidence_weight_grounded,
            "train_max_steps": self.train_max_steps, "judge_weight": self.judge_weight, "judge_top_k": self.judge_top_k,
            "value_prior": self.value_prior, "agent_temperature": self.agent_temperature,
            "actor_weight": self.actor_weight, "first_runner_weight": self.first_runner_weight, "meta": self.meta,
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
                    first_runner_weight=float(data.get("first_runner_weight", 0.0)), meta=dict(data.get("meta", {})))
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

    def confidence_temperature(self, features: np.ndarray, logits: np.ndarray | None = None) -> float:
        """Temperature of the reported probabilities of one run (:func:`matching_temperature`).

        1 unless the run logs tool output and the grounded evidence boost applies; then the
        temperature at which the top step's probability is the one the ranker gives it without
        the boost. ``logits`` are this run's :meth:`logits`, when the caller has them already.
        """
        p = self.params
        if features.size == 0:
            return 1.0
        plain = evidence_offset(features, p.evidence_weight, p.evidence_weight_long, p.train_max_steps)
        boosted = self.offset(features)
        if np.array_equal(plain, boosted):
            return 1.0
        ranked = self.logits(features) if logits is None else np.asarray(logits, dtype=np.float64)
        return matching_temperature(ranked, ranked - boosted + plain)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Unnormalised scores of each step (higher = more likely decisive)."""
        if features.size == 0:
            return np.zeros(features.shape[0])
        total: np.ndarray = self.design(features) @ self._w + self.offset(features)
        return total


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


MAX_TEMPERATURE = 1000.0
"""Upper end of :func:`matching_temperature` (the probabilities are then all but uniform)."""


def matching_temperature(logits: np.ndarray, reference: np.ndarray) -> float:
    """The temperature that gives the top step of ``logits`` the probability ``reference`` gives it.

    That is, ``T >= 1`` with ``softmax(logits / T)[top] == softmax(reference)[top]``.
    Used for the reported probabilities of runs that log tool output. There,
    :func:`evidence_offset` raises the evidence weight to ``evidence_weight_grounded``: a design
    constant that decides the *ranking* (the planted late errors of the samples), not evidence
    that the answer is surer. The reported probabilities are a temperature of the ranked logits,
    so the order shown is the ranking; the temperature makes the decisive step's probability the
    ranker's probability for it without the boost. On Who&When, the only development set whose
    runs log tool output, the decisive step's probability averaged 0.78 for a step@1 of 28%
    leave-one-dataset-out (expected calibration error 0.50); matched, it averages 0.29 (0.14).
    Nothing here is fitted to labels.

    Returns:
        1 when the boost does not lower the top step's probability; at most
        :data:`MAX_TEMPERATURE` (the probability cannot go below uniform).
    """
    scores = np.asarray(logits, dtype=np.float64)
    if scores.size < 2:
        return 1.0
    top = int(np.argmax(scores))
    target = float(softmax(np.asarray(reference, dtype=np.float64))[top])

    def p_top(temp: float) -> float:
        return float(softmax(scores / temp)[top])

    if target >= p_top(1.0):
        return 1.0
    if target <= p_top(MAX_TEMPERATURE):
        return MAX_TEMPERATURE
    lo, hi = 0.0, math.log(MAX_TEMPERATURE)  # p_top falls as the temperature rises
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if p_top(math.exp(mid)) > target:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


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
