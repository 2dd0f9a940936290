"""Files written by other agent tools (``tests/data/real_agents/``, see its README): which importer
claims them and the concrete steps they give (kind, role, tool name/args, error flags, task, final
answer, outcome). Regression tests for the importer fixes found by running those files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from tests.plugins._loading import load_one, load_runs, write_json

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "real_agents"








# -- mini-swe-agent: bare message lists (P1) and mswea_bash_command fences (P2) ------------------


def test_mini_swe_agent_message_list_with_mswea_fences(host: PluginHost) -> None:
    t = load_one(DATA / "mini_swe_agent" / "github_issue.traj.json", host, "mini_swe_agent")
    assert t.framework == "mini-swe-agent" and t.native_id == "github_issue"
    assert t.metadata["layout"] == "message list"
    assert t.task.startswith("GitHub Issue: SyntaxError: invalid syntax")
    assert len(t.steps) == 22
    assert [(s.kind, s.role) for s in t.steps[:4]] == [
        ("system", "system"), ("user", "user"), ("action", "assistant"), ("observation", "tool")]
    actions = [s for s in t.steps if s.kind == "action"]
    assert len(actions) == 10 and {s.tool_name for s in actions} == {"bash"}
    assert actions[0].tool_args == "cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py"
    assert actions[1].tool_args == "ls -la"
    observations = [s for s in t.steps if s.kind == "observation"]
    assert len(observations) == 10 and {s.tool_name for s in observations} == {"bash"}
    assert [s.index for s in t.steps if s.is_error] == [3, 17]  # the two <returncode>1</returncode> outputs
    assert t.steps[3].metadata["returncode"] == 1 and "No such file or directory" in (t.steps[3].error_text or "")
    assert t.steps[17].error_text == "ZeroDivisionError: division by zero"
    # the message after `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` is the submission
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in (t.steps[20].tool_args or "")
    assert not t.steps[21].is_error
    assert t.final_answer is not None and t.final_answer.startswith("diff --git a/tests/missing_colon.py")
    assert (t.outcome, t.outcome_raw) == ("unknown", "Submitted")


def test_mini_swe_agent_message_list_with_bash_fences(host: PluginHost) -> None:
    t = load_one(DATA / "mini_swe_agent" / "local.traj.json", host, "mini_swe_agent")
    assert t.task == "Blah blah blah"
    assert [(s.kind, s.tool_name, s.tool_args) for s in t.steps] == [
        ("system", None, None), ("user", None, None), ("action", "bash", "echo 'hello world'"),
        ("observation", "bash", None), ("action", "bash", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        ("observation", "bash", None)]
    assert t.steps[3].metadata["returncode"] == 0 and not any(s.is_error for s in t.steps)
    assert t.final_answer is None  # an empty submission
    assert t.outcome_raw == "Submitted"


def test_a_plain_chat_list_in_a_traj_json_without_mini_markers_stays_chat(tmp_path: Path, host: PluginHost) -> None:
    path = write_json(tmp_path / "x.traj.json", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    spec, _, _ = claim(path, host)
    assert spec is not None and spec.id == "chat"


def test_mini_list_markers_past_the_head_are_found(tmp_path: Path, host: PluginHost) -> None:
    msgs = [{"role": "system", "content": "x" * 70000}, {"role": "user", "content": "Please solve this issue: y"},
            {"role": "assistant", "content": "```mswea_bash_command\nls\n```"},
            {"role": "user", "content": "<returncode>2</returncode>\n<output>\nls: cannot access\n</output>"}]
    path = write_json(tmp_path / "long.traj.json", msgs)
    t = load_one(path, host, "mini_swe_agent")
    assert [s.kind for s in t.steps] == ["system", "user", "action", "observation"]
    assert t.steps[2].tool_args == "ls" and t.steps[3].is_error and t.steps[3].error_text


def test_mini_swe_agent_2_extra_actions_give_the_command(tmp_path: Path, host: PluginHost) -> None:
    doc = {"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "Submitted", "submission": ""},
           "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "Please solve this issue: z"},
                        {"role": "assistant", "content": "THOUGHT: look", "extra": {"actions": [{"command": "pwd"}]}},
                        {"role": "user", "content": "<returncode>0</returncode>\n<output>\n/testbed\n</output>"}]}
    t = load_one(write_json(tmp_path / "v2.traj.json", doc), host, "mini_swe_agent")
    assert (t.steps[2].kind, t.steps[2].tool_name, t.steps[2].tool_args) == ("action", "bash", "pwd")


# -- SWE-agent: a history-only .traj (P4) and the history's agent name (P5) ----------------------


def test_swe_agent_history_only_demonstration(host: PluginHost) -> None:
    t = load_one(DATA / "swe_agent" / "function_calling_simple.traj", host, "swe_agent")
    assert t.framework == "swe-agent" and t.native_id == "function_calling_simple"
    assert t.metadata["steps_from"] == "history"
    assert t.task.startswith("SyntaxError: invalid syntax\nI'm running `missing_colon.py`")
    assert len(t.steps) == 17
    assert (t.steps[0].kind, t.steps[0].role) == ("system", "system")
    assert t.steps[0].text.startswith("SETTING: You are an autonomous programmer")
    assert (t.steps[1].kind, t.steps[1].role) == ("user", "user")
    calls = [s for s in t.steps if s.kind == "tool_call"]
    assert [(c.tool_name, c.tool_args) for c in calls] == [
        ("find_file", '{"file_name":"missing_colon.py"}'),
        ("open", '{"path":"tests/missing_colon.py"}'),
        ("edit", '{"search":"def division(a: float, b: float) -> float",'
                 '"replace":"def division(a: float, b: float) -> float:"}'),
        ("bash", '{"command":"python tests/missing_colon.py"}'),
        ("submit", "{}")]
    assert calls[0].tool_call_id == "call_PbWErNIge3YTrli3fiVvmIid" and calls[0].text == "find_file missing_colon.py"
    assert all(c.agent == "main" and c.role == "assistant" for c in calls)
    thoughts = [s for s in t.steps if s.kind == "thought"]
    assert len(thoughts) == 5 and thoughts[0].text.startswith("The `SyntaxError` in `missing_colon.py`")
    observations = [s for s in t.steps if s.kind == "observation"]
    assert len(observations) == 5
    for obs in observations:  # each answers the call right before it, by id
        call = t.steps[obs.index - 1]
        assert call.kind == "tool_call" and obs.tool_call_id == call.tool_call_id and obs.tool_name == call.tool_name
    assert not any(s.is_error for s in t.steps)
    assert t.final_answer is not None and t.final_answer.startswith("diff --git a/tests/missing_colon.py")
    assert t.outcome == "unknown"


def test_swe_agent_history_only_errors_and_classic_actions(tmp_path: Path, host: PluginHost) -> None:
    doc = {"history": [
        {"role": "system", "content": "sys", "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": "demo", "is_demo": True, "agent": "main"},
        {"role": "user", "content": "<pr_description>\nfix foo\n</pr_description>", "agent": "main",
         "message_type": "observation"},
        {"role": "assistant", "content": "run it\n```\npython foo.py\n```", "thought": "run it",
         "action": "python foo.py", "agent": "main", "message_type": "action"},
        {"role": "user", "content": "Traceback (most recent call last):\nValueError: bad", "agent": "main",
         "message_type": "observation"}]}
    t = load_one(write_json(tmp_path / "x.traj", doc), host, "swe_agent")
    assert t.task == "fix foo"
    assert [(s.kind, s.tool_name) for s in t.steps] == [
        ("system", None), ("user", None), ("thought", None), ("action", "python"), ("observation", "python")]
    assert t.steps[3].tool_args == "python foo.py"
    assert t.steps[4].is_error and t.steps[4].error_text == "ValueError: bad"


def test_swe_agent_trajectory_file_keeps_its_steps(host: PluginHost) -> None:
    t = load_one(DATA / "swe_agent" / "klieret__swe-agent-test-repo-i1.traj", host, "swe_agent")
    # no system step and no agent rename on the `trajectory` path: indices and run ids stay as before
    assert len(t.steps) == 16 and t.steps[0].kind == "user"
    assert {s.agent for s in t.steps if s.role == "assistant"} == {"assistant"}
    assert t.id == "c530eabb28f954aa"
    assert [s.tool_name for s in t.steps if s.kind == "action"] == ["find_file", "open", "edit", "python", "submit"]
    assert t.final_answer is not None and "diff --git a/tests/missing_colon.py" in t.final_answer


# -- ADP: text observations flagged like the other importers (P3) -------------------------------

_IPYTHON_TRACEBACK = (
    "---------------------------------------------------------------------------\n"
    "OperationalError                          Traceback (most recent call last)\n"
    "Cell In[1], line 3\n      1 query = \"SELECT Last_elected FROM data_table\"\n"
    "----> 3 result = conn.execute(query).fetchone()\n\n"
    "OperationalError: no such column: Last_elected\n")


def _adp_record(observation: str) -> dict[str, Any]:
    return {"id": "made-up/1", "content": [
        {"class_": "text_observation", "content": "Which year?", "name": None, "source": "user"},
        {"class_": "code_action", "language": "python", "content": "conn.execute(q)", "tool_call_id": "call_1",
         "description": "Query the table."},
        {"class_": "text_observation", "content": observation, "name": None, "source": "environment",
         "tool_call_id": "call_1"},
        {"class_": "message_action", "content": "<finish> <solution> 2001 </solution> </finish>",
         "description": "The answer is"}], "details": {}}


def test_adp_text_observation_errors_are_flagged(tmp_path: Path, host: PluginHost) -> None:
    path = write_json(tmp_path / "adp.json", [_adp_record(_IPYTHON_TRACEBACK), _adp_record("(4, 'Last elected')")])
    runs, res = load_runs(path, host)
    assert res.errors == [] and res.formats == {"adp": 2}
    bad, good = (next(s for s in r.steps if s.kind == "observation") for r in runs)
    assert (bad.tool_name, bad.tool_call_id, bad.is_error) == ("python", "call_1", True)
    assert bad.error_text == "OperationalError: no such column: Last_elected"
    assert not good.is_error and good.error_text is None
    assert runs[0].final_answer == "<finish> <solution> 2001 </solution> </finish>"


# -- ATIF: the last agent message is the final answer (P6b) --------------------------------------


def test_atif_last_agent_message_is_the_final_answer(tmp_path: Path, host: PluginHost) -> None:
    steps = [{"step_id": 1, "source": "user", "message": "Which year?"},
             {"step_id": 2, "source": "agent", "message": "Query it.",
              "tool_calls": [{"tool_call_id": "c1", "function_name": "execute_ipython_cell",
                              "arguments": {"code": "q()"}}],
              "observation": {"results": [{"source_call_id": "c1", "content": _IPYTHON_TRACEBACK}]}},
             {"step_id": 3, "source": "agent", "message": "<finish> <solution> 2001 </solution> </finish>"}]
    doc = {"schema_version": "ATIF-v1.5", "session_id": "s", "agent": {"name": "adp"}, "steps": steps}
    t = load_one(write_json(tmp_path / "t.json", doc), host, "atif")
    assert t.final_answer == "<finish> <solution> 2001 </solution> </finish>"
    obs = next(s for s in t.steps if s.kind == "observation")
    assert obs.is_error and obs.error_text == "OperationalError: no such column: Last_elected"
    doc["steps"] = steps[:2]  # the run ends on a tool call: no answer
    assert load_one(write_json(tmp_path / "u.json", doc), host, "atif").final_answer is None


# -- OpenHands: finish with empty outputs (P6) ---------------------------------------------------


def test_openhands_finish_thought_is_the_final_answer(host: PluginHost) -> None:
    t = load_one(DATA / "openhands_resolver" / "output.line1.jsonl", host, "openhands")
    assert t.native_id == "neubig/pr-viewer#5" and (t.outcome, t.score) == ("success", 1.0)
    finish = t.steps[-1]
    assert (finish.kind, finish.tool_name, finish.tool_args) == ("action", "finish", "{}")
    assert t.final_answer is not None
    assert t.final_answer.startswith("The MIT License has been successfully added to the repository.")
    assert [s.tool_name for s in t.steps if s.kind == "action"] == ["run", "run_ipython", "run", "finish"]


# -- Codex CLI rollouts (P7) ---------------------------------------------------------------------


def test_codex_real_rollout_head(host: PluginHost) -> None:
    t = load_one(DATA / "codex" / "sample_codex_session.jsonl", host, "codex_cli")
    assert t.framework == "codex-cli" and t.native_id == "019b64e5-57fa-7463-b644-fba7e456f905"
    assert t.model == "gpt-5.2-codex"
    assert t.metadata["cli_version"] == "0.77.0" and t.metadata["cwd"] == "/Users/macmini/Code/homelab-migration"
    assert [(s.kind, s.role, s.metadata.get("context")) for s in t.steps] == [
        ("system", "system", "AGENTS.md"), ("system", "system", "environment_context"), ("user", "user", None)]
    assert t.task == ("can you analyse the MD files in this directory and determine if the info we have is clear "
                      "enough to start planning the migration?")
    assert t.metadata["skipped_records"]["event:user_message"] == 1  # the event copy of the request
    assert t.final_answer is None and t.outcome == "unknown"


def test_codex_rollout_tool_calls_outputs_and_tokens(host: PluginHost) -> None:
    t = load_one(DATA / "codex" / "synthetic_rollout.jsonl", host, "codex_cli")
    kinds = [s.kind for s in t.steps]
    assert kinds == ["system", "system", "system", "user", "thought", "tool_call", "observation", "thought",
                     "tool_call", "observation", "tool_call", "observation", "tool_call", "observation", "message"]
    assert t.steps[0].metadata == {"raw_role": "developer"}
    assert t.task.startswith("csvkit-lite drops the last row")
    first_call, first_out = t.steps[5], t.steps[6]
    assert (first_call.tool_name, first_call.tool_call_id) == ("shell_command", "call_3kQd9VZb1mXc2Lw7Hn4Rt8Yp")
    assert json.loads(first_call.tool_args or "")["workdir"] == "/home/dev/projects/csvkit-lite"
    assert first_call.text.startswith("python -c ")
    assert (first_out.tool_name, first_out.tool_call_id, first_out.metadata["exit_code"]) == (
        "shell_command", "call_3kQd9VZb1mXc2Lw7Hn4Rt8Yp", 1)
    assert first_out.is_error and first_out.error_text == "ModuleNotFoundError: No module named 'csvkit_lite'"
    assert first_out.text.startswith("Traceback")  # the Exit code / Wall time header is not the output
    assert not t.steps[9].is_error and t.steps[9].metadata["exit_code"] == 0
    patch, patched = t.steps[10], t.steps[11]
    assert patch.tool_name == "apply_patch" and (patch.tool_args or "").startswith("*** Begin Patch")
    assert patched.text.startswith("Success. Updated the following files") and patched.metadata["exit_code"] == 0
    assert not patched.is_error
    assert t.steps[13].text.endswith("10 passed in 0.08s\n") and not t.steps[13].is_error
    # token_count: last_token_usage goes on the first model step of the response it counts
    assert (t.steps[4].tokens_in, t.steps[4].tokens_out) == (7412, 188)
    assert t.steps[4].metadata["cached_input_tokens"] == 3072
    assert (t.steps[7].tokens_in, t.steps[7].tokens_out) == (7778, 113)
    assert (t.steps[14].tokens_in, t.steps[14].tokens_out) == (8380, 66)
    assert t.steps[5].tokens_in is None
    assert t.metadata["token_usage"]["total_tokens"] == 40487
    assert t.final_answer is not None and t.final_answer.startswith("Fixed `read_rows`")
    assert t.metadata["skipped_records"]["event:agent_message"] == 1
    assert t.metadata["sandbox_policy"] == "workspace-write" and t.metadata["effort"] == "medium"


def test_codex_legacy_rollout_layout(host: PluginHost) -> None:
    t = load_one(DATA / "codex" / "synthetic_legacy_rollout.jsonl", host, "codex_cli")
    assert t.metadata["layout"] == "legacy" and t.native_id == "5f2e9c1a-0b3d-4e6f-9a8b-7c6d5e4f3a2b"
    assert [s.kind for s in t.steps] == ["system", "user", "thought", "tool_call", "observation", "message"]
    call, out = t.steps[3], t.steps[4]
    assert (call.tool_name, call.text, call.tool_call_id) == ("shell", "make test", "call_old_1")
    assert out.is_error and out.metadata["exit_code"] == 2 and out.tool_name == "shell"
    assert t.task == "Why does `make test` fail?"
    assert t.final_answer == "The Makefile has no `test` target; run `pytest` directly or add the target."


def test_codex_bad_lines_cost_only_themselves(tmp_path: Path, host: PluginHost) -> None:
    src = (DATA / "codex" / "synthetic_rollout.jsonl").read_text(encoding="utf-8").splitlines()
    lines = [*src[:6], "[1, 2]", '{"timestamp":"t","type":"response_item","payload":"oops"}', "{not json", *src[6:]]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs, res = load_runs(path, host)
    assert len(runs) == 1 and len(runs[0].steps) == 15
    assert sorted(e.record or "" for e in res.errors) == ["line 7", "line 8", "line 9"]
    assert all(e.importer == "codex_cli" for e in res.errors)


def test_codex_exit_codes_from_events_and_process_exit_header(tmp_path: Path, host: PluginHost) -> None:
    def rec(typ: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": typ, "payload": payload})
    lines = [rec("session_meta", {"id": "s1", "cwd": "/r", "cli_version": "0.90.0"}),
             rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
             rec("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c1",
                                   "arguments": json.dumps({"cmd": "npm test"})}),
             rec("response_item", {"type": "function_call_output", "call_id": "c1",
                                   "output": "Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 1\n"
                                             "Output:\nfailed\n"}),
             rec("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                                   "input": "*** Begin Patch\n*** End Patch\n"}),
             rec("event_msg", {"type": "patch_apply_end", "call_id": "c2", "success": False,
                               "stdout": "", "stderr": "invalid hunk at line 2"}),
             rec("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": "done"}),
             rec("event_msg", {"type": "error", "message": "stream disconnected before completion"})]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = load_one(path, host, "codex_cli")
    out1, out2, err = t.steps[2], t.steps[4], t.steps[5]
    assert out1.is_error and out1.metadata["exit_code"] == 1 and out1.text == "failed\n" and t.steps[1].text == "npm test"
    assert out2.is_error and out2.error_text == "invalid hunk at line 2"
    assert (err.kind, err.role, err.is_error) == ("observation", "environment", True)


def test_claude_code_and_chat_jsonl_are_not_taken_by_codex(tmp_path: Path, host: PluginHost) -> None:
    claude = tmp_path / "session.jsonl"
    claude.write_text(json.dumps({"type": "user", "sessionId": "s", "parentUuid": None, "uuid": "u1",
                                  "timestamp": "2026-01-01T00:00:00Z",
                                  "message": {"role": "user", "content": "hi"}}) + "\n", encoding="utf-8")
    spec, _, _ = claim(claude, host)
    assert spec is not None and spec.id == "claude_code"


# -- tau2-bench results (P8) ---------------------------------------------------------------------


def test_tau2_results_one_run_per_simulation(host: PluginHost) -> None:
    path = DATA / "tau2" / "synthetic_telecom_results.json"
    spec, _, _ = claim(path, host)
    assert spec is not None and spec.id == "tau_bench"
    runs, res = load_runs(path, host)
    assert res.errors == [] and res.formats == {"tau_bench": 2}
    ok, bad = sorted(runs, key=lambda r: r.record or "")
    assert (ok.record, bad.record) == ("simulations[0]", "simulations[1]")
    for r in runs:
        assert r.framework == "tau2-bench" and r.model == "claude-sonnet-4-5"
        assert r.task_family == "tau2-bench/telecom"
    assert (ok.outcome, ok.score, ok.outcome_raw) == ("success", 1.0, "1.0")
    assert (bad.outcome, bad.score) == ("failure", 0.0)
    assert ok.task == "Your mobile data stopped working this morning and you want it back."
    assert ok.native_id == "6f0c1e2a-91b4-4d7e-8c3f-2a5b7d9e1f01"
    assert ok.metadata["termination_reason"] == "user_stop" and ok.metadata["user_llm"] == "gpt-4.1"
    assert [a["name"] for a in ok.metadata["expected_actions"]] == ["get_customer_by_phone", "toggle_airplane_mode"]
    assert ok.steps[0].kind == "system"
    call, result = ok.steps[3], ok.steps[4]
    assert (call.kind, call.role, call.tool_name, call.tool_args, call.tool_call_id) == (
        "tool_call", "assistant", "get_customer_by_phone", '{"phone_number":"555-0142"}', "call_a1")
    assert (call.tokens_in, call.tokens_out) == (1810, 24)
    assert (result.kind, result.tool_name, result.tool_call_id, result.is_error) == (
        "observation", "get_customer_by_phone", "call_a1", False)
    user_call = ok.steps[10]  # the user toggles airplane mode on their phone
    assert (user_call.kind, user_call.role, user_call.agent, user_call.tool_name) == (
        "tool_call", "user", "user", "toggle_airplane_mode")
    assert ok.steps[11].tool_call_id == "call_u2" and ok.steps[11].tool_name == "toggle_airplane_mode"
    errors = [s for s in bad.steps if s.is_error]
    assert [(s.index, s.tool_name, s.tool_call_id) for s in errors] == [
        (6, "resume_line", "call_b2"), (8, "resume_line", "call_b3")]
    assert bad.final_answer == "Your line L3 has been resumed. Is there anything else I can help with?"


def test_tau2_bad_simulation_costs_only_itself(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads((DATA / "tau2" / "synthetic_telecom_results.json").read_text(encoding="utf-8"))
    doc["simulations"].insert(1, {"id": "x", "task_id": "nope", "messages": "not a list"})
    doc["simulations"].append(7)
    runs, res = load_runs(write_json(tmp_path / "gpt-4.1_telecom_1trials.json", doc), host)
    assert len(runs) == 2
    assert sorted(e.record or "" for e in res.errors) == ["simulations[1]", "simulations[3]"]
