"""Span/run exports written by other tools (tests/data/real, see its README): the steps they give.

Each test names the fix it guards: OpenAI Responses API payloads in Langfuse observations (and
the OpenInference keys Langfuse keeps in ``metadata.attributes``), MLflow 3 ``ResponsesAgent``
traces (task and answer as text, repeated span ids), Databricks serving responses carrying a
trace, LangSmith batch-ingest bodies and runs without ``id``, and the near-miss hints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _span_fuzz import run_importer

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Trajectory
from plugins.importers._messages import input_messages, output_message
from plugins.importers.langfuse import LangfuseImporter
from plugins.importers.langsmith import LangSmithImporter
from plugins.importers.mlflow_trace import MlflowTraceImporter
from plugins.importers.otel_sdk import OtelSdkImporter

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "data" / "real"
LANGFUSE_AGENTS = REAL / "langfuse" / "openai-agents-2025-09-30.json"
LANGSMITH_BATCH = REAL / "langsmith" / "langsmith_js_wrap_openai_default.json"
LANGSMITH_NO_IDS = REAL / "langsmith" / "made_up_run_without_ids.json"
LANGSMITH_IDS = REAL / "langsmith" / "made_up_run_with_ids.json"
MLFLOW_WRAPPED = REAL / "mlflow" / "made_up_databricks_response_redacted_ids.json"
MLFLOW_V3 = REAL / "mlflow" / "made_up_mlflow3_responses_agent_trace.json"
MLFLOW_V2 = REAL / "mlflow" / "model_with_add_trace.SAMPLE_TRACE.json"
GENAI_ATTRS = REAL / "openinference" / "otel_genai_client_span_tool_calls.json"

CALL_ID = "call_Kud0j0DxWSmLzv9W5m6qVqXn"
TOKYO = "The weather in Tokyo is currently sunny. If you need more details like temperature or forecast"
FRUIT_Q = "Name one fruit that ripens faster next to a banana."
FRUIT_A = "An avocado ripens faster next to a banana, because the banana gives off ethylene gas."


def _one(importer: Any, path: Path) -> Trajectory:
    trajs, ctx, failure = run_importer(importer, path)
    assert failure is None and ctx.errors == [], (failure, ctx.errors)
    assert len(trajs) == 1
    return trajs[0]


def _kinds(t: Trajectory) -> list[str]:
    return [str(s.kind) for s in t.steps]


def _no_raw_json(t: Trajectory) -> None:
    assert not t.task.lstrip().startswith("{") and not (t.final_answer or "").lstrip().startswith("{")
    assert not any(s.text.lstrip().startswith(("{", "[")) for s in t.steps if s.kind in ("user", "message"))


# ---- P1: OpenAI Responses API payloads (Langfuse export of an OpenAI Agents SDK run) ----------


def _check_tokyo_run(t: Trajectory) -> None:
    assert t.task == "What's the weather in Tokyo?"
    assert _kinds(t) == ["user", "tool_call", "observation", "message"]
    call, obs, msg = t.steps[1:]
    assert (call.role, call.tool_name, call.tool_call_id) == ("assistant", "get_weather", CALL_ID)
    assert json.loads(call.tool_args or "") == {"city": "Tokyo"}
    assert call.native_step_id == "98870087af69bf06" and call.agent == "Hello world"
    assert (call.tokens_in, call.tokens_out) == (55, 15)
    assert (obs.role, obs.tool_name, obs.text) == ("tool", "get_weather", "The weather in Tokyo is sunny.")
    assert msg.role == "assistant" and msg.text.startswith(TOKYO) and msg.native_step_id == "90d94774e8e3724d"
    assert (msg.tokens_in, msg.tokens_out) == (85, 29)
    assert t.final_answer is not None and t.final_answer.startswith(TOKYO)
    assert t.model == "gpt-4.1-2025-04-14"


def test_langfuse_openai_agents_run_reads_responses_items(host: PluginHost) -> None:
    spec, _, _ = claim(LANGFUSE_AGENTS, host)
    assert spec is not None and spec.id == "langfuse"
    _check_tokyo_run(_one(LangfuseImporter(), LANGFUSE_AGENTS))


def test_langfuse_generations_fall_back_to_openinference_attributes(tmp_path: Path) -> None:
    """Without ``input``/``output``, the ``llm.*_messages.*`` keys of ``metadata.attributes`` give the steps."""
    doc = json.loads(LANGFUSE_AGENTS.read_text(encoding="utf-8"))
    for obs in doc["observations"]:
        if obs["type"] == "GENERATION":
            obs["input"] = obs["output"] = None
    path = tmp_path / "oi_only.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _check_tokyo_run(_one(LangfuseImporter(), path))


def test_responses_items_become_chat_messages() -> None:
    request = {"model": "m", "input": [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Oslo?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Need the tool."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": "{\"city\": \"Oslo\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "snow"}]}
    msgs = input_messages(request)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool"]
    assert msgs[1]["content"] == "Weather in Oslo?"
    assert msgs[2]["tool_calls"] == [{"id": "call_1", "function": {"name": "get_weather",
                                                                     "arguments": "{\"city\": \"Oslo\"}"}}]
    assert msgs[2]["parts"] == [{"type": "reasoning", "content": "Need the tool."}]
    assert (msgs[3]["tool_call_id"], msgs[3]["content"]) == ("call_1", "snow")
    assert input_messages({"request": request}) == msgs  # MLflow ResponsesAgent inputs
    response = {"object": "response", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},  # not read, not in the way
        {"type": "custom_tool_call", "call_id": "call_2", "name": "shell", "input": "ls"}]}
    out = output_message(response)
    assert out is not None and out["content"] == "Checking."
    assert out["tool_calls"] == [{"id": "call_2", "function": {"name": "shell", "arguments": "ls"}}]


# ---- P2/P3: MLflow 3 ResponsesAgent traces; Databricks responses; repeated span ids -------------


def test_mlflow3_responses_agent_task_and_answer_are_text() -> None:
    t = _one(MlflowTraceImporter(), MLFLOW_V3)
    assert (t.task, t.final_answer) == (FRUIT_Q, FRUIT_A)
    assert _kinds(t) == ["user", "message"]
    assert [s.text for s in t.steps] == [FRUIT_Q, FRUIT_A]
    assert t.steps[1].agent == "predict" and (t.steps[1].tokens_in, t.steps[1].tokens_out) == (30, 21)
    assert "mlflow_task_from" not in t.metadata and "mlflow_repeated_span_ids" not in t.metadata
    _no_raw_json(t)


def test_databricks_response_with_redacted_ids_gives_no_bogus_step(host: PluginHost) -> None:
    spec, _, _ = claim(MLFLOW_WRAPPED, host)
    assert spec is not None and spec.id == "mlflow"
    t = _one(MlflowTraceImporter(), MLFLOW_WRAPPED)
    assert t.record == "databricks_output.trace" and t.native_id == "<redacted>"
    assert (t.task, t.final_answer) == (FRUIT_Q, FRUIT_A)
    assert _kinds(t) == ["user", "message"]  # the AGENT root is no LLM step of its own
    user, msg = t.steps
    assert (user.span_id, msg.span_id, msg.parent_span_id) == ("<redacted>", "<redacted>#2", "<redacted>")
    assert msg.native_step_id == "<redacted>" and msg.agent == "predict" and msg.text == FRUIT_A
    assert t.metadata["mlflow_repeated_span_ids"] == {"<redacted>": 2}
    _no_raw_json(t)


def test_bare_trace_with_redacted_ids_too(tmp_path: Path) -> None:
    doc = json.loads(MLFLOW_WRAPPED.read_text(encoding="utf-8"))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc["databricks_output"]["trace"]), encoding="utf-8")
    t = _one(MlflowTraceImporter(), path)
    assert t.record == "$" and _kinds(t) == ["user", "message"] and t.final_answer == FRUIT_A


def test_json_only_task_and_answer_fall_back_to_the_previews(tmp_path: Path) -> None:
    doc = json.loads(MLFLOW_V3.read_text(encoding="utf-8"))
    root = doc["data"]["spans"][0]["attributes"]
    root["mlflow.spanInputs"] = json.dumps({"custom_inputs": {"basket": ["banana", "avocado"]}})
    root["mlflow.spanOutputs"] = json.dumps({"custom_outputs": {"ripe": True}})
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    t = _one(MlflowTraceImporter(), path)
    assert (t.task, t.final_answer) == (FRUIT_Q, FRUIT_A)
    assert t.steps[0].kind == "user" and t.steps[0].text == FRUIT_Q
    assert t.metadata["mlflow_task_from"] == "request_preview"
    assert t.metadata["mlflow_final_answer_from"] == "response_preview"
    doc["info"]["request_preview"] = '{"custom_inputs": {"basket": ["ban'  # a cut JSON preview is no better
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert _one(MlflowTraceImporter(), path).task.startswith('{"custom_inputs"')


def test_mlflow2_sample_trace_without_agent_spans_is_claimed_and_says_why(host: PluginHost) -> None:
    spec, _, _ = claim(MLFLOW_V2, host)
    assert spec is not None and spec.id == "mlflow"
    res = load([MLFLOW_V2], host=host, cache=None)
    assert res.traces.height == 0
    assert [(e.record, e.reason) for e in res.errors] == [
        ("$", "MLflow trace has no LLM, tool or retriever spans; skipped")]


# ---- P4/P5: LangSmith batch-ingest bodies, runs without ids, near misses ----------------------


def test_langsmith_batch_ingest_body_merges_the_patch(host: PluginHost) -> None:
    spec, _, _ = claim(LANGSMITH_BATCH, host)
    assert spec is not None and spec.id == "langsmith"
    t = _one(LangSmithImporter(), LANGSMITH_BATCH)
    assert t.native_id == "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e" and t.record == "post[0]"
    assert (t.task, t.final_answer, t.model) == ("howdy", "Howdy! How can I assist you today?", "gpt-4o-mini")
    assert _kinds(t) == ["user", "message"] and t.steps[1].role == "assistant"
    msg = t.steps[1]
    assert msg.text == "Howdy! How can I assist you today?" and (msg.tokens_in, msg.tokens_out) == (9, 9)
    assert msg.duration_s == pytest.approx(1.115)  # end_time came with the patch (matched by dotted_order)


def _check_river_run(t: Trajectory) -> None:
    assert t.task == "Which three rivers are the longest?"
    assert t.final_answer == "The three longest rivers are the Nile, the Amazon and the Yangtze."
    assert _kinds(t) == ["user", "observation", "message"]
    user, obs, msg = t.steps
    assert (obs.role, obs.tool_name) == ("tool", "geo_sql")
    assert obs.tool_args == "SELECT name FROM geo_demo.river ORDER BY length_km DESC LIMIT 3"
    assert obs.text == "[{name:Nile}, {name:Amazon}, {name:Yangtze}]"
    assert obs.timestamp == user.timestamp == "2025-03-04T08:20:10.500000Z"  # no start_time: its parent's
    assert obs.duration_s == pytest.approx(0.18)  # duration_ms
    assert (msg.role, msg.text, msg.tokens_in, msg.tokens_out) == ("assistant", t.final_answer, 410, 57)
    assert t.model == "gpt-4o"


def test_langsmith_run_with_ids_reads_user_message_and_final_response() -> None:
    t = _one(LangSmithImporter(), LANGSMITH_IDS)
    _check_river_run(t)
    assert [s.native_step_id for s in t.steps] == ["00000000-0000-4000-8000-000000000001",
                                                   "00000000-0000-4000-8000-000000000002",
                                                   "00000000-0000-4000-8000-000000000001"]
    assert "langsmith_derived_ids" not in t.metadata


def test_langsmith_runs_without_ids_get_ids_from_their_place(host: PluginHost) -> None:
    spec, _, _ = claim(LANGSMITH_NO_IDS, host)
    assert spec is not None and spec.id == "langsmith"
    t = _one(LangSmithImporter(), LANGSMITH_NO_IDS)
    _check_river_run(t)
    assert t.native_id == "<$>" and [s.native_step_id for s in t.steps] == ["<$>", "<$.child_runs[0]>", "<$>"]
    assert t.metadata["langsmith_derived_ids"] == 2


def test_langsmith_near_misses_name_what_is_missing(tmp_path: Path, host: PluginHost) -> None:
    (tmp_path / "bare.json").write_text(json.dumps({"run_type": "tool", "name": "lookup",
                                                    "start_time": "2025-01-01T00:00:00Z"}))
    (tmp_path / "batch.json").write_text(json.dumps({"post": [{"name": "x", "inputs": {"q": 1}, "trace_id": "t",
                                                               "dotted_order": "d"}], "patch": []}))
    res = load([tmp_path], host=host, cache=None)
    by_file = {Path(e.file).name: e.reason for e in res.errors}
    assert by_file["bare.json"].startswith(
        "file looks like a LangSmith run but has none of `inputs`, `outputs`, `child_runs` (tried: ")
    assert by_file["batch.json"].startswith(
        "file looks like a LangSmith batch-ingest body (`post`/`patch` runs) but has no `run_type` (tried: ")


def test_an_unmatched_patch_without_id_gets_no_made_up_id(tmp_path: Path) -> None:
    doc = json.loads(LANGSMITH_BATCH.read_text(encoding="utf-8"))
    doc["patch"][0]["dotted_order"] = "20241013T070537170001Zsomething-else"
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    trajs, ctx, failure = run_importer(LangSmithImporter(), path)
    assert failure is None and ctx.errors == [("patch[0]", "run has no 'id'; skipped")]
    assert len(trajs) == 1 and trajs[0].final_answer is None  # the post alone: no outputs


# ---- OpenInference GenAI attribute map (a whole span around it) -------------------------------


def test_genai_parts_attributes_in_a_console_span(tmp_path: Path) -> None:
    attrs = json.loads(GENAI_ATTRS.read_text(encoding="utf-8"))
    span = {"name": "chat gpt-4", "context": {"trace_id": "0x" + "ab" * 16, "span_id": "0x" + "cd" * 8},
            "kind": "SpanKind.CLIENT", "parent_id": None, "start_time": "2025-10-01T10:00:00.000000Z",
            "end_time": "2025-10-01T10:00:01.000000Z", "status": {"status_code": "UNSET"}, "attributes": attrs}
    path = tmp_path / "span.json"
    path.write_text(json.dumps(span, indent=4), encoding="utf-8")
    t = _one(OtelSdkImporter(), path)
    assert t.task == "Weather in Paris?" and t.model == "gpt-4-0613"
    assert t.final_answer == "The weather in Paris is currently rainy with a temperature of 57°F."
    assert _kinds(t) == ["user", "message"] and (t.steps[1].tokens_in, t.steps[1].tokens_out) == (97, 52)


# ---- any-agent AgentTrace files (smolagents and LangGraph runs, mozilla-ai/any-agent) ------------

ANY_SMOLAGENTS = REAL / "any_agent" / "SMOLAGENTS_trace.json"
ANY_LANGCHAIN = REAL / "any_agent" / "LANGCHAIN_trace.json"


def test_any_agent_smolagents_trace_reads_tool_name_records_and_the_final_answer_tool(host: PluginHost) -> None:
    """smolagents' model calls are ``[{"tool.name", "tool.args"}]`` records, and its answer is the
    ``final_answer`` tool's output (``final_output`` is ``{}``): no step is raw JSON."""
    spec, _, _ = claim(ANY_SMOLAGENTS, host)
    assert spec is not None and spec.id == "otel_sdk"
    t = _one(OtelSdkImporter(), ANY_SMOLAGENTS)
    assert t.task.startswith("New task:\nFind what year it is in the America/New_York timezone")
    assert _kinds(t) == ["user"] + ["tool_call", "observation"] * 3
    calls = [s for s in t.steps if s.kind == "tool_call"]
    assert [c.tool_name for c in calls] == ["get_current_time", "write_file", "final_answer"]
    assert json.loads(calls[1].tool_args or "") == {"text": "2025"}
    assert all(c.text == "" and c.role == "assistant" for c in calls)
    assert (calls[0].tokens_in, calls[0].tokens_out) == (457, 16)
    assert t.final_answer is not None and json.loads(t.final_answer)["steps"][1]["description"] == \
        "Write the year to a file."
    _no_raw_json(t.model_copy(update={"final_answer": None}))


