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
    """

    file: str
    step: int | None
    agent: str | None
    top_steps: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The ``--predictions`` JSONL record."""
        return {"file": self.file, "agent": self.agent or "", "step": self.step,
                "top_steps": list(self.top_steps)}


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
