"""Per-step reliability and task horizons under a constant-hazard (geometric) model.

Model: every step of a run independently goes right with probability ``p``; the run's
decisive step is its first step that goes wrong. A failed run whose decisive step is ``d``
(0-based) therefore contributes ``d`` survived steps and one failure; a successful run with
``n`` steps contributes ``n`` survived steps and no failure (right-censored). The maximum
likelihood estimate is the geometric MLE

    p̂ = S / (S + F) = 1 - F / (S + F)

with ``S`` the survived steps and ``F`` the failures. The horizon at success level ``s`` is
the number of steps after which a run still succeeds with probability ``s``:
``H_s = ln(s) / ln(p̂)`` (H_0.5 is the "half-life" of a run).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Reliability:
    """Estimated per-step reliability.

    Attributes:
        survived: Steps survived (S).
        failures: Decisive failures (F).
        p: Geometric MLE ``S / (S + F)``, or None without any observed step.
    """

    survived: int
    failures: int
    p: float | None

    def horizon(self, s: float) -> float | None:
        """Horizon ``H_s`` for this estimate (see :func:`horizon`)."""
        return None if self.p is None else horizon(self.p, s)


def step_reliability(survived: int, failures: int) -> Reliability:
    """Geometric MLE of the per-step reliability.

    Args:
        survived: Total steps survived before the decisive error, over all runs
            (successful runs contribute all their steps).
        failures: Number of decisive errors (one per attributed failed run).

    Returns:
        The estimate ``p̂ = 1 - failures / (survived + failures)``.

    Raises:
        ValueError: On negative counts.
    """
    if survived < 0 or failures < 0:
        raise ValueError(f"counts must be >= 0, got survived={survived}, failures={failures}")
    total = survived + failures
    return Reliability(survived, failures, None if total == 0 else 1.0 - failures / total)


def survival_counts(n_steps: Sequence[int], decisive: Sequence[int | None],
                    failed: Sequence[bool]) -> tuple[int, int]:
    """Survived steps and failures of a set of runs (see the module docstring).

    Args:
        n_steps: Steps per run.
        decisive: Decisive step per run (0-based), None when unknown.
        failed: Whether each run failed. Failed runs without a decisive step are skipped
            (their failure point is unknown); runs that passed count all their steps.

    Returns:
        ``(survived, failures)``.
    """
    survived = failures = 0
    for n, d, f in zip(n_steps, decisive, failed, strict=True):
        if f:
            if d is None:
                continue
            survived += max(0, min(int(d), int(n)))
            failures += 1
        else:
            survived += max(0, int(n))
    return survived, failures


def horizon(p: float, s: float) -> float | None:
    """Steps after which a run still succeeds with probability ``s``: ``ln(s) / ln(p)``.

    Args:
        p: Per-step reliability in [0, 1].
        s: Target success probability in (0, 1).

    Returns:
        The horizon in steps; ``0.0`` when ``p == 0``; None when ``p == 1`` (unbounded: no
        failure was observed).

    Raises:
        ValueError: If ``p`` or ``s`` is out of range.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    if not 0.0 < s < 1.0:
        raise ValueError(f"s must be in (0, 1), got {s}")
    if p >= 1.0:
        return None
    if p <= 0.0:
        return 0.0
    return math.log(s) / math.log(p)


def horizon_curve(p: float, steps: int | Sequence[int]) -> pl.DataFrame:
    """Predicted success probability ``p ** n`` against run length ``n`` (for the UI plot).

    Args:
        p: Per-step reliability in [0, 1].
        steps: Maximum length (the curve covers ``0..steps``) or explicit lengths.

    Returns:
        Frame with columns ``steps`` (Int64) and ``success`` (Float64).

    Raises:
        ValueError: If ``p`` is out of range or a length is negative.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    ns = list(range(int(steps) + 1)) if isinstance(steps, int) else [int(n) for n in steps]
    if any(n < 0 for n in ns):
        raise ValueError("run lengths must be >= 0")
    return pl.DataFrame({"steps": ns, "success": [p**n for n in ns]},
                        schema={"steps": pl.Int64, "success": pl.Float64})


def length_axis(lengths: Sequence[int], quantile: float = 0.95, stretch: float = 1.5,
                minimum: int = 10) -> tuple[int, list[int]]:
    """Extent of a run-length axis that fits the bulk of the runs, and the runs beyond it.

    One 5,000-step run must not squash every other curve: the axis covers ``stretch`` times
    the ``quantile`` of the lengths (at least ``minimum``, never past the longest run's
    need), and the longer runs are returned so the plot can mark them.

    Args:
        lengths: Run lengths in steps.
        quantile: Quantile of the lengths the axis is scaled to (0.95: the 95th percentile, the
            lower order statistic, numpy's ``method="lower"``).
        stretch: Head room beyond that quantile.
        minimum: Smallest extent.

    Returns:
        ``(span, outliers)``: the axis extent in steps and the lengths longer than it, sorted.
    """
    xs = sorted(int(n) for n in lengths if n is not None and n >= 0)
    if not xs:
        return minimum, []
    k = math.floor(quantile * (len(xs) - 1))  # the lower order statistic: one huge run of a few never sets the axis
    span = max(minimum, math.ceil(xs[k] * stretch))
    span = min(span, max(minimum, math.ceil(xs[-1] * stretch)))
    return span, [n for n in xs if n > span]
