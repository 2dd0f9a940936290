"""ATIF importer: the shipped Harbor-layout samples (goal drift, hallucination), step expansion,
metrics, sub-agent references, outcome sources, versions, JSONL and malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.loading.loader import LoadResult, claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Trajectory

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "atif"
DRIFT = SAMPLES / "sales-summary__7Kq2mXa" / "agent" / "trajectory.json"
HALLU = SAMPLES / "fix-health-endpoint__Rt4pZ9c" / "agent" / "trajectory.json"


def _runs(res: LoadResult) -> list[Trajectory]:
    return trajectories_from_frames(res.traces, res.steps)


def _one(path: Path, host: PluginHost) -> Trajectory:
    res = load([path], host=host)
    assert res.errors == []
    (t,) = _runs(res)
    return t


def _doc(steps: list[Any], version: str = "ATIF-v1.4", **top: Any) -> dict[str, Any]:
    return {"schema_version": version, "session_id": "s-1", "agent": {"name": "terminus-2", "version": "1",
                                                                        "model_name": "m-1"},
            "steps": steps, **top}


def _write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_samples_load_from_the_harbor_layout(host: PluginHost) -> None:
    res = load([SAMPLES], host=host)
    assert res.errors == []
    assert res.formats == {"atif": 2}
    assert len(res.skipped) == 2  # verifier/reward.txt files are not traces


def test_goal_drift_sample(host: PluginHost) -> None:
    t = _one(DRIFT, host)
    assert t.framework == "terminus-2" and t.model == "openai/gpt-5-mini"
    assert t.native_id == "7f9d2c1e-4b8a-4f0e-9a61-2c5e8d3b1a07"
    assert (t.outcome, t.outcome_raw, t.score) == ("failure", "reward=0 (verifier/reward.txt)", 0.0)
    assert t.task.startswith("Write a Python script /app/summarize.py")
    assert t.metadata["schema_version"] == "ATIF-v1.5" and "version_note" not in t.metadata
    assert t.metadata["final_metrics"]["total_steps"] == 13
    assert len(t.steps) == 38
    kinds = [s.kind for s in t.steps]
    assert kinds[:5] == ["user", "thought", "message", "tool_call", "observation"]
    assert kinds.count("tool_call") == kinds.count("observation") == 11
    calls = [s for s in t.steps if s.kind == "tool_call"]
    assert all(s.tool_name == "bash_command" and s.tool_args and '"keystrokes"' in s.tool_args for s in calls)
    for s in t.steps:
        if s.kind == "observation":
            assert s.tool_call_id in {c.tool_call_id for c in calls} and s.role == "tool"
    # metrics sit on the first canonical step of each agent step
    firsts = [s for s in t.steps if s.tokens_in is not None]
    assert len(firsts) == 12 and all(s.metadata["cost_usd"] > 0 and "cached_tokens" in s.metadata for s in firsts)
    planted = t.metadata["planted"]
    assert planted["category"] == "goal_drift"
    drift = t.steps[planted["step"]]
    assert drift.kind == "message" and "normalise every order_date" in drift.text
    assert not any("summarize.py" in (s.tool_args or "") for s in t.steps)
    assert t.steps[-1].kind == "message" and "data is now clean" in t.steps[-1].text


def test_hallucination_sample(host: PluginHost) -> None:
    t = _one(HALLU, host)
    assert t.framework == "claude-code" and t.model == "anthropic/claude-sonnet-4-5-20250929"
    assert t.outcome == "failure" and t.metadata["schema_version"] == "ATIF-v1.7"
    assert len(t.steps) == 24
    assert "tool_definitions" not in t.metadata["agent"]
    assert t.metadata["subagent_trajectories"] == [{"session_id": "sub-2c7e41", "agent": "claude-code", "n_steps": 3}]
    assert t.metadata["subagent_refs"][0]["session_id"] == "sub-2c7e41"
    task_result = next(s for s in t.steps if s.kind == "observation" and s.tool_name == "Task")
    assert task_result.metadata["subagent_trajectory_ref"]["session_id"] == "sub-2c7e41"
    errors = [s for s in t.steps if s.is_error]
    assert [s.tool_name for s in errors] == ["Bash", "Bash"]
    assert errors[0].error_text is not None and errors[0].error_text.startswith("curl: (7)")
    assert errors[1].error_text == "exit=7"
    planted = t.metadata["planted"]
    assert planted["category"] == "hallucination"
    claim_step = t.steps[planted["step"]]
    assert claim_step.kind == "message" and "14 passed" in claim_step.text
    observed = " ".join(s.text for s in t.steps if s.kind == "observation")
    assert "14 passed" not in observed
    curl_results = [s.text for s in t.steps if s.kind == "observation" and s.index > planted["step"] - 10]
    assert not any(r.strip().startswith('{"status"') for r in curl_results)
    assert not any("pytest" in (s.tool_args or "") for s in t.steps if s.kind == "tool_call")


def test_outcome_from_extra_and_cost_variants(tmp_path: Path, host: PluginHost) -> None:
    steps = [
        {"step_id": 1, "source": "system", "message": "You are a terminal agent."},
        {"step_id": 2, "source": "user", "message": [{"type": "text", "text": "Describe the image"},
                                                      {"type": "image", "source": {"media_type": "image/png",
                                                                                   "path": "images/a.png"}}]},
        {"step_id": 3, "source": "agent", "message": "It shows a cat.", "metrics": {"prompt_tokens": 50,
                                                                                     "completion_tokens": 5,
                                                                                     "cost": 0.001}},
    ]
    t = _one(_write(tmp_path / "a.json", _doc(steps, extra={"reward": 1.0})), host)
    assert (t.outcome, t.outcome_raw, t.score) == ("success", "reward=1.0", 1.0)
    assert [s.kind for s in t.steps] == ["system", "user", "message"]
    assert t.task == "Describe the image\n[image: images/a.png]"
    assert t.steps[2].tokens_in == 50 and t.steps[2].metadata["cost"] == 0.001
    t = _one(_write(tmp_path / "b.json", _doc(steps, final_metrics={"extra": {"resolved": "False"}})), host)
    assert t.outcome == "failure" and t.outcome_raw == "resolved=False"
    t = _one(_write(tmp_path / "c.json", _doc(steps)), host)
    assert (t.outcome, t.outcome_raw) == ("unknown", None)


def test_observation_without_call_id_and_unknown_future_minor(tmp_path: Path, host: PluginHost) -> None:
    steps = [
        {"step_id": 1, "source": "user", "message": "go"},
        {"step_id": 2, "source": "agent", "message": "",
         "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": "{\"command\": \"make\"}"}],
         "observation": {"results": [{"source_call_id": "c1", "content": [{"type": "text", "text": "make: *** [all] Error 2"}]},
                                     {"content": "Traceback (most recent call last):\nKeyError: 'x'"}]}},
    ]
    t = _one(_write(tmp_path / "t.json", _doc(steps, version="ATIF-v1.9")), host)
    assert "version_note" in t.metadata
    assert [s.kind for s in t.steps] == ["user", "tool_call", "observation", "observation"]
    assert t.steps[1].tool_args == '{"command": "make"}'  # a JSON string is kept as written
    assert t.steps[2].role == "tool" and t.steps[2].tool_name == "bash"
    assert t.steps[3].role == "environment" and t.steps[3].tool_call_id is None
    assert t.steps[3].is_error and t.steps[3].error_text == "KeyError: 'x'"


def test_jsonl_with_bad_lines(tmp_path: Path, host: PluginHost) -> None:
    good = _doc([{"step_id": 1, "source": "user", "message": "hi"}, {"step_id": 2, "source": "agent", "message": "hello"}])
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([
        json.dumps(good),
        json.dumps({"schema_version": "ATIF-v1.2", "steps": "nope"}),
        json.dumps({"schema_version": "v2", "steps": []}),
        '{"schema_version": "ATIF-v1.3", "steps": [',
        json.dumps([1, 2]),
        json.dumps(_doc([{"step_id": 1, "source": "user", "message": "again"}, "bad step",
                         {"step_id": 3, "source": "agent", "observation": {"results": "x"}}])),
    ]) + "\n", encoding="utf-8")
    res = load([path], host=host)
    assert res.formats == {"atif": 2}
    reasons = {e.record: e.reason for e in res.errors}
    assert set(reasons) == {"line 2", "line 3", "line 4", "line 5", "line 6 steps[1]", "line 6 steps[2].observation"}
    assert "no 'steps' list" in reasons["line 2"]
    assert "schema_version" in reasons["line 3"]
    assert "truncated" in reasons["line 4"]
    assert "expected an ATIF trajectory object" in reasons["line 5"]


@pytest.mark.parametrize(("content", "reason"), [
    ('{"schema_version": "ATIF-v1.6", "session_id": "x", "steps": [{"step_id": 1, ', "truncated"),
    ('{"schema_version": "ATIF-v1.6", "session_id": "x"}', "no 'steps' list"),
    ('"schema_version": "ATIF-v1.6"', "not valid JSON"),
])
def test_malformed_files_give_errors(tmp_path: Path, host: PluginHost, content: str, reason: str) -> None:
    bad = tmp_path / "trajectory.json"
    bad.write_text(content, encoding="utf-8")
    res = load([bad, DRIFT], host=host)
    assert res.traces.height == 1
    assert len(res.errors) == 1 and res.errors[0].file == str(bad)
    assert reason in res.errors[0].reason


def test_list_of_trajectories(tmp_path: Path, host: PluginHost) -> None:
    one = _doc([{"step_id": 1, "source": "user", "message": "a"}])
    two = _doc([{"step_id": 1, "source": "user", "message": "b"}], session_id="s-2")
    res = load([_write(tmp_path / "many.json", [one, two, "x"])], host=host)
    assert [t.record for t in _runs(res)] == ["[0]", "[1]"]
    assert [(e.record, e.importer) for e in res.errors] == [("[2]", "atif")]


def test_generic_importer_does_not_claim_atif(host: PluginHost) -> None:
    for path in (DRIFT, HALLU):
        spec, candidates, _ = claim(path, host)
        assert spec is not None and spec.id == "atif"
        assert "generic" in [c.id for c in candidates]
