"""tau-bench importer: the shipped results file, shapes (list, object, JSONL), outcome from reward,
expected actions kept, claiming over the chat importer, malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.taxonomy import Category

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "tau_bench" / "retail_results.json"


def _result(task_id: Any = 1, reward: Any = 1.0, traj: Any = None, **extra: Any) -> dict[str, Any]:
    if traj is None:
        traj = [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": f"Cancel my order #W{task_id}."},
            {"role": "assistant", "content": None, "function_call": None, "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "cancel_pending_order", "arguments": json.dumps({"order_id": f"#W{task_id}"})}}]},
            {"role": "tool", "tool_call_id": "call_a", "name": "cancel_pending_order",
             "content": "Error: non-pending order cannot be cancelled"},
            {"role": "assistant", "content": "Sorry, that order can no longer be cancelled."},
        ]
    obj = {"task_id": task_id, "reward": reward,
           "info": {"task": {"user_id": "u1", "instruction": "You want to cancel #W1.",
                             "actions": [{"name": "cancel_pending_order", "kwargs": {"order_id": "#W1"}}],
                             "outputs": []},
                    "source": "user", "user_cost": 0.01},
           "traj": traj, "trial": 0}
    obj.update(extra)
    return obj


def test_sample_file(host: PluginHost) -> None:
    spec, _, _ = claim(SAMPLE, host)
    assert spec is not None and spec.id == "tau_bench"
    result = load([SAMPLE], host=host)
    assert result.errors == []
    assert result.formats == {"tau_bench": 3}
    rows = {r["native_id"]: r for r in result.traces.iter_rows(named=True)}
    assert {k: (v["outcome"], v["score"]) for k, v in rows.items()} == {
        "17": ("failure", 0.0), "42": ("failure", 0.0), "5": ("success", 1.0)}
    planted_cats = set()
    for native, row in rows.items():
        assert 10 <= row["n_steps"] <= 300
        assert row["framework"] == "tau-bench"
        meta = orjson.loads(row["metadata_json"])
        assert "expected_actions" in meta and "user_instruction" in meta
        steps = result.steps.filter(trace_id=row["trace_id"]).sort("step")
        assert steps["step"].to_list() == list(range(row["n_steps"]))
        assert steps["kind"][0] == "system" and steps["kind"][1] == "user"
        if row["outcome"] == "success":
            assert "planted" not in meta
            continue
        planted = meta["planted"]
        planted_cats.add(planted["category"])
        step = steps.filter(step=planted["step"]).row(0, named=True)
        assert step["role"] == "assistant" and step["kind"] in {"tool_call", "message"}, native
    assert planted_cats == {Category.GOAL_DRIFT.value, Category.HALLUCINATION.value}
    # the goal-drift run calls a tool the task never asked for; the expected action never happens
    drift = rows["17"]
    meta = orjson.loads(drift["metadata_json"])
    called = result.steps.filter(trace_id=drift["trace_id"], kind="tool_call")["tool_name"].to_list()
    assert meta["expected_actions"][0]["name"] not in called
    assert "cancel_pending_order" in called
    # the hallucination run states an amount no observation supports
    hall = rows["42"]
    assert hall["ground_truth"] == "129.99"
    obs = result.steps.filter(trace_id=hall["trace_id"], kind="observation")["text"].to_list()
    assert not any("139.99" in t for t in obs)


def test_mapping_of_one_result(tmp_path: Path, host: PluginHost) -> None:
    p = tmp_path / "one.json"
    p.write_text(json.dumps(_result(reward=0.0)), encoding="utf-8")
    result = load([p], host=host)
    assert result.errors == [] and result.formats == {"tau_bench": 1}
    steps = result.steps.sort("step").to_dicts()
    assert [s["kind"] for s in steps] == ["system", "user", "tool_call", "observation", "message"]
    assert steps[2]["tool_name"] == "cancel_pending_order" and steps[2]["tool_args"] == "{\"order_id\": \"#W1\"}"
    assert steps[3]["is_error"] and steps[3]["tool_call_id"] == "call_a"
    row = result.traces.row(0, named=True)
    assert (row["task"], row["outcome"], row["outcome_raw"], row["record"]) == (
        "Cancel my order #W1.", "failure", "0.0", "$")
    assert row["final_answer"] == "Sorry, that order can no longer be cancelled."
    meta = orjson.loads(row["metadata_json"])
    assert meta["expected_actions"] == [{"name": "cancel_pending_order", "kwargs": {"order_id": "#W1"}}]
    assert (meta["user_id"], meta["trial"], meta["source"]) == ("u1", 0, "user")


@pytest.mark.parametrize(("reward", "outcome"), [(1, "success"), ("1.0", "success"), (0.99, "failure"),
                                                 (None, "unknown"), ("n/a", "unknown")])
def test_reward_to_outcome(tmp_path: Path, host: PluginHost, reward: Any, outcome: str) -> None:
    p = tmp_path / "r.json"
    p.write_text(json.dumps([_result(reward=reward)]), encoding="utf-8")
    row = load([p], host=host).traces.row(0, named=True)
    assert row["outcome"] == outcome


def test_jsonl(tmp_path: Path, host: PluginHost) -> None:
    p = tmp_path / "results.jsonl"
    p.write_text("\n".join([json.dumps(_result(task_id=1)), "{\"task_id\": 2, \"traj\": [",
                            json.dumps(_result(task_id=3, reward=0))]) + "\n", encoding="utf-8")
    result = load([p], host=host)
    assert sorted(result.traces["native_id"].to_list()) == ["1", "3"]
    assert [(e.record, e.importer) for e in result.errors] == [("line 2", "tau_bench")]


@pytest.mark.parametrize(
    ("obj", "reason_part"),
    [
        ([_result(traj="oops")], "'traj' is not a list"),
        ([{"task_id": 1, "reward": 1}], "missing 'traj'"),
        ([_result(traj=[])], "empty"),
        ([_result(traj=[{"role": "user", "content": "x"}, 3])], "traj: messages[1] is not an object"),
        ([1, 2], "expected a tau-bench result object"),
        (42, "expected a tau-bench result list or object"),
    ],
)
def test_malformed_records(tmp_path: Path, host: PluginHost, obj: Any, reason_part: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(obj), encoding="utf-8")
    result = load([p], host=host, importer="tau_bench")
    assert result.traces.height == 0
    assert any(reason_part in e.reason for e in result.errors), [e.reason for e in result.errors]
    assert all(e.importer == "tau_bench" for e in result.errors)


def test_truncated_file_and_good_neighbour(tmp_path: Path, host: PluginHost) -> None:
    good = json.dumps([_result()])
    (tmp_path / "a.json").write_text(good[: len(good) // 2], encoding="utf-8")
    (tmp_path / "b.json").write_text(good, encoding="utf-8")
    result = load([tmp_path], host=host)
    assert result.traces.height == 1
    assert len(result.errors) == 1
    err = result.errors[0]
    assert err.file.endswith("a.json") and err.importer == "tau_bench" and "truncated" in err.reason