def test_any_agent_langgraph_trace_reads_a_langchain_generation(host: PluginHost) -> None:
    """LangGraph's model output is a LangChain ``ChatGeneration`` (calls under
    ``message.additional_kwargs.tool_calls``); tool outputs are JSON string literals, ``"null"``
    for none. No step carries the generation's JSON (whose token counts read as unsupported numbers)."""
    spec, _, _ = claim(ANY_LANGCHAIN, host)
    assert spec is not None and spec.id == "otel_sdk"
    t = _one(OtelSdkImporter(), ANY_LANGCHAIN)
    assert _kinds(t) == ["tool_call", "observation", "tool_call", "observation", "message"]
    call, obs, write, written, answer = t.steps
    assert (call.tool_name, call.tool_call_id) == ("get_current_time", "call_3uGrOjunv0acuVI6t9I9w7bD")
    assert json.loads(call.tool_args or "") == {"timezone": "America/New_York"}
    assert obs.tool_call_id == call.tool_call_id and json.loads(obs.text)["timezone"] == "America/New_York"
    assert write.tool_name == "write_file" and written.text == ""
    assert answer.text.startswith("The year in the America/New_York timezone is 2025.")
    assert t.final_answer == answer.text
    assert not any("completion_tokens" in s.text or "cached_tokens" in s.text for s in t.steps)


