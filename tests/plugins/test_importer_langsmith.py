"""LangSmith importer: nested child_runs JSON and flat JSONL samples, bad records, truncation, fuzzing."""

from __future__ import annotations

import json
from pathlib import Path

from _span_fuzz import corrupt_bytes, dumps, fresh_path, mutate, run_importer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.langsmith import LangSmithImporter

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_traces" / "langsmith"
NESTED = DIR / "fx_report_run.json"
FLAT = DIR / "runs.jsonl"


def _run_ids(run: dict) -> set[str]:  # type: ignore[type-arg]
    out, stack = set(), [run]
    while stack:
        r = stack.pop()
        out.add(r["id"])
        stack.extend(r.get("child_runs") or [])
    return out


def test_samples_are_claimed_and_load_exactly(host: PluginHost) -> None:
    for path in (NESTED, FLAT):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "langsmith", path
    res = load([DIR], host=host)
    assert res.errors == []
    assert res.formats == {"langsmith": 3}
    assert sorted(res.traces["n_steps"].to_list()) == [4, 6, 10]
    assert res.steps["native_step_id"].null_count() == 0


def test_nested_run_tree() -> None:
    trajs, ctx, failure = run_importer(LangSmithImporter(), NESTED)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    root = json.loads(NESTED.read_text(encoding="utf-8"))
    assert t.native_id == root["trace_id"] and t.record == "$" and t.framework == "langsmith"
    assert t.task.startswith("What was the EUR to USD reference rate") and t.model == "gpt-4o-mini"
    assert t.final_answer is not None and "2,719.75 USD" in t.final_answer
    assert [s.kind for s in t.steps] == ["user"] + ["tool_call", "observation"] * 4 + ["message"]
    assert {s.native_step_id for s in t.steps} <= _run_ids(root)
    assert t.steps[0].native_step_id == root["id"]
    calls = [s for s in t.steps if s.kind == "tool_call"]
    obs = [s for s in t.steps if s.kind == "observation"]
    assert [c.tool_name for c in calls] == ["get_fx_rate", "get_fx_rate", "calculator", "write_file"]
    assert [o.tool_call_id for o in obs[1:]] == [c.tool_call_id for c in calls[1:]]
    assert obs[0].is_error and (obs[0].error_text or "").startswith("HTTPError: 503")
    assert (calls[0].agent, obs[0].agent) == ("agent", "tools")  # the LangGraph nodes
    assert calls[0].tokens_in == 412 and calls[0].tokens_out == 31
    assert t.outcome == "unknown"


def test_flat_runs_group_by_trace_and_root_error_is_failure() -> None:
    trajs, ctx, failure = run_importer(LangSmithImporter(), FLAT)
    assert failure is None and ctx.errors == []
    flaky, slug = trajs
    assert (flaky.record, slug.record) == ("line 1", "line 12")
    assert (flaky.outcome, len(flaky.steps), len(slug.steps)) == ("failure", 6, 4)
    assert (flaky.outcome_raw or "").startswith("root run error: RateLimitError")
    assert flaky.steps[-1].is_error and flaky.steps[-1].kind == "message"
    assert flaky.steps[2].is_error and "exit code 1" in (flaky.steps[2].error_text or "")
    assert slug.final_answer == "The slug is `quarterly-report-q1-2025-draft`."


def test_bad_record_costs_only_itself(tmp_path: Path) -> None:
    lines = FLAT.read_text(encoding="utf-8").splitlines()
    runs = [json.loads(x) for x in lines]
    runs[3]["start_time"] = "+999999-01-01T00:00:00"  # absurd time: reported, the step keeps no time
    bad = [json.dumps(r) for r in runs]
    bad.insert(5, "{not json")
    bad.insert(7, json.dumps({"run_type": "tool", "name": "no id"}))
    bad.insert(8, json.dumps(["a list, not a run"]))
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(bad) + "\n", encoding="utf-8")
    trajs, ctx, failure = run_importer(LangSmithImporter(), path)
    assert failure is None
    errs = dict(ctx.errors)
    assert "not valid JSON" in errs["line 6"]
    assert errs["line 8"] == "run has no 'id'; skipped"
    assert errs["line 9"] == "run is not an object; skipped"
    assert "is not a readable, plausible date" in errs["line 4"]
    assert len(ctx.errors) == 4
    assert sorted(len(t.steps) for t in trajs) == [4, 6]


def test_truncated_files_give_clear_errors(tmp_path: Path, host: PluginHost) -> None:
    cut = tmp_path / "cut.json"
    raw = NESTED.read_bytes()
    cut.write_bytes(raw[: len(raw) // 2])
    cut_lines = tmp_path / "cut.jsonl"
    raw = FLAT.read_bytes()
    cut_lines.write_bytes(raw[: raw.rindex(b"\n", 0, len(raw) - 1) + 40])
    res = load([cut, cut_lines], host=host, importer="langsmith")
    errs = {(Path(e.file).name, e.record): e.reason for e in res.errors}
    assert "truncated" in errs[("cut.json", None)]
    n = len(FLAT.read_text().splitlines())
    assert "truncated" in errs[("cut.jsonl", f"line {n}")]
    assert len(errs) == 2 and res.traces.height == 2  # the cut JSONL keeps both traces


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_exports_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from([NESTED, FLAT]), label="src")
    if data.draw(st.booleans(), label="bytes"):
        path = fresh_path(tmp_path, src.suffix)
        path.write_bytes(corrupt_bytes(src.read_bytes(), data))
    elif src == FLAT:
        rows = mutate([json.loads(x) for x in FLAT.read_text(encoding="utf-8").splitlines()], data)
        path = fresh_path(tmp_path, ".jsonl")
        path.write_text("".join(dumps(r) + "\n" for r in rows) if isinstance(rows, list) else dumps(rows),
                        encoding="utf-8")
    else:
        path = fresh_path(tmp_path, ".json")
        path.write_text(dumps(mutate(json.loads(NESTED.read_text(encoding="utf-8")), data)), encoding="utf-8")
    run_importer(LangSmithImporter(), path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2048), suffix=st.sampled_from([".json", ".jsonl"]))
def test_arbitrary_bytes_never_raise(tmp_path: Path, raw: bytes, suffix: str) -> None:
    path = fresh_path(tmp_path, suffix)
    path.write_bytes(raw)
    run_importer(LangSmithImporter(), path)


def test_feedback_stats_give_the_outcome(tmp_path: Path) -> None:
    root = json.loads(NESTED.read_text(encoding="utf-8"))
    root["feedback_stats"] = {"correctness": {"n": 1, "avg": 1.0, "values": {}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps([root]), encoding="utf-8")
    (t,), ctx, failure = run_importer(LangSmithImporter(), path)
    assert failure is None and ctx.errors == []
    assert (t.outcome, t.outcome_raw, t.record) == ("success", "feedback correctness avg=1.0", "[0]")
