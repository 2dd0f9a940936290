"""OpenHands importer: the shipped output.jsonl and trajectory.json samples, V0 event mapping
(cause links, error observations, finish, skipped state events), old pair histories, V1 SDK
``kind`` events and malformed input."""

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
SAMPLES = ROOT / "sample_traces" / "openhands"
OUTPUT = SAMPLES / "output.jsonl"
TRAJECTORY = SAMPLES / "trajectory.json"


def _runs(res: LoadResult) -> list[Trajectory]:
    return trajectories_from_frames(res.traces, res.steps)


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _assert_links(t: Trajectory) -> None:
    """Every linked observation follows a call with the same id."""
    calls: set[str] = set()
    for s in t.steps:
        if s.kind in ("tool_call", "action") and s.tool_call_id:
            calls.add(s.tool_call_id)
        if s.kind == "observation" and s.tool_call_id:
            assert s.tool_call_id in calls, (s.index, s.tool_call_id)


def test_samples_are_claimed_by_openhands(host: PluginHost) -> None:
    for path in (OUTPUT, TRAJECTORY):
        spec, _, problem = claim(path, host)
        assert problem is None and spec is not None and spec.id == "openhands"


def test_output_jsonl_two_evaluated_runs(host: PluginHost) -> None:
    res = load([OUTPUT], host=host)
    assert res.errors == []
    assert res.formats == {"openhands": 2}
    planning, ok = _runs(res)
    assert planning.record == "line 1" and ok.record == "line 2"
    assert planning.native_id == "retryhttp__retryhttp-131" and ok.native_id == "slugkit__slugkit-23"
    assert planning.model == ok.model == "anthropic/claude-3-7-sonnet-20250219"
    assert planning.framework == "openhands" and planning.task_family == "trajscope/samples-swe"
    assert (planning.outcome, planning.outcome_raw, planning.score) == ("failure", "resolved=False", 0.0)
    assert (ok.outcome, ok.outcome_raw, ok.score) == ("success", "resolved=True", 1.0)
    assert planning.task.startswith("Retry ignores the Retry-After header")
    assert planning.final_answer is not None and "RATE_LIMIT_DELAY" in planning.final_answer
    assert planning.metadata["skipped_events"] == {"recall": 2, "agent_state_changed": 2, "think": 1}
    assert planning.metadata["final_agent_state"] == "finished"
    assert planning.metadata["git_patch"].startswith("diff --git a/retryhttp/retry.py")
    for t in (planning, ok):
        assert [s.kind for s in t.steps[:2]] == ["system", "user"]
        assert not any(s.is_error for s in t.steps)
        _assert_links(t)
        assert t.steps[-1].tool_name == "finish" and t.steps[-1].metadata["final"] is True
        assert sum(1 for s in t.steps if s.tokens_in) == sum(1 for s in t.steps if s.tokens_out) > 5
    assert len(planning.steps) == 34 and len(ok.steps) == 27
    planted = planning.metadata["planted"]
    assert planted["category"] == "planning_error"
    step = planning.steps[planted["step"]]
    assert step.kind == "tool_call" and step.tool_name == "str_replace_editor"
    assert step.tool_args is not None and "RATE_LIMIT_DELAY" in step.tool_args
    assert planning.steps[planted["step"] - 1].kind == "thought"
    assert "planted" not in ok.metadata


def test_trajectory_json_error_accumulation(host: PluginHost) -> None:
    res = load([TRAJECTORY], host=host)
    assert res.errors == []
    (t,) = _runs(res)
    assert t.record == "$" and t.native_id is None
    assert t.model == "openai/gpt-4o-2024-11-20"
    assert t.outcome == "failure"
    assert t.outcome_raw is not None and t.outcome_raw.startswith("agent_state=error: RuntimeError: Agent reached")
    assert t.task.startswith("In /workspace/logsift, add a `--since` option")
    assert len(t.steps) == 81
    _assert_links(t)
    planted = t.metadata["planted"]
    assert planted["category"] == "error_accumulation"
    decisive = t.steps[planted["step"]]
    assert decisive.kind == "tool_call" and "datetime.fromisoformat" in (decisive.tool_args or "")
    before = [s for s in t.steps[: planted["step"]] if s.is_error]
    after = [s for s in t.steps[planted["step"]:] if s.is_error]
    assert before == [] and len(after) == 7
    editor_error = next(s for s in after if s.metadata.get("observation") == "error")
    assert editor_error.error_text is not None and editor_error.error_text.startswith("No replacement was performed")
    piped = after[0]  # pytest piped through tail: exit code 0, failures still visible
    assert piped.metadata["exit_code"] == 0 and piped.error_text is not None and "TypeError" in piped.error_text