def test_any_agent_python_literal_arguments_are_read_as_a_dict(tmp_path: Path) -> None:
    """A LangChain tool span's input as any-agent writes it: a Python dict literal, not JSON."""
    doc = json.loads(ANY_LANGCHAIN.read_text(encoding="utf-8"))
    for span in doc["spans"]:
        if span["attributes"].get("gen_ai.operation.name") == "execute_tool":
            span["attributes"]["gen_ai.tool.args"] = "{'timezone': 'America/New_York', 'utc': False}"
    path = tmp_path / "literal_args.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    t = _one(OtelSdkImporter(), path)
    obs = next(s for s in t.steps if s.kind == "observation")
    assert json.loads(obs.tool_args or "") == {"timezone": "America/New_York", "utc": False}


ANY_AGENT = REAL / "any_agent"


def _any(name: str) -> Trajectory:
    return _one(OtelSdkImporter(), ANY_AGENT / f"{name}_trace.json")


def test_any_agent_llama_index_chat_messages_give_their_calls_and_text() -> None:
    """A LlamaIndex ``ChatMessage`` output: calls under ``additional_kwargs``, text in ``blocks``."""
    t = _any("LLAMA_INDEX")
    assert _kinds(t) == ["tool_call", "tool_call", "message"]
    assert [s.tool_call_id for s in t.steps[:2]] == ["call_zJg5fSmfAr6nGEpjRDdM488B", "call_14BVTuKCUqKlh8D1VLSc7jAn"]
    assert json.loads(t.steps[1].tool_args or "") == {"text": "2025"}
    assert t.steps[2].text.startswith("The current year in the America/New_York timezone is 2025.")


