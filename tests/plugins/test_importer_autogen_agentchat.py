"""AutoGen AgentChat importer: the made-up fixtures (TeamState, bare list, Magentic-One TaskResult),
claiming over the chat importer, tool calls linked to their results, skipped summaries, code
execution errors, task/final answer/tokens, the agent-context fallback, JSONL, malformed messages
costing only themselves, and the chat importer never naming an agent ``None``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading.loader import claim
from analyzer.loading.structure import json_shape
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.autogen_agentchat import AutogenAgentChatImporter
from plugins.importers.chat import ChatImporter
from tests.plugins._loading import load_one, load_runs, write_json
from tests.plugins.importer_fuzz import assert_no_catch_all, damage_bytes, read_all, write_mutated

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "real_agents" / "autogen_agentchat"
TEAM_STATE = DATA / "team_state_round_robin.json"
HISTORY = DATA / "swarm_history.json"
MAGENTIC = DATA / "magentic_one_task_result.json"
MANAGER = "agent_states.RoundRobinGroupChatManager.message_thread"






def _msg(source: str, content: Any, mtype: str = "TextMessage", usage: Any = None, **extra: Any) -> dict[str, Any]:
    return {"source": source, "models_usage": usage, "metadata": {}, "content": content, "type": mtype, **extra}


# -- claiming ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [TEAM_STATE, HISTORY, MAGENTIC], ids=lambda p: p.name)
def test_each_shape_is_claimed_by_the_agentchat_importer(path: Path, host: PluginHost) -> None:
    spec, _, problem = claim(path, host)
    assert problem is None and spec is not None and spec.id == "autogen_agentchat"
    shape = json_shape(path)
    assert shape is not None
    assert AutogenAgentChatImporter().sniff_structure(shape, path)
    assert not ChatImporter().sniff_structure(shape, path)  # chat leaves AgentChat messages alone


def test_plain_chat_files_stay_with_the_chat_importer(tmp_path: Path, host: PluginHost) -> None:
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for name, doc in (("list.json", chat), ("run.json", {"messages": chat}),
                      ("lc.json", {"messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"}]})):
        spec, _, _ = claim(write_json(tmp_path / name, doc), host)
        assert spec is not None and spec.id == "chat", name


# -- the fixtures --------------------------------------------------------------------------------


def test_team_state_round_robin(host: PluginHost) -> None:
    t = load_one(TEAM_STATE, host, "autogen_agentchat")
    assert (t.framework, t.record, t.native_id) == ("autogen-agentchat", "$", None)
    assert t.metadata["layout"] == "TeamState"
    assert t.metadata["manager"] == "RoundRobinGroupChatManager"
    assert t.metadata["manager_state"] == "RoundRobinManagerState"
    assert [(s.kind, s.role, s.agent) for s in t.steps] == [
        ("user", "user", "user"), ("thought", "assistant", "stock_agent"),
        ("tool_call", "assistant", "stock_agent"), ("tool_call", "assistant", "stock_agent"),
        ("observation", "tool", "tool"), ("observation", "tool", "tool"), ("message", "assistant", "stock_agent")]
    # the summary message (thread[4]) repeats the two results: not a step
    assert t.metadata["repeated_summaries_skipped"] == 1
    assert [s.native_step_id for s in t.steps] == [
        f"{MANAGER}[0]", f"{MANAGER}[1]", f"{MANAGER}[2].content[0]", f"{MANAGER}[2].content[1]",
        f"{MANAGER}[3].content[0]", f"{MANAGER}[3].content[1]", f"{MANAGER}[5]"]
    assert [s.native_index for s in t.steps] == [0, 1, 2, 2, 3, 3, 5]
    calls, results = t.steps[2:4], t.steps[4:6]
    assert [(c.tool_name, c.tool_args, c.tool_call_id) for c in calls] == [
        ("check_stock", '{"sku": "A-100"}', "call_stock_a100"), ("check_stock", '{"sku": "B-200"}', "call_stock_b200")]
    assert [r.tool_call_id for r in results] == [c.tool_call_id for c in calls]  # linked by id
    assert [r.tool_name for r in results] == ["check_stock", "check_stock"]
    assert [r.is_error for r in results] == [False, True]
    assert results[1].error_text == "Error: SKU 'B-200' is not in the catalogue"
    assert t.steps[1].text == "I will look up both SKUs at once."
    # usage is the model call's: on the first step of the message
    assert (calls[0].tokens_in, calls[0].tokens_out, calls[1].tokens_in) == (212, 58, None)
    assert (t.steps[6].tokens_in, t.steps[6].tokens_out) == (341, 47)
    assert t.steps[0].timestamp == "2025-06-02T09:14:03.120511Z"
    assert t.steps[2].metadata["agentchat_type"] == "ToolCallRequestEvent"
    assert t.task == "Check the stock of SKU A-100 and SKU B-200 and tell me which one can ship today."
    assert t.final_answer is not None and t.final_answer.startswith("SKU A-100 can ship today")
    assert (t.outcome, t.outcome_raw) == ("unknown", None)


def test_bare_list_swarm_history(host: PluginHost) -> None:
    t = load_one(HISTORY, host, "autogen_agentchat")
    assert t.metadata["layout"] == "message list"
    assert t.metadata["dropped_events"] == {"ModelClientStreamingChunkEvent": 2}
    assert t.metadata["agents"] == ["refunds_agent", "triage_agent"]
    assert [(s.kind, s.agent, s.native_step_id) for s in t.steps] == [
        ("user", "user", "[0]"), ("tool_call", "triage_agent", "[1].content[0]"),
        ("observation", "tool", "[2].content[0]"), ("message", "triage_agent", "[3]"),
        ("tool_call", "refunds_agent", "[4].content[0]"), ("observation", "tool", "[5].content[0]"),
        ("message", "refunds_agent", "[8]"), ("message", "refunds_agent", "[9]")]
    assert t.steps[3].metadata["handoff_target"] == "refunds_agent"
    assert t.steps[5].tool_call_id == t.steps[4].tool_call_id == "call_refund_1"
    assert not any(s.is_error for s in t.steps)
    assert t.task == "My order #4471 arrived broken. I want a refund."
    # the last *text* message of an agent: the handoff back to the user is not the answer
    assert t.final_answer == "Your refund R-9021 of 39.90 is queued and will reach your card in 3-5 business days."
    assert sum(s.tokens_in or 0 for s in t.steps) == 180 + 260 + 318
    assert t.outcome == "unknown"


def test_magentic_one_task_result(host: PluginHost) -> None:
    t = load_one(MAGENTIC, host, "autogen_agentchat")
    assert t.metadata["layout"] == "TaskResult"
    assert set(t.metadata["agents"]) == {"MagenticOneOrchestrator", "WebSurfer", "Coder"}  # the terminal only runs code
    failed, ok = (s for s in t.steps if s.metadata.get("agentchat_type") == "CodeExecutionEvent")
    assert (failed.kind, failed.role, failed.agent, failed.tool_name) == (
        "observation", "tool", "ComputerTerminal", "code_execution")
    assert failed.is_error and failed.error_text == "KeyError: 'Price'"
    assert failed.metadata["exit_code"] == 1 and failed.native_step_id == "messages[5]"
    assert failed.metadata["code_file"] == "/workspace/tmp_code_8d41c0.py"
    assert not ok.is_error and ok.metadata["exit_code"] == 0 and ok.text == "142.5\n"
    assert [s.index for s in t.steps if s.is_error] == [failed.index]
    # the terminal's replies repeat the two outputs: observations already, not its decisions
    assert t.metadata["repeated_executor_replies_skipped"] == 2
    assert [s.kind for s in t.steps if s.agent == "ComputerTerminal"] == ["observation", "observation"]
    surfer = next(s for s in t.steps if s.agent == "WebSurfer")
    assert surfer.text.endswith("Here is a screenshot of the page.\n[image]")  # no base64 in the text
    assert (surfer.tokens_in, surfer.tokens_out) == (2210, 64)
    assert t.task == "What is the median nightly price in data/listings.csv? Round it to two decimals."
    assert t.final_answer == "The median nightly price in data/listings.csv is 142.50."
    # the orchestrator's own stop reason is no verdict: kept, the outcome stays unknown
    assert t.outcome == "unknown"
    assert t.outcome_raw == t.metadata["stop_reason"] == (
        "The median nightly price was computed from the file and reported to the user.")


# -- mapping details -----------------------------------------------------------------------------


def test_summary_is_kept_when_it_is_not_a_repeat_and_is_the_final_answer(tmp_path: Path, host: PluginHost) -> None:
    msgs = [_msg("user", "q"),
            _msg("a", [{"id": "c1", "name": "f", "arguments": "{}"}], "ToolCallRequestEvent"),
            _msg("a", [{"call_id": "c1", "name": "f", "content": "42", "is_error": False}], "ToolCallExecutionEvent"),
            _msg("a", "42", "ToolCallSummaryMessage")]
    t = load_one(write_json(tmp_path / "s.json", msgs), host, "autogen_agentchat")
    assert [s.kind for s in t.steps] == ["user", "tool_call", "observation"]
    assert t.final_answer == "42"  # reflect_on_tool_use=False: the summary is the agent's reply
    alone = [_msg("user", "q"), _msg("a", "the tool said 42", "ToolCallSummaryMessage")]
    t2 = load_one(write_json(tmp_path / "s2.json", alone), host, "autogen_agentchat")
    assert [s.kind for s in t2.steps] == ["user", "message"] and t2.final_answer == "the tool said 42"


def test_an_executor_reply_is_skipped_only_when_it_repeats_the_output(tmp_path: Path, host: PluginHost) -> None:
    def run(reply: str, output: str = "3\n", code: int = 0) -> list[str]:
        msgs = [_msg("user", "add 1 and 2"), _msg("coder", "```python\nprint(1 + 2)\n```"),
                {**_msg("terminal", None, "CodeExecutionEvent"), "result": {"exit_code": code, "output": output}},
                _msg("terminal", reply)]
        t = load_one(write_json(tmp_path / "r.json", msgs), host, "autogen_agentchat")
        return [s.kind for s in t.steps]

    assert run("3\n") == ["user", "message", "observation"]
    assert run("The script ran, then exited with an error (POSIX exit code: 1)\nIts output was:\nboom",
               "boom", 1) == ["user", "message", "observation"]
    assert run("The script ran but produced no output to console.", "") == ["user", "message", "observation"]
    # words of its own: the agent's message stays
    assert run("The sum is 3, which matches the expected answer; next we should test negative numbers "
               "and floats, and write the report.") == ["user", "message", "observation", "message"]


def test_code_generation_links_to_its_execution(tmp_path: Path, host: PluginHost) -> None:
    msgs = [_msg("user", "print hi"),
            _msg("coder", "```python\nprint('hi')\n```", "CodeGenerationEvent", {"prompt_tokens": 5, "completion_tokens": 7},
                 retry_attempt=0, code_blocks=[{"code": "print('hi')\n", "language": "python"}]),
            {"source": "coder", "models_usage": None, "metadata": {}, "retry_attempt": 0,
             "result": {"exit_code": 2, "output": "", "code_file": None}, "type": "CodeExecutionEvent"},
            {"source": "coder", "models_usage": None, "metadata": {}, "result": "hi\n", "type": "CodeExecutionEvent"}]
    t = load_one(write_json(tmp_path / "c.json", {"messages": msgs, "stop_reason": None}), host, "autogen_agentchat")
    gen, run, old = t.steps[1], t.steps[2], t.steps[3]
    assert (gen.kind, gen.tool_name, gen.tokens_in) == ("tool_call", "code_execution", 5)
    assert json.loads(gen.tool_args or "") == [{"code": "print('hi')\n", "language": "python"}]
    assert run.tool_call_id == gen.tool_call_id == "code:messages[1]"
    assert run.is_error and run.error_text == "exit code 2" and run.metadata["exit_code"] == 2
    assert old.tool_call_id is None and not old.is_error and old.text == "hi\n"  # 0.4: result is the output text


def test_thoughts_memory_and_dropped_events(tmp_path: Path, host: PluginHost) -> None:
    msgs = [_msg("user", "q"), _msg("a", "thinking", "ThoughtEvent"),
            _msg("a", [{"content": "user likes tea", "mime_type": "text/plain", "metadata": None}], "MemoryQueryEvent"),
            _msg("selector", ["a"], "SelectSpeakerEvent"), _msg("a", "", "UserInputRequestedEvent", request_id="r1"),
            _msg("a", "tea", "ModelClientStreamingChunkEvent"),
            _msg("a", {"drink": "tea", "n": 2}, "StructuredMessage[Order]"), _msg("a", "stop now", "StopMessage")]
    t = load_one(write_json(tmp_path / "m.json", msgs), host, "autogen_agentchat")
    assert [(s.kind, s.agent) for s in t.steps] == [
        ("user", "user"), ("thought", "a"), ("observation", "a"), ("message", "a"), ("message", "a")]
    assert t.steps[2].tool_name == "memory" and t.steps[2].text == "user likes tea"
    assert json.loads(t.steps[3].text) == {"drink": "tea", "n": 2}
    assert t.metadata["dropped_events"] == {
        "SelectSpeakerEvent": 1, "UserInputRequestedEvent": 1, "ModelClientStreamingChunkEvent": 1}
    assert t.final_answer == '{"drink":"tea","n":2}'
    assert t.metadata["stop_messages"] == ["stop now"] and t.outcome == "unknown"


@pytest.mark.parametrize(("stop_reason", "outcome"), [
    ("Text 'TERMINATE' mentioned", "unknown"), ("Maximum number of turns 5 reached.", "unknown"),
    (None, "unknown"), ("success", "success"), ("failed", "failure")])
def test_outcome_only_from_an_explicit_stop_reason(tmp_path: Path, host: PluginHost, stop_reason: Any,
                                                   outcome: str) -> None:
    doc = {"messages": [_msg("user", "q"), _msg("a", "done")], "stop_reason": stop_reason}
    t = load_one(write_json(tmp_path / "o.json", doc), host, "autogen_agentchat")
    assert t.outcome == outcome and t.outcome_raw == stop_reason


def test_team_state_without_a_manager_thread_falls_back_to_the_agent_context(tmp_path: Path,
                                                                             host: PluginHost) -> None:
    doc = json.loads(TEAM_STATE.read_text(encoding="utf-8"))
    doc["agent_states"]["RoundRobinGroupChatManager"]["message_thread"] = []
    t = load_one(write_json(tmp_path / "state.json", doc), host, "autogen_agentchat")
    assert t.metadata["layout"] == "TeamState agent context" and t.metadata["agent_context"] == "stock_agent"
    prefix = "agent_states.stock_agent.agent_state.llm_context.messages"
    assert [(s.kind, s.agent, s.native_step_id) for s in t.steps] == [
        ("user", "user", f"{prefix}[0]"), ("thought", "stock_agent", f"{prefix}[1]"),
        ("tool_call", "stock_agent", f"{prefix}[1].content[0]"), ("tool_call", "stock_agent", f"{prefix}[1].content[1]"),
        ("observation", "tool", f"{prefix}[2].content[0]"), ("observation", "tool", f"{prefix}[2].content[1]"),
        ("message", "stock_agent", f"{prefix}[3]")]
    assert [s.is_error for s in t.steps if s.kind == "observation"] == [False, True]
    assert t.task.startswith("Check the stock") and t.final_answer is not None
    assert t.final_answer.startswith("SKU A-100 can ship today")


def test_older_team_state_keys_and_team_id(tmp_path: Path, host: PluginHost) -> None:
    """Before 0.4.9 the keys were ``<type>/<team id>`` and the team id sat beside them."""
    doc = {"type": "TeamState", "version": "1.0.0", "team_id": "t-1", "agent_states": {
        "group_chat_manager/t-1": {"type": "RoundRobinManagerState", "version": "1.0.0",
                                   "message_thread": [_msg("user", "q"), _msg("assistant", "a")]},
        "collect_output_messages/t-1": {}}}
    t = load_one(write_json(tmp_path / "old.json", doc), host, "autogen_agentchat")
    assert t.native_id == "t-1"
    assert t.steps[1].native_step_id == "agent_states.group_chat_manager/t-1.message_thread[1]"


def test_jsonl_of_messages_and_of_task_results(tmp_path: Path, host: PluginHost) -> None:
    lines = tmp_path / "stream.jsonl"
    lines.write_text("\n".join(json.dumps(m) for m in [_msg("user", "q"), _msg("a", "x"), _msg("a", "y")]) + "\n"
                     + "{not json\n", encoding="utf-8")
    runs, res = load_runs(lines, host)
    assert res.formats == {"autogen_agentchat": 1}
    assert [s.native_step_id for s in runs[0].steps] == ["line 1", "line 2", "line 3"]
    assert [(e.record, e.importer) for e in res.errors] == [("line 4", "autogen_agentchat")]
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps({"messages": [_msg("user", f"q{i}"), _msg("a", "x")],
                                             "stop_reason": None}) for i in range(2)) + "\n", encoding="utf-8")
    runs, res = load_runs(results, host)
    assert res.errors == [] and sorted(r.record for r in runs) == ["line 1", "line 2"]


# -- malformed input -----------------------------------------------------------------------------


def test_malformed_messages_cost_only_themselves(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(MAGENTIC.read_text(encoding="utf-8"))
    doc["messages"][3] = "not a message"
    doc["messages"].insert(5, {"models_usage": None, "content": "who?", "type": "TextMessage"})  # no source
    doc["messages"].insert(6, _msg("Coder", {"oops": 1}, "ToolCallRequestEvent"))
    doc["messages"].insert(7, _msg("Coder", [{"id": "c", "name": "f", "arguments": "{}"}, 7], "ToolCallRequestEvent"))
    path = write_json(tmp_path / "bad.json", doc)
    spec, _, _ = claim(path, host)
    assert spec is not None and spec.id == "autogen_agentchat"
    runs, res = load_runs(path, host)
    assert len(runs) == 1 and len(runs[0].steps) == 13 - 1 + 1  # the bad one gone, the good call kept
    problems = [(e.file, e.record, e.importer, e.reason) for e in res.errors]
    assert problems == [
        (str(path), "messages[3]", "autogen_agentchat", "messages[3] is not an object"),
        (str(path), "messages[5]", "autogen_agentchat", "messages[5] has no role"),
        (str(path), "messages[6]", "autogen_agentchat", "'content' is not a list"),
        (str(path), "messages[7].content[1]", "autogen_agentchat", "expected a content object, got int; skipped")]
    assert all(e.message is not None for e in res.errors)  # message ids, translated in the app
    t = runs[0]
    assert t.final_answer == "The median nightly price in data/listings.csv is 142.50."
    assert any(s.native_step_id == "messages[7].content[0]" for s in t.steps)
    assert any(s.is_error and s.agent == "ComputerTerminal" for s in t.steps)


@pytest.mark.parametrize(("doc", "reason"), [
    ([], "'messages' is empty"),
    ([3, "x"], "'messages' is empty"),
    ({"type": "TeamState", "agent_states": {}}, "missing 'messages' list"),
    (42, "expected a messages list, an object with 'messages', or a list of such objects"),
])
def test_unreadable_documents_are_reported(tmp_path: Path, host: PluginHost, doc: Any, reason: str) -> None:
    runs, res = load_runs(write_json(tmp_path / "x.json", doc), host, importer="autogen_agentchat")
    assert runs == []
    assert any(reason in e.reason for e in res.errors), [e.reason for e in res.errors]
    assert all(e.importer == "autogen_agentchat" for e in res.errors)


def test_odd_type_values_do_not_break_reading(tmp_path: Path, host: PluginHost) -> None:
    """A fuzz find: a list where a ``type`` string belongs (unhashable) cost the whole file."""
    doc = [{"type": ["TeamState"], "messages": [_msg("user", "q"), _msg("a", "x", ["TextMessage"])]}]
    runs, res = load_runs(write_json(tmp_path / "odd.json", doc), host, importer="autogen_agentchat")
    assert res.errors == [] and [s.text for s in runs[0].steps] == ["q", "x"]


def test_team_state_without_agent_states_is_a_named_near_miss(tmp_path: Path, host: PluginHost) -> None:
    path = write_json(tmp_path / "state.json", {"type": "TeamState", "version": "1.0.0"})
    shape = json_shape(path)
    assert shape is not None
    hint = AutogenAgentChatImporter().near_miss(shape, path)
    assert hint is not None and "agent_states" in hint[1]


# -- the chat importer on AgentChat input ("Open with...") ------------------------------------------


def test_chat_importer_never_names_an_agent_none(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(MAGENTIC.read_text(encoding="utf-8"))
    runs, res = load_runs(write_json(tmp_path / "forced.json", doc), host, importer="chat")
    assert res.errors == [] and len(runs) == 1
    agents = {s.agent for s in runs[0].steps}
    assert "None" not in agents and "" not in agents
    assert {"MagenticOneOrchestrator", "Coder", "ComputerTerminal", "WebSurfer"} <= agents
    bare = [{"type": "TextMessage", "content": "x"}, {"type": "Note", "content": "y", "name": None}]
    runs, _ = load_runs(write_json(tmp_path / "bare.json", {"messages": bare}), host, importer="chat")
    assert [s.agent for s in runs[0].steps] == ["assistant", "assistant"]


# -- fuzzing -------------------------------------------------------------------------------------

SAMPLES = [TEAM_STATE, HISTORY, MAGENTIC]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(SAMPLES))
def test_mutated_records_never_raise(tmp_path: Path, host: PluginHost, data: st.DataObject, which: Path) -> None:
    path = tmp_path / "m.json"
    write_mutated(which, path, data)
    read_all(AutogenAgentChatImporter(), path)
    assert_no_catch_all(path, host, "autogen_agentchat")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(SAMPLES))
def test_damaged_bytes_never_raise(tmp_path: Path, host: PluginHost, data: st.DataObject, which: Path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(damage_bytes(which.read_bytes(), data))
    imp = AutogenAgentChatImporter()
    shape = json_shape(path)
    imp.sniff(path.read_bytes()[:65536], path)
    if shape is not None:
        imp.sniff_structure(shape, path)
        imp.near_miss(shape, path)
    read_all(imp, path)
    assert_no_catch_all(path, host, "autogen_agentchat")