def _ev(i: int, **kw: Any) -> dict[str, Any]:
    return {"id": i, "timestamp": f"2025-01-01T00:00:{i:02d}", **kw}


def test_plain_event_list_without_tool_call_metadata(tmp_path: Path, host: PluginHost) -> None:
    events = [
        _ev(0, source="user", action="message", message="Count the lines of a.txt", args={"content": "Count the lines of a.txt"}),
        _ev(1, source="environment", observation="agent_state_changed", content="", extras={"agent_state": "running"}),
        _ev(2, source="agent", action="run", message="Running command: wc -l a.txt",
            args={"command": "wc -l a.txt", "thought": "Use wc.", "is_input": False}),
        _ev(3, source="environment", observation="run", cause=2, content="wc: a.txt: No such file or directory",
            extras={"command": "wc -l a.txt", "metadata": {"exit_code": 1}}),
        _ev(4, source="agent", action="run", args={"command": "sleep 100"}, message="Running command: sleep 100"),
        _ev(5, source="environment", observation="run", cause=4, content="", extras={"metadata": {"exit_code": -1}}),
        _ev(6, source="agent", observation="error", content="ERROR:\nAgentStuckInLoopError: loop detected", cause=None),
        _ev(7, source="agent", action="finish", args={"final_thought": "The file does not exist.", "outputs": {}}),
        _ev(8, source="environment", observation="agent_state_changed", content="", extras={"agent_state": "finished"}),
        "junk",
        _ev(10, source="agent"),
    ]
    res = load([_write(tmp_path / "trajectory.json", events)], host=host)
    (t,) = _runs(res)
    assert [(e.record, e.importer) for e in res.errors] == [("$ event 9", "openhands"), ("$ event 10", "openhands")]
    assert [s.kind for s in t.steps] == ["user", "thought", "action", "observation", "action", "observation",
                                         "observation", "action"]
    assert t.task == "Count the lines of a.txt"
    assert t.steps[2].tool_call_id == t.steps[3].tool_call_id == "event-2"
    assert t.steps[2].tool_args == '{"command":"wc -l a.txt"}'
    assert t.steps[3].is_error and t.steps[3].error_text == "wc: a.txt: No such file or directory"
    assert t.steps[5].is_error and "timed out" in (t.steps[5].error_text or "")
    assert t.steps[6].is_error and t.steps[6].role == "environment"
    assert t.steps[6].error_text == "AgentStuckInLoopError: loop detected"
    assert t.final_answer == "The file does not exist."
    assert t.outcome == "unknown" and t.outcome_raw == "agent_state=finished"
    assert t.metadata["skipped_events"] == {"agent_state_changed": 2}


def test_old_pair_history_and_error_field(tmp_path: Path, host: PluginHost) -> None:
    pair = [_ev(1, source="agent", action="run", args={"command": "ls"}, message="Running command: ls"),
            _ev(2, source="environment", observation="run", cause=1, content="a.py", extras={"exit_code": 0})]
    line = {"instance_id": "x__y-1", "instruction": "<issue_description>\nFix it\n</issue_description>",
            "history": [pair], "test_result": {}, "metadata": {"agent_class": "CodeActAgent", "model": "m-1"},
            "error": "RuntimeError: Agent got stuck in a loop"}
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (t,) = _runs(load([path], host=host))
    assert [s.kind for s in t.steps] == ["action", "observation"]
    assert t.task == "Fix it" and t.model == "m-1"
    assert t.outcome == "failure" and t.outcome_raw == "RuntimeError: Agent got stuck in a loop"