def test_any_agent_openai_run_unwraps_mcp_results_quoted_arguments_and_a_repeated_span() -> None:
    t = _any("OPENAI")
    assert _kinds(t) == ["user", "tool_call", "observation", "tool_call", "observation", "message"]
    obs = t.steps[2]
    assert json.loads(obs.tool_args or "") == {"timezone": "America/New_York"}  # not a JSON string of JSON
    assert json.loads(obs.text)["timezone"] == "America/New_York"  # the MCP TextContent's text, not its JSON


def test_any_agent_google_adk_run_names_its_agent_links_ids_and_reads_final_output() -> None:
    """Its spans' parents are not in the file; its calls carry no ids (the tool spans do); its
    answer is the ``final_output`` tool's ``result``; its MCP result is a Python repr."""
    t = _any("GOOGLE")
    assert {s.agent for s in t.steps if s.role != "user"} == {"any_agent"}
    calls = [s for s in t.steps if s.kind == "tool_call"]
    assert [c.tool_call_id for c in calls] == ["GJmq0g6U2", "eFiwxGCQp", "m2DH7yqxY"]
    assert not t.steps[2].text.startswith("meta=") and json.loads(t.steps[2].text)["timezone"] == "America/New_York"
    assert t.final_answer is not None and json.loads(t.final_answer)["steps"][0]["number"] == 1


