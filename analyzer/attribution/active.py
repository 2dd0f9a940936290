"""Active learning: which run's label would teach the ranker most.

A run whose decisive step the ranker already names with confidence teaches it little when the
analyst labels it; a run whose step distribution is flat, where the ranker cannot tell the
steps apart, is the one whose answer it is least sure of, so its label moves the adapted
weights most (uncertainty sampling, Lewis & Gale 1994; Settles, "Active Learning Literature
Survey", 2009). The priority is the entropy of the run's distribution over its steps,
normalised by ``log(n)`` so that long and short runs compare on one 0-1 scale: 1 for a
uniform distribution, 0 when one step holds all the mass.

The pipeline stores each analysed run's priority (``label_priority`` in the runs frame), the
review queue of the app offers the runs in :func:`review_order`, and the adaptation simulation
of the evaluation compares that order with a random one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike

K = TypeVar("K")


def label_priority(probs: ArrayLike) -> float:
    """How much the analyst's label of one run would teach the ranker (0-1, higher first).

    The entropy of the run's distribution over its steps divided by ``log(n)``: the run whose
    answer the ranker is least sure of teaches it most. The probabilities are normalised to
    sum to 1 first (stored scores are rounded).

    Args:
        probs: The ranker's probability of each step being the decisive one (any scale of
            non-negative scores; one entry per step).

    Returns:
        1.0 for a uniform distribution, 0.0 when one step holds all the mass; 0.0 for a run
        of fewer than two steps (there is nothing to choose between).

    Raises:
        ValueError: A probability is negative or not finite, or they sum to zero.
    """
    p = np.asarray(probs, dtype=np.float64).ravel()
    if p.size and (not np.all(np.isfinite(p)) or np.any(p < 0.0)):
        raise ValueError("step probabilities must be finite and non-negative")
    n = p.size
    if n < 2:
        return 0.0
    total = float(p.sum())
    if total <= 0.0:
        raise ValueError("step probabilities sum to zero")
    p = p[p > 0.0] / total
    entropy = float(-(p * np.log(p)).sum())
    return min(1.0, max(0.0, entropy / float(np.log(n))))


def review_order(items: Iterable[tuple[K, float | None]]) -> list[K]:
    """Keys in the order to ask the analyst about them: highest priority first.

    Ties keep the order of ``items`` (e.g. the runs table's); items without a priority
    (``None``: the run is not analysed, or has no step to choose) come last, in their order.

    Args:
        items: ``(key, priority or None)`` pairs, the priority from :func:`label_priority`
            (e.g. the runs frame's ``label_priority`` column).

    Returns:
        The keys, most informative first.
    """
    scored = [(p is None, -(p or 0.0), i, key) for i, (key, p) in enumerate(items)]
    scored.sort(key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in scored]
