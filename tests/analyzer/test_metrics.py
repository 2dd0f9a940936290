"""Model-selection metrics on small hand-built frames."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy.stats import binomtest

from analyzer.analysis.result import RUN_COLUMNS
from analyzer.frames import (
    ANNOTATION_COLUMNS,
    FINDING_COLUMNS,
    STEP_COLUMNS,
    TRACE_COLUMNS,
    frame_from_rows,
)
from analyzer.metrics import (
    MODEL_METRIC_COLUMNS,
    effective_labels,
    horizon,
    horizon_curve,
    mcnemar_exact,
    metric_columns,
    model_metrics,
    paired_comparison,
    self_conditioning,
    step_reliability,
    wilson_interval,
)
from analyzer.taxonomy import CATEGORY_IDS


def traces(rows: list[dict]) -> pl.DataFrame:
    return frame_from_rows(rows, TRACE_COLUMNS)


def runs(rows: list[dict]) -> pl.DataFrame:
    return frame_from_rows(rows, RUN_COLUMNS)


# -- statistics -----------------------------------------------------------------------------

@pytest.mark.parametrize(("k", "n"), [(8, 10), (0, 10), (10, 10), (1, 3), (57, 126), (500, 1000)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-9)
    assert hi == pytest.approx(ci.high, abs=1e-9)


def test_wilson_known_values_and_edges() -> None:
    lo, hi = wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo90, hi90 = wilson_interval(8, 10, confidence=0.90)
    assert lo < lo90 < hi90 < hi
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


@pytest.mark.parametrize(("a", "b"), [(0, 0), (5, 1), (1, 5), (10, 3), (7, 7), (0, 12)])
def test_mcnemar_exact_matches_binomial_test(a: int, b: int) -> None:
    expected = 1.0 if a + b == 0 else binomtest(a, a + b, 0.5).pvalue
    assert mcnemar_exact(a, b) == pytest.approx(expected, abs=1e-12)


# -- reliability and horizons ---------------------------------------------------------------

def test_step_reliability_and_horizons() -> None:
    rel = step_reliability(survived=14, failures=2)
    assert rel.p == pytest.approx(0.875)
    assert rel.horizon(0.5) == pytest.approx(math.log(0.5) / math.log(0.875))
    assert horizon(0.875, 0.8) == pytest.approx(1.6711, abs=1e-4)
    assert horizon(1.0, 0.5) is None
    assert horizon(0.0, 0.5) == 0.0
    assert step_reliability(0, 0).p is None
    curve = horizon_curve(0.9, 3)
    assert curve["steps"].to_list() == [0, 1, 2, 3]
    assert curve["success"].to_list() == pytest.approx([1.0, 0.9, 0.81, 0.729])
    assert horizon_curve(0.5, [10])["success"][0] == pytest.approx(0.5**10)


# -- model metrics --------------------------------------------------------------------------

def _metrics_fixture() -> tuple[pl.DataFrame, pl.DataFrame]:
    tr = traces([
        {"trace_id": "a1", "model": "A", "outcome": "success", "n_steps": 10, "framework": "f1"},
        {"trace_id": "a2", "model": "A", "outcome": "failure", "n_steps": 9, "framework": "f1"},
        {"trace_id": "a3", "model": "A", "outcome": "failure", "n_steps": 5, "framework": "f2"},
        {"trace_id": "a4", "model": "A", "outcome": "failure", "n_steps": 7, "framework": "f2"},
        {"trace_id": "a5", "model": "A", "outcome": "unknown", "n_steps": 3, "framework": "f2"},
        {"trace_id": "b1", "model": "B", "outcome": "success", "n_steps": 4},
        {"trace_id": "b2", "model": "B", "outcome": "success", "n_steps": 6},
        {"trace_id": "n1", "model": None, "outcome": "failure", "n_steps": 2},
    ])
    rn = runs([
        {"trace_id": "a2", "decisive_step": 4, "decisive_agent": "x", "category": "goal_drift", "confidence": 0.6},
        {"trace_id": "a3", "decisive_step": 0, "decisive_agent": "y", "category": "planning_error",
         "confidence": 0.4},
        # a4 failed but was not attributed: left out of p̂ and of the category counts
        {"trace_id": "a4", "decisive_step": None, "category": None},
        {"trace_id": "n1", "decisive_step": 1, "category": "environment_failure", "confidence": 0.9},
    ])
    return tr, rn


def test_model_metrics_counts_rates_and_reliability() -> None:
    tr, rn = _metrics_fixture()
    m = model_metrics(tr, rn)
    assert m.columns == [c.name for c in metric_columns(("model",))]
    assert m["model"].to_list() == ["A", "B", "(unknown)"]  # runs with no model recorded: listed last
    assert m["rank"].to_list() == [None, None, None]  # every group is below the default minimum n of 10
    assert model_metrics(tr, rn, min_runs=1)["rank"].to_list() == [2, 1, None]  # "(unknown)" is never ranked
    a = m.filter(pl.col("model") == "A").row(0, named=True)
    assert (a["runs"], a["passes"], a["failures"], a["unknown"]) == (5, 1, 3, 1)
    assert a["pass_rate"] == pytest.approx(0.25)
    lo, hi = wilson_interval(1, 4)
    assert (a["pass_rate_low"], a["pass_rate_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert (a["attributed"], a["labelled"], a["analyst_labelled"]) == (2, 2, 0)
    assert a["label_source"] == "ranker"
    assert a["n_goal_drift"] == 1 and a["n_planning_error"] == 1 and a["n_other"] == 0
    assert a["share_goal_drift"] == pytest.approx(0.5)
    assert sum(a[f"n_{c}"] for c in CATEGORY_IDS) == a["labelled"]
    assert a["decisive_step_mean"] == pytest.approx(2.0)
    assert a["decisive_step_median"] == pytest.approx(2.0)
    # relative positions: 4/(9-1) = 0.5 and 0/(5-1) = 0
    assert a["decisive_rel_mean"] == pytest.approx(0.25)
    assert a["mean_confidence"] == pytest.approx(0.5)
    # survival: success 10 steps; a2 survives 4 then fails; a3 fails at once; a4, a5 skipped
    assert (a["steps_survived"], a["step_failures"]) == (14, 2)
    assert a["p_step"] == pytest.approx(0.875)
    assert a["horizon_50"] == pytest.approx(math.log(0.5) / math.log(0.875))
    assert a["horizon_80"] == pytest.approx(math.log(0.8) / math.log(0.875))
    b = m.filter(pl.col("model") == "B").row(0, named=True)
    assert b["pass_rate"] == 1.0 and b["p_step"] == 1.0
    assert b["horizon_50"] is None  # unbounded: no failure observed
    assert b["share_goal_drift"] is None and b["label_source"] is None


def test_model_metrics_group_by_framework_and_no_analysis() -> None:
    tr, rn = _metrics_fixture()
    m = model_metrics(tr, rn, group_by=("model", "framework"))
    keys = list(zip(m["model"].to_list(), m["framework"].to_list(), strict=True))
    assert keys == [("A", "f1"), ("A", "f2"), ("(unknown)", "(unknown)"), ("B", "(unknown)")]
    assert m.filter((pl.col("model") == "A") & (pl.col("framework") == "f2"))["runs"][0] == 3
    overall = model_metrics(tr, rn, group_by=())
    assert overall.height == 1 and overall["runs"][0] == 8
    bare = model_metrics(tr, None)
    assert bare.filter(pl.col("model") == "A")["attributed"][0] == 0
    assert bare.filter(pl.col("model") == "A")["p_step"][0] == 1.0  # only the success counts
    empty = model_metrics(tr.clear(), rn)
    assert empty.height == 0 and len(empty.columns) == len(MODEL_METRIC_COLUMNS) + 1
    with pytest.raises(ValueError, match="cannot group"):
        model_metrics(tr, rn, group_by=("agent",))


def test_analyst_labels_win_and_label_source_says_so() -> None:
    tr, rn = _metrics_fixture()
    steps = frame_from_rows([{"trace_id": "a2", "step": i, "agent": f"ag{i}"} for i in range(9)], STEP_COLUMNS)
    ann = frame_from_rows([
        # a2: analyst moves the decisive step to 2 and labels it
        {"trace_id": "a2", "step": 2, "category": "hallucination", "status": "decisive",
         "timestamp": "2026-01-01T00:00:01", "tags": "reviewed,tricky", "note": "model invents a file"},
        # a3: analyst accepts the judge's step with a different category (run-level)
        {"trace_id": "a3", "step": None, "category": "repeated_action", "status": "accepted",
         "timestamp": "2026-01-01T00:00:02", "tags": "reviewed"},
        # suggestions never count
        {"trace_id": "n1", "step": 1, "category": "other", "status": "suggested"},
    ], ANNOTATION_COLUMNS)
    labels = effective_labels(rn, ann, steps)
    a2 = labels.filter(pl.col("trace_id") == "a2").row(0, named=True)
    assert (a2["decisive_step"], a2["decisive_agent"], a2["category"]) == (2, "ag2", "hallucination")
    assert (a2["decisive_source"], a2["label_source"]) == ("analyst", "analyst")
    assert (a2["judge_decisive_step"], a2["judge_category"]) == (4, "goal_drift")
    assert a2["tags"] == "reviewed,tricky" and a2["notes"] == "step 2: model invents a file"
    a3 = labels.filter(pl.col("trace_id") == "a3").row(0, named=True)
    assert (a3["decisive_step"], a3["decisive_source"]) == (0, "ranker")
    assert (a3["category"], a3["label_source"]) == ("repeated_action", "analyst")
    n1 = labels.filter(pl.col("trace_id") == "n1").row(0, named=True)
    assert (n1["category"], n1["label_source"], n1["reviewed"]) == ("environment_failure", "ranker", True)

    m = model_metrics(tr, rn, ann, steps=steps)
    a = m.filter(pl.col("model") == "A").row(0, named=True)
    assert a["label_source"] == "analyst" and a["analyst_labelled"] == 2
    assert (a["n_hallucination"], a["n_repeated_action"], a["n_goal_drift"]) == (1, 1, 0)
    # decisive steps are now 2 and 0: survival 10 + 2 + 0
    assert a["steps_survived"] == 12 and a["decisive_step_mean"] == pytest.approx(1.0)

    mixed = ann.filter(pl.col("trace_id") == "a2")
    a_mixed = model_metrics(tr, rn, mixed).filter(pl.col("model") == "A").row(0, named=True)
    assert a_mixed["label_source"] == "mixed"


def test_rejection_clears_the_judge_category_and_latest_row_wins() -> None:
    rn = runs([{"trace_id": "r", "decisive_step": 3, "category": "goal_drift"}])
    ann = frame_from_rows([
        {"trace_id": "r", "step": 3, "status": "accepted", "category": "planning_error",
         "timestamp": "2026-01-01T00:00:01"},
        {"trace_id": "r", "step": 3, "status": "rejected", "timestamp": "2026-01-01T00:00:05", "author": "bo"},
    ], ANNOTATION_COLUMNS)
    row = effective_labels(rn, ann).row(0, named=True)
    assert row["category"] is None and row["label_source"] == "analyst"
    assert row["decisive_step"] == 3 and row["decisive_source"] == "ranker"
    later = pl.concat([ann, frame_from_rows([{"trace_id": "r", "step": 3, "status": "accepted",
                                              "category": "false_success", "timestamp": "2026-01-02"}],
                                            ANNOTATION_COLUMNS)])
    assert effective_labels(rn, later)["category"][0] == "false_success"


# -- self-conditioning ----------------------------------------------------------------------

def test_self_conditioning_counts() -> None:
    # run x errors: F T F T T F ; run y: T T F
    flags = {"x": [False, True, False, True, True, False], "y": [True, True, False]}
    steps = frame_from_rows([{"trace_id": t, "step": i, "is_error": e}
                             for t, es in flags.items() for i, e in enumerate(es)], STEP_COLUMNS)
    sc = self_conditioning(steps)
    # x: k = 0,0,1,1,2,3 ; y: k = 0,1,2
    # k=0: x0(F) x1(T) y0(T) -> 3 steps, 2 errors; k=1: x2(F) x3(T) y1(T) -> 3, 2
    # k>=2: x4(T) x5(F) y2(F) -> 3, 1
    assert sc["k"].to_list() == ["0", "1", "2+"]
    assert sc["steps"].to_list() == [3, 3, 3]
    assert sc["errors"].to_list() == [2, 2, 1]
    assert sc["p_error"].to_list() == pytest.approx([2 / 3, 2 / 3, 1 / 3])
    lo, hi = wilson_interval(1, 3)
    assert sc["p_error_low"][2] == pytest.approx(lo) and sc["p_error_high"][2] == pytest.approx(hi)

    # findings on x step 0 (kept) and y step 2 (rejected) also count as errors when given
    findings = frame_from_rows([
        {"trace_id": "x", "step": 0, "category": "goal_drift", "status": "suggested"},
        {"trace_id": "y", "step": 2, "category": "goal_drift", "status": "rejected"},
    ], FINDING_COLUMNS)
    sc2 = self_conditioning(steps, findings)
    # x: T T F T T F -> k = 0,1,2,2,3,4 ; y unchanged: k = 0,1,2
    assert sc2["steps"].to_list() == [2, 2, 5]
    assert sc2["errors"].to_list() == [2, 2, 2]


def test_self_conditioning_by_model_has_every_bucket() -> None:
    steps = frame_from_rows([{"trace_id": "x", "step": 0, "is_error": False},
                             {"trace_id": "z", "step": 0, "is_error": True},
                             {"trace_id": "z", "step": 1, "is_error": True}], STEP_COLUMNS)
    tr = traces([{"trace_id": "x", "model": "A"}, {"trace_id": "z", "model": "B"}])
    sc = self_conditioning(steps, traces=tr, group_by=("model",), max_k=1)
    assert sc.columns[:2] == ["model", "k"]
    assert sc.rows() == [
        ("A", "0", 1, 0, 0.0, *wilson_interval(0, 1)),
        ("A", "1+", 0, 0, None, None, None),
        ("B", "0", 1, 1, 1.0, *wilson_interval(1, 1)),
        ("B", "1+", 1, 1, 1.0, *wilson_interval(1, 1)),
    ]
    with pytest.raises(ValueError):
        self_conditioning(steps, group_by=("model",))


# -- paired comparison ----------------------------------------------------------------------

def test_paired_comparison_on_shared_tasks() -> None:
    rows = []
    outcome = {True: "success", False: "failure"}
    table = {"t1": (True, True), "t2": (True, False), "t3": (True, False), "t4": (False, True),
             "t5": (False, False), "t6": (True, False)}
    for tid, (pa, pb) in table.items():
        rows.append({"trace_id": f"A-{tid}", "native_id": tid, "model": "A", "outcome": outcome[pa]})
        rows.append({"trace_id": f"B-{tid}", "native_id": tid, "model": "B", "outcome": outcome[pb]})
    rows.append({"trace_id": "A-only", "native_id": "t9", "model": "A", "outcome": "success"})
    rows.append({"trace_id": "B-unk", "native_id": "t9", "model": "B", "outcome": "unknown"})
    # a repeated task for B: 2 of 3 attempts pass -> counts as a pass
    rows.append({"trace_id": "B-t5b", "native_id": "t5", "model": "B", "outcome": "success"})
    rows.append({"trace_id": "B-t5c", "native_id": "t5", "model": "B", "outcome": "success"})
    pc = paired_comparison(traces(rows), "A", "B")
    assert pc.key == "native_id" and pc.shared == 6
    assert (pc.both, pc.only_a, pc.only_b, pc.neither) == (1, 3, 2, 0)
    assert pc.repeated == 1
    assert pc.p_value == pytest.approx(binomtest(3, 5, 0.5).pvalue)
    assert pc.pass_rate_a == pytest.approx(4 / 6)


def test_paired_comparison_falls_back_to_task_text() -> None:
    tr = traces([
        {"trace_id": "1", "native_id": "run-1", "task": "Fix bug", "model": "A", "outcome": "success"},
        {"trace_id": "2", "native_id": "run-2", "task": "Fix bug", "model": "B", "outcome": "failure"},
    ])
    pc = paired_comparison(tr, "A", "B")
    assert (pc.key, pc.shared, pc.only_a, pc.p_value) == ("task", 1, 1, 1.0)
    assert paired_comparison(tr, "A", "B", key="native_id").shared == 0
    with pytest.raises(ValueError):
        paired_comparison(tr, "A", "A")
