"""The category chooser's tunables: params file section, TRAIL's category map, nested selection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.attribution import RankerParams, choose_category, step_features
from analyzer.attribution.category_params import CategoryParams
from analyzer.evaluation.category_select import (
    candidates,
    category_sets,
    nested_category_selection,
    select_category,
)
from analyzer.evaluation.datasets import TRAIL_CATEGORY_MAP, load_trail_gaia, trail_category
from analyzer.evaluation.transfer import EvalRun, PreparedSet
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.taxonomy import CATEGORY_IDS
from tests.analyzer.test_eval_datasets import _make_root

TRAIL_LEAVES = (
    "Language-only", "Tool-related", "Poor Information Retrieval", "Tool Output Misinterpretation",
    "Incorrect Problem Identification", "Tool Selection Errors", "Formatting Errors", "Instruction Non-compliance",
    "Tool Definition Issues", "Environment Setup Errors", "Rate Limiting", "Authentication Errors", "Service Errors",
    "Resource Not Found", "Resource Exhaustion", "Timeout Issues", "Context Handling Failures", "Resource Abuse",
    "Goal Deviation", "Task Orchestration",
)
"""TRAIL's 20 leaves as its README lists them."""


def _run(tid: str, error_at_gold: bool) -> Trajectory:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="Fetch the report and count rows."),
             Step(index=1, agent="a", kind=StepKind.TOOL_CALL, tool_name="bash", tool_args='{"cmd": "ls"}'),
             Step(index=2, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                  text="Traceback: boom" if error_at_gold else "ok", is_error=error_at_gold),
             Step(index=3, agent="a", kind=StepKind.TOOL_CALL, tool_name="bash", tool_args='{"cmd": "wc"}')]
    return Trajectory(id=tid, task="Fetch the report and count rows.", outcome=Outcome.FAILURE, steps=steps)


def _set(name: str, labels: list[tuple[bool, str, list[Finding]]]) -> PreparedSet:
    runs = []
    for k, (err, cat, findings) in enumerate(labels):
        t = _run(f"{name}{k}", err)
        runs.append(EvalRun(f"{name}{k}.json", t, findings, step_features(t, findings), ["user", "a", "tool", "a"],
                            2, None, cat))
    return PreparedSet(name, runs, [], False, True)


def test_every_trail_leaf_maps_onto_the_taxonomy() -> None:
    assert len(TRAIL_CATEGORY_MAP) == 20
    for leaf in TRAIL_LEAVES:
        assert trail_category(leaf) in CATEGORY_IDS
        assert " ".join(leaf.split()).casefold() in TRAIL_CATEGORY_MAP
    assert trail_category("  rate   limiting ") == "environment_failure"  # spelling variants
    assert trail_category("Goal Deviation") == "goal_drift"
    assert trail_category("Formatting Errors") == "other"
    assert trail_category("something new") == "other" and trail_category(None) is None


def test_trail_adapter_labels_the_first_errors_category(tmp_path: Path) -> None:
    ls = load_trail_gaia(_make_root(tmp_path) / "trail")
    assert ls.categories and set(ls.categories.values()) == {"hallucination"}  # "Tool-related"
    assert "too-big.json" not in ls.categories  # no trace: no step, no category label


def test_category_section_round_trips_and_rejects_bad_values() -> None:
    p = CategoryParams(neighbour_weight=0.3, claims_threshold=None, structural_defaults=False)
    assert CategoryParams.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert CategoryParams.from_json(None) == CategoryParams()
    with pytest.raises(ValueError, match="judge_share"):
        CategoryParams.from_json({"judge_share": 2})
    base = RankerParams(version="v", features=["a"], mean=[0.0], scale=[1.0], weights=[0.0], category=p)
    assert RankerParams.from_json(base.to_json()).category == p
    with pytest.raises(ValueError, match="bad ranker params"):
        RankerParams.from_json({**base.to_json(), "category": {"neighbour_weight": "x"}})


def test_params_switch_the_choosers_rules() -> None:
    t = _run("r", True)
    x = step_features(t)
    near = [Finding(trace_id="r", step=3, category="failed_recovery", score=0.9)]
    assert choose_category(t, 2, near, x)[0] == "failed_recovery"  # the defaults: a neighbour votes
    assert choose_category(t, 2, near, x, params=CategoryParams(neighbour_weight=0.0))[0] == "environment_failure"
    off = CategoryParams(neighbour_weight=0.0, error_output_rule=False)
    assert choose_category(t, 2, near, x, params=off) == ("other", "no specific evidence")
    judged = choose_category(t, 2, near, x, {"goal_drift": 0.9}, CategoryParams(judge_share=1.0))
    assert judged[0] == "goal_drift"


def test_selection_sees_only_its_training_systems() -> None:
    env = _set("env", [(True, "environment_failure", [])] * 4)
    quiet = _set("quiet", [(True, "environment_failure", []), (True, "environment_failure", [])])
    rec = _set("rec", [(False, "failed_recovery",
                        [Finding(trace_id="rec0", step=3, category="failed_recovery", score=0.8)])] * 3)
    unlabelled = PreparedSet("none", [], [], True, False)
    assert [s.name for s in category_sets([env, unlabelled])] == ["env"]
    with pytest.raises(ValueError, match="labels a category"):
        select_category([unlabelled])
    chosen = select_category([env, quiet])
    assert chosen.params.error_output_rule and chosen.trained_on == ["env", "quiet"]
    assert chosen.accuracy == {"env": 1.0, "quiet": 1.0}
    assert chosen.params.neighbour_weight == 0.0 and chosen.params.claims_threshold is None  # ties: the plainest
    assert select_category([rec]).params.neighbour_weight > 0.0  # only a neighbour's finding names it
    nested = nested_category_selection([env, quiet, rec, unlabelled])
    assert set(nested) == {"env", "quiet", "rec"}
    assert nested["rec"].selection.trained_on == ["env", "quiet"]  # never the scored system
    assert nested["rec"].hits == 0 and nested["rec"].n == 3 and nested["rec"].pre_selection == 3
    doc = nested["env"].to_json()
    assert doc["nested"]["k"] == 4 and doc["nested"]["lo"] <= doc["nested"]["p"] <= doc["nested"]["hi"] + 1e-9
    assert doc["best_constant"]["category"] == "environment_failure" and doc["random"] == 1 / len(CATEGORY_IDS)
    assert len(candidates([env])) == 64 and nested_category_selection([env]) == {}
