"""Who&When importer: the real development files, the shipped samples, both agent conventions,
JSONL, sniffing and malformed input."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from analyzer.loading import load
from analyzer.loading.jsonio import head_bytes
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "who_and_when"


def _dev_dir() -> Path:
    """The Who&When development split (env override, else the workspace's shared datasets).

    A fresh clone without the shared datasets folder falls back to the four copies shipped in
    sample_traces/, so the same assertions still run on real files.
    """
    env = os.environ.get("TRAJSCOPE_WHO_AND_WHEN")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "datasets" / "who_and_when" / "Algorithm-Generated")
    for c in candidates:
        if c.is_dir() and any(c.glob("*.json")):
            return c
    return SAMPLES


def _record(history: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "is_correct": False, "question": "What is 2+2?", "question_ID": "q-1", "level": "1",
        "ground_truth": "4", "history": history, "mistake_agent": "Math_Expert", "mistake_step": "1",
        "mistake_reason": "Wrong arithmetic.", "system_prompt": {"Math_Expert": "You are a math expert."},
    }
    rec.update(extra)
    return rec


_HISTORY = [
    {"content": "# Task\nWhat is 2+2? Plan: compute it.", "role": "assistant", "name": "Math_Expert"},
    {"content": "```python\nprint(2+3)\n```", "role": "user", "name": "Math_Expert"},
    {"content": "exitcode: 0 (execution succeeded)\nCode output: 5\n", "role": "user", "name": "Computer_terminal"},
    {"content": "exitcode: 1 (execution failed)\nCode output: Traceback (most recent call last):\n"
                "  File \"x.py\", line 1, in <module>\nZeroDivisionError: division by zero\n",
     "role": "user", "name": "Sandbox"},
    {"content": "The answer is 5. TERMINATE", "role": "user", "name": "Verification_Expert"},
]


def test_dev_files_load_with_step_counts_and_gold_labels(host: PluginHost) -> None:
    files = sorted(_dev_dir().glob("*.json"))
    result = load(files, host=host)
    assert result.errors == []
    assert result.formats == {"who_and_when": len(files)}
    assert result.traces.height == len(files)
    by_file = {Path(r["source_file"]).name: r for r in result.traces.iter_rows(named=True)}
    for f in files:
        raw = json.loads(f.read_text(encoding="utf-8"))
        row = by_file[f.name]
        assert row["n_steps"] == len(raw["history"])
        assert row["gold_decisive_step"] == int(raw["mistake_step"])
        assert row["gold_decisive_agent"] == raw["mistake_agent"]
        assert row["gold_reason"] == raw["mistake_reason"]
        assert row["native_id"] == raw["question_ID"]
        assert row["task"] == raw["question"]
        assert row["ground_truth"] == raw["ground_truth"]
        assert row["task_family"] == str(raw["level"])
        assert row["outcome"] == ("success" if raw["is_correct"] else "failure")
        assert row["framework"] == "ag2"
        steps = result.steps.filter(trace_id=row["trace_id"]).sort("step")
        assert steps["step"].to_list() == list(range(len(raw["history"])))
        assert steps["native_index"].to_list() == list(range(len(raw["history"])))
        assert steps["agent"].to_list() == [h["name"] for h in raw["history"]]
        assert steps["text"].to_list() == [h["content"] for h in raw["history"]]
        meta = orjson.loads(row["metadata_json"])
        assert meta["agents"] == list(raw["system_prompt"].keys())
    if len(files) == 126:
        assert result.steps.height == 1099


def test_tool_output_detected_by_content_shape(host: PluginHost) -> None:
    result = load(sorted(_dev_dir().glob("*.json")), host=host)
    steps = result.steps
    exec_steps = steps.filter(steps["text"].str.starts_with("exitcode:"))
    assert exec_steps.height > 0
    assert set(exec_steps["kind"].to_list()) == {"observation"}
    assert set(exec_steps["role"].to_list()) == {"tool"}
    failed = exec_steps.filter(~exec_steps["text"].str.starts_with("exitcode: 0"))
    assert failed["is_error"].all()
    assert failed["error_text"].is_not_null().all()
    # every step 0 is an agent's briefing, kept as that agent's message
    first = steps.filter(step=0)
    assert set(first["kind"].to_list()) == {"message"}
    assert set(first["role"].to_list()) == {"assistant"}


def test_name_convention_roles_and_errors(tmp_path: Path, host: PluginHost) -> None:
    p = tmp_path / "one.json"
    p.write_text(json.dumps(_record(_HISTORY)), encoding="utf-8")
    result = load([p], host=host)
    assert result.errors == []
    rows = result.steps.sort("step").to_dicts()
    assert [r["kind"] for r in rows] == ["message", "message", "observation", "observation", "message"]
    assert [r["role"] for r in rows] == ["assistant", "user", "tool", "tool", "user"]
    assert [r["is_error"] for r in rows] == [False, False, False, True, False]
    assert rows[3]["agent"] == "Sandbox"  # detected by shape, not by the agent's name
    assert rows[3]["error_text"] == "ZeroDivisionError: division by zero"
    trace = result.traces.row(0, named=True)
    assert trace["gold_decisive_step"] == 1
    assert trace["outcome_raw"] == "False"


def test_role_convention_uses_role_as_agent(tmp_path: Path, host: PluginHost) -> None:
    history = [
        {"content": "Find the population of Paris.", "role": "human"},
        {"content": "Plan: ask WebSurfer.", "role": "Orchestrator (thought)"},
        {"content": "Please search for the population of Paris.", "role": "Orchestrator (-> WebSurfer)"},
        {"content": "I typed 'population of Paris' into the search bar.", "role": "WebSurfer"},
    ]
    p = tmp_path / "hand.json"
    p.write_text(json.dumps(_record(history, mistake_agent="WebSurfer", mistake_step=3, is_correct="False")))
    result = load([p], host=host)
    assert result.errors == []
    rows = result.steps.sort("step").to_dicts()
    assert [r["agent"] for r in rows] == [h["role"] for h in history]
    assert [r["kind"] for r in rows] == ["user", "thought", "message", "message"]
    assert [r["role"] for r in rows] == ["user", "assistant", "assistant", "assistant"]
    trace = result.traces.row(0, named=True)
    assert trace["gold_decisive_step"] == 3
    assert trace["outcome"] == "failure"


@pytest.mark.parametrize(("text", "code", "failed"), [
    # Magentic-One's ComputerTerminal (autogen 0.4 preview) and AutoGen 0.4's CodeExecutorAgent
    ("The script ran, then exited with Unix exit code: 0\nIts output was:\n2161000", 0, False),
    ("The script ran, then exited with Unix exit code: 1\nIts output was:\nTraceback (most recent call last):\n"
     "  File \"tmp.py\", line 1, in <module>\nKeyError: 'flow'", 1, True),
    ("The script ran, then exited with an error (POSIX exit code: 2)\nIts output was:\nno such file", 2, True),
    ("The script ran but produced no output to console. The POSIX exit code was: 0. If you were expecting "
     "output, consider revising the script to ensure content is printed to stdout.", 0, False),
    ("No code block detected in the messages. Please provide a markdown-encoded code block to execute for "
     "the original task.", None, False),
    ("No code blocks found in the thread. Please provide at least one markdown-encoded code block to execute "
     "(i.e., quoting code in ```python or ```sh code blocks).", None, False),
    ("The code block was not confirmed by the user and so was not run.", None, False),
])
def test_autogen_executor_replies_are_tool_output(tmp_path: Path, host: PluginHost, text: str, code: int | None,
                                                  failed: bool) -> None:
    history = [
        {"content": "Find the population of Paris.", "role": "human"},
        {"content": "```python\nprint(2161000)\n```", "role": "Assistant"},
        {"content": text, "role": "ComputerTerminal"},
    ]
    p = tmp_path / "m1.json"
    p.write_text(json.dumps(_record(history, mistake_agent="Assistant", mistake_step=1, is_correct="False")))
    result = load([p], host=host)
    assert result.errors == []
    row = result.steps.sort("step").to_dicts()[2]
    assert (row["role"], row["kind"], row["is_error"]) == ("tool", "observation", failed)
    assert row["agent"] == "ComputerTerminal"
    if failed:
        assert row["error_text"] in ("KeyError: 'flow'", "exit code 2")


def test_a_message_quoting_an_executor_reply_stays_a_message(tmp_path: Path, host: PluginHost) -> None:
    history = [
        {"content": "Find the population of Paris.", "role": "human"},
        {"content": "The terminal said: The script ran, then exited with Unix exit code: 1", "role": "Assistant"},
    ]
    p = tmp_path / "quote.json"
    p.write_text(json.dumps(_record(history, mistake_agent="Assistant", mistake_step=1, is_correct="False")))
    row = load([p], host=host).steps.sort("step").to_dicts()[1]
    assert (row["role"], row["kind"]) == ("assistant", "message")


def test_jsonl_one_record_per_line_with_bad_lines(tmp_path: Path, host: PluginHost) -> None:
    good1 = _record(_HISTORY)
    good2 = _record(_HISTORY[:3], question_ID="q-2", question="Another question?", mistake_step="2")
    lines = [json.dumps(good1), "{not json", json.dumps({"question": "x", "history": "oops"}),
             json.dumps(good2), json.dumps(["a list"])]
    p = tmp_path / "ww.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load([p], host=host)
    assert result.formats == {"who_and_when": 2}
    assert sorted(result.traces["native_id"].to_list()) == ["q-1", "q-2"]
    assert sorted(e.record or "" for e in result.errors) == ["line 2", "line 3", "line 5"]
    assert all(e.importer == "who_and_when" for e in result.errors)
    assert sorted(result.traces["record"].to_list()) == ["line 1", "line 4"]


def test_sniff_accepts_keys_after_a_long_history(tmp_path: Path, host: PluginHost) -> None:
    long_history = [{"content": "x" * 2000, "role": "user", "name": f"A{i}"} for i in range(60)]
    rec = {"question": "Q?", "history": long_history, "mistake_agent": "A1", "mistake_step": "1",
           "question_ID": "late", "is_correct": False}
    p = tmp_path / "late.json"
    p.write_text(json.dumps(rec), encoding="utf-8")
    assert b'"mistake_agent"' not in head_bytes(p)
    spec, _, problem = claim(p, host)
    assert problem is None and spec is not None and spec.id == "who_and_when"
    result = load([p], host=host)
    assert result.traces.row(0, named=True)["gold_decisive_step"] == 1
    assert result.steps.height == 60


def test_claimed_over_lower_priority_importers(host: PluginHost) -> None:
    for f in sorted(SAMPLES.glob("*.json")):
        spec, _, _ = claim(f, host)
        assert spec is not None and spec.id == "who_and_when", f


def test_samples_have_their_licence() -> None:
    text = (SAMPLES / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in text
    assert len(list(SAMPLES.glob("*.json"))) == 4


@pytest.mark.parametrize(
    ("content", "reason_part"),
    [
        (b'{"question": "Q", "history": [{"content": "a", "role": "user"', "truncated"),
        (b'{"question": "Q", "history": {"not": "a list"}, "mistake_step": "0"}', "not a list"),
        (b'{"question": "Q", "history": [1, 2], "mistake_step": "0"}', "history[0]"),
        (b'[{"question": "Q", "history": null, "is_correct": false}]', "history"),
        (b'{"question": "Q", "history": [{"content": "a", "role": "user"}]}\x00\x00', "binary"),
    ],
)
def test_malformed_files_give_errors(tmp_path: Path, host: PluginHost, content: bytes, reason_part: str) -> None:
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    result = load([p], host=host, importer="who_and_when")
    assert result.traces.height == 0
    assert result.errors, "a bad file must be reported"
    assert any(reason_part in e.reason for e in result.errors), [e.reason for e in result.errors]
    assert all(e.importer == "who_and_when" for e in result.errors)


def test_bad_file_does_not_hide_good_ones(tmp_path: Path, host: PluginHost) -> None:
    (tmp_path / "a_bad.json").write_text('{"question": "Q", "history": [', encoding="utf-8")
    (tmp_path / "b_good.json").write_text(json.dumps(_record(_HISTORY)), encoding="utf-8")
    result = load([tmp_path], host=host)
    assert result.traces.height == 1
    assert len(result.errors) == 1 and result.errors[0].file.endswith("a_bad.json")


def test_non_integer_mistake_step_keeps_run(tmp_path: Path, host: PluginHost) -> None:
    p = tmp_path / "odd.json"
    p.write_text(json.dumps(_record(_HISTORY, mistake_step="unknown")), encoding="utf-8")
    result = load([p], host=host)
    row = result.traces.row(0, named=True)
    assert row["gold_decisive_step"] is None
    assert orjson.loads(row["metadata_json"])["mistake_step_raw"] == "unknown"


def _long_record(n: int = 120, **extra: object) -> dict[str, object]:
    """A Who&When record whose ``history`` comes first and is over 200 KB."""
    history = [{"content": f"turn {i}: " + "lorem ipsum " * 180, "role": "user", "name": f"Agent{i % 3}"}
               for i in range(n)]
    return {"history": history, "question": "How many?", "ground_truth": "4", "is_correct": False,
            "question_ID": "long-1", "level": 2, "mistake_agent": "Agent1", "mistake_step": "7",
            "mistake_reason": "wrong count", **extra}


@pytest.mark.parametrize("shape", ["object", "list", "jsonl"])
def test_history_first_over_200kb_is_claimed_by_structure(tmp_path: Path, host: PluginHost, shape: str) -> None:
    rec = _long_record()
    if shape == "object":
        p, raw = tmp_path / "long.json", json.dumps(rec)
    elif shape == "list":
        p, raw = tmp_path / "long_list.json", json.dumps([rec, {**rec, "question_ID": "long-2"}])
    else:
        p, raw = tmp_path / "long.jsonl", json.dumps(rec) + "\n" + json.dumps({**rec, "question_ID": "long-2"}) + "\n"
    p.write_text(raw, encoding="utf-8")
    head = head_bytes(p)
    assert len(raw) > 200_000 and b'"question"' not in head and b'"mistake_step"' not in head
    spec, _, problem = claim(p, host)
    assert problem is None and spec is not None and spec.id == "who_and_when"
    result = load([p], host=host, cache=None)
    n = 1 if shape == "object" else 2
    assert result.errors == [] and result.formats == {"who_and_when": n}
    assert result.steps.height == 120 * n
    row = result.traces.row(0, named=True)
    assert row["gold_decisive_step"] == 7 and row["gold_decisive_agent"] == "Agent1"
    first = result.steps.filter(pl.col("trace_id") == row["trace_id"]).sort("step")
    assert first["native_step_id"].to_list() == [f"history[{i}]" for i in range(120)]


def test_near_miss_names_what_is_missing(tmp_path: Path, host: PluginHost) -> None:
    labels_only = {"question": "Q", "mistake_agent": "A", "mistake_step": "3", "mistake_reason": "r",
                   "chat": [{"role": "user", "content": "hi"}]}
    p = tmp_path / "no_history.json"
    p.write_text(json.dumps(labels_only), encoding="utf-8")
    result = load([p], host=host, cache=None)
    assert len(result.errors) == 1
    reason = result.errors[0].reason
    assert "looks like Who&When but has no `history`" in reason, reason
    long_labels = _long_record()
    del long_labels["history"]
    long_labels["transcript"] = [{"content": "x" * 300_000, "role": "user"}]
    p2 = tmp_path / "no_history_long.json"
    p2.write_text(json.dumps(long_labels), encoding="utf-8")
    result = load([p2], host=host, cache=None)
    assert "looks like Who&When but has no `history`" in result.errors[0].reason
    bad = {"history": "not a list", "question": "Q", "mistake_step": "1"}
    p3 = tmp_path / "history_string.json"
    p3.write_text(json.dumps(bad), encoding="utf-8")
    result = load([p3], host=host, cache=None)
    assert "its `history` is a string, not a list" in result.errors[0].reason
