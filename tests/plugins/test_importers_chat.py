"""Chat importer (OpenAI chat-completions and Anthropic messages lists): shipped samples, step
mapping, outcome normalisation, JSONL, sniffing against neighbouring formats, malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.jsonio import head_bytes
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.taxonomy import Category
from plugins.importers.chat import ChatImporter, error_in_output, normalise_outcome

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
CHAT_SAMPLES = sorted((SAMPLES / "openai_chat").glob("*.json")) + sorted((SAMPLES / "anthropic").glob("*.json"))
DECISION_KINDS = {"thought", "action", "tool_call", "message"}


def _write(tmp_path: Path, obj: Any, name: str = "run.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(obj), encoding="utf-8")
    return p


def _steps(result: Any) -> list[dict[str, Any]]:
    return list(result.steps.sort("trace_id", "step").to_dicts())


# ------------------------------------------------------------------------------------------ samples

def test_samples_load_and_carry_planted_labels(host: PluginHost) -> None:
    assert len(CHAT_SAMPLES) == 7
    result = load(CHAT_SAMPLES, host=host)
    assert result.errors == []
    assert result.formats == {"chat": 7}
    outcomes = {}
    for row in result.traces.iter_rows(named=True):
        name = f"{Path(row['source_file']).parent.name}/{Path(row['source_file']).name}"
        outcomes[name] = row["outcome"]
        assert 10 <= row["n_steps"] <= 300, name
        assert row["task"], name
        assert row["model"], name
        steps = result.steps.filter(trace_id=row["trace_id"]).sort("step")
        assert steps["step"].to_list() == list(range(row["n_steps"]))
        meta = orjson.loads(row["metadata_json"] or "{}")
        planted = meta.get("planted")
        if row["outcome"] == "success":
            assert planted is None, name
            continue
        assert planted is not None, name
        assert planted["category"] in {c.value for c in Category}
        step = steps.filter(step=planted["step"]).row(0, named=True)
        if planted["category"] == "environment_failure":
            assert step["kind"] == "observation" and step["is_error"], name
        else:
            assert step["kind"] in DECISION_KINDS and step["role"] == "assistant", name
    assert outcomes == {
        "openai_chat/bugfix_success.json": "success",
        "openai_chat/evidence_action_gap.json": "failure",
        "openai_chat/false_success.json": "failure",
        "openai_chat/repeated_action_loop.json": "failure",
        "anthropic/bugfix_success.json": "success",
        "anthropic/environment_failure.json": "failure",
        "anthropic/failed_recovery.json": "failure",
    }


def test_repeated_action_sample_repeats_the_failing_command(host: PluginHost) -> None:
    result = load([SAMPLES / "openai_chat" / "repeated_action_loop.json"], host=host)
    steps = _steps(result)
    planted = orjson.loads(result.traces["metadata_json"][0])["planted"]
    calls = [s for s in steps if s["kind"] == "tool_call"]
    decisive = steps[planted["step"]]
    same = [s for s in calls if s["tool_args"] == decisive["tool_args"]]
    assert len(same) >= 5
    assert same[0]["step"] < decisive["step"]  # the decisive step is the first repeat
    obs_after = [s for s in steps if s["kind"] == "observation" and s["tool_call_id"] in {c["tool_call_id"] for c in same}]
    assert all(o["is_error"] for o in obs_after)


def test_evidence_gap_sample_has_the_answer_in_an_observation(host: PluginHost) -> None:
    result = load([SAMPLES / "openai_chat" / "evidence_action_gap.json"], host=host)
    row = result.traces.row(0, named=True)
    steps = _steps(result)
    planted = orjson.loads(row["metadata_json"])["planted"]
    before = steps[: planted["step"]]
    assert any(s["kind"] == "observation" and row["ground_truth"] in s["text"] for s in before)
    assert row["ground_truth"] not in (steps[planted["step"]]["tool_args"] or "")
    assert row["final_answer"] == "8080" and row["score"] == 0.0


# ------------------------------------------------------------------------------------------ OpenAI mapping

def test_openai_mapping(tmp_path: Path, host: PluginHost) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "List files then read README."},
        {"role": "assistant", "content": "Looking around.", "reasoning_content": "Start with ls.",
         "tool_calls": [
             {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}},
             {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{not json"}},
         ]},
        {"role": "tool", "tool_call_id": "c1", "content": "README.md\nsetup.py\n"},
        {"role": "tool", "tool_call_id": "c2", "name": "read", "content": "cat: README: No such file or directory"},
        {"role": "assistant", "content": None,
         "function_call": {"name": "bash", "arguments": "{\"command\": \"exit 3\"}"}},
        {"role": "function", "name": "bash", "content": "Process exited with code 3"},
        {"role": "assistant", "content": [{"type": "text", "text": "Done: two files."}],
         "usage": {"prompt_tokens": 120, "completion_tokens": 9}},
    ]
    p = _write(tmp_path, {"messages": messages, "model": "gpt-test", "success": "True", "metadata": {"k": 1}})
    result = load([p], host=host)
    assert result.errors == [] and result.formats == {"chat": 1}
    s = _steps(result)
    assert [x["kind"] for x in s] == ["system", "user", "thought", "tool_call", "tool_call", "observation",
                                      "observation", "tool_call", "observation", "message"]
    assert s[2]["text"] == "Start with ls."
    assert (s[3]["tool_name"], s[3]["tool_args"], s[3]["tool_call_id"], s[3]["text"]) == (
        "bash", "{\"command\": \"ls\"}", "c1", "Looking around.")
    assert (s[4]["tool_name"], s[4]["tool_args"], s[4]["text"]) == ("read", "{not json", "")
    assert s[5]["tool_name"] == "bash" and not s[5]["is_error"]  # name resolved from the call id
    assert s[6]["is_error"] and "No such file" in s[6]["error_text"]
    assert s[8]["is_error"] and s[8]["role"] == "tool"
    assert [x["native_index"] for x in s] == [0, 1, 2, 2, 2, 3, 4, 5, 6, 7]
    assert (s[9]["tokens_in"], s[9]["tokens_out"]) == (120, 9)
    row = result.traces.row(0, named=True)
    assert row["task"] == "List files then read README."
    assert (row["outcome"], row["outcome_raw"], row["model"]) == ("success", "True", "gpt-test")
    assert row["final_answer"] == "Done: two files."
    assert orjson.loads(row["metadata_json"]) == {"k": 1}


def test_bare_list_is_one_run(tmp_path: Path, host: PluginHost) -> None:
    p = _write(tmp_path, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    result = load([p], host=host)
    assert result.formats == {"chat": 1}
    row = result.traces.row(0, named=True)
    assert (row["outcome"], row["n_steps"], row["record"]) == ("unknown", 2, "$")


def test_list_of_run_objects(tmp_path: Path, host: PluginHost) -> None:
    runs = [{"id": f"r{i}", "reward": i, "messages": [{"role": "user", "content": f"task {i}"}]} for i in range(3)]
    runs.append({"id": "bad", "messages": "nope"})
    result = load([_write(tmp_path, runs)], host=host)
    assert sorted(result.traces["native_id"].to_list()) == ["r0", "r1", "r2"]
    assert sorted(result.traces["record"].to_list()) == ["[0]", "[1]", "[2]"]
    assert [(e.record, e.importer) for e in result.errors] == [("[3]", "chat")]


# ------------------------------------------------------------------------------------------ Anthropic mapping

def test_anthropic_mapping(tmp_path: Path, host: PluginHost) -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Check the disk."}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Use df.", "signature": "sig"},
            {"type": "text", "text": "Running df and du."},
            {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "df -h"}},
            {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"command": "du -sh /data"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "/dev/sda1 50G 49G"}]},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "du: cannot access '/data'", "is_error": True},
            {"type": "text", "text": "Also check inodes please."},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "The disk is 98% full."}]},
    ]
    obj = {"system": [{"type": "text", "text": "You are an SRE."}], "messages": messages,
           "model": "claude-test", "outcome": "failure"}
    result = load([_write(tmp_path, obj)], host=host)
    assert result.errors == []
    s = _steps(result)
    assert [x["kind"] for x in s] == ["system", "user", "thought", "tool_call", "tool_call", "observation",
                                      "observation", "user", "message"]
    assert s[0]["text"] == "You are an SRE." and s[0]["native_index"] is None
    assert json.loads(s[3]["tool_args"]) == {"command": "df -h"}
    assert s[3]["text"] == "Running df and du."
    assert (s[5]["tool_name"], s[5]["tool_call_id"], s[5]["is_error"]) == ("bash", "toolu_1", False)
    assert s[5]["text"] == "/dev/sda1 50G 49G"
    assert s[6]["is_error"] and s[6]["tool_call_id"] == "toolu_2"
    assert s[7]["text"] == "Also check inodes please."
    assert [x["native_index"] for x in s[1:]] == [0, 1, 1, 1, 2, 2, 2, 3]
    row = result.traces.row(0, named=True)
    assert (row["task"], row["outcome"]) == ("Check the disk.", "failure")


# ------------------------------------------------------------------------------------------ outcomes, errors

@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("success", True, "success"), ("success", False, "failure"), ("success", "True", "success"),
        ("success", "false", "failure"), ("reward", 1, "success"), ("reward", 0.5, "failure"),
        ("reward", "1.0", "success"), ("exit_status", "submitted", "unknown"),
        ("exit_status", "exit_cost", "failure"), ("outcome", {"resolved": True}, "success"),
        ("status", "weird", "unknown"),
    ],
)
def test_outcome_normalisation(key: str, value: Any, expected: str) -> None:
    outcome, raw, _ = normalise_outcome(value, key)
    assert outcome == expected
    assert raw is not None


def test_outcome_keeps_raw_and_decides_by_first_decisive_key(tmp_path: Path, host: PluginHost) -> None:
    obj = {"exit_status": "submitted", "resolved": False, "messages": [{"role": "user", "content": "x"}]}
    row = load([_write(tmp_path, obj)], host=host).traces.row(0, named=True)
    assert (row["outcome"], row["outcome_raw"]) == ("failure", "False")


@pytest.mark.parametrize(
    ("text", "is_error"),
    [
        ("Traceback (most recent call last):\n  File \"x\"\nKeyError: 'a'\n", True),
        ("bash: foo: command not found", True),
        ("HTTP/1.1 429 Too Many Requests", True),
        ("requests.exceptions.ReadTimeout: Read timed out.", True),
        ("=== 2 failed, 10 passed in 1.2s ===", True),
        ("total 8\ndrwxr-xr-x 2 a a 4096 src\n", False),
        ("def f():\n    raise ValueError('bad input')\n", False),
        ("All 12 tests passed.", False),
        ("Tool 'python_code_generator' executed.\nResult: Error executing tool 'python_code_generator': boom", True),
        ("Output: error: no such table", True),
        ("Result: Error rate fell to 3% in 2022", False),
    ],
)
def test_error_looking_output(text: str, is_error: bool) -> None:
    assert (error_in_output(text) is not None) == is_error


# ------------------------------------------------------------------- observations sent as user messages

_PROMPT = ("You are an expert research assistant capable of using various tools.\n\nTask: What was the 2022 rate?\n\n"
           "Available Tools:\nTool: google_search\nDescription: A tool that performs Google searches.\n\n"
           "Instructions:\n1. Analyze the task and determine what information you need\n")


def _resent(observation: str) -> str:
    """A later user message of such a loop: the prompt again, with the tool result in the middle."""
    head, tools = _PROMPT.split("Available Tools:")
    return (head + "Prior to this step, you have already taken 1 step(s).\n\nCurrent Observation: " + observation
            + "\n\nAvailable Tools:" + tools + "You should first recall relevant past experiences.\n")


def test_observation_sent_as_a_user_message_is_an_observation(tmp_path: Path, host: PluginHost) -> None:
    """Agent loops without a tool role (ReAct harnesses, OpenManus-RL/AgentDebug) deliver the tool result
    inside a user message that re-sends the prompt: the result is an observation step, the re-sent
    prompt is not part of it, and an error result is an error."""
    messages = [
        {"role": "user", "content": _PROMPT},
        {"role": "assistant", "content": "<plan>Search.</plan>\n<action>\ntool: google_search\n"
                                         'parameters: {"query": "2022 rate"}\n</action>'},
        {"role": "user", "content": _resent("Tool 'google_search' executed.\nResult: [{\"title\": \"Rate 3.9% in 2022\"}]"),
         "timestamp": "2025-09-24T06:03:40Z"},
        {"role": "assistant", "content": "<action>\ntool: python_code_generator\nparameters: {}\n</action>"},
        {"role": "user", "content": _resent("Tool 'python_code_generator' executed.\n"
                                            "Result: Error executing tool 'python_code_generator': bad input")},
        {"role": "user", "content": "Observation: a user message that answers no action stays the user's"},
        {"role": "assistant", "content": "<answer>4.1%</answer>"},
    ]
    res = load([_write(tmp_path, {"messages": messages})], host=host)
    assert res.errors == []
    steps = _steps(res)
    assert [s["kind"] for s in steps] == ["user", "message", "observation", "message", "observation", "user", "message"]
    first, second = steps[2], steps[4]
    assert first["text"] == "Tool 'google_search' executed.\nResult: [{\"title\": \"Rate 3.9% in 2022\"}]"
    assert first["role"] == "tool" and not first["is_error"] and first["timestamp"] == "2025-09-24T06:03:40Z"
    assert second["is_error"] and "bad input" in second["error_text"]
    assert "Available Tools" not in second["text"] and "recall" not in second["text"]
    assert [s["native_step_id"] for s in steps][2:5] == ["messages[2]", "messages[3]", "messages[4]"]
    assert steps[5]["text"].startswith("Observation: a user message")


def test_observation_in_a_tag_and_a_re_sent_format_instruction(tmp_path: Path, host: PluginHost) -> None:
    """The result in an ``<observation>`` tag is read up to the closing tag, and a header that is a line of
    the prompt (a ReAct format instruction re-sent after the result) is not taken for the result."""
    prompt = ("Answer with Thought/Action lines.\nFollow this format:\nObservation: the result of the action\n"
              "... (repeat Thought/Action/Observation N times)\n")
    messages = [
        {"role": "user", "content": prompt + "Question: how many open issues?"},
        {"role": "assistant", "content": "Thought: count them\nAction: list_issues"},
        {"role": "user", "content": "Observation: 14 open issues\n\n" + prompt},
        {"role": "assistant", "content": "Action: close_issue 3"},
        {"role": "user", "content": "<observation>\nError: issue 3 is locked\n</observation>\nContinue."},
        {"role": "assistant", "content": "Final Answer: 14"},
    ]
    steps = _steps(load([_write(tmp_path, {"messages": messages})], host=host))
    assert [s["kind"] for s in steps] == ["user", "message", "observation", "message", "observation", "message"]
    assert steps[2]["text"] == "14 open issues" and not steps[2]["is_error"]
    assert steps[4]["text"] == "Error: issue 3 is locked" and steps[4]["is_error"]


def test_bare_observation_tag_in_the_prompt_still_marks_results(tmp_path: Path, host: PluginHost) -> None:
    """A prompt that shows the ``<observation>`` format on a line of its own does not hide the real results."""
    prompt = "Use the tools. Results come back as:\n<observation>\nthe output\n</observation>\nQuestion: 2 + 2?"
    messages = [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": "Action: calc 2+2"},
        {"role": "user", "content": "<observation>\n4\n</observation>"},
        {"role": "assistant", "content": "Final Answer: 4"},
    ]
    steps = _steps(load([_write(tmp_path, {"messages": messages})], host=host))
    assert [s["kind"] for s in steps] == ["user", "message", "observation", "message"]
    assert steps[2]["text"] == "4"


def test_user_message_without_an_observation_header_stays_a_user_step(tmp_path: Path, host: PluginHost) -> None:
    messages = [
        {"role": "user", "content": "Fix the failing test."},
        {"role": "assistant", "content": "Which test fails?"},
        {"role": "user", "content": "test_parse, see the CI log: observations are in the log."},
    ]
    steps = _steps(load([_write(tmp_path, messages)], host=host))
    assert [s["kind"] for s in steps] == ["user", "message", "user"]


# ------------------------------------------------------------------------------------------ JSONL

def test_jsonl_one_run_per_line(tmp_path: Path, host: PluginHost) -> None:
    lines = [
        json.dumps({"id": "a", "messages": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}]}),
        "",
        json.dumps([{"role": "user", "content": "q2"}]),
        "{\"id\": \"trunc\", \"messages\": [",
        json.dumps({"id": "c", "messages": [{"role": "user", "content": "q3"}, "not a message"]}),
        json.dumps({"id": "d", "messages": []}),
        json.dumps(7),
    ]
    p = tmp_path / "runs.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load([p], host=host)
    assert result.formats == {"chat": 2}
    assert sorted(result.traces["record"].to_list()) == ["line 1", "line 3"]
    errs = {e.record: e.reason for e in result.errors}
    assert set(errs) == {"line 4", "line 5", "line 6", "line 7"}
    assert "messages[1] is not an object" in errs["line 5"]
    assert "empty" in errs["line 6"]


# ------------------------------------------------------------------------------------------ sniffing

def _who_and_when_files() -> list[Path]:
    dev = ROOT.parent / "shared" / "datasets" / "who_and_when" / "Algorithm-Generated"
    files = sorted(dev.glob("*.json")) if dev.is_dir() else []
    return files + sorted((SAMPLES / "who_and_when").glob("*.json"))


def test_sniff_leaves_who_and_when_and_tau_bench_alone(host: PluginHost) -> None:
    chat = ChatImporter()
    others = _who_and_when_files() + sorted((SAMPLES / "tau_bench").glob("*.json"))
    assert len(others) >= 5
    for f in others:
        assert not chat.sniff(head_bytes(f), f), f
    for f in CHAT_SAMPLES:
        assert chat.sniff(head_bytes(f), f), f
        spec, _, _ = claim(f, host)
        assert spec is not None and spec.id == "chat", f


@pytest.mark.parametrize(
    "head",
    [
        b'{"trajectory_format": "mini-swe-agent-1.1", "messages": [{"role": "system"}]}',
        b'{"schema_version": "1.0", "steps": [{"role": "user"}]}',
        b'{"resourceSpans": [{"role": 1}], "messages": []}',
        b'{"version": 2, "eval": {}, "samples": [{"messages": [{"role": "user"}]}]}',
        b'{"messages": "x"}',
        b"role,content\nuser,hi\n",
    ],
)
def test_sniff_rejects_other_formats(head: bytes) -> None:
    assert not ChatImporter().sniff(head, Path("x.json"))


# ------------------------------------------------------------------------------------------ malformed

@pytest.mark.parametrize(
    ("content", "reason_part"),
    [
        (b'[{"role": "user", "content": "hi"}, {"role": "assis', "truncated"),
        (b'{"messages": {"role": "user"}}', "not a list"),
        (b'{"model": "x"}', "missing 'messages'"),
        (b'[{"role": "user", "content": "hi"}, 5]', "messages[1] is not an object"),
        (b'[{"role": "assistant", "content": "x", "tool_calls": {"id": 1}}]', "tool_calls is not a list"),
        (b'[{"content": "no role"}]', "has no role"),
        (b'[]', "empty"),
        (b'"just a string"', "expected a messages list"),
        (b"", "empty"),
        (b"\xff\xfe[\x00{\x00", "binary"),
    ],
)
def test_malformed_files_give_errors(tmp_path: Path, host: PluginHost, content: bytes, reason_part: str) -> None:
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    result = load([p], host=host, importer="chat")
    assert result.traces.height == 0
    assert result.errors
    assert any(reason_part in e.reason for e in result.errors), [e.reason for e in result.errors]
    assert all(e.importer == "chat" for e in result.errors)


def test_bad_file_does_not_hide_good_ones(tmp_path: Path, host: PluginHost) -> None:
    (tmp_path / "a.json").write_text('[{"role": "user", "content": "hi"', encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    result = load([tmp_path], host=host)
    assert result.traces.height == 1
    assert len(result.errors) == 1 and result.errors[0].file.endswith("a.json")
    assert result.errors[0].importer == "chat"


# ------------------------------------------------------------------------------------------ fuzz

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "messages", "tool_calls", "function", "arguments", "type", "id",
                         "tool_use_id", "is_error", "history", "name", "traj", "reward", "info", "task",
                         "input", "system", "mistake_step", "question", "sessionId", "message", "parentUuid"]),
        inner, max_size=6),
    max_leaves=25,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_json_values, importer=st.sampled_from(["chat", "tau_bench", "who_and_when", "claude_code"]))
def test_random_json_never_crashes_an_importer(tmp_path: Path, host: PluginHost, doc: Any, importer: str) -> None:
    p = tmp_path / ("fuzz.jsonl" if importer == "claude_code" else "fuzz.json")
    p.write_text(json.dumps(doc), encoding="utf-8")
    result = load([p], host=host, importer=importer)
    assert result.traces.height > 0 or result.errors
    for e in result.errors:
        assert not e.reason.startswith("unexpected content"), e.reason  # an importer bug, not a clear error
