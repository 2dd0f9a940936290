"""Langfuse importer: the shipped export and public-API samples, bad records, truncation, fuzzing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
from _span_fuzz import corrupt_bytes, dumps, fresh_path, mutate, run_importer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.langfuse import LangfuseImporter

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_traces" / "langfuse"
EXPORT = DIR / "traces_export.json"
API = DIR / "trace_api_flaky_test.json"


def _steps(res: Any, native_id: str) -> pl.DataFrame:
    tid = res.traces.filter(pl.col("native_id") == native_id)["trace_id"][0]
    return res.steps.filter(pl.col("trace_id") == tid).sort("step")


def test_samples_are_claimed_and_load_exactly(host: PluginHost) -> None:
    for path in (EXPORT, API):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "langfuse", path
    res = load([DIR], host=host)
    assert res.errors == []
    assert res.formats == {"langfuse": 3}
    by_task = {r["task"][:20]: r for r in res.traces.iter_rows(named=True)}
    assert sorted(r["n_steps"] for r in by_task.values()) == [4, 6, 10]
    assert res.steps["native_step_id"].null_count() == 0
    assert (res.steps["native_step_id"] == res.steps["span_id"]).all()


def test_export_record_fields() -> None:
    trajs, ctx, failure = run_importer(LangfuseImporter(), EXPORT)
    assert failure is None and ctx.errors == []
    fx, slug = trajs
    assert (fx.record, slug.record) == ("[0]", "[1]")
    assert fx.native_id == json.loads(EXPORT.read_text())[0]["trace"]["id"]
    assert fx.model == "gpt-4o-mini-2024-07-18" and fx.framework == "langfuse"
    assert fx.task.startswith("What was the EUR to USD reference rate")
    assert fx.final_answer is not None and "2,719.75 USD" in fx.final_answer
    kinds = [s.kind for s in fx.steps]
    assert kinds == ["user"] + ["tool_call", "observation"] * 4 + ["message"]
    err = [s for s in fx.steps if s.is_error]
    assert len(err) == 1 and err[0].tool_name == "get_fx_rate" and "503" in (err[0].error_text or "")
    assert {s.agent for s in fx.steps[1:]} == {"finance-agent"}
    assert fx.steps[1].tokens_in == 412
    assert json.loads(fx.steps[1].tool_args or "") == {"date": "2025-03-14", "base": "EUR", "quote": "USD"}
    obs_ids = {o["id"] for o in json.loads(EXPORT.read_text())[0]["observations"]}
    assert all(s.native_step_id in obs_ids for s in fx.steps[1:])
    assert [s.timestamp for s in fx.steps] == sorted(s.timestamp for s in fx.steps if s.timestamp)
    assert (fx.outcome, slug.outcome, slug.outcome_raw) == ("unknown", "success", "score success=True")
    assert slug.metadata["langfuse_scores"][0]["name"] == "success"


def test_api_trace_with_error_is_a_failure() -> None:
    trajs, ctx, failure = run_importer(LangfuseImporter(), API)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    assert t.record == "$" and t.outcome == "failure" and len(t.steps) == 6
    last = t.steps[-1]
    assert last.is_error and last.kind == "message" and (last.error_text or "").startswith("RateLimitError")
    assert t.metadata["langfuse_sessionId"] == "sess-flaky_test"


def test_bad_record_costs_only_itself(tmp_path: Path) -> None:
    doc = json.loads(EXPORT.read_text(encoding="utf-8"))
    bad = json.loads(json.dumps(doc[0]))
    bad["observations"] = {"not": "a list"}
    doc.insert(1, bad)
    doc.append("not a trace")
    odd = json.loads(json.dumps(doc[0]))
    odd["trace"]["id"] = "other-trace"
    odd["observations"][3]["startTime"] = 1e308
    odd["observations"][4] = ["not an observation"]
    doc.append(odd)
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    trajs, ctx, failure = run_importer(LangfuseImporter(), path)
    assert failure is None
    errs = dict(ctx.errors)
    assert errs["[1]"] == "Langfuse trace has no 'observations' list; skipped"
    assert errs["[3]"] == "not a Langfuse trace object; skipped"
    assert "is not a readable, plausible date" in errs["[4] observations[3]"]
    assert errs["[4] observations[4]"] == "observation is not an object; skipped"
    assert len(ctx.errors) == 4
    assert [t.record for t in trajs] == ["[0]", "[2]", "[4]"]
    assert len(trajs[2].steps) == 9  # the non-object observation alone is lost


def test_truncated_file_gives_a_clear_error(tmp_path: Path, host: PluginHost) -> None:
    path = tmp_path / "cut.json"
    raw = EXPORT.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    res = load([path], host=host, importer="langfuse")
    assert res.traces.height == 0
    assert len(res.errors) == 1 and "truncated" in res.errors[0].reason


def test_sniff_sees_a_decisive_key_past_64_kb(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(API.read_text(encoding="utf-8"))
    big = {"input": doc.pop("input"), "padding": "p" * 200_000}
    big.update(doc)  # 'observations' now starts ~200 KB into the file
    path = tmp_path / "late_keys.json"
    path.write_text(json.dumps(big), encoding="utf-8")
    spec, _, _ = claim(path, host)
    assert spec is not None and spec.id == "langfuse"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_exports_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from([EXPORT, API]), label="src")
    if data.draw(st.booleans(), label="bytes"):
        path = fresh_path(tmp_path, ".json")
        path.write_bytes(corrupt_bytes(src.read_bytes(), data))
    else:
        doc = mutate(json.loads(src.read_text(encoding="utf-8")), data)
        suffix = data.draw(st.sampled_from([".json", ".jsonl"]), label="suffix")
        path = fresh_path(tmp_path, suffix)
        if suffix == ".jsonl" and isinstance(doc, list):
            path.write_text("".join(dumps(x) + "\n" for x in doc), encoding="utf-8")
        else:
            path.write_text(dumps(doc), encoding="utf-8")
    run_importer(LangfuseImporter(), path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2048))
def test_arbitrary_bytes_never_raise(tmp_path: Path, raw: bytes) -> None:
    path = fresh_path(tmp_path, ".json")
    path.write_bytes(raw)
    run_importer(LangfuseImporter(), path)
