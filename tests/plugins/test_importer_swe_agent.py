"""SWE-agent ``.traj`` and mini-swe-agent ``.traj.json`` importers: the shipped samples, outcome
rules (exit status + results.json/report.json beside the file), step mapping and malformed input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.loading.jsonio import head_bytes
from analyzer.loading.loader import LoadResult, claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Trajectory
from plugins.importers.swe_agent import first_word, output_error, problem_statement

ROOT = Path(__file__).resolve().parents[2]
SWE = ROOT / "sample_traces" / "swe_agent"
MINI = ROOT / "sample_traces" / "mini_swe_agent"
RESOLVED = SWE / "tidyconf__tidyconf-412" / "tidyconf__tidyconf-412.traj"
LOOPING = SWE / "pageturner__pageturner-88" / "pageturner__pageturner-88.traj"
FALSE_SUCCESS = MINI / "humanbytes__humanbytes-214" / "humanbytes__humanbytes-214.traj.json"
MINI_OK = MINI / "quickcsv__quickcsv-57" / "quickcsv__quickcsv-57.traj.json"


def _runs(res: LoadResult) -> list[Trajectory]:
    return trajectories_from_frames(res.traces, res.steps)


def _one(path: Path, host: PluginHost) -> tuple[Trajectory, LoadResult]:
    res = load([path], host=host)
    runs = _runs(res)
    assert len(runs) == 1, res.errors
    return runs[0], res


def _write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _traj(entries: list[dict[str, Any]], exit_status: str | None = "submitted", **info: Any) -> dict[str, Any]:
    history = [{"role": "system", "content": "You are an autonomous programmer."},
               {"role": "user", "content": "ISSUE:\nfoo() crashes on empty input\n\nINSTRUCTIONS:\nfix it"}]
    return {"trajectory": entries, "history": history, "info": {"exit_status": exit_status, **info}}


def _entry(action: str, observation: str, thought: str = "Let me look.") -> dict[str, Any]:
    return {"thought": thought, "action": action + "\n", "observation": observation, "response": thought,
            "state": "{}", "execution_time": 0.2}


# -- SWE-agent samples ---------------------------------------------------------------------------


def test_swe_agent_samples_are_claimed_by_the_swe_agent_importer(host: PluginHost) -> None:
    for path in (RESOLVED, LOOPING):
        spec, _, problem = claim(path, host)
        assert problem is None
        assert spec is not None and spec.id == "swe_agent"


def test_resolved_run_maps_every_entry_and_reads_results_json(host: PluginHost) -> None:
    t, res = _one(RESOLVED, host)
    assert res.errors == []
    assert res.formats == {"swe_agent": 1}
    assert t.framework == "swe-agent" and t.native_id == "tidyconf__tidyconf-412"
    assert t.model == "claude-3-5-sonnet-20241022"
    assert t.outcome == "success" and t.score == 1.0
    assert t.outcome_raw == "submitted; resolved (results.json)"
    assert t.metadata["resolved"] is True and t.metadata["evaluation_file"] == "results.json"
    assert t.task.startswith("parse_duration() returns wrong values for hours")
    assert "<pr_description>" not in t.task
    assert t.final_answer is not None and t.final_answer.startswith("diff --git a/tidyconf/durations.py")
    kinds = [s.kind for s in t.steps]
    assert len(t.steps) == 43
    assert kinds[0] == "user" and kinds.count("tool_call") == 15 and kinds.count("observation") == 15
    assert kinds.count("thought") == 12
    assert not any(s.is_error for s in t.steps)
    # function-calling run: every observation is linked to the call right before it
    for i, s in enumerate(t.steps):
        if s.kind == "observation":
            call = t.steps[i - 1]
            assert call.kind == "tool_call" and call.tool_call_id and call.tool_call_id == s.tool_call_id
    names = {s.tool_name for s in t.steps if s.kind == "tool_call"}
    assert {"find", "str_replace_editor", "python", "grep", "rm", "submit"} <= names
    edit = next(s for s in t.steps if s.tool_args and "--old_str" in s.tool_args)
    assert edit.metadata["function_name"] == "str_replace_editor"
    assert all(s.duration_s is not None for s in t.steps if s.kind == "tool_call")


def test_looping_run_has_the_planted_failed_recovery_and_repeated_edits(host: PluginHost) -> None:
    t, res = _one(LOOPING, host)
    assert res.errors == []
    assert t.outcome == "failure" and t.outcome_raw == "exit_cost; not resolved (results.json)"
    assert t.final_answer is None
    assert t.model == "gpt-4-1106-preview"
    assert t.task.startswith("Paginator.num_pages is one too high")
    assert len(t.steps) == 55
    assert [s.kind for s in t.steps[:4]] == ["user", "thought", "action", "observation"]
    assert t.steps[0].text.startswith("We're currently solving the following issue")  # demo skipped
    assert sum(s.is_error for s in t.steps) == 10
    planted = t.metadata["planted"]
    assert planted["category"] == "failed_recovery"
    decisive = t.steps[planted["step"]]
    first_edit = t.steps[planted["step"] - 3]
    assert decisive.kind == "action" and decisive.tool_name == "edit"
    assert decisive.tool_args == first_edit.tool_args  # retried unchanged ...
    assert t.steps[planted["step"] - 2].is_error  # ... right after the linter error
    assert t.steps[planted["step"] - 2].error_text == (
        "- E999 IndentationError: unindent does not match any outer indentation level")
    loop = planted["also"][0]
    assert loop["category"] == "repeated_action"
    repeats = [s for s in t.steps if s.kind == "action" and s.tool_args == t.steps[loop["step"]].tool_args]
    assert len(repeats) >= 5
    assert all(s.kind == "action" and s.tool_call_id is None for s in t.steps if s.role == "assistant"
               and s.kind != "thought")


def test_exit_status_alone_decides_without_an_evaluation_file(tmp_path: Path, host: PluginHost) -> None:
    entries = [_entry("ls", "a.py\nb.py"), _entry("submit", "diff --git a/a.py b/a.py")]
    submitted = _write(tmp_path / "a" / "x__x-1.traj", _traj(entries, "submitted", submission="diff --git a/a.py"))
    cost = _write(tmp_path / "b" / "x__x-2.traj", _traj(entries[:1], "exit_cost"))
    fmt = _write(tmp_path / "c" / "x__x-3.traj", _traj(entries[:1], "exit_format"))
    auto = _write(tmp_path / "d" / "x__x-4.traj", _traj(entries[:1], "submitted (exit_cost)"))
    t, _ = _one(submitted, host)
    assert (t.outcome, t.outcome_raw, t.score) == ("unknown", "submitted", None)
    assert t.task == "foo() crashes on empty input"
    assert t.native_id == "x__x-1"
    assert _one(cost, host)[0].outcome == "failure"
    assert _one(fmt, host)[0].outcome == "failure"
    assert _one(auto, host)[0].outcome == "unknown"


def test_per_instance_report_json_and_parent_results_json(tmp_path: Path, host: PluginHost) -> None:
    entries = [_entry("python -m pytest -q", "3 passed in 0.01s")]
    run = _write(tmp_path / "run" / "x__x-9" / "x__x-9.traj", _traj(entries))
    _write(tmp_path / "run" / "x__x-9" / "report.json", {"x__x-9": {"resolved": False, "patch_exists": True}})
    t, _ = _one(run, host)
    assert t.outcome == "failure" and t.outcome_raw == "submitted; not resolved (report.json)"
    (tmp_path / "run" / "x__x-9" / "report.json").unlink()
    _write(tmp_path / "run" / "results.json", {"resolved_ids": ["x__x-9"], "completed_ids": ["x__x-9"]})
    t, _ = _one(run, host)
    assert t.outcome == "success" and t.score == 1.0


def test_observation_errors_are_flagged(tmp_path: Path, host: PluginHost) -> None:
    entries = [
        _entry("python reproduce.py", "Traceback (most recent call last):\n  File \"r.py\", line 1\n"
               "ZeroDivisionError: division by zero"),
        _entry("foo --bar", "bash: foo: command not found"),
        _entry("ls", "a.py"),
        _entry("cd /repo && python -m pytest -q", "F.\nE       AssertionError: assert 1 == 2\n1 failed, 1 passed"),
    ]
    t, _ = _one(_write(tmp_path / "e.traj", _traj(entries)), host)
    obs = [s for s in t.steps if s.kind == "observation"]
    assert [s.is_error for s in obs] == [True, True, False, True]
    assert obs[0].error_text == "ZeroDivisionError: division by zero"
    assert obs[1].error_text == "bash: foo: command not found"
    assert obs[3].error_text == "AssertionError: assert 1 == 2"
    assert obs[3].tool_name == "python"


@pytest.mark.parametrize(("content", "reason"), [
    ("[1, 2, 3]", "a JSON list of 3 numbers"),
    ('{"history": [], "info": {"exit_status": "submitted"}, "trajectory": {"0": {}}}', "no 'trajectory' list"),
    ('{"history": [], "info": {}}', "no 'trajectory' list"),
    ('{"trajectory": [{"action": "ls", "observation": "a"', "truncated"),
    ("", "empty"),
])
def test_malformed_traj_files_give_errors_not_crashes(tmp_path: Path, host: PluginHost, content: str,
                                                       reason: str) -> None:
    bad = tmp_path / "bad.traj"
    bad.write_text(content, encoding="utf-8")
    good = shutil.copy(RESOLVED, tmp_path / "good.traj")
    res = load([bad, Path(good)], host=host)
    assert res.traces.height == 1  # the good file still loads
    assert len(res.errors) == 1
    assert res.errors[0].file == str(bad)
    assert reason in res.errors[0].reason


def test_open_with_swe_agent_on_a_list_is_an_error(tmp_path: Path, host: PluginHost) -> None:
    res = load([_write(tmp_path / "list.traj", [{"trajectory": []}])], host=host, importer="swe_agent")
    assert res.traces.height == 0
    assert len(res.errors) == 1 and "expected a JSON object" in res.errors[0].reason


def test_bad_trajectory_entries_are_reported_per_record(tmp_path: Path, host: PluginHost) -> None:
    doc = _traj([_entry("ls", "a.py"), "garbage", 7, _entry("cat a.py", "print(1)")])
    res = load([_write(tmp_path / "r.traj", doc)], host=host)
    (t,) = _runs(res)
    assert [e.record for e in res.errors] == ["trajectory[1]", "trajectory[2]"]
    assert all(e.importer == "swe_agent" for e in res.errors)
    assert [s.native_index for s in t.steps if s.kind == "action"] == [0, 3]


# -- mini-swe-agent samples --------------------------------------------------------------------------


def test_mini_samples_are_claimed_by_the_mini_importer(host: PluginHost) -> None:
    for path in (FALSE_SUCCESS, MINI_OK):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "mini_swe_agent"


def test_mini_false_success_run(host: PluginHost) -> None:
    t, res = _one(FALSE_SUCCESS, host)
    assert res.errors == []
    assert t.framework == "mini-swe-agent" and t.model == "openai/gpt-4.1-mini"
    assert t.outcome == "failure" and t.outcome_raw == "Submitted; not resolved (results.json)"
    assert t.metadata["trajectory_format"] == "mini-swe-agent-1"
    assert t.task.startswith('naturalsize() shows "1000.0 kB"')
    assert len(t.steps) == 20
    assert [s.kind for s in t.steps[:4]] == ["system", "user", "action", "observation"]
    actions = [s for s in t.steps if s.kind == "action"]
    assert len(actions) == 9 and all(s.tool_name == "bash" for s in actions)
    assert actions[0].tool_args == "ls -la && find . -name '*.py' -not -path './.git/*' | sort"
    # the failing test run is piped through tail (returncode 0) but still shows the failure
    failing = [s for s in t.steps if s.is_error]
    assert len(failing) == 1 and failing[0].metadata["returncode"] == 0
    assert failing[0].error_text == "AssertionError: assert '1.0 MB' == '999.6 kB'"
    planted = t.metadata["planted"]
    assert planted["category"] == "false_success"
    claim_step = t.steps[planted["step"]]
    assert claim_step.kind == "action" and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in (claim_step.tool_args or "")
    assert "The fix is complete" in claim_step.text
    assert failing[0].index < planted["step"]


def test_mini_success_run_with_trailing_exit_message(host: PluginHost) -> None:
    t, res = _one(MINI_OK, host)
    assert res.errors == []
    assert t.outcome == "success" and t.score == 1.0
    assert t.metadata["mini_version"] == "2.0.0"
    assert len(t.steps) == 20  # the trailing {"role": "exit"} message is not a step
    assert not any(s.is_error for s in t.steps)
    assert t.final_answer is not None and t.final_answer.startswith("diff --git a/quickcsv/reader.py")
    actions = [s for s in t.steps if s.kind == "action"]
    assert all(s.tokens_in and s.tokens_out for s in actions)
    assert all(s.timestamp for s in t.steps)


def _mini(messages: list[Any], **info: Any) -> dict[str, Any]:
    return {"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "Submitted", **info},
            "messages": messages}


def test_mini_returncodes_format_errors_and_tool_calls(tmp_path: Path, host: PluginHost) -> None:
    msgs: list[Any] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Please solve this issue: the build fails\n\nYou can execute bash commands."},
        {"role": "assistant", "content": "THOUGHT: build\n\n```bash\nmake\n```"},
        {"role": "user", "content": "<returncode>2</returncode>\n<output>\nmake: *** No rule to make target 'all'.\n</output>"},
        {"role": "assistant", "content": "I will just think."},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."},
        {"role": "assistant", "content": "Two commands", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "<returncode>0</returncode>\n<output>\nMakefile\n</output>"},
        {"role": "wizard", "content": "?"},
        "not a message",
        {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded", "submission": ""}},
    ]
    res = load([_write(tmp_path / "m__m-1.traj.json", _mini(msgs, exit_status="LimitsExceeded"))], host=host)
    (t,) = _runs(res)
    assert sorted(e.record or "" for e in res.errors) == ["messages[8]", "messages[9]"]
    assert t.task == "the build fails"
    assert t.outcome == "failure" and t.outcome_raw == "LimitsExceeded"
    kinds = [s.kind for s in t.steps]
    assert kinds == ["system", "user", "action", "observation", "message", "observation", "thought", "tool_call",
                     "observation"]
    assert t.steps[3].is_error and t.steps[3].error_text == "exit code 2"
    assert t.steps[5].is_error  # format error
    assert t.steps[7].tool_args == '{"command": "ls"}' and t.steps[8].tool_call_id == "c1"
    assert not t.steps[8].is_error


@pytest.mark.parametrize(("doc", "reason"), [
    ({"trajectory_format": "mini-swe-agent-1.1", "info": {}}, "no 'messages' list"),
    ({"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": "oops"}, "no 'messages' list"),
])
def test_mini_wrong_shapes_are_errors(tmp_path: Path, host: PluginHost, doc: dict[str, Any], reason: str) -> None:
    res = load([_write(tmp_path / "bad.traj.json", doc)], host=host)
    assert res.traces.height == 0
    assert len(res.errors) == 1 and reason in res.errors[0].reason


def test_mini_truncated_file_is_an_error(tmp_path: Path, host: PluginHost) -> None:
    bad = tmp_path / "cut.traj.json"
    bad.write_bytes(FALSE_SUCCESS.read_bytes()[:3000])
    assert claim(bad, host)[0] is not None  # the head still sniffs as mini-swe-agent
    res = load([bad], host=host)
    assert res.traces.height == 0
    assert len(res.errors) == 1 and res.errors[0].importer == "mini_swe_agent"
    assert "truncated" in res.errors[0].reason


# -- helpers -----------------------------------------------------------------------------------------


def test_helpers() -> None:
    assert first_word("cd /testbed && python -m pytest") == "python"
    assert first_word("PYTHONPATH=. pytest -x") == "pytest"
    assert first_word("edit 12:14\n    x = 1\nend_of_edit") == "edit"
    assert output_error("Your command ran successfully and did not produce any output.") is None
    assert output_error("curl: (7) Failed to connect to localhost port 8080") is not None
    assert output_error("ls: cannot access 'x': No such file or directory") is not None
    assert output_error("12 passed in 0.3s") is None
    assert problem_statement("<pr_description>\nFix X\n</pr_description>\nmore") == "Fix X"
    assert problem_statement("plain task") == "plain task"


def test_sniff_does_not_claim_other_json(host: PluginHost, tmp_path: Path) -> None:
    other = _write(tmp_path / "notes.traj.json", {"title": "not a trajectory"})
    spec, candidates, _ = claim(other, host)
    assert spec is None and "mini_swe_agent" in [c.id for c in candidates]
    assert b'"trajectory"' in head_bytes(RESOLVED)
