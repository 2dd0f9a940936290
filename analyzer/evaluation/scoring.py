"""Scoring rules of the failure-attribution evaluation (Who&When conventions).

step@1 is an exact 0-based match; step@3 means the gold step is among the top 3
candidates; step within +-k compares the top-1 step; agent@1 compares names casefolded with
a trailing `` (...)`` suffix stripped from both. Every gold record counts: a missing
prediction is wrong. Intervals are Wilson 95% score intervals.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_SUFFIX_RE = re.compile(r"\s*\([^()]*\)\s*$")


def normalise_agent(name: str | None) -> str:
    """Agent name for comparison: trailing ``" (...)"`` removed, whitespace trimmed, casefolded."""
    if not name:
        return ""
    s = name.strip()
    while True:
        t = _SUFFIX_RE.sub("", s)
        if t == s:
            break
        s = t.strip()
    return s.casefold()


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float, float]:
    """Proportion and Wilson score interval.

    Args:
        k: Successes.
        n: Trials.
        z: Normal quantile (1.96 for 95%).

    Returns:
        ``(p, low, high)``; ``(0, 0, 0)`` when ``n == 0``.
    """
    if n <= 0:
        return 0.0, 0.0, 0.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Gold:
    """Gold label of one record.

    Attributes:
        file: File name (the record's key).
        step: Gold decisive step (0-based), or None when the file has none.
        agent: Gold responsible agent.
    """

    file: str
    step: int | None
    agent: str | None


@dataclass(frozen=True)
class Prediction:
    """A prediction for one record.

    Attributes:
        file: File name.
        step: Predicted decisive step.
        agent: Predicted responsible agent.
        top_steps: Ranked candidate steps, best first.
        confidence: The reported probability of ``step`` (None: the predictor gives none).
    """

    file: str
    step: int | None
    agent: str | None
    top_steps: tuple[int, ...] = ()
    confidence: float | None = None

    def to_json(self) -> dict[str, object]:
        """The ``--predictions`` JSONL record."""
        out: dict[str, object] = {"file": self.file, "agent": self.agent or "", "step": self.step,
                                  "top_steps": list(self.top_steps)}
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 4)
        return out


@dataclass(frozen=True)
class Metric:
    """One proportion with its Wilson 95% interval."""

    name: str
    k: int
    n: int
    p: float
    low: float
    high: float

    def to_json(self) -> dict[str, object]:
        """Plain dict."""
        return {"k": self.k, "n": self.n, "p": round(self.p, 4), "ci95": [round(self.low, 4), round(self.high, 4)]}


METRIC_NAMES: tuple[str, ...] = ("step@1", "step@3", "step±1", "step±2", "step±3", "agent@1", "coverage")


def _metric(name: str, k: int, n: int) -> Metric:
    p, lo, hi = wilson(k, n)
    return Metric(name, k, n, p, lo, hi)


@dataclass
class Scores:
    """All metrics of one predictor over the same gold set."""

    metrics: dict[str, Metric] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """Plain dict keyed by metric name."""
        return {k: m.to_json() for k, m in self.metrics.items()}


def score(golds: Iterable[Gold], predictions: Mapping[str, Prediction]) -> Scores:
    """Score predictions (keyed by file) against every gold record.

    Records whose gold step is missing still count for agent@1 and coverage, and count as
    wrong for the step metrics (every file counts).
    """
    golds = list(golds)
    n = len(golds)
    hits = dict.fromkeys(METRIC_NAMES, 0)
    for g in golds:
        pred = predictions.get(g.file)
        if pred is None or pred.step is None:
            continue
        hits["coverage"] += 1
        if g.step is not None:
            d = abs(pred.step - g.step)
            hits["step@1"] += d == 0
            top = pred.top_steps or (pred.step,)
            hits["step@3"] += g.step in top[:3]
            for k in (1, 2, 3):
                hits[f"step±{k}"] += d <= k
        if g.agent and normalise_agent(pred.agent) == normalise_agent(g.agent):
            hits["agent@1"] += 1
    return Scores({name: _metric(name, hits[name], n) for name in METRIC_NAMES})


CALIBRATION_BINS = 5
"""Equal-width confidence bins of the expected calibration error."""


@dataclass(frozen=True)
class Calibration:
    """How well the reported probability of the decisive step matches its step@1.

    Attributes:
        n: Records with a prediction that carries a confidence.
        mean_confidence: Mean reported probability of the predicted step.
        step_at_1: Share of those records whose predicted step is the gold step.
        ece: Expected calibration error: over :data:`CALIBRATION_BINS` equal-width bins of the
            confidence, the record-weighted mean of ``|mean confidence - step@1|``.
        brier: Mean of ``(confidence - hit)**2``.
    """

    n: int
    mean_confidence: float
    step_at_1: float
    ece: float
    brier: float

    def to_json(self) -> dict[str, object]:
        """Plain dict."""
        return {"n": self.n, "mean_confidence": round(self.mean_confidence, 4), "step@1": round(self.step_at_1, 4),
                "ece": round(self.ece, 4), "brier": round(self.brier, 4)}


def calibration(golds: Iterable[Gold], predictions: Mapping[str, Prediction]) -> Calibration | None:
    """Calibration of the predictions' confidence on the gold records with a gold step.

    Returns:
        None when no such record has a prediction with a confidence.
    """
    pairs: list[tuple[float, bool]] = []
    for g in golds:
        pred = predictions.get(g.file)
        if g.step is None or pred is None or pred.step is None or pred.confidence is None:
            continue
        pairs.append((min(1.0, max(0.0, float(pred.confidence))), pred.step == g.step))
    if not pairs:
        return None
    n = len(pairs)
    bins: dict[int, list[tuple[float, bool]]] = {}
    for c, hit in pairs:
        bins.setdefault(min(CALIBRATION_BINS - 1, int(c * CALIBRATION_BINS)), []).append((c, hit))
    ece = sum(abs(sum(c for c, _ in b) - sum(h for _, h in b)) for b in bins.values()) / n
    return Calibration(n, sum(c for c, _ in pairs) / n, sum(h for _, h in pairs) / n, ece,
                       sum((c - h) ** 2 for c, h in pairs) / n)
