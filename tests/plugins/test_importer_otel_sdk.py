"""OpenTelemetry SDK span JSON (ReadableSpan.to_json): ConsoleSpanExporter output, JSONL, a
``{"spans": [...]}`` document and a real any-agent trace; bad objects, truncation, fuzzing."""

from __future__ import annotations

import json
from pathlib import Path

from _span_fuzz import corrupt_bytes, dumps, fresh_path, mutate, run_importer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.otel import OtelImporter
from plugins.importers.otel_sdk import OtelSdkImporter

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_traces" / "otel_sdk"
CONSOLE = DIR / "console_exporter_fx_report.json"
LINES = DIR / "flaky_test_spans.jsonl"
DOC = DIR / "slug_spans.json"
ANY_AGENT = DIR / "any_agent_openai_trace.json"


def _console_objects() -> list[dict]:  # type: ignore[type-arg]
    dec, text, pos, out = json.JSONDecoder(), CONSOLE.read_text(encoding="utf-8"), 0, []
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        obj, pos = dec.raw_decode(text, pos)
        out.append(obj)
    return out


def test_samples_are_claimed_and_load_exactly(host: PluginHost) -> None:
    for path in (CONSOLE, LINES, DOC, ANY_AGENT):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "otel_sdk", path
    res = load([DIR], host=host)
    assert res.errors == []
    assert res.formats == {"otel_sdk": 4}
    assert sorted(res.traces["n_steps"].to_list()) == [4, 5, 6, 10]
    assert res.steps["native_step_id"].null_count() == 0


def test_console_exporter_output() -> None:
    trajs, ctx, failure = run_importer(OtelSdkImporter(), CONSOLE)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    spans = _console_objects()
    assert t.native_id == spans[0]["context"]["trace_id"].removeprefix("0x")
    assert [s.kind for s in t.steps] == ["user"] + ["tool_call", "observation"] * 4 + ["message"]
    assert {s.native_step_id for s in t.steps} <= {s["context"]["span_id"].removeprefix("0x") for s in spans}
    assert t.steps[2].is_error and (t.steps[2].error_text or "").startswith("HTTPError: 503")
    assert [s.tool_call_id for s in t.steps if s.kind == "observation"] == ["call_fx1", "call_fx2", "call_calc",
                                                                            "call_write"]
    assert {s.agent for s in t.steps[1:]} == {"fx_report_agent"}
    assert t.model == "gpt-4o-mini-2024-07-18" and t.metadata["otel_format"] == "otel-sdk"
    assert t.final_answer is not None and "2,719.75 USD" in t.final_answer
    assert [s.timestamp for s in t.steps] == sorted(s.timestamp or "" for s in t.steps)


def test_jsonl_and_spans_document() -> None:
    (flaky,), ctx, failure = run_importer(OtelSdkImporter(), LINES)
    assert failure is None and ctx.errors == []
    assert flaky.outcome == "failure" and len(flaky.steps) == 6 and flaky.steps[-1].is_error
    (slug,), ctx, failure = run_importer(OtelSdkImporter(), DOC)
    assert failure is None and ctx.errors == [] and len(slug.steps) == 4


def test_real_any_agent_trace_with_integer_ids() -> None:
    (t,), ctx, failure = run_importer(OtelSdkImporter(), ANY_AGENT)
    assert failure is None and ctx.errors == []
    doc = json.loads(ANY_AGENT.read_text(encoding="utf-8"))
    # the 128-bit id, read exactly, in W3C hex form (as decimal text it broke polars' read_csv of traces.csv)
    assert t.native_id == format(122082297528931857205684360792378057622, "032x")
    assert [s.kind for s in t.steps] == ["tool_call", "observation", "tool_call", "observation", "message"]
    assert [s.native_step_id for s in t.steps] == [format(s["context"]["span_id"], "016x") for s in doc["spans"][:5]]
    assert t.steps[0].tool_name == "get_current_time" and t.steps[0].tool_call_id == "call_CluLLD8SeM7yfMg4VBYKksxw"
    assert {s.agent for s in t.steps} == {"any_agent"} and t.model == "gpt-4.1-mini"
    assert t.final_answer == doc["final_output"]
    assert (t.steps[0].tokens_in, t.steps[0].tokens_out) == (286, 18)


def test_generic_otel_importer_reads_sdk_json_too(tmp_path: Path) -> None:
    for path in (CONSOLE, ANY_AGENT):
        trajs, ctx, failure = run_importer(OtelImporter(), path)
        assert failure is None and len(trajs) == 1 and ctx.errors == []


def test_bad_object_costs_only_itself(tmp_path: Path) -> None:
    spans = _console_objects()
    spans[1]["start_time"] = "99999-01-01T00:00:00.000000Z"
    text = [json.dumps(s, indent=4) for s in spans]
    text.insert(3, '{\n    "name": "broken",\n    "context": {"trace_id": "0x1"\n')
    other = dict(spans[0], context={"trace_id": "0x" + "a" * 32, "span_id": "0x" + "b" * 16})
    text.append(json.dumps(other, indent=4))
    path = tmp_path / "console.json"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    trajs, ctx, failure = run_importer(OtelSdkImporter(), path)
    assert failure is None
    errs = dict(ctx.errors)
    assert len(errs) == 2
    bad_obj = next(k for k in errs if k.startswith("object 4 "))
    assert "not valid JSON" in errs[bad_obj] and "skipped to the next object" in errs[bad_obj]
    assert "is not a readable, plausible date" in errs[next(k for k in errs if k.startswith("object 2 "))]
    assert sorted(len(t.steps) for t in trajs) == [2, 10]


def test_truncated_file_gives_a_clear_error(tmp_path: Path, host: PluginHost) -> None:
    path = tmp_path / "cut.json"
    raw = DOC.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    res = load([path], host=host, importer="otel_sdk")
    assert res.traces.height == 0 and len(res.errors) == 1 and "truncated" in res.errors[0].reason


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_exports_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from([CONSOLE, LINES, DOC, ANY_AGENT]), label="src")
    path = fresh_path(tmp_path, src.suffix)
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(corrupt_bytes(src.read_bytes(), data))
    elif src == CONSOLE:
        objs = mutate(_console_objects(), data)
        path.write_text("\n".join(json.dumps(o, indent=4) for o in objs) if isinstance(objs, list) else dumps(objs),
                        encoding="utf-8")
    elif src == LINES:
        rows = mutate([json.loads(x) for x in LINES.read_text(encoding="utf-8").splitlines()], data)
        path.write_text("".join(dumps(r) + "\n" for r in rows) if isinstance(rows, list) else dumps(rows),
                        encoding="utf-8")
    else:
        path.write_text(dumps(mutate(json.loads(src.read_text(encoding="utf-8")), data)), encoding="utf-8")
    run_importer(OtelSdkImporter(), path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2048), suffix=st.sampled_from([".json", ".jsonl"]))
def test_arbitrary_bytes_never_raise(tmp_path: Path, raw: bytes, suffix: str) -> None:
    path = fresh_path(tmp_path, suffix)
    path.write_bytes(raw)
    run_importer(OtelSdkImporter(), path)