def test_v1_sdk_kind_events(tmp_path: Path, host: PluginHost) -> None:
    events = [
        {"kind": "SystemPromptEvent", "id": "e0", "source": "agent", "system_prompt": {"type": "text", "text": "Be useful."}},
        {"kind": "MessageEvent", "id": "e1", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "Run the tests"}]}},
        {"kind": "ActionEvent", "id": "e2", "source": "agent", "thought": [{"type": "text", "text": "Run pytest."}],
         "action": {"kind": "ExecuteBashAction", "command": "pytest -q"}, "tool_name": "execute_bash",
         "tool_call_id": "call_1", "metrics": {"usage": {"prompt_tokens": 900, "completion_tokens": 30}}},
        {"kind": "ObservationEvent", "id": "e3", "source": "environment", "tool_name": "execute_bash",
         "tool_call_id": "call_1", "observation": {"kind": "ExecuteBashObservation", "output": "1 failed", "exit_code": 1}},
        {"kind": "ConversationStateUpdateEvent", "id": "e4", "source": "environment", "key": "execution_status"},
        {"kind": "AgentErrorEvent", "id": "e5", "source": "agent", "tool_name": "execute_bash", "tool_call_id": "call_2",
         "error": "Tool call arguments are not valid JSON"},
        {"kind": "ActionEvent", "id": "e6", "source": "agent", "action": {"kind": "FinishAction", "message": "Done."},
         "tool_name": "finish", "tool_call_id": "call_3"},
    ]
    res = load([_write(tmp_path / "events.json", {"history": events})], host=host)
    assert res.errors == []
    (t,) = _runs(res)
    assert [s.kind for s in t.steps] == ["system", "user", "thought", "tool_call", "observation", "observation",
                                         "tool_call"]
    assert t.steps[2].tokens_in == 900 and t.steps[3].tool_args == '{"command":"pytest -q"}'
    assert t.steps[4].is_error and t.steps[4].tool_call_id == "call_1"
    assert t.steps[5].is_error and t.steps[5].error_text == "Tool call arguments are not valid JSON"
    assert t.final_answer == "Done."
    assert t.metadata["skipped_events"] == {"ConversationStateUpdateEvent": 1}


def test_malformed_output_lines_are_reported_and_good_lines_load(tmp_path: Path, host: PluginHost) -> None:
    good = OUTPUT.read_text(encoding="utf-8").splitlines()[1]
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join([
        good,
        '{"instance_id": "a", "history": [{"id": 1, "source": "agent", "action": "run"',  # truncated
        '["instance_id", "history"]',
        '{"instance_id": "b", "test_result": {}}',
        '{"instance_id": "c", "history": "nope"}',
    ]) + "\n", encoding="utf-8")
    res = load([path], host=host)
    assert res.traces.height == 1
    reasons = {e.record: e.reason for e in res.errors}
    assert set(reasons) == {"line 2", "line 3", "line 4", "line 5"}
    assert "truncated" in reasons["line 2"]
    assert "expected a JSON object" in reasons["line 3"]
    assert "no 'history' list" in reasons["line 4"]


@pytest.mark.parametrize(("doc", "reason"), [
    ({"history": {"0": {}}, "source": "agent", "action": "run", "args": {}}, "no 'history'"),
    ("just a string with \"source\" \"action\" \"args\"", "list of OpenHands events"),
])
def test_wrong_shapes_give_errors(tmp_path: Path, host: PluginHost, doc: Any, reason: str) -> None:
    res = load([_write(tmp_path / "trajectory.json", doc)], host=host, importer="openhands")
    assert res.traces.height == 0
    assert len(res.errors) == 1 and reason in res.errors[0].reason


def test_truncated_trajectory_json_is_an_error(tmp_path: Path, host: PluginHost) -> None:
    bad = tmp_path / "trajectory.json"
    bad.write_bytes(TRAJECTORY.read_bytes()[:20000])
    res = load([bad], host=host)
    assert res.traces.height == 0
    assert len(res.errors) == 1 and res.errors[0].importer == "openhands"
    assert "truncated" in res.errors[0].reason


def test_sniff_leaves_atif_to_the_atif_importer(host: PluginHost) -> None:
    atif = next((ROOT / "sample_traces" / "atif").rglob("trajectory.json"))
    spec, _, _ = claim(atif, host)
    assert spec is not None and spec.id == "atif"
    assert not host.load_importer("openhands").sniff(atif.read_bytes()[:65536], atif)
