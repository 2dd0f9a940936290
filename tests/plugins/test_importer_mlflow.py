"""MLflow trace importer: MLflow 3 and MLflow 2 trace JSON samples, bad records, truncation, fuzzing."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from _span_fuzz import corrupt_bytes, dumps, fresh_path, mutate, run_importer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.mlflow_trace import MlflowTraceImporter

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_traces" / "mlflow"
V3 = DIR / "fx_report_trace.json"
V2 = DIR / "flaky_test_trace_v2.json"


def test_samples_are_claimed_and_load_exactly(host: PluginHost) -> None:
    for path in (V3, V2):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "mlflow", path
    res = load([DIR], host=host)
    assert res.errors == []
    assert res.formats == {"mlflow": 2}
    assert sorted(res.traces["n_steps"].to_list()) == [6, 10]
    assert res.steps["native_step_id"].null_count() == 0


def test_mlflow3_trace() -> None:
    trajs, ctx, failure = run_importer(MlflowTraceImporter(), V3)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    doc = json.loads(V3.read_text(encoding="utf-8"))
    assert t.native_id == doc["info"]["trace_id"] and t.framework == "mlflow"
    assert (t.outcome, t.outcome_raw) == ("success", "assessment correctness=yes")
    assert t.task.startswith("What was the EUR to USD reference rate") and t.model == "gpt-4o-mini-2024-07-18"
    assert [s.kind for s in t.steps] == ["user"] + ["tool_call", "observation"] * 4 + ["message"]
    hex_ids = {base64.b64decode(s["span_id"]).hex() for s in doc["data"]["spans"]}
    assert {s.native_step_id for s in t.steps} <= hex_ids  # base64 span ids shown as hex, as the MLflow UI does
    assert t.steps[2].is_error and (t.steps[2].error_text or "").startswith("HTTPError: 503")
    assert t.steps[1].tokens_in == 412 and t.steps[1].tool_name == "get_fx_rate"
    assert json.loads(t.steps[2].tool_args or "") == {"date": "2025-03-14", "base": "EUR", "quote": "USD"}
    root_out = json.loads(doc["data"]["spans"][0]["attributes"]["mlflow.spanOutputs"])
    assert t.steps[-1].text == t.final_answer == root_out
    assert t.metadata["mlflow_state"] == "OK"


def test_mlflow2_error_trace() -> None:
    trajs, ctx, failure = run_importer(MlflowTraceImporter(), V2)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    doc = json.loads(V2.read_text(encoding="utf-8"))
    assert t.native_id == doc["info"]["request_id"]
    assert t.outcome == "failure" and len(t.steps) == 6
    ids = {s["context"]["span_id"].removeprefix("0x") for s in doc["data"]["spans"]}
    assert {s.native_step_id for s in t.steps} <= ids
    assert t.steps[-1].is_error and (t.steps[-1].error_text or "").startswith("RateLimitError")


def test_bad_record_costs_only_itself(tmp_path: Path) -> None:
    good3 = json.loads(V3.read_text(encoding="utf-8"))
    good2 = json.loads(V2.read_text(encoding="utf-8"))
    no_spans = {"info": {"trace_id": "tr-nospans", "state": "OK"}, "data": {"spans": "oops"}}
    no_id = {"info": {"state": "OK"}, "data": {"spans": good2["data"]["spans"]}}
    good2["data"]["spans"][2]["start_time"] = -1e308
    good2["data"]["spans"][3] = "not a span"
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (good3, no_spans, no_id, good2, [1, 2])) + "\n",
                    encoding="utf-8")
    trajs, ctx, failure = run_importer(MlflowTraceImporter(), path)
    assert failure is None
    errs = dict(ctx.errors)
    assert errs["line 2"] == "MLflow trace has no 'data.spans' list; skipped"
    assert errs["line 3 info"] == "MLflow trace has no 'trace_id'/'request_id'; skipped"
    assert "is not a readable, plausible date" in errs["line 4 data.spans[2]"]
    assert errs["line 4 data.spans[3]"] == "span is not an object; skipped"
    assert errs["line 5"].startswith("not an MLflow trace")
    assert len(ctx.errors) == 5
    assert [(t.record, len(t.steps)) for t in trajs] == [("line 1", 10), ("line 4", 5)]


def test_truncated_file_gives_a_clear_error(tmp_path: Path, host: PluginHost) -> None:
    path = tmp_path / "cut.json"
    raw = V3.read_bytes()
    path.write_bytes(raw[: len(raw) // 3])
    res = load([path], host=host, importer="mlflow")
    assert res.traces.height == 0 and len(res.errors) == 1 and "truncated" in res.errors[0].reason


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_traces_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from([V3, V2]), label="src")
    path = fresh_path(tmp_path, ".json")
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(corrupt_bytes(src.read_bytes(), data))
    else:
        path.write_text(dumps(mutate(json.loads(src.read_text(encoding="utf-8")), data)), encoding="utf-8")
    run_importer(MlflowTraceImporter(), path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2048), suffix=st.sampled_from([".json", ".jsonl"]))
def test_arbitrary_bytes_never_raise(tmp_path: Path, raw: bytes, suffix: str) -> None:
    path = fresh_path(tmp_path, suffix)
    path.write_bytes(raw)
    run_importer(MlflowTraceImporter(), path)
