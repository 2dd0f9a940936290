"""Small, dependency-free statistics used by the metrics and the evaluation harness."""

from __future__ import annotations

import math
from statistics import NormalDist


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard-normal quantile for a confidence level (1.96 for 0.95).

    Args:
        confidence: Confidence level in (0, 1).

    Returns:
        The z value.

    Raises:
        ValueError: If ``confidence`` is not in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Args:
        successes: Number of successes (0 <= successes <= n).
        n: Number of trials.
        confidence: Confidence level (default 95%).

    Returns:
        ``(low, high)``, both in [0, 1]. With ``n == 0`` there is no information and the
        interval is ``(0.0, 1.0)``.

    Raises:
        ValueError: If the counts are inconsistent.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    z = z_value(confidence)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def binomial_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided binomial test of ``k`` successes in ``n`` trials against p = 1/2.

    Args:
        k: Observed count.
        n: Trials.

    Returns:
        The p-value (1.0 when ``n == 0``).
    """
    if n == 0:
        return 1.0
    lo = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(lo + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Exact McNemar test on the discordant pairs of a paired comparison.

    Args:
        only_a: Pairs where only A passed.
        only_b: Pairs where only B passed.

    Returns:
        Two-sided p-value of "A and B have the same pass rate" (1.0 with no discordant pairs).
    """
    return binomial_two_sided_p(only_a, only_a + only_b)
