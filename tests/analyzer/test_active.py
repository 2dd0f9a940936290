"""Active learning: the run whose answer the ranker is least sure of is offered for labelling first."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.attribution.active import label_priority, review_order


def test_a_flat_distribution_has_a_higher_label_priority_than_a_peaked_one() -> None:
    uniform = np.full(8, 1 / 8)
    peaked = np.array([0.86, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02])
    assert label_priority(uniform) == pytest.approx(1.0)
    assert label_priority(peaked) < label_priority(uniform)
    assert label_priority(np.eye(5)[2]) == pytest.approx(0.0)
    # normalised by log(n): a uniform long run and a uniform short run are equally uncertain
    assert label_priority(np.full(40, 1 / 40)) == pytest.approx(label_priority(np.full(3, 1 / 3)))
    assert label_priority(3.0 * peaked) == pytest.approx(label_priority(peaked))  # scores are normalised
    assert label_priority(np.array([1.0])) == 0.0 and label_priority(np.array([])) == 0.0
    for bad in (np.array([0.5, -0.1]), np.array([np.nan, 1.0]), np.zeros(3)):
        with pytest.raises(ValueError):
            label_priority(bad)


def test_review_order_puts_the_least_certain_run_first_ties_in_order() -> None:
    flat, half, sure = np.full(4, 0.25), np.array([0.5, 0.5, 0.0, 0.0]), np.array([0.97, 0.01, 0.01, 0.01])
    items = [("a", label_priority(sure)), ("b", None), ("c", label_priority(half)), ("d", label_priority(flat)),
             ("e", label_priority(half.copy()))]
    assert review_order(items) == ["d", "c", "e", "a", "b"]
    assert review_order([]) == []
