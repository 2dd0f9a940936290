"""Write the span/run-export samples in sample_traces/{langfuse,langsmith,phoenix,mlflow,otel_sdk}/.

Dev tool, not needed by the tests. Run from the repo root:
``.venv/bin/python tests/data/generators/make_span_export_samples.py``.

Three agent runs, authored for TrajScope (licence-clean; the services, repositories and
figures are fictional), are rendered in each tool's export layout as documented by that tool
(see each folder's README.md for the schema source):

* ``fx_report`` (10 steps): the FX-rate tool fails with a 503, the agent retries with another
  source, computes 2,500 EUR in USD, writes report.md and answers (recovered tool error).
* ``flaky_test`` (6 steps): pytest fails on a date format, the agent reads the parser, then
  the model call itself fails with a rate-limit error: the root ends in ERROR (failure).
* ``slug`` (4 steps): one tool call and an answer (success).

``otel_sdk/any_agent_openai_trace.json`` is not written here: it is a verbatim copy of a
real any-agent test asset (see ``sample_traces/otel_sdk/README.md``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "sample_traces"
MODEL = "gpt-4o-mini-2024-07-18"


def hexid(*parts: object, n: int = 16) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:n]


def uuid_of(*parts: object) -> str:
    h = hexid(*parts, n=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


@dataclass
class Llm:
    text: str = ""
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None
    tokens: tuple[int, int] = (0, 0)
    seconds: float = 1.2


@dataclass
class Tool:
    call_id: str
    name: str
    args: dict[str, Any]
    result: str
    error: str | None = None
    seconds: float = 0.4


@dataclass
class Scenario:
    key: str
    task: str
    system: str
    turns: list[Llm | Tool]
    start: datetime
    final: str | None
    failed: bool = False


FX = Scenario(
    key="fx_report",
    task="What was the EUR to USD reference rate on 2025-03-14, and how much is 2,500 EUR in USD at that rate? "
         "Save a one-line summary to report.md.",
    system="You are a finance assistant. Use the tools; never guess a rate.",
    start=datetime(2025, 3, 17, 9, 30, 5, 120000, tzinfo=UTC),
    turns=[
        Llm(calls=[("call_fx1", "get_fx_rate", {"date": "2025-03-14", "base": "EUR", "quote": "USD"})],
            tokens=(412, 31)),
        Tool("call_fx1", "get_fx_rate", {"date": "2025-03-14", "base": "EUR", "quote": "USD"},
             result="", error="HTTPError: 503 Service Unavailable from rates.example.net (upstream timeout)"),
        Llm(text="The default rate service is down; trying the ECB source.",
            calls=[("call_fx2", "get_fx_rate", {"date": "2025-03-14", "base": "EUR", "quote": "USD",
                                                 "source": "ecb"})], tokens=(489, 44)),
        Tool("call_fx2", "get_fx_rate", {"date": "2025-03-14", "base": "EUR", "quote": "USD", "source": "ecb"},
             result='{"date": "2025-03-14", "base": "EUR", "quote": "USD", "rate": 1.0879, "source": "ECB"}'),
        Llm(calls=[("call_calc", "calculator", {"expression": "2500 * 1.0879"})], tokens=(561, 22)),
        Tool("call_calc", "calculator", {"expression": "2500 * 1.0879"}, result="2719.75", seconds=0.05),
        Llm(calls=[("call_write", "write_file", {"path": "report.md", "content":
                    "2025-03-14 ECB EUR/USD 1.0879: 2,500 EUR = 2,719.75 USD\n"})], tokens=(598, 57)),
        Tool("call_write", "write_file", {"path": "report.md", "content":
             "2025-03-14 ECB EUR/USD 1.0879: 2,500 EUR = 2,719.75 USD\n"}, result="wrote 56 bytes to report.md",
             seconds=0.02),
        Llm(text="The ECB reference rate on 2025-03-14 was 1.0879 USD per EUR, so 2,500 EUR is 2,719.75 USD. "
                 "The summary is saved in report.md.", tokens=(640, 48)),
    ],
    final="The ECB reference rate on 2025-03-14 was 1.0879 USD per EUR, so 2,500 EUR is 2,719.75 USD. "
          "The summary is saved in report.md.",
)

FLAKY = Scenario(
    key="flaky_test",
    task="tests/test_dates.py::test_parse_dates fails in the ledger repo. Find the cause and propose a fix.",
    system="You are a coding agent with shell access to the ledger repository.",
    start=datetime(2025, 4, 2, 14, 11, 40, 500000, tzinfo=UTC),
    turns=[
        Llm(text="Reproducing the failure first.",
            calls=[("call_sh1", "run_shell", {"cmd": "pytest tests/test_dates.py -x -q"})], tokens=(733, 38)),
        Tool("call_sh1", "run_shell", {"cmd": "pytest tests/test_dates.py -x -q"},
             result="F\nFAILED tests/test_dates.py::test_parse_dates - ValueError: time data '03/14/2025' does not "
                    "match format '%Y-%m-%d'\n1 failed in 0.21s",
             error="exit code 1: ValueError: time data '03/14/2025' does not match format '%Y-%m-%d'", seconds=2.3),
        Llm(calls=[("call_read", "read_file", {"path": "ledger/dates.py"})], tokens=(905, 25)),
        Tool("call_read", "read_file", {"path": "ledger/dates.py"},
             result="from datetime import datetime\n\n\ndef parse_date(text: str) -> datetime:\n"
                    "    return datetime.strptime(text, \"%Y-%m-%d\")\n"),
        Llm(error="RateLimitError: Error code: 429 - Rate limit reached for gpt-4o-mini in organization org-ledger "
                  "on tokens per min (TPM): Limit 200000, Used 199812. Please try again in 2.1s.", seconds=0.3),
    ],
    final=None,
    failed=True,
)

SLUG = Scenario(
    key="slug",
    task="Give me the URL slug for the title 'Quarterly Report: Q1 2025 (Draft)'.",
    system="You are a helpful assistant.",
    start=datetime(2025, 5, 6, 8, 2, 11, 0, tzinfo=UTC),
    turns=[
        Llm(calls=[("call_slug", "slugify", {"title": "Quarterly Report: Q1 2025 (Draft)"})], tokens=(188, 21)),
        Tool("call_slug", "slugify", {"title": "Quarterly Report: Q1 2025 (Draft)"},
             result="quarterly-report-q1-2025-draft", seconds=0.01),
        Llm(text="The slug is `quarterly-report-q1-2025-draft`.", tokens=(229, 14)),
    ],
    final="The slug is `quarterly-report-q1-2025-draft`.",
)


# ---------------------------------------------------------------------------------------------
# timeline shared by every renderer


@dataclass
class Ev:
    turn: Llm | Tool
    start: datetime
    end: datetime
    index: int
    history: list[dict[str, Any]]


def timeline(sc: Scenario) -> tuple[list[Ev], datetime]:
    t = sc.start + timedelta(milliseconds=35)
    history: list[dict[str, Any]] = [{"role": "system", "content": sc.system}, {"role": "user", "content": sc.task}]
    evs: list[Ev] = []
    for i, turn in enumerate(sc.turns):
        start = t
        end = start + timedelta(seconds=turn.seconds)
        evs.append(Ev(turn, start, end, i, [dict(m) for m in history]))
        if isinstance(turn, Llm) and turn.error is None:
            history.append(openai_out(turn))
        elif isinstance(turn, Tool):
            history.append({"role": "tool", "tool_call_id": turn.call_id,
                            "content": turn.result if turn.error is None else turn.error})
        t = end + timedelta(milliseconds=18)
    return evs, t + timedelta(milliseconds=9)


def openai_out(turn: Llm) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        msg["tool_calls"] = [{"id": cid, "type": "function",
                              "function": {"name": name, "arguments": json.dumps(args)}}
                             for cid, name, args in turn.calls]
    return msg


def iso(t: datetime, z: bool = True) -> str:
    s = t.isoformat()
    return s.replace("+00:00", "Z") if z else s


def ns(t: datetime) -> int:
    return int(t.timestamp() * 1_000_000) * 1000


def write_json(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_jsonl(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Langfuse


def langfuse_trace(sc: Scenario, api: bool) -> dict[str, Any]:
    evs, end = timeline(sc)
    tid = hexid("lf", sc.key, n=32)
    root = uuid_of("lf-agent", sc.key)
    obs: list[dict[str, Any]] = [{
        "id": root, "traceId": tid, "type": "AGENT", "name": "finance-agent" if sc.key == "fx_report" else "agent",
        "startTime": iso(sc.start), "endTime": iso(end), "parentObservationId": None, "level": "ERROR" if sc.failed
        else "DEFAULT", "statusMessage": "RateLimitError: model call failed" if sc.failed else None,
        "input": json.dumps({"task": sc.task}), "output": json.dumps(sc.final) if sc.final else None,
        "metadata": json.dumps({"framework": "openai-agents"}), "model": None, "usage": None, "version": None}]
    for ev in evs:
        oid = uuid_of("lf", sc.key, ev.index)
        base = {"id": oid, "traceId": tid, "startTime": iso(ev.start), "endTime": iso(ev.end),
                "parentObservationId": root, "version": None, "metadata": None}
        if isinstance(ev.turn, Llm):
            turn = ev.turn
            base.update({"type": "GENERATION", "name": "OpenAI-generation", "model": MODEL,
                         "modelParameters": {"temperature": 0.2}, "input": ev.history,
                         "output": None if turn.error else openai_out(turn),
                         "usage": {"input": turn.tokens[0], "output": turn.tokens[1],
                                   "total": sum(turn.tokens), "unit": "TOKENS"},
                         "usageDetails": {"input": turn.tokens[0], "output": turn.tokens[1],
                                          "total": sum(turn.tokens)},
                         "level": "ERROR" if turn.error else "DEFAULT", "statusMessage": turn.error,
                         "completionStartTime": iso(ev.start + timedelta(milliseconds=420))})
        else:
            turn = ev.turn
            base.update({"type": "TOOL", "name": turn.name, "input": json.dumps(turn.args),
                         "output": turn.result if turn.error is None else None, "model": None, "usage": None,
                         "level": "ERROR" if turn.error else "DEFAULT", "statusMessage": turn.error})
        obs.append(base)
    if sc.key == "fx_report":  # a plain log event: not a step
        obs.append({"id": uuid_of("lf", sc.key, "event"), "traceId": tid, "type": "EVENT",
                    "name": "cache-miss", "startTime": iso(evs[0].start), "endTime": None,
                    "parentObservationId": root, "level": "DEBUG", "statusMessage": None,
                    "input": None, "output": json.dumps({"key": "fx:2025-03-14:EUR:USD"}), "metadata": None})
    trace = {"id": tid, "timestamp": iso(sc.start), "name": sc.key, "input": json.dumps({"task": sc.task}),
             "output": json.dumps(sc.final) if sc.final else None, "sessionId": f"sess-{sc.key}",
             "userId": "analyst-7", "metadata": json.dumps({"app": "agent-demo"}), "tags": ["demo", sc.key],
             "release": "2025.03.1", "version": None, "public": False, "environment": "production"}
    scores = [] if sc.key != "slug" else [
        {"id": uuid_of("lf-score", sc.key), "traceId": tid, "name": "success", "value": 1.0,
         "stringValue": "True", "dataType": "BOOLEAN", "source": "ANNOTATION", "observationId": None,
         "timestamp": iso(end), "comment": "correct slug"}]
    if api:
        lat = (end - sc.start).total_seconds()
        return {**trace, "htmlPath": f"/project/demo/traces/{tid}", "latency": round(lat, 3),
                "totalCost": 0.00041, "observations": obs, "scores": scores}
    return {"trace": trace, "observations": obs, "scores": scores}


# ---------------------------------------------------------------------------------------------
# LangSmith


def lc_ai(turn: Llm) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
            "kwargs": {"content": turn.text, "type": "ai",
                       "tool_calls": [{"name": n, "args": a, "id": c, "type": "tool_call"} for c, n, a in turn.calls],
                       "usage_metadata": {"input_tokens": turn.tokens[0], "output_tokens": turn.tokens[1],
                                          "total_tokens": sum(turn.tokens)},
                       "response_metadata": {"model_name": MODEL, "finish_reason":
                                             "tool_calls" if turn.calls else "stop"},
                       "invalid_tool_calls": []}}


def lc_msg(m: dict[str, Any]) -> dict[str, Any]:
    cls = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage", "tool": "ToolMessage"}[m["role"]]
    kw: dict[str, Any] = {"content": m.get("content") or "", "type": {"SystemMessage": "system",
                          "HumanMessage": "human", "AIMessage": "ai", "ToolMessage": "tool"}[cls]}
    if m.get("tool_calls"):
        kw["tool_calls"] = [{"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"]),
                             "id": c["id"], "type": "tool_call"} for c in m["tool_calls"]]
    if m.get("tool_call_id"):
        kw["tool_call_id"] = m["tool_call_id"]
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls], "kwargs": kw}


def dotted(t: datetime, rid: str) -> str:
    return t.strftime("%Y%m%dT%H%M%S%fZ") + rid


def langsmith_runs(sc: Scenario) -> dict[str, Any]:
    """The root run of a LangGraph ReAct agent with nested child_runs."""
    evs, end = timeline(sc)
    root_id = uuid_of("ls", sc.key, "root")
    root: dict[str, Any] = {
        "id": root_id, "name": "LangGraph", "run_type": "chain", "start_time": iso(sc.start, z=False)[:-6],
        "end_time": iso(end, z=False)[:-6], "inputs": {"messages": [{"role": "user", "content": sc.task}]},
        "outputs": None if sc.failed else {"messages": [lc_msg(m) for m in evs[-1].history[1:]]
                                            + [lc_ai(evs[-1].turn)] if isinstance(evs[-1].turn, Llm) else []},
        "error": None, "status": "success", "extra": {"metadata": {"langgraph_version": "0.3.21",
                                                                    "ls_run_depth": 0}},
        "tags": [], "trace_id": root_id, "parent_run_id": None, "dotted_order": dotted(sc.start, root_id),
        "session_name": "ledger-agent" if sc.failed else "finance-agent", "child_runs": [],
    }
    for ev in evs:
        node = "agent" if isinstance(ev.turn, Llm) else "tools"
        nid = uuid_of("ls", sc.key, ev.index, node)
        cid = uuid_of("ls", sc.key, ev.index, "leaf")
        n_start, n_end = ev.start - timedelta(milliseconds=3), ev.end + timedelta(milliseconds=3)
        node_run: dict[str, Any] = {
            "id": nid, "name": node, "run_type": "chain", "start_time": iso(n_start), "end_time": iso(n_end),
            "inputs": {}, "outputs": {}, "error": None, "status": "success", "trace_id": root_id,
            "parent_run_id": root_id, "dotted_order": f"{root['dotted_order']}.{dotted(n_start, nid)}",
            "extra": {"metadata": {"langgraph_node": node, "langgraph_step": ev.index + 1}}, "tags": [
                f"graph:step:{ev.index + 1}"], "child_runs": []}
        if isinstance(ev.turn, Llm):
            turn = ev.turn
            leaf: dict[str, Any] = {
                "id": cid, "name": "ChatOpenAI", "run_type": "llm", "start_time": iso(ev.start), "end_time":
                iso(ev.end), "inputs": {"messages": [[lc_msg(m) for m in ev.history]]},
                "outputs": None if turn.error else {"generations": [[{
                    "text": turn.text, "generation_info": {"finish_reason": "tool_calls" if turn.calls else "stop"},
                    "type": "ChatGeneration", "message": lc_ai(turn)}]], "llm_output": {
                    "token_usage": {"prompt_tokens": turn.tokens[0], "completion_tokens": turn.tokens[1],
                                    "total_tokens": sum(turn.tokens)}, "model_name": MODEL}},
                "error": turn.error, "status": "error" if turn.error else "success",
                "extra": {"invocation_params": {"model": "gpt-4o-mini", "temperature": 0.2, "_type": "openai-chat"},
                          "metadata": {"ls_provider": "openai", "ls_model_name": "gpt-4o-mini",
                                       "ls_model_type": "chat", "langgraph_node": "agent"}},
                "prompt_tokens": turn.tokens[0] or None, "completion_tokens": turn.tokens[1] or None,
                "total_tokens": sum(turn.tokens) or None}
            if turn.error:
                node_run["error"] = turn.error
                node_run["status"] = "error"
        else:
            turn = ev.turn
            leaf = {"id": cid, "name": turn.name, "run_type": "tool", "start_time": iso(ev.start),
                    "end_time": iso(ev.end), "inputs": {"input": json.dumps(turn.args)},
                    "outputs": None if turn.error else {"output": {
                        "lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
                        "kwargs": {"content": turn.result, "type": "tool", "name": turn.name,
                                   "tool_call_id": turn.call_id, "status": "success"}}},
                    "error": turn.error, "status": "error" if turn.error else "success",
                    "extra": {"metadata": {"langgraph_node": "tools"}}}
        leaf.update({"trace_id": root_id, "parent_run_id": nid, "tags": [],
                     "dotted_order": f"{node_run['dotted_order']}.{dotted(ev.start, cid)}", "child_runs": []})
        node_run["child_runs"].append(leaf)
        root["child_runs"].append(node_run)
    if sc.failed:
        root["error"] = FLAKY.turns[-1].error if isinstance(FLAKY.turns[-1], Llm) else "error"
        root["status"] = "error"
    return root


def flatten_runs(root: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        r = stack.pop(0)
        kids = r.get("child_runs") or []
        flat = {k: v for k, v in r.items() if k != "child_runs"}
        flat["child_run_ids"] = [k["id"] for k in kids]
        out.append(flat)
        stack[0:0] = kids
    return out


# ---------------------------------------------------------------------------------------------
# Phoenix (OpenInference)


def phoenix_rows(sc: Scenario, flat_messages: bool) -> list[dict[str, Any]]:
    evs, end = timeline(sc)
    tid = hexid("px", sc.key, n=32)
    root_id = hexid("px", sc.key, "root")
    rows: list[dict[str, Any]] = []

    def msgs_attr(prefix: str, msgs: list[dict[str, Any]]) -> dict[str, Any]:
        if not flat_messages:
            items = []
            for m in msgs:
                item: dict[str, Any] = {"message.role": m["role"], "message.content": m.get("content")}
                if m.get("tool_calls"):
                    item["message.tool_calls"] = [{"tool_call.id": c["id"],
                                                   "tool_call.function.name": c["function"]["name"],
                                                   "tool_call.function.arguments": c["function"]["arguments"]}
                                                  for c in m["tool_calls"]]
                items.append(item)
            return {prefix: items}
        a: dict[str, Any] = {}
        for i, m in enumerate(msgs):
            a[f"{prefix}.{i}.message.role"] = m["role"]
            if m.get("content"):
                a[f"{prefix}.{i}.message.content"] = m["content"]
            for j, c in enumerate(m.get("tool_calls") or []):
                p = f"{prefix}.{i}.message.tool_calls.{j}.tool_call"
                a[f"{p}.id"] = c["id"]
                a[f"{p}.function.name"] = c["function"]["name"]
                a[f"{p}.function.arguments"] = c["function"]["arguments"]
        return a

    for ev in evs:
        sid = hexid("px", sc.key, ev.index)
        if isinstance(ev.turn, Llm):
            turn = ev.turn
            attrs: dict[str, Any] = {"openinference.span.kind": "LLM", "llm.model_name": MODEL,
                                     "llm.provider": "openai", "llm.system": "openai",
                                     "llm.invocation_parameters": json.dumps({"model": "gpt-4o-mini",
                                                                              "temperature": 0.2})}
            attrs.update(msgs_attr("llm.input_messages", ev.history))
            if not turn.error:
                attrs.update(msgs_attr("llm.output_messages", [openai_out(turn)]))
                attrs.update({"llm.token_count.prompt": turn.tokens[0], "llm.token_count.completion":
                              turn.tokens[1], "llm.token_count.total": sum(turn.tokens)})
            name, kind = "ChatCompletion", "LLM"
        else:
            turn = ev.turn
            attrs = {"openinference.span.kind": "TOOL", "tool.name": turn.name,
                     "input.value": json.dumps(turn.args), "input.mime_type": "application/json"}
            if turn.error is None:
                attrs["output.value"] = turn.result
            name, kind = turn.name, "TOOL"
        err = ev.turn.error
        rows.append({"name": name, "context": {"trace_id": tid, "span_id": sid}, "span_kind": kind,
                     "parent_id": root_id, "start_time": iso(ev.start, z=False), "end_time": iso(ev.end, z=False),
                     "status_code": "ERROR" if err else "OK", "status_message": err or "",
                     "attributes": attrs,
                     "events": [{"name": "exception", "timestamp": iso(ev.end, z=False),
                                 "attributes": {"exception.type": err.split(":")[0],
                                                "exception.message": err.split(": ", 1)[-1],
                                                "exception.escaped": "False"}}] if err else []})
    rows.append({"name": "agent", "context": {"trace_id": tid, "span_id": root_id}, "span_kind": "AGENT",
                 "parent_id": None, "start_time": iso(sc.start, z=False), "end_time": iso(end, z=False),
                 "status_code": "ERROR" if sc.failed else "OK",
                 "status_message": (FLAKY.turns[-1].error or "") if sc.failed else "",
                 "attributes": {"openinference.span.kind": "AGENT", "input.value": sc.task,
                                **({"output.value": sc.final} if sc.final else {}),
                                "metadata": json.dumps({"outcome": "success"} if sc.key == "slug" else {})},
                 "events": []})
    return rows


def phoenix_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols: dict[str, list[Any]] = {}
    flat_rows = []
    for r in rows:
        flat: dict[str, Any] = {}
        for k, v in r.items():
            if k == "context":
                flat.update({f"context.{a}": b for a, b in v.items()})
            elif k == "attributes":
                flat.update({f"attributes.{a}": b for a, b in v.items()})
            elif k in ("start_time", "end_time"):
                flat[k] = datetime.fromisoformat(v)
            else:
                flat[k] = v
        flat_rows.append(flat)
    keys = list(dict.fromkeys(k for f in flat_rows for k in f))
    for k in keys:
        cols[k] = [f.get(k) for f in flat_rows]
    table = pa.table(cols)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")


# ---------------------------------------------------------------------------------------------
# MLflow


def b64(hexs: str) -> str:
    return base64.b64encode(bytes.fromhex(hexs)).decode()


def mlflow_trace(sc: Scenario, v3: bool) -> dict[str, Any]:
    evs, end = timeline(sc)
    tid_hex = hexid("mlf", sc.key, n=32)
    rid = f"tr-{tid_hex}"
    root_hex = hexid("mlf", sc.key, "root")
    spans: list[dict[str, Any]] = []

    def span(sid: str, parent: str | None, name: str, stype: str, start: datetime, stop: datetime,
             inputs: Any, outputs: Any, error: str | None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        attrs = {"mlflow.traceRequestId": json.dumps(rid), "mlflow.spanType": json.dumps(stype),
                 "mlflow.spanInputs": json.dumps(inputs)}
        if outputs is not None:
            attrs["mlflow.spanOutputs"] = json.dumps(outputs)
        attrs.update({k: json.dumps(v) for k, v in (extra or {}).items()})
        events = [{"name": "exception", **({"time_unix_nano": ns(stop)} if v3 else {"timestamp": ns(stop)}),
                   "attributes": {"exception.type": error.split(":")[0], "exception.message": error.split(": ", 1)[-1],
                                  "exception.stacktrace": f"Traceback (most recent call last):\n  ...\n{error}",
                                  "exception.escaped": "False"}}] if error else []
        if v3:
            return {"trace_id": b64(tid_hex), "span_id": b64(sid), "trace_state": "",
                    "parent_span_id": b64(parent) if parent else "", "name": name,
                    "start_time_unix_nano": ns(start), "end_time_unix_nano": ns(stop), "attributes": attrs,
                    "status": {"message": error or "", "code": "STATUS_CODE_ERROR" if error else "STATUS_CODE_OK"},
                    "events": events}
        return {"name": name, "context": {"span_id": f"0x{sid}", "trace_id": f"0x{tid_hex}"},
                "parent_id": f"0x{parent}" if parent else None, "start_time": ns(start), "end_time": ns(stop),
                "status_code": "ERROR" if error else "OK", "status_message": error or "", "attributes": attrs,
                "events": events}

    spans.append(span(root_hex, None, "agent_run", "AGENT", sc.start, end, {"question": sc.task}, sc.final,
                      FLAKY.turns[-1].error if sc.failed else None))
    for ev in evs:
        sid = hexid("mlf", sc.key, ev.index)
        if isinstance(ev.turn, Llm):
            turn = ev.turn
            out = None if turn.error else {
                "id": f"chatcmpl-{hexid('c', sc.key, ev.index, n=12)}", "object": "chat.completion",
                "model": MODEL, "choices": [{"index": 0, "message": openai_out(turn),
                                             "finish_reason": "tool_calls" if turn.calls else "stop"}],
                "usage": {"prompt_tokens": turn.tokens[0], "completion_tokens": turn.tokens[1],
                          "total_tokens": sum(turn.tokens)}}
            extra: dict[str, Any] = {"mlflow.chat.messages": ev.history + ([openai_out(turn)] if out else [])}
            if not turn.error:
                extra["mlflow.chat.tokenUsage"] = {"input_tokens": turn.tokens[0], "output_tokens": turn.tokens[1],
                                                   "total_tokens": sum(turn.tokens)}
            spans.append(span(sid, root_hex, "Completions", "CHAT_MODEL", ev.start, ev.end,
                              {"messages": ev.history, "model": "gpt-4o-mini", "temperature": 0.2}, out, turn.error,
                              extra))
        else:
            turn = ev.turn
            spans.append(span(sid, root_hex, turn.name, "TOOL", ev.start, ev.end, turn.args,
                              None if turn.error else turn.result, turn.error))
    dur = (end - sc.start).total_seconds()
    if v3:
        info: dict[str, Any] = {
            "trace_id": rid, "trace_location": {"type": "MLFLOW_EXPERIMENT", "mlflow_experiment":
                                                {"experiment_id": "417"}},
            "request_time": iso(sc.start)[:-4] + "Z", "execution_duration": f"{dur:.3f}s",
            "state": "ERROR" if sc.failed else "OK", "request_preview": json.dumps({"question": sc.task})[:1000],
            "response_preview": json.dumps(sc.final)[:1000] if sc.final else None, "client_request_id": None,
            "trace_metadata": {"mlflow.trace_schema.version": "3", "mlflow.user": "analyst",
                               "mlflow.source.name": "agent_app.py"},
            "tags": {"mlflow.traceName": "agent_run", "mlflow.artifactLocation":
                     "mlflow-artifacts:/417/traces/" + rid + "/artifacts"},
            "assessments": [{"assessment_id": f"a-{hexid('as', sc.key, n=12)}", "assessment_name": "correctness",
                             "trace_id": rid, "source": {"source_type": "HUMAN", "source_id": "analyst"},
                             "create_time": iso(end), "last_update_time": iso(end),
                             "feedback": {"value": "yes"}, "rationale": "rate and total match the ECB table"}]
            if not sc.failed else []}
        return {"info": info, "data": {"spans": spans}}
    info = {"request_id": rid, "experiment_id": "417", "timestamp_ms": ns(sc.start) // 1_000_000,
            "execution_time_ms": int(dur * 1000), "status": "ERROR" if sc.failed else "OK",
            "request_metadata": {"mlflow.trace_schema.version": "2", "mlflow.traceInputs":
                                 json.dumps({"question": sc.task})[:250]},
            "tags": {"mlflow.traceName": "agent_run"}}
    return {"info": info, "data": {"spans": spans, "request": json.dumps({"question": sc.task}),
                                   "response": json.dumps(sc.final) if sc.final else None}}


# ---------------------------------------------------------------------------------------------
# OpenTelemetry SDK ReadableSpan.to_json()


def sdk_spans(sc: Scenario) -> list[dict[str, Any]]:
    """Spans in ConsoleSpanExporter order (each printed when it ends: children first)."""
    evs, end = timeline(sc)
    tid = "0x" + hexid("sdk", sc.key, n=32)
    root = hexid("sdk", sc.key, "root")
    resource = {"attributes": {"telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry",
                               "telemetry.sdk.version": "1.33.1", "service.name": f"{sc.key}-agent"},
                "schema_url": ""}

    def sdk(sid: str, parent: str | None, name: str, kind: str, start: datetime, stop: datetime,
            attrs: dict[str, Any], error: str | None) -> dict[str, Any]:
        status: dict[str, Any] = {"status_code": "ERROR" if error else ("OK" if parent else "UNSET")}
        if error:
            status["description"] = error
        return {"name": name, "context": {"trace_id": tid, "span_id": "0x" + sid, "trace_state": "[]"},
                "kind": kind, "parent_id": "0x" + parent if parent else None,
                "start_time": start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "end_time": stop.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "status": status, "attributes": attrs,
                "events": [{"name": "exception", "timestamp": stop.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                            "attributes": {"exception.type": error.split(":")[0],
                                           "exception.message": error.split(": ", 1)[-1],
                                           "exception.stacktrace": f"Traceback (most recent call last):\n  ...\n{error}",
                                           "exception.escaped": "False"}}] if error else [],
                "links": [], "resource": resource}

    def parts(m: dict[str, Any]) -> dict[str, Any]:
        ps: list[dict[str, Any]] = []
        if m.get("content"):
            ps.append({"type": "text", "content": m["content"]})
        for c in m.get("tool_calls") or []:
            ps.append({"type": "tool_call", "id": c["id"], "name": c["function"]["name"],
                       "arguments": json.loads(c["function"]["arguments"])})
        if m["role"] == "tool":
            return {"role": "tool", "parts": [{"type": "tool_call_response", "id": m["tool_call_id"],
                                               "response": m["content"]}]}
        return {"role": m["role"], "parts": ps}

    out: list[dict[str, Any]] = []
    for ev in evs:
        sid = hexid("sdk", sc.key, ev.index)
        if isinstance(ev.turn, Llm):
            turn = ev.turn
            attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                                     "gen_ai.request.model": "gpt-4o-mini", "gen_ai.request.temperature": 0.2,
                                     "gen_ai.input.messages": json.dumps([parts(m) for m in ev.history
                                                                          if m["role"] != "system"]),
                                     "gen_ai.system_instructions": json.dumps([{"type": "text",
                                                                                "content": sc.system}])}
            if turn.error:
                attrs["error.type"] = turn.error.split(":")[0]
            else:
                o = parts(openai_out(turn))
                o["finish_reason"] = "tool_call" if turn.calls else "stop"
                attrs.update({"gen_ai.response.model": MODEL, "gen_ai.output.messages": json.dumps([o]),
                              "gen_ai.usage.input_tokens": turn.tokens[0],
                              "gen_ai.usage.output_tokens": turn.tokens[1],
                              "gen_ai.response.finish_reasons": [o["finish_reason"]]})
            out.append(sdk(sid, root, "chat gpt-4o-mini", "SpanKind.CLIENT", ev.start, ev.end, attrs, turn.error))
        else:
            turn = ev.turn
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": turn.name,
                     "gen_ai.tool.call.id": turn.call_id, "gen_ai.tool.type": "function",
                     "gen_ai.tool.call.arguments": json.dumps(turn.args)}
            if turn.error is None:
                attrs["gen_ai.tool.call.result"] = turn.result
            else:
                attrs["error.type"] = turn.error.split(":")[0]
            out.append(sdk(sid, root, f"execute_tool {turn.name}", "SpanKind.INTERNAL", ev.start, ev.end, attrs,
                           turn.error))
    root_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"{sc.key}_agent",
                  "gen_ai.request.model": "gpt-4o-mini",
                  "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text",
                                                                                   "content": sc.task}]}])}
    if sc.final:
        root_attrs["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": [
            {"type": "text", "content": sc.final}], "finish_reason": "stop"}])
    out.append(sdk(root, None, f"invoke_agent {sc.key}_agent", "SpanKind.INTERNAL", sc.start, end, root_attrs,
                   FLAKY.turns[-1].error if sc.failed else None))
    return out


# ---------------------------------------------------------------------------------------------


def main() -> None:
    write_json(OUT / "langfuse" / "traces_export.json",
               [langfuse_trace(FX, api=False), langfuse_trace(SLUG, api=False)])
    write_json(OUT / "langfuse" / "trace_api_flaky_test.json", langfuse_trace(FLAKY, api=True))

    write_json(OUT / "langsmith" / "fx_report_run.json", langsmith_runs(FX))
    write_jsonl(OUT / "langsmith" / "runs.jsonl", flatten_runs(langsmith_runs(FLAKY)) + flatten_runs(
        langsmith_runs(SLUG)))

    write_jsonl(OUT / "phoenix" / "spans.jsonl", phoenix_rows(FX, flat_messages=True)
                + phoenix_rows(FLAKY, flat_messages=True))
    phoenix_parquet(OUT / "phoenix" / "slug_spans.parquet", phoenix_rows(SLUG, flat_messages=False))

    write_json(OUT / "mlflow" / "fx_report_trace.json", mlflow_trace(FX, v3=True))
    write_json(OUT / "mlflow" / "flaky_test_trace_v2.json", mlflow_trace(FLAKY, v3=False))

    console = "".join(json.dumps(s, indent=4) + "\n" for s in sdk_spans(FX))
    (OUT / "otel_sdk").mkdir(parents=True, exist_ok=True)
    (OUT / "otel_sdk" / "console_exporter_fx_report.json").write_text(console, encoding="utf-8")
    write_jsonl(OUT / "otel_sdk" / "flaky_test_spans.jsonl", sdk_spans(FLAKY))
    write_json(OUT / "otel_sdk" / "slug_spans.json", {"spans": sdk_spans(SLUG)})


if __name__ == "__main__":
    main()
