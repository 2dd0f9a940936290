"""The paired comparison against a hand calculation on a small fixture."""

from __future__ import annotations

import math

import numpy as np
import pytest
from paired_fixture import A, B, paired_frames

from analyzer.metrics.paired import (
    BOOTSTRAP_SAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_difference,
    paired_comparison,
)


def test_paired_numbers_match_the_hand_calculation() -> None:
    traces, _ = paired_frames()
    pc = paired_comparison(traces, A, B)
    # shared tasks t1..t7 (t8 only A tried); "openai/o4-mini" (t4) is o4-mini, the anthropic/ prefix (t1) too
    assert pc.key == "native_id" and pc.shared == 7
    # A wins t2, t3, t4, t7; loses t5; ties t1 (both pass) and t6 (both fail)
    assert (pc.wins, pc.losses, pc.ties, pc.both, pc.neither) == (4, 1, 2, 1, 1)
    assert pc.repeated == 1  # t7: two runs of A, majority pass
    # exact McNemar: discordant n = 5, the smaller side k = 1
    # p = 2 * P(X <= 1 | X ~ Bin(5, 1/2)) = 2 * (C(5,0) + C(5,1)) / 2^5 = 2 * 6 / 32 = 0.375
    assert pc.p_value == pytest.approx(2 * (math.comb(5, 0) + math.comb(5, 1)) / 2**5) == pytest.approx(0.375)
    # pass rates on the shared tasks: A 5/7, B 2/7, difference 3/7
    assert pc.pass_rate_a == pytest.approx(5 / 7) and pc.pass_rate_b == pytest.approx(2 / 7)
    assert pc.difference == pytest.approx(3 / 7)
    # bootstrap by hand: per-task differences in task order t1..t7, resampled with the fixed seed
    d = np.array([0, 1, 1, 1, -1, 0, 1], dtype=float)
    idx = np.random.default_rng(BOOTSTRAP_SEED).integers(0, 7, size=(BOOTSTRAP_SAMPLES, 7))
    means = d[idx].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert (pc.diff_low, pc.diff_high) == (pytest.approx(lo), pytest.approx(hi))
    assert pc.diff_low < 3 / 7 < pc.diff_high and pc.diff_low >= -1 and pc.diff_high <= 1
    # every bootstrap mean is a multiple of 1/7
    assert round(pc.diff_low * 7, 9) == round(pc.diff_low * 7) and round(pc.diff_high * 7, 9) == round(pc.diff_high * 7)
    # the same data give the same interval
    again = paired_comparison(traces, A, B)
    assert (again.diff_low, again.diff_high) == (pc.diff_low, pc.diff_high)
    # the tasks where they differ, A's wins first, each with both models' runs
    assert [(x.task, x.a_passed) for x in pc.differences] == [
        ("t2", True), ("t3", True), ("t4", True), ("t7", True), ("t5", False)]
    assert pc.differences[2].a_runs == ("a4",) and pc.differences[3].a_runs == ("a7", "a7b")
    assert pc.differences[4].b_runs == ("b5",)
    # swapping the models mirrors everything
    ba = paired_comparison(traces, B, A)
    assert (ba.wins, ba.losses, ba.p_value) == (1, 4, pc.p_value)
    assert ba.diff_low == pytest.approx(-pc.diff_high) and ba.diff_high == pytest.approx(-pc.diff_low)


def test_alias_split_changes_the_pairing() -> None:
    traces, _ = paired_frames()
    split = paired_comparison(traces, A, B, aliases={"openai/o4-mini": "openai/o4-mini"})
    assert split.shared == 6 and split.wins == 3  # t4 is no longer o4-mini's


def test_bootstrap_edges() -> None:
    assert bootstrap_difference([], []) is None
    assert bootstrap_difference([True] * 4, [False] * 4) == (1.0, 1.0)
    assert bootstrap_difference([True, False], [True, False]) == (0.0, 0.0)
    with pytest.raises(ValueError):
        bootstrap_difference([True], [True, False])


def test_small_groups_never_outrank_larger_ones() -> None:
    import polars as pl

    from analyzer.metrics.models import rank_groups

    m = pl.DataFrame({"model": ["tiny-perfect", "big-good", "big-ok", "mid-small", "big-none"],
                      "runs": [2, 40, 30, 8, 12], "pass_rate": [1.0, 0.7, 0.5, 0.1, None]})
    ranked = rank_groups(m, min_runs=10)
    # large groups by pass rate (no rate last), then the small ones by size, whatever their rate
    assert ranked["model"].to_list() == ["big-good", "big-ok", "big-none", "mid-small", "tiny-perfect"]
    assert rank_groups(m, min_runs=1)["model"].to_list()[0] == "tiny-perfect"