def test_any_agent_agno_and_tinyagent_runs_link_calls_to_their_outputs() -> None:
    agno = _any("AGNO")
    calls = [s for s in agno.steps if s.kind == "tool_call"]
    outs = [s for s in agno.steps if s.kind == "observation"]
    assert [c.tool_call_id for c in calls] == [o.tool_call_id for o in outs] == [
        "call_ud3cwr6N75FInolAFKUaPpSt", "call_Wvh0OclFRrLWl4izPjryNA76"]
    tiny = _any("TINYAGENT")
    assert _kinds(tiny) == ["user", "tool_call", "observation", "tool_call", "observation", "message"]
    assert tiny.final_answer is not None and tiny.final_answer.startswith("Here are the steps I have taken")


def test_any_agent_exports_read_back_with_polars_defaults(tmp_path: Path) -> None:
    """The any-agent traces' 128-bit integer ids reach the CSV exports as hex text, not as numbers.

    As decimal text, ``traces.csv`` held ``native_id`` 287108214166566708757979670190473357960,
    larger than any integer column, and ``pl.read_csv`` with default inference failed on it.
    """
    import polars as pl

    from analyzer.cli import main

    out = tmp_path / "out"
    assert main(["analyze", str(REAL / "any_agent"), "--no-judge", "--no-embed", "--quiet", "--out", str(out)]) == 0
    runs = pl.read_csv(out / "traces.csv")
    steps = pl.read_csv(out / "steps.csv")
    assert runs.height == 7 and runs["native_id"].dtype == pl.String
    assert all(len(v) == 32 and int(v, 16) for v in runs["native_id"])
    assert steps.height > 0
