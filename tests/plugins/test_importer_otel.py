"""OpenTelemetry importer: the shipped OTLP GenAI, Phoenix/OpenInference and TRAIL samples,
id/attribute/time variants (base64, decimal, nested dicts, JSONL), and malformed exports."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.taxonomy import Category
from plugins.importers.otel import OtelImporter, iso_duration_s, norm_id, to_ns, trail_category

ROOT = Path(__file__).resolve().parents[2]
OTEL = ROOT / "sample_traces" / "otel"
RESEARCH = OTEL / "research_multiagent_genai.otlp.json"
SUPPORT = OTEL / "support_refund_openinference.jsonl"
TRAIL = OTEL / "gaia_ratelimit_trail.json"


def _one(result: Any) -> tuple[dict[str, Any], pl.DataFrame]:
    assert result.traces.height == 1, result.errors
    row = result.traces.row(0, named=True)
    return row, result.steps.filter(pl.col("trace_id") == row["trace_id"]).sort("step")


def _load_one(host: PluginHost, path: Path) -> tuple[dict[str, Any], pl.DataFrame]:
    res = load([path], host=host)
    assert res.errors == [], res.errors
    return _one(res)


def _signature(steps: pl.DataFrame) -> list[tuple[Any, ...]]:
    return list(steps.select("agent", "kind", "tool_name", "is_error", "text").iter_rows())


# ---------------------------------------------------------------------------------------------
# shipped samples


def test_samples_are_claimed_and_load(host: PluginHost) -> None:
    for path in (RESEARCH, SUPPORT, TRAIL):
        spec, _, _ = claim(path, host)
        # Phoenix span rows have their own importer (plugins/importers/phoenix.py, same span mapping)
        assert spec is not None and spec.id == ("phoenix" if path == SUPPORT else "otel"), path
    res = load([OTEL], host=host)
    assert res.errors == []
    assert res.formats == {"otel": 2, "phoenix": 1}
    for row in res.traces.iter_rows(named=True):
        assert 10 <= row["n_steps"] <= 300
        steps = res.steps.filter(pl.col("trace_id") == row["trace_id"]).sort("step")
        assert steps["step"].to_list() == list(range(row["n_steps"]))
        assert steps.row(0, named=True)["kind"] == "user" and steps.row(0, named=True)["text"] == row["task"]
        rest = steps.slice(1)
        assert rest["span_id"].null_count() == 0 and rest["parent_span_id"].null_count() == 0
        assert rest["timestamp"].null_count() == 0 and rest["duration_s"].null_count() == 0
        assert (rest["duration_s"] >= 0).all()
        assert rest["kind"].is_in(["thought", "tool_call", "message", "observation"]).all()


def test_otlp_genai_multi_agent_research_run(host: PluginHost) -> None:
    row, steps = _load_one(host, RESEARCH)
    assert (row["outcome"], row["n_steps"], row["n_errors"]) == ("failure", 27, 1)
    assert row["framework"] == "otel-genai" and row["model"] == "gpt-4.1-2025-04-14"
    assert row["native_id"] == row["record"].removeprefix("trace ") and len(row["native_id"]) == 32
    assert row["task_family"] == "vendor_price_research"
    assert "Orion-2" in row["task"] and "Vega-L" in row["final_answer"]
    assert "$552" in row["ground_truth"]
    assert set(steps["agent"]) == {"user", "lead_researcher", "web_researcher", "analyst", "writer"}
    assert row["tokens_total"] > 10_000
    # a delegate tool returns after the sub-agent's own steps (placed at its end time)
    delegate = steps.filter(pl.col("tool_name") == "delegate_research")
    call, result = delegate.row(0, named=True), delegate.row(1, named=True)
    assert (call["kind"], result["kind"]) == ("tool_call", "observation")
    assert call["tool_call_id"] == result["tool_call_id"]
    between = steps.filter((pl.col("step") > call["step"]) & (pl.col("step") < result["step"]))
    assert set(between["agent"]) == {"web_researcher"} and between.height == 11
    err = steps.filter(pl.col("is_error")).row(0, named=True)
    assert err["tool_name"] == "fetch_url" and "404" in err["error_text"]
    meta = orjson.loads(row["metadata_json"])
    assert meta["otel_format"] == "otlp" and meta["service_name"] == "deep-research-agent"
    planted = meta["planted"]
    assert planted["category"] == Category.EVIDENCE_ACTION_GAP.value
    decisive = steps.row(planted["step"], named=True)
    assert (decisive["agent"], decisive["kind"]) == ("web_researcher", "message")
    assert "$3.00" in decisive["text"]
    evidence = steps.filter((pl.col("step") < planted["step"]) & (pl.col("kind") == "observation")
                            & pl.col("text").str.contains(r"Orion-2 input \$3\.00 -> \$1\.20"))
    assert evidence.height == 1


def test_phoenix_openinference_support_run(host: PluginHost) -> None:
    row, steps = _load_one(host, SUPPORT)
    assert (row["outcome"], row["outcome_raw"], row["n_steps"], row["n_errors"]) == ("success", "success", 16, 1)
    assert row["framework"] == "openinference" and row["model"] == "gpt-4o-mini-2024-07-18"
    assert set(steps["agent"]) == {"user", "Triage Agent", "Billing Agent"}
    assert steps["agent"].to_list()[1:5] == ["Triage Agent"] * 4
    assert steps["kind"].to_list()[1:3] == ["tool_call", "observation"]
    assert steps["timestamp"].slice(1).is_sorted()
    call = steps.row(1, named=True)
    assert call["tool_name"] == "lookup_customer" and json.loads(call["tool_args"]) == {"email": "dana.k@example.com"}
    assert (call["tokens_in"], call["tokens_out"]) == (311, 19)
    err = steps.filter(pl.col("is_error")).row(0, named=True)
    assert err["tool_name"] == "issue_refund" and err["error_text"].startswith("RefundError: amount must be")
    assert steps.row(err["step"] + 1, named=True)["tool_args"] == (
        '{"charge_id": "ch_3Pq7", "amount_cents": 4900, "reason": "duplicate"}')
    assert row["final_answer"].startswith("I've refunded the duplicate $49.00 charge")
    meta = orjson.loads(row["metadata_json"])
    assert meta["otel_format"] == "phoenix" and "planted" not in meta


def test_trail_nested_run_with_labels(host: PluginHost) -> None:
    row, steps = _load_one(host, TRAIL)
    assert (row["outcome"], row["n_steps"], row["n_errors"], row["ground_truth"]) == ("failure", 17, 4, "146")
    assert row["final_answer"] == "120" and row["model"] == "o3-mini"
    assert set(steps["agent"]) == {"user", "ToolCallingAgent.run"}
    assert steps["timestamp"].slice(1).is_sorted()
    # smolagents' {"args": [], "kwargs": {...}} tool input is unwrapped to the call's arguments
    obs = steps.row(2, named=True)
    assert obs["kind"] == "observation" and json.loads(obs["tool_args"]) == {
        "query": "Brightwater open data portal EV charging ports 2023"}
    # TRAIL durations ("PT2.6S") give durations
    assert steps.row(5, named=True)["duration_s"] == pytest.approx(2.6)
    meta = orjson.loads(row["metadata_json"])
    assert meta["otel_format"] == "trail" and meta["service_name"] == "smolagents-gaia"
    planted = meta["planted"]
    assert planted["category"] == Category.FAILED_RECOVERY.value
    decisive = steps.row(planted["step"], named=True)
    before = steps.row(planted["step"] - 1, named=True)
    first_try = steps.row(planted["step"] - 2, named=True)
    assert before["is_error"] and "429" in before["text"] and "Retry-After: 60" in before["error_text"]
    assert decisive["kind"] == "tool_call" and decisive["tool_args"] == first_try["tool_args"]
    labels = meta["trail_labels"]
    assert [(lab["category"], lab["taxonomy"], lab["step"], lab["impact"]) for lab in labels] == [
        ("Rate Limiting", "environment_failure", 6, "MEDIUM"),
        ("Resource Abuse", "repeated_action", 7, "HIGH"),
        ("Tool Output Misinterpretation", "evidence_action_gap", 15, "HIGH")]
    assert meta["trail_scores"][0]["overall"] == 2.5


# ---------------------------------------------------------------------------------------------
# variants of the same runs


def _b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode() if hex_id else ""


def test_base64_ids_give_the_same_run(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(RESEARCH.read_text(encoding="utf-8"))
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for key in ("traceId", "spanId", "parentSpanId"):
            span[key] = _b64(span[key])
    path = tmp_path / "b64.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ref_row, ref = _load_one(host, RESEARCH)
    row, steps = _load_one(host, path)
    assert row["native_id"] == ref_row["native_id"]
    assert steps.equals(ref)


def test_otlp_jsonl_with_one_span_per_line(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(RESEARCH.read_text(encoding="utf-8"))
    rs = doc["resourceSpans"][0]
    lines = []
    for span in reversed(rs["scopeSpans"][0]["spans"]):  # exporters write spans as they end
        lines.append(json.dumps({"resourceSpans": [{"resource": rs["resource"], "scopeSpans": [
            {"scope": rs["scopeSpans"][0]["scope"], "spans": [span]}]}]}))
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, ref = _load_one(host, RESEARCH)
    row, steps = _load_one(host, path)
    assert row["n_steps"] == 27
    assert _signature(steps) == _signature(ref)


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in flat.items():
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def test_flat_span_list_with_decimal_ids_epoch_times_and_nested_attributes(tmp_path: Path, host: PluginHost) -> None:
    rows = [json.loads(line) for line in SUPPORT.read_text(encoding="utf-8").splitlines()]
    spans = []
    for r in rows:
        spans.append({
            "trace_id": int(r["context"]["trace_id"][:15], 16),
            "span_id": int(r["context"]["span_id"][:15], 16),
            "parent_id": int(r["parent_id"][:15], 16) if r["parent_id"] else None,
            "name": r["name"],
            "start_time": to_ns(r["start_time"]) // 1_000_000,  # epoch milliseconds
            "end_time": to_ns(r["end_time"]) // 1_000_000,
            "status": {"code": "STATUS_CODE_ERROR" if r["status_code"] == "ERROR" else "STATUS_CODE_OK",
                       "message": r["status_message"]},
            "attributes": _nest(r["attributes"]),
            "events": r["events"],
        })
    path = tmp_path / "spans.json"
    path.write_text(json.dumps({"spans": spans}), encoding="utf-8")
    _, ref = _load_one(host, SUPPORT)
    row, steps = _load_one(host, path)
    assert row["outcome"] == "success"
    assert _signature(steps) == _signature(ref)
    # integer ids come out in W3C hex form, so that traces.csv/steps.csv never hold a number
    expected = {format(int(r["context"]["span_id"][:15], 16), "016x") for r in rows}
    assert set(steps["span_id"].drop_nulls()) <= expected and steps["span_id"].drop_nulls().len() > 0


def test_trail_row_with_string_fields_trailing_commas_and_jsonl(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(TRAIL.read_text(encoding="utf-8"))
    labels = json.dumps(doc["labels"], indent=1).replace('"HIGH"\n', '"HIGH",\n')
    assert ",\n  }" in labels
    row = {"trace": json.dumps(doc["trace"]), "labels": labels}
    single = tmp_path / "trail_row.json"
    single.write_text(json.dumps(row), encoding="utf-8")
    other = copy.deepcopy(doc["trace"])
    other["trace_id"] = "ab" * 16
    stack = list(other["spans"])
    while stack:  # only the trace object names the trace; spans inherit it from the nesting
        span = stack.pop()
        del span["trace_id"]
        stack.extend(span["child_spans"])
    rows = tmp_path / "trail_rows.jsonl"
    rows.write_text("\n".join([json.dumps({"trace": json.dumps(other), "labels": "{}"}),
                               json.dumps({"trace": "{\"trace_id\": \"x\", \"spans\": [", "labels": ""}),
                               json.dumps({"trace": {"trace_id": "y"}})]) + "\n", encoding="utf-8")
    _, ref = _load_one(host, TRAIL)
    row1, steps1 = _load_one(host, single)
    assert [lab["step"] for lab in orjson.loads(row1["metadata_json"])["trail_labels"]] == [6, 7, 15]
    assert steps1.equals(ref)
    res = load([rows], host=host)  # same content as the sample => same run id, so loaded on its own
    row2, steps2 = _one(res)
    assert row2["native_id"] == "ab" * 16
    assert "trail_labels" not in orjson.loads(row2["metadata_json"])  # its labels row is "{}"
    assert _signature(steps2) == _signature(ref)
    errs = {(Path(e.file).name, e.record): e.reason for e in res.errors}
    assert set(errs) == {("trail_rows.jsonl", "line 2"), ("trail_rows.jsonl", "line 3")}
    assert errs[("trail_rows.jsonl", "line 2")].startswith("line 2 trace is truncated or incomplete JSON")
    assert "TRAIL 'trace' has no 'spans' list" in errs[("trail_rows.jsonl", "line 3")]


# ---------------------------------------------------------------------------------------------
# attribute layouts


def _otlp(spans: list[dict[str, Any]], resource: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": k, "value": {"stringValue": v}} for k, v in (resource or {}).items()]},
        "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def _kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


TID = "5b8efff798038103d269b633813fc60c"


def test_otlp_value_types_status_codes_and_legacy_genai_layout(tmp_path: Path, host: PluginHost) -> None:
    spans = [
        {"traceId": TID, "spanId": "eee19b7ec3c1b174", "parentSpanId": "", "name": "workflow",
         "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000009000000000",
         "attributes": [_kv("gen_ai.operation.name", {"stringValue": "invoke_workflow"}),
                        _kv("input.value", {"stringValue": json.dumps({"question": "What is 2+2?"})}),
                        _kv("trajscope.score", {"doubleValue": 0.0}),
                        _kv("tags", {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}}),
                        _kv("cfg", {"kvlistValue": {"values": [_kv("retries", {"intValue": "3"})]}})],
         "status": {"code": "STATUS_CODE_ERROR", "message": "agent crashed"}},
        {"traceId": TID, "spanId": "eee19b7ec3c1b175", "parentSpanId": "eee19b7ec3c1b174",
         "name": "openai.chat", "startTimeUnixNano": 1700000001000000000, "endTimeUnixNano": 1700000002500000000,
         "attributes": [_kv("gen_ai.system", {"stringValue": "openai"}),
                        _kv("gen_ai.request.model", {"stringValue": "gpt-4o"}),
                        _kv("gen_ai.prompt.0.role", {"stringValue": "user"}),
                        _kv("gen_ai.prompt.0.content", {"stringValue": "What is 2+2?"}),
                        _kv("gen_ai.completion.0.role", {"stringValue": "assistant"}),
                        _kv("gen_ai.completion.0.tool_calls.0.id", {"stringValue": "call_1"}),
                        _kv("gen_ai.completion.0.tool_calls.0.name", {"stringValue": "calculator"}),
                        _kv("gen_ai.completion.0.tool_calls.0.arguments", {"stringValue": '{"expr": "2+2"}'}),
                        _kv("gen_ai.usage.prompt_tokens", {"intValue": "21"}),
                        _kv("gen_ai.usage.completion_tokens", {"intValue": 7}),
                        _kv("gen_ai.agent.name", {"stringValue": "solver"})],
         "status": {"code": 1}},
        {"traceId": TID, "spanId": "eee19b7ec3c1b176", "parentSpanId": "eee19b7ec3c1b174",
         "name": "execute_tool calculator", "startTimeUnixNano": "1700000003000000000",
         "endTimeUnixNano": "1700000003200000000",
         "attributes": [_kv("gen_ai.tool.name", {"stringValue": "calculator"}),
                        _kv("gen_ai.tool.call.id", {"stringValue": "call_1"}),
                        _kv("gen_ai.tool.call.arguments", {"stringValue": '{"expr": "2+2"}'})],
         "events": [{"timeUnixNano": "1700000003200000000", "name": "exception", "attributes": [
             _kv("exception.type", {"stringValue": "ZeroDivisionError"}),
             _kv("exception.message", {"stringValue": "division by zero"})]}],
         "status": {"code": 2}},
    ]
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(_otlp(spans, {"service.name": "calc"})), encoding="utf-8")
    row, steps = _load_one(host, path)
    assert row["task"] == "What is 2+2?"
    assert (row["outcome"], row["outcome_raw"], row["score"]) == ("failure", "root span status ERROR", 0.0)
    assert row["model"] == "gpt-4o"
    call, obs = steps.row(1, named=True), steps.row(2, named=True)
    assert (call["agent"], call["kind"], call["tool_name"], call["tokens_in"], call["tokens_out"]) == (
        "solver", "tool_call", "calculator", 21, 7)
    assert call["timestamp"] == "2023-11-14T22:13:21Z" and call["duration_s"] == pytest.approx(1.5)
    assert (obs["kind"], obs["is_error"], obs["error_text"]) == ("observation", True, "ZeroDivisionError: division by zero")
    assert obs["tool_call_id"] == "call_1" and obs["agent"] == "tool"


def test_openinference_reasoning_multiple_calls_and_nested_llm_spans(tmp_path: Path, host: PluginHost) -> None:
    base = {"trace_id": TID, "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:09Z"}
    llm_attrs = {
        "openinference.span.kind": "LLM", "llm.model_name": "claude-sonnet-4",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Compare a and b",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.reasoning_content": "Need both files.",
        "llm.output_messages.0.message.contents.0.message_content.type": "text",
        "llm.output_messages.0.message.contents.0.message_content.text": "Reading both.",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "read",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"path": "a"}',
        "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": "read",
        "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments": '{"path": "b"}',
    }
    spans = [
        {**base, "span_id": "1", "parent_id": None, "name": "run", "attributes": {
            "openinference.span.kind": "CHAIN"}},
        {**base, "span_id": "2", "parent_id": "1", "name": "ChatModel", "start_time": "2025-01-01T00:00:01Z",
         "attributes": llm_attrs},
        {**base, "span_id": "3", "parent_id": "2", "name": "anthropic.messages", "start_time": "2025-01-01T00:00:01Z",
         "attributes": llm_attrs},
        {**base, "span_id": "4", "parent_id": "1", "name": "retriever", "start_time": "2025-01-01T00:00:02Z",
         "attributes": {"openinference.span.kind": "RETRIEVER", "input.value": "a and b",
                        "retrieval.documents.0.document.content": "doc A",
                        "retrieval.documents.1.document.content": "doc B"}},
    ]
    path = tmp_path / "oi.json"
    path.write_text(json.dumps(spans), encoding="utf-8")
    row, steps = _load_one(host, path)
    assert row["task"] == "Compare a and b"
    assert steps["kind"].to_list() == ["user", "thought", "tool_call", "tool_call", "observation"]
    assert steps["text"].to_list()[1:4] == ["Need both files.", "Reading both.", ""]
    assert steps["tool_args"].to_list()[2:4] == ['{"path": "a"}', '{"path": "b"}']
    assert steps.row(4, named=True)["text"] == "doc A\n\ndoc B"
    assert row["outcome"] == "unknown"


# ---------------------------------------------------------------------------------------------
# malformed exports


def test_malformed_exports_give_clear_errors_and_good_files_still_load(tmp_path: Path, host: PluginHost) -> None:
    not_list = tmp_path / "not_list.json"
    not_list.write_text('{"resourceSpans": {"oops": true}}', encoding="utf-8")
    truncated = tmp_path / "truncated.json"
    raw = RESEARCH.read_bytes()
    truncated.write_bytes(raw[: len(raw) // 2])
    no_steps = tmp_path / "no_steps.json"
    no_steps.write_text(json.dumps(_otlp([
        {"traceId": TID, "spanId": "eee19b7ec3c1b174", "name": "db.query",
         "attributes": [_kv("db.system", {"stringValue": "postgresql"})]},
        {"traceId": TID, "spanId": "eee19b7ec3c1b175", "parentSpanId": "eee19b7ec3c1b174",
         "name": "invoke_agent x", "attributes": [_kv("gen_ai.operation.name", {"stringValue": "invoke_agent"})]},
    ])), encoding="utf-8")
    missing_ids = tmp_path / "missing_ids.json"
    doc = json.loads(RESEARCH.read_text(encoding="utf-8"))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans.append({"spanId": "00f067aa0ba902b7", "name": "orphan"})
    spans.append({"traceId": TID, "name": "no span id", "attributes": []})
    spans.append("not a span")
    missing_ids.write_text(json.dumps(doc), encoding="utf-8")
    bad_lines = tmp_path / "bad_lines.jsonl"
    good_lines = SUPPORT.read_text(encoding="utf-8").splitlines()
    bad_lines.write_text("\n".join([good_lines[0], "{not json", '{"hello": "world"}', *good_lines[1:]]) + "\n",
                         encoding="utf-8")
    res = load([not_list, truncated, no_steps, missing_ids, bad_lines, TRAIL], host=host)
    errs = {(Path(e.file).name, e.record): e.reason for e in res.errors}
    assert all(e.importer == ("phoenix" if e.file.endswith(".jsonl") else "otel") for e in res.errors)
    assert errs[("not_list.json", None)] == "'resourceSpans' is not a list"
    assert "truncated" in errs[("truncated.json", None)]
    assert errs[("no_steps.json", f"trace {TID}")] == "trace has no LLM, tool or retriever spans; skipped"
    loc = "resourceSpans[0].scopeSpans[0].spans"
    n = len(spans)
    assert errs[("missing_ids.json", f"{loc}[{n - 3}]")] == "span has no trace id; skipped"
    assert errs[("missing_ids.json", f"{loc}[{n - 2}]")] == "span has no span id; skipped"
    assert errs[("missing_ids.json", f"{loc}[{n - 1}]")] == "span is not an object; skipped"
    assert "not valid JSON" in errs[("bad_lines.jsonl", "line 2")]
    assert errs[("bad_lines.jsonl", "line 3")] == "not a span, OTLP document or TRAIL row; line skipped"
    assert len(errs) == 8
    by_file = {Path(r["source_file"]).name: r["n_steps"] for r in res.traces.iter_rows(named=True)}
    assert by_file == {"missing_ids.json": 27, "bad_lines.jsonl": 16, "gaia_ratelimit_trail.json": 17}


def test_attribute_values_of_unexpected_types_do_not_break_a_trace(tmp_path: Path, host: PluginHost) -> None:
    weird = {"arrayValue": {"values": [{"stringValue": "chat"}]}}
    path = tmp_path / "weird_types.json"
    path.write_text(json.dumps(_otlp([
        {"traceId": TID, "spanId": "eee19b7ec3c1b174", "name": "x", "attributes": [
            _kv("gen_ai.operation.name", weird)]},
        {"traceId": TID, "spanId": "eee19b7ec3c1b175", "parentSpanId": "eee19b7ec3c1b174", "name": "tool",
         "attributes": [_kv("gen_ai.tool.name", {"stringValue": "ls"}), _kv("gen_ai.agent.name", {"intValue": "7"}),
                        _kv("gen_ai.tool.call.result", {"kvlistValue": {"values": [_kv("n", {"intValue": "2"})]}})]},
    ])), encoding="utf-8")
    _, steps = _load_one(host, path)
    assert steps["kind"].to_list() == ["observation"]
    assert steps.row(0, named=True)["text"] == '{"n":2}' and steps.row(0, named=True)["agent"] == "7"


def test_unrecognised_document_shape(tmp_path: Path, host: PluginHost) -> None:
    path = tmp_path / "weird.json"
    path.write_text('{"data": {"spans": 3}, "span_id": 1, "parent_id": 2}', encoding="utf-8")
    assert OtelImporter().sniff(path.read_bytes(), path)
    res = load([path], host=host)
    assert len(res.errors) == 1 and res.errors[0].importer == "otel"
    assert res.errors[0].reason.startswith("not a span export: expected an OTLP")


def test_sniff_ignores_other_formats() -> None:
    sniff = OtelImporter().sniff
    for other in [*(ROOT / "sample_traces" / "inspect").glob("*"), *(ROOT / "sample_traces" / "openai_chat").glob("*")]:
        assert not sniff(other.read_bytes()[:65536], other), other
    assert not sniff(b'{"messages": [{"role": "user", "content": "gen_ai.x"}]}', Path("x.json"))
    assert sniff(b'{"spans": [{"span_id": "1", "attributes": {"gen_ai.operation.name": "chat"}}]}', Path("x.json"))


# ---------------------------------------------------------------------------------------------
# value helpers


@pytest.mark.parametrize(("value", "expected"), [
    ("5B8EFFF798038103D269B633813FC60C", "5b8efff798038103d269b633813fc60c"),
    ("W47/95gDgQPSabYzgT/GDA==", "5b8efff798038103d269b633813fc60c"),
    ("7uGbfsPBsXQ=", "eee19b7ec3c1b174"),
    ("0000000000000000", None),
    ("", None),
    (None, None),
    (1234567, "000000000012d687"),
    (131386119462896078207759251828454119318, "62d80bd220aba640785d04d808aed796"),
    (-1, "ffffffffffffffff"),
    (0, None),
    ("0x00f067aa0ba902b7", "00f067aa0ba902b7"),
    ("run-42", "run-42"),
])
def test_norm_id(value: Any, expected: str | None) -> None:
    assert norm_id(value) == expected


def test_time_helpers() -> None:
    ns = 1_700_000_000_123_456_000
    assert to_ns("2023-11-14T22:13:20.123456789Z") == ns
    assert to_ns("2023-11-14T22:13:20.123456+00:00") == ns
    assert to_ns(str(ns)) == ns
    assert to_ns(ns // 1000) == ns  # microseconds
    assert to_ns(1_700_000_000.5) == 1_700_000_000_500_000_000
    assert to_ns("yesterday") is None
    assert iso_duration_s("PT1M24.6S") == pytest.approx(84.6)
    assert iso_duration_s("P1DT2H") == 93600
    assert iso_duration_s("PT") is None and iso_duration_s(3) is None


def test_trail_category_mapping() -> None:
    assert trail_category("Rate Limiting") == Category.ENVIRONMENT_FAILURE.value
    assert trail_category("Goal Deviation") == Category.GOAL_DRIFT.value
    assert trail_category("Language-only") == Category.HALLUCINATION.value
    assert trail_category("Formatting Errors") == Category.OTHER.value


# ---------------------------------------------------------------------------------------------
# fuzzing: corrupted bytes never escape as exceptions

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(src=st.sampled_from([RESEARCH, SUPPORT, TRAIL]), data=st.data())
def test_corrupted_exports_never_raise(tmp_path: Path, host: PluginHost, src: Path, data: st.DataObject) -> None:
    raw = bytearray(src.read_bytes())
    pos = data.draw(st.integers(0, len(raw) - 1), label="pos")
    junk = data.draw(st.binary(min_size=1, max_size=32), label="junk")
    raw[pos: pos + len(junk)] = junk
    if data.draw(st.booleans(), label="truncate"):
        raw = raw[: data.draw(st.integers(0, len(raw)), label="cut")]
    path = tmp_path / f"fuzz{src.suffix}"
    path.write_bytes(bytes(raw))
    res = load([path], host=host, importer="otel")
    assert res.traces.height > 0 or res.errors
    assert all(e.reason for e in res.errors)
    # the loader's catch-all says "unexpected content (TypeError: ...)"; orjson's own "unexpected content
    # after document" in a bad line's reason is a clear per-record error, not an importer bug
    assert not any(e.reason.startswith("unexpected content (") for e in res.errors), [e.reason for e in res.errors]


def test_otlp_with_decisive_keys_past_64_kb_is_claimed(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(RESEARCH.read_text(encoding="utf-8"))
    padded = {"exportNote": "n" * 100_000, **doc}  # resourceSpans starts ~100 KB into the file
    path = tmp_path / "padded.json"
    path.write_text(json.dumps(padded), encoding="utf-8")
    spec, _, _ = claim(path, host)
    assert spec is not None and spec.id == "otel"
    assert load([path], host=host).traces.height == 1
