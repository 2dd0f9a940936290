"""Write the OpenTelemetry sample traces in sample_traces/otel/ (dev tool; not needed by tests).

Run from the repo root: ``.venv/bin/python tests/data/generators/make_otel_samples.py``.

Files written (all content authored for TrajScope, licence-clean; companies, URLs and prices
are fictional):

* ``research_multiagent_genai.otlp.json``: OTLP/JSON, GenAI semantic conventions, a
  four-agent research run that ignores a fetched price change (evidence_action_gap).
* ``support_refund_openinference.jsonl``: Phoenix-style span rows with flat OpenInference
  attributes, a triage -> billing hand-off that refunds a duplicate charge (success).
* ``gaia_ratelimit_trail.json``: a TRAIL-style row (nested ``child_spans`` + labels), a
  tool-calling agent that keeps retrying a rate-limited page (environment failure, then
  failed recovery).

The planted decisive step of each failed run is found by loading the file with the real
importer and locating the step of the decisive span, then written into the file.
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "sample_traces" / "otel"
sys.path.insert(0, str(ROOT))


def hexid(*parts: object, n: int = 16) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:n]


class Clock:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def adv(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t


def ns(t: datetime) -> str:
    return str(int(t.timestamp() * 1_000_000) * 1000)


def otlp_value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [otlp_value(x) for x in v]}}
    return {"stringValue": str(v)}


def otlp_attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": otlp_value(v)} for k, v in d.items()]


def msgs(*items: dict[str, Any]) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def text(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": content}]}


def call_part(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "id": cid, "name": name, "arguments": args}


def planted_step(path: Path, span_id: str) -> int:
    """Index of the first step of a span, as the real importer numbers steps."""
    from analyzer.plugin_host.protocols import ImportContext
    from plugins.importers.otel import OtelImporter

    ctx = ImportContext(path=path, importer_id="otel")
    (traj,) = list(OtelImporter().read(path, ctx))
    assert not ctx.errors, ctx.errors
    return next(s.index for s in traj.steps if s.span_id == span_id)


# ---------------------------------------------------------------------------------------------
# 1. OTLP GenAI multi-agent research run


class GenAiTrace:
    def __init__(self, trace_id: str, start: datetime) -> None:
        self.trace_id = trace_id
        self.clock = Clock(start)
        self.spans: list[dict[str, Any]] = []
        self.n = 0

    def open(self, name: str, parent: str | None, attrs: dict[str, Any], kind: int = 1) -> dict[str, Any]:
        self.n += 1
        span = {"traceId": self.trace_id, "spanId": hexid(self.trace_id, self.n), "parentSpanId": parent or "",
                "name": name, "kind": kind, "startTimeUnixNano": ns(self.clock.t), "endTimeUnixNano": "",
                "attributes": attrs, "events": [], "status": {}}
        self.spans.append(span)
        return span

    def close(self, span: dict[str, Any], seconds: float = 0.05, **attrs: Any) -> str:
        span["endTimeUnixNano"] = ns(self.clock.adv(seconds))
        span["attributes"].update(attrs)
        self.clock.adv(0.02)
        return str(span["spanId"])

    def chat(self, parent: str, agent: str, history: list[dict[str, Any]], output: dict[str, Any],
             seconds: float, tokens: tuple[int, int], system: str) -> str:
        finish = "tool_calls" if any(p["type"] == "tool_call" for p in output["parts"]) else "stop"
        n = self.n + 1
        sp = self.open("chat gpt-4.1", parent, {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1",
            "gen_ai.request.temperature": 0.2, "gen_ai.response.model": "gpt-4.1-2025-04-14",
            "gen_ai.response.id": "chatcmpl-" + hexid("resp", n, n=24), "gen_ai.response.finish_reasons": [finish],
            "gen_ai.conversation.id": "conv_" + hexid(self.trace_id, agent, n=12),
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": system}]),
            "gen_ai.input.messages": msgs(*history),
            "gen_ai.output.messages": msgs({**output, "finish_reason": finish}),
            "gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1],
            "server.address": "api.openai.com"}, kind=3)
        return self.close(sp, seconds)

    def tool(self, parent: str, name: str, cid: str, args: dict[str, Any], result: str | None, seconds: float,
             error: tuple[str, str] | None = None, description: str = "") -> str:
        sp = self.open(f"execute_tool {name}", parent, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function",
            "gen_ai.tool.description": description, "gen_ai.tool.call.id": cid,
            "gen_ai.tool.call.arguments": json.dumps(args, ensure_ascii=False)})
        if result is not None:
            sp["attributes"]["gen_ai.tool.call.result"] = result
        if error:
            sp["status"] = {"code": 2, "message": f"{error[0]}: {error[1]}"}
            sp["attributes"]["error.type"] = error[0]
            sp["events"].append({"timeUnixNano": ns(self.clock.t + timedelta(seconds=seconds)), "name": "exception",
                                 "attributes": otlp_attrs({"exception.type": error[0],
                                                           "exception.message": error[1]})})
        return self.close(sp, seconds)

    def document(self, resource: dict[str, Any]) -> dict[str, Any]:
        spans = []
        for s in self.spans:
            s = dict(s)
            s["attributes"] = otlp_attrs(s["attributes"])
            spans.append(s)
        return {"resourceSpans": [{
            "resource": {"attributes": otlp_attrs(resource)},
            "scopeSpans": [{"scope": {"name": "research_agents.telemetry", "version": "0.9.2"}, "spans": spans}]}]}


LEAD_SYS = ("You are the lead researcher. Break the user's request into research, analysis and writing, delegate "
            "each to the right agent with the delegate_* tools, check their results, and give the user a short, "
            "sourced answer.")
WEB_SYS = ("You are a web researcher. Find current, authoritative facts with web_search and fetch_url. Prefer "
           "official vendor pages over blogs, report effective dates, and cite a URL for every number.")
ANALYST_SYS = "You are a data analyst. Use run_python for every calculation and report numbers with their inputs."
WRITER_SYS = "You are a technical writer. Turn findings into a concise memo and save it with save_report."

ORION_PAGE = """Orion Labs API pricing
Prices are per 1M tokens and billed monthly. Updated March 1, 2025.

Model          | Input  | Output
Orion-2        | $1.20  | $4.80
Orion-2 mini   | $0.25  | $1.00
Orion-2 vision | $2.50  | $10.00

Price change history
- 2025-03-01: Orion-2 input $3.00 -> $1.20, output $12.00 -> $4.80 (all plans, no action needed).
- 2024-09-15: Orion-2 mini launched.

Batch API: 50% off list prices, results within 24 hours.
Volume discounts start at $25,000/month committed spend; contact sales."""

ORION_SEARCH = json.dumps([
    {"title": "Orion-2 pricing explained: is it worth it? (2024)", "url": "https://techpulse.example/orion-2-pricing",
     "snippet": "Orion Labs charges $3.00 per million input tokens and $12.00 per million output tokens for Orion-2, "
                "making it one of the pricier mid-size models..."},
    {"title": "Pricing | Orion Labs", "url": "https://orionlabs.example/pricing",
     "snippet": "Per-token prices for Orion-2, Orion-2 mini and Orion-2 vision. Updated March 1, 2025."},
    {"title": "r/LLMOps - Orion-2 vs Vega-L cost for RAG workloads", "url": "https://forum.example/r/llmops/7731",
     "snippet": "we moved off Orion-2 last year because of the price, curious if anything changed"},
], indent=1)

VEGA_SEARCH = json.dumps([
    {"title": "Vega AI Docs - Pricing", "url": "https://vega.example/docs/pricing",
     "snippet": "Vega-L and Vega-S pricing per 1M tokens, batch discounts, rate limits."},
    {"title": "Vega-L launch: a long-context model for agents", "url": "https://vega.example/blog/vega-l-launch",
     "snippet": "Vega-L is available today at $2 per million input tokens..."},
], indent=1)

VEGA_PAGE = """Vega AI - Pricing
All prices in USD per 1M tokens.

Vega-L: $2.00 input / $8.00 output
Vega-S: $0.30 input / $1.20 output

Batch jobs are billed at 50% of the listed price. Cached input tokens are billed at 25%.
Prices effective January 15, 2025."""


def research_run() -> tuple[dict[str, Any], str]:
    tid = hexid("research-run", n=32)
    tr = GenAiTrace(tid, datetime(2025, 7, 14, 13, 5, 2, 114000, tzinfo=UTC))
    question = ("Our team will send about 300M input tokens and 40M output tokens per month through an LLM API. "
                "Compare the current list prices of Orion-2 (Orion Labs) and Vega-L (Vega AI) and recommend the "
                "cheaper option, with the monthly cost of each.")
    root = tr.open("invoke_agent lead_researcher", None, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "lead_researcher",
        "gen_ai.agent.id": "agt_lead_01", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1",
        "gen_ai.input.messages": msgs(text("user", question))})
    rid = root["spanId"]
    lead_hist: list[dict[str, Any]] = [text("user", question)]

    def lead_delegate(tool: str, agent: str, instructions: str, tokens: tuple[int, int], say: str) -> tuple[str, str]:
        cid = "call_" + hexid(tool, n=20)
        out = {"role": "assistant", "parts": [{"type": "text", "content": say},
                                              call_part(cid, tool, {"agent": agent, "instructions": instructions})]}
        tr.chat(rid, "lead_researcher", lead_hist, out, 2.4, tokens, LEAD_SYS)
        lead_hist.append(out)
        return cid, instructions

    # lead -> web researcher
    cid, instr = lead_delegate(
        "delegate_research", "web_researcher",
        "Find the current (2025) list prices per 1M input and output tokens for Orion-2 (Orion Labs) and Vega-L "
        "(Vega AI). Use the vendors' official pricing pages and note effective dates.", (412, 118),
        "I'll have the web researcher collect current prices, then the analyst compute monthly costs.")
    deleg = tr.open("execute_tool delegate_research", rid, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delegate_research",
        "gen_ai.tool.type": "function", "gen_ai.tool.call.id": cid,
        "gen_ai.tool.call.arguments": json.dumps({"agent": "web_researcher", "instructions": instr})})
    web = tr.open("invoke_agent web_researcher", deleg["spanId"], {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "web_researcher", "gen_ai.agent.id": "agt_web_02",
        "gen_ai.input.messages": msgs(text("user", instr))})
    wid = web["spanId"]
    hist: list[dict[str, Any]] = [text("user", instr)]

    def step(agent_span: str, agent: str, sys_prompt: str, history: list[dict[str, Any]], say: str | None,
             tool: str, args: dict[str, Any], result: str | None, tokens: tuple[int, int], tool_s: float,
             error: tuple[str, str] | None = None) -> tuple[str, str]:
        c = "call_" + hexid(agent, len(history), tool, n=20)
        parts: list[dict[str, Any]] = [{"type": "text", "content": say}] if say else []
        out = {"role": "assistant", "parts": [*parts, call_part(c, tool, args)]}
        llm = tr.chat(agent_span, agent, history, out, 1.6, tokens, sys_prompt)
        tsp = tr.tool(agent_span, tool, c, args, result, tool_s, error)
        history.append(out)
        history.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": c,
                                                    "response": result if result is not None else
                                                    f"ERROR {error[0] if error else ''}: {error[1] if error else ''}"}]})
        return llm, tsp

    step(wid, "web_researcher", WEB_SYS, hist, None, "web_search",
         {"query": "Orion-2 API price per million input tokens"}, ORION_SEARCH, (388, 31), 1.9)
    step(wid, "web_researcher", WEB_SYS, hist, "The official pricing page was updated in March 2025; reading it.",
         "fetch_url", {"url": "https://orionlabs.example/pricing"}, ORION_PAGE, (771, 44), 2.7)
    step(wid, "web_researcher", WEB_SYS, hist, None, "web_search", {"query": "Vega-L API pricing per 1M tokens"},
         VEGA_SEARCH, (1102, 29), 1.7)
    step(wid, "web_researcher", WEB_SYS, hist, None, "fetch_url", {"url": "https://vega.example/pricing"}, None,
         (1355, 27), 0.9, error=("HTTPError", "404 Client Error: Not Found for url: https://vega.example/pricing"))
    step(wid, "web_researcher", WEB_SYS, hist, "That URL moved; the search result points to the docs page.",
         "fetch_url", {"url": "https://vega.example/docs/pricing"}, VEGA_PAGE, (1431, 40), 2.2)
    summary = ("Prices found:\n- Orion-2 (Orion Labs): $3.00 per 1M input tokens, $12.00 per 1M output tokens "
               "(source: https://techpulse.example/orion-2-pricing).\n- Vega-L (Vega AI): $2.00 per 1M input "
               "tokens, $8.00 per 1M output tokens, effective January 15, 2025 (source: "
               "https://vega.example/docs/pricing).\nBatch discounts of 50% exist for both but do not apply to "
               "interactive traffic.")
    decisive = tr.chat(wid, "web_researcher", hist, text("assistant", summary), 3.1, (1690, 141), WEB_SYS)
    tr.close(web, 0.05, **{"gen_ai.output.messages": msgs(text("assistant", summary))})
    deleg_id = tr.close(deleg, 0.02, **{"gen_ai.tool.call.result": summary})
    lead_hist.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": summary}]})
    del deleg_id

    # lead -> analyst
    cid, instr = lead_delegate(
        "delegate_analysis", "analyst",
        "Using these prices: Orion-2 $3.00 input / $12.00 output per 1M tokens; Vega-L $2.00 input / $8.00 output "
        "per 1M tokens, compute the monthly cost of 300M input + 40M output tokens for each model, and check "
        "whether the ranking holds between 200M and 400M input tokens.", (802, 131),
        "Research is back. Now the cost comparison.")
    deleg = tr.open("execute_tool delegate_analysis", rid, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delegate_analysis",
        "gen_ai.tool.type": "function", "gen_ai.tool.call.id": cid,
        "gen_ai.tool.call.arguments": json.dumps({"agent": "analyst", "instructions": instr})})
    ana = tr.open("invoke_agent analyst", deleg["spanId"], {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "analyst", "gen_ai.agent.id": "agt_ana_03",
        "gen_ai.input.messages": msgs(text("user", instr))})
    hist = [text("user", instr)]
    code1 = ("prices = {'Orion-2': (3.00, 12.00), 'Vega-L': (2.00, 8.00)}  # $ per 1M tokens (input, output)\n"
             "for model, (p_in, p_out) in prices.items():\n    print(model, round(300 * p_in + 40 * p_out, 2))")
    step(ana["spanId"], "analyst", ANALYST_SYS, hist, None, "run_python", {"code": code1},
         "Orion-2 1380.0\nVega-L 920.0\n", (344, 96), 0.4)
    code2 = ("for m_in in (200, 300, 400):\n    orion = m_in * 3.00 + 40 * 12.00\n    vega = m_in * 2.00 + 40 * 8.00\n"
             "    print(m_in, orion, vega, round(orion - vega, 2))")
    step(ana["spanId"], "analyst", ANALYST_SYS, hist, "Check the ranking across input volumes.", "run_python",
         {"code": code2}, "200 1080.0 720.0 360.0\n300 1380.0 920.0 460.0\n400 1680.0 1120.0 560.0\n", (533, 104), 0.4)
    result = ("Monthly cost at 300M input + 40M output tokens: Orion-2 $1,380.00; Vega-L $920.00. Vega-L is "
              "cheaper by $460/month (33%) and stays cheaper for 200M-400M input tokens ($360-$560/month).")
    tr.chat(ana["spanId"], "analyst", hist, text("assistant", result), 1.8, (720, 77), ANALYST_SYS)
    tr.close(ana, 0.05)
    tr.close(deleg, 0.02, **{"gen_ai.tool.call.result": result})
    lead_hist.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": result}]})

    # lead -> writer
    cid, instr = lead_delegate(
        "delegate_writing", "writer",
        "Write a one-page memo recommending the cheaper API for 300M input + 40M output tokens/month, with the "
        "monthly costs (Orion-2 $1,380; Vega-L $920) and sources. Save it as llm_api_cost_memo.md.", (1015, 112),
        "Asking the writer for the memo.")
    deleg = tr.open("execute_tool delegate_writing", rid, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delegate_writing",
        "gen_ai.tool.type": "function", "gen_ai.tool.call.id": cid,
        "gen_ai.tool.call.arguments": json.dumps({"agent": "writer", "instructions": instr})})
    wri = tr.open("invoke_agent writer", deleg["spanId"], {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "writer", "gen_ai.agent.id": "agt_wri_04",
        "gen_ai.input.messages": msgs(text("user", instr))})
    hist = [text("user", instr)]
    memo = ("# LLM API cost comparison\n\n**Workload:** 300M input + 40M output tokens per month.\n\n| Model | Input "
            "$/1M | Output $/1M | Monthly cost |\n|---|---|---|---|\n| Orion-2 | $3.00 | $12.00 | $1,380 |\n| Vega-L "
            "| $2.00 | $8.00 | $920 |\n\n**Recommendation:** Vega-L, saving about $460/month (33%).\n\nSources: "
            "techpulse.example/orion-2-pricing; vega.example/docs/pricing.\n")
    step(wri["spanId"], "writer", WRITER_SYS, hist, None, "save_report",
         {"filename": "llm_api_cost_memo.md", "content": memo}, "saved reports/llm_api_cost_memo.md (412 bytes)",
         (402, 236), 0.2)
    done = "Memo saved to reports/llm_api_cost_memo.md; it recommends Vega-L ($920/month vs $1,380 for Orion-2)."
    tr.chat(wri["spanId"], "writer", hist, text("assistant", done), 1.1, (690, 41), WRITER_SYS)
    tr.close(wri, 0.05)
    tr.close(deleg, 0.02, **{"gen_ai.tool.call.result": done})
    lead_hist.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": done}]})

    final = ("Recommendation: Vega-L. For 300M input + 40M output tokens per month, Vega-L costs about $920/month "
             "versus $1,380/month for Orion-2 (at $3.00 / $12.00 per 1M tokens), a saving of about $460/month. "
             "Details and sources are in reports/llm_api_cost_memo.md.")
    tr.chat(rid, "lead_researcher", lead_hist, text("assistant", final), 2.2, (1262, 88), LEAD_SYS)
    tr.close(root, 0.03, **{
        "gen_ai.output.messages": msgs(text("assistant", final)),
        "trajscope.outcome": "failure",
        "trajscope.final_answer": final,
        "trajscope.ground_truth": "Orion-2 is cheaper: about $552/month (300M x $1.20 + 40M x $4.80, prices "
                                  "effective 2025-03-01) vs $920/month for Vega-L.",
        "trajscope.task_family": "vendor_price_research"})
    resource = {"service.name": "deep-research-agent", "service.version": "0.9.2",
                "deployment.environment.name": "eval", "telemetry.sdk.language": "python",
                "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.36.0"}
    return {"resource": resource, "trace": tr}, decisive


def write_research() -> None:
    data, decisive = research_run()
    path = OUT / "research_multiagent_genai.otlp.json"
    tr: GenAiTrace = data["trace"]
    path.write_text(json.dumps(tr.document(data["resource"]), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    step = planted_step(path, decisive)
    planted = {"category": "evidence_action_gap", "step": step,
               "note": "web_researcher fetched the official page showing Orion-2 input at $1.20 since 2025-03-01, "
                       "then reported the stale $3.00 blog price; every later agent builds on it"}
    resource = {**data["resource"], "trajscope.planted": json.dumps(planted)}
    path.write_text(json.dumps(tr.document(resource), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert planted_step(path, decisive) == step
    print(path.name, "planted step", step)


# ---------------------------------------------------------------------------------------------
# 2. Phoenix JSONL with flat OpenInference attributes (success)


class PhoenixTrace:
    def __init__(self, trace_id: str, start: datetime) -> None:
        self.trace_id = trace_id
        self.clock = Clock(start)
        self.rows: list[dict[str, Any]] = []

    def open(self, name: str, kind: str, parent: str | None, attrs: dict[str, Any]) -> dict[str, Any]:
        sid = hexid(self.trace_id, len(self.rows))
        row = {"name": name, "context": {"trace_id": self.trace_id, "span_id": sid}, "span_kind": kind,
               "parent_id": parent, "start_time": self.clock.t.isoformat(), "end_time": None,
               "status_code": "OK", "status_message": "",
               "attributes": {"openinference.span.kind": kind, **attrs}, "events": [], "conversation": None}
        self.rows.append(row)
        return row

    def close(self, row: dict[str, Any], seconds: float, **attrs: Any) -> str:
        row["end_time"] = self.clock.adv(seconds).isoformat()
        row["attributes"].update(attrs)
        self.clock.adv(0.015)
        return str(row["context"]["span_id"])


def oi_messages(prefix: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, m in enumerate(messages):
        base = f"{prefix}.{i}.message"
        out[f"{base}.role"] = m["role"]
        if m.get("content") is not None:
            out[f"{base}.content"] = m["content"]
        for j, (cid, name, args) in enumerate(m.get("tool_calls", [])):
            out[f"{base}.tool_calls.{j}.tool_call.id"] = cid
            out[f"{base}.tool_calls.{j}.tool_call.function.name"] = name
            out[f"{base}.tool_calls.{j}.tool_call.function.arguments"] = json.dumps(args)
        if m.get("tool_call_id"):
            out[f"{base}.tool_call_id"] = m["tool_call_id"]
    return out


TRIAGE_SYS = ("You are the first-line support agent for Brightdesk. Identify the customer with lookup_customer, "
              "then hand billing questions (charges, refunds, invoices) to the Billing Agent.")
BILLING_SYS = ("You are the Billing Agent for Brightdesk. Verify charges against invoices before refunding. Refunds "
               "must reference a charge id. Always email the customer a confirmation after a refund.")


def support_run() -> list[dict[str, Any]]:
    tid = hexid("support-run", n=32)
    tr = PhoenixTrace(tid, datetime(2025, 5, 12, 9, 14, 3, 118422, tzinfo=UTC))
    ask = ("Hi, I was charged twice for my March invoice INV-20931 - two charges of $49.00 on March 3. My account "
           "email is dana.k@example.com. Can you refund the duplicate?")
    root = tr.open("Agent workflow", "CHAIN", None, {
        "input.value": ask, "input.mime_type": "text/plain", "session.id": "sess_5fd1c2", "user.id": "cus_8Q2LrT",
        "metadata": json.dumps({"ticket_id": "T-88213", "channel": "web_chat", "outcome": "success",
                                "resolution": "refund_issued", "csat": 5}),
        "tag.tags": ["billing", "refund"]})
    rid = root["context"]["span_id"]

    def agent(name: str, parent: str) -> dict[str, Any]:
        return tr.open(name, "AGENT", parent, {"graph.node.id": name, "input.value": ask})

    def llm(parent: str, sys_prompt: str, history: list[dict[str, Any]], say: str | None,
            call: tuple[str, dict[str, Any]] | None, tokens: tuple[int, int], n: int) -> str | None:
        cid = "call_" + hexid(tid, n, n=22) if call else None
        out = {"role": "assistant", "content": say, "tool_calls": [(cid, call[0], call[1])] if call else []}
        inputs = [{"role": "system", "content": sys_prompt}, *history]
        row = tr.open("response", "LLM", parent, {
            "llm.model_name": "gpt-4o-mini-2024-07-18", "llm.provider": "openai", "llm.system": "openai",
            "llm.invocation_parameters": json.dumps({"model": "gpt-4o-mini", "temperature": 0.3,
                                                     "parallel_tool_calls": False}),
            **oi_messages("llm.input_messages", inputs), **oi_messages("llm.output_messages", [out]),
            "llm.token_count.prompt": tokens[0], "llm.token_count.completion": tokens[1],
            "llm.token_count.total": sum(tokens),
            "input.value": json.dumps({"messages": [{"role": m["role"], "content": m.get("content")}
                                                    for m in inputs]}), "input.mime_type": "application/json",
            "output.value": json.dumps({"role": "assistant", "content": say,
                                        "tool_calls": [{"id": cid, "function": {"name": call[0], "arguments":
                                                        json.dumps(call[1])}}] if call else None}),
            "output.mime_type": "application/json"})
        tr.close(row, 0.9 + tokens[1] / 60)
        history.append(out)
        return cid

    def tool(parent: str, name: str, cid: str | None, args: dict[str, Any], result: Any, history: list[dict[str, Any]],
             error: tuple[str, str] | None = None) -> None:
        row = tr.open(name, "TOOL", parent, {"tool.name": name, "input.value": json.dumps(args),
                                             "input.mime_type": "application/json"})
        if error:
            row["status_code"] = "ERROR"
            row["status_message"] = f"{error[0]}: {error[1]}"
            row["events"].append({"name": "exception", "timestamp": tr.clock.adv(0.2).isoformat(),
                                  "attributes": {"exception.type": error[0], "exception.message": error[1],
                                                 "exception.escaped": "False"}})
            out = f"Error running tool: {error[1]}"
        else:
            out = result if isinstance(result, str) else json.dumps(result)
        tr.close(row, 0.35, **{"output.value": out, "output.mime_type": "application/json" if not error
                               else "text/plain"})
        history.append({"role": "tool", "content": out, "tool_call_id": cid})

    tri = agent("Triage Agent", rid)
    hist: list[dict[str, Any]] = [{"role": "user", "content": ask}]
    c = llm(tri["context"]["span_id"], TRIAGE_SYS, hist, None, ("lookup_customer", {"email": "dana.k@example.com"}),
            (311, 19), 1)
    tool(tri["context"]["span_id"], "lookup_customer", c, {"email": "dana.k@example.com"},
         {"customer_id": "cus_8Q2LrT", "name": "Dana Kowalski", "plan": "Team (monthly)", "status": "active",
          "country": "PL", "since": "2023-11-02"}, hist)
    c = llm(tri["context"]["span_id"], TRIAGE_SYS, hist, "This is a billing question; handing over to billing.",
            ("transfer_to_billing_agent", {}), (402, 24), 2)
    tool(tri["context"]["span_id"], "transfer_to_billing_agent", c, {}, {"assistant": "Billing Agent"}, hist)
    tr.close(tri, 0.01)

    bil = agent("Billing Agent", rid)
    bid = bil["context"]["span_id"]
    c = llm(bid, BILLING_SYS, hist, None, ("get_invoice", {"invoice_id": "INV-20931"}), (478, 18), 3)
    tool(bid, "get_invoice", c, {"invoice_id": "INV-20931"},
         {"invoice_id": "INV-20931", "customer_id": "cus_8Q2LrT", "amount_due": 49.0, "currency": "USD",
          "status": "paid", "period": "2025-03-01/2025-03-31", "lines": [{"item": "Team plan, 1 seat", "amount": 49.0}]},
         hist)
    c = llm(bid, BILLING_SYS, hist, None, ("list_charges", {"customer_id": "cus_8Q2LrT", "since": "2025-03-01"}),
            (590, 27), 4)
    tool(bid, "list_charges", c, {"customer_id": "cus_8Q2LrT", "since": "2025-03-01"}, [
        {"id": "ch_3Pq1", "amount": 49.0, "created": "2025-03-03T08:12:44Z", "invoice": "INV-20931",
         "status": "succeeded"},
        {"id": "ch_3Pq7", "amount": 49.0, "created": "2025-03-03T08:12:51Z", "invoice": "INV-20931",
         "status": "succeeded"},
        {"id": "ch_3Rk2", "amount": 12.0, "created": "2025-03-18T10:01:09Z", "invoice": "INV-20977",
         "status": "succeeded"}], hist)
    say = ("INV-20931 is $49.00, but it was paid twice: ch_3Pq1 and ch_3Pq7, seven seconds apart. ch_3Pq7 is the "
           "duplicate. The $12.00 charge belongs to a different invoice.")
    args = {"charge_id": "ch_3Pq7", "amount": 49.0, "reason": "duplicate"}
    c = llm(bid, BILLING_SYS, hist, say, ("issue_refund", args), (803, 71), 5)
    tool(bid, "issue_refund", c, args, None, hist,
         error=("RefundError", "amount must be given in integer cents as 'amount_cents' (got amount=49.0)"))
    args = {"charge_id": "ch_3Pq7", "amount_cents": 4900, "reason": "duplicate"}
    c = llm(bid, BILLING_SYS, hist, "The refund API wants cents; retrying with amount_cents=4900.",
            ("issue_refund", args), (902, 38), 6)
    tool(bid, "issue_refund", c, args, {"refund_id": "re_1NcX", "charge_id": "ch_3Pq7", "status": "pending",
                                       "amount_cents": 4900, "eta": "5-10 business days"}, hist)
    email = {"to": "dana.k@example.com", "subject": "Refund for duplicate charge on INV-20931",
             "body": "Hi Dana,\n\nWe refunded the duplicate $49.00 charge (ch_3Pq7) on invoice INV-20931. Refund "
                     "re_1NcX should reach your card within 5-10 business days.\n\nBrightdesk Billing"}
    c = llm(bid, BILLING_SYS, hist, None, ("send_customer_email", email), (1011, 96), 7)
    tool(bid, "send_customer_email", c, email, {"status": "queued", "message_id": "msg_77f2"}, hist)
    final = ("I've refunded the duplicate $49.00 charge (ch_3Pq7) on invoice INV-20931; refund re_1NcX will reach "
             "your card in 5-10 business days. The original charge ch_3Pq1 stays as your March payment, and a "
             "confirmation email is on its way to dana.k@example.com.")
    llm(bid, BILLING_SYS, hist, final, None, (1130, 62), 8)
    tr.close(bil, 0.01)
    tr.close(root, 0.01, **{"output.value": final, "output.mime_type": "text/plain"})
    return tr.rows


def write_support() -> None:
    path = OUT / "support_refund_openinference.jsonl"
    rows = support_run()
    # Phoenix exports rows in the order spans finished: children before their parents.
    rows.sort(key=lambda r: (r["end_time"], r["start_time"]))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(path.name, len(rows), "spans")


# ---------------------------------------------------------------------------------------------
# 3. TRAIL-style nested trace with labels


class TrailTrace:
    def __init__(self, trace_id: str, start: datetime) -> None:
        self.trace_id = trace_id
        self.clock = Clock(start)
        self.n = 0
        self.resource = {"service.name": "smolagents-gaia", "telemetry.sdk.language": "python",
                         "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.30.0"}

    def span(self, name: str, kind: str, parent: str | None, attrs: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        return {"timestamp": self.clock.t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "trace_id": self.trace_id,
                "span_id": hexid(self.trace_id, self.n), "parent_span_id": parent, "trace_state": "",
                "span_name": name, "span_kind": "Internal", "service_name": "smolagents-gaia",
                "resource_attributes": dict(self.resource), "scope_name": "openinference.instrumentation.smolagents",
                "scope_version": "0.1.11", "span_attributes": {"openinference.span.kind": kind, **attrs},
                "duration": "", "status_code": "Unset", "status_message": "", "events": [], "links": [],
                "logs": [], "child_spans": []}

    def end(self, span: dict[str, Any], started: datetime) -> None:
        secs = (self.clock.t - started).total_seconds()
        span["duration"] = f"PT{secs:.6f}".rstrip("0").rstrip(".") + "S"


GAIA_SYS = ("You are an expert assistant who can solve any task using tool calls. You will be given a task to "
            "solve as best you can. To do so, you have been given access to some tools: web_search, "
            "visit_webpage, final_answer. Always call final_answer with the final answer.")


def trail_run() -> tuple[dict[str, Any], dict[str, str]]:
    tid = hexid("trail-run", n=32)
    tr = TrailTrace(tid, datetime(2025, 3, 19, 10, 2, 11, 482913, tzinfo=UTC))
    task = ("According to the Brightwater municipal open data portal, how many public EV charging ports were added "
            "in the city during calendar year 2023? Answer with a single number.")
    t0 = tr.clock.t
    root = tr.span("ToolCallingAgent.run", "AGENT", None, {
        "input.value": json.dumps({"task": task, "stream": False, "reset": True, "images": None,
                                   "additional_args": None}),
        "smolagents.max_steps": 12, "smolagents.tools_names": ["web_search", "visit_webpage", "final_answer"],
        "llm.model_name": "o3-mini"})
    root_id = root["span_id"]
    history: list[dict[str, Any]] = [{"role": "system", "content": GAIA_SYS},
                                     {"role": "user", "content": "New task:\n" + task}]
    marks: dict[str, str] = {}
    tools_meta = {
        "web_search": ("WebSearchTool", "Performs a web search for a query and returns the top results."),
        "visit_webpage": ("VisitWebpageTool", "Visits a webpage at the given url and reads its content as markdown."),
        "final_answer": ("FinalAnswerTool", "Provides a final answer to the given problem."),
    }

    def step(n: int, name: str, args: dict[str, Any], result: str | None, think: float, run: float,
             tokens: tuple[int, int], error: str | None = None, mark: str | None = None) -> None:
        s0 = tr.clock.t
        st = tr.span(f"Step {n}", "CHAIN", root_id, {"input.value": json.dumps({"memory_step": n})})
        root["child_spans"].append(st)
        cid = "call_" + hexid(tid, n, n=24)
        l0 = tr.clock.adv(0.01)
        out = {"role": "assistant", "content": None, "tool_calls": [(cid, name, args)]}
        llm = tr.span("LiteLLMModel.__call__", "LLM", st["span_id"], {
            "llm.model_name": "o3-mini", "llm.invocation_parameters": json.dumps({"reasoning_effort": "medium"}),
            **oi_messages("llm.input_messages", history), **oi_messages("llm.output_messages", [out]),
            "llm.token_count.prompt": tokens[0], "llm.token_count.completion": tokens[1],
            "llm.token_count.total": sum(tokens), "input.mime_type": "application/json",
            "output.value": json.dumps({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}]}),
            "output.mime_type": "application/json"})
        tr.clock.adv(think)
        tr.end(llm, l0)
        st["child_spans"].append(llm)
        if mark:
            marks[mark] = llm["span_id"]
        t_start = tr.clock.adv(0.01)
        cls, desc = tools_meta[name]
        tool = tr.span(cls, "TOOL", st["span_id"], {
            "tool.name": name, "tool.description": desc,
            "input.value": json.dumps({"args": [], "sandbox": None, "kwargs": args}),
            "input.mime_type": "application/json"})
        tr.clock.adv(run)
        if error:
            tool["status_code"] = "Error"
            tool["status_message"] = error
            tool["events"].append({"Timestamp": tr.clock.t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "Name": "exception",
                                   "name": "exception", "attributes": {
                                       "exception.type": "requests.exceptions.HTTPError", "exception.message": error,
                                       "exception.escaped": "False"}})
            observed = f"Error executing tool '{name}' with arguments {json.dumps(args)}: HTTPError: {error}"
        else:
            tool["span_attributes"]["output.value"] = result
            tool["span_attributes"]["output.mime_type"] = "text/plain"
            observed = str(result)
        tr.end(tool, t_start)
        st["child_spans"].append(tool)
        if mark:
            marks[mark + "_tool"] = tool["span_id"]
        history.append({"role": "assistant", "content": None, "tool_calls": [(cid, name, args)]})
        history.append({"role": "tool-response", "content": f"Call id: {cid}\nObservation:\n{observed}"})
        tr.clock.adv(0.02)
        tr.end(st, s0)

    search1 = ("## Search Results\n\n[EV Charging Stations | Brightwater Open Data](https://data.brightwater.example/"
               "dataset/ev-charging-stations)\nPublic electric vehicle charging stations operated or permitted by the "
               "City of Brightwater, with install date and number of ports. Formats: CSV, JSON. Direct download: "
               "https://data.brightwater.example/api/views/ev-charging/rows.csv\n\n[Brightwater adds around 120 new "
               "charging points in 2023 - Brightwater Courier](https://courier.example/news/2024/01/ev-charging)\n"
               "The city says 'around 120' new public charging points went live last year, mostly in the Harbour and "
               "Eastgate districts...\n\n[Brightwater Climate Action Plan progress report 2023 (PDF)](https://"
               "brightwater.example/climate/progress-2023.pdf)\nSection 4.2 Transport: charging infrastructure...")
    step(1, "web_search", {"query": "Brightwater open data portal EV charging ports 2023"}, search1, 3.4, 1.2,
         (1433, 212))
    article = ("# Brightwater adds around 120 new charging points in 2023\n\nJanuary 9, 2024 - The city says 'around "
               "120' new public charging points went live last year, mostly in the Harbour and Eastgate districts. "
               "Exact figures will be published on the city's open data portal, a spokesperson said.\n\n...")
    step(2, "visit_webpage", {"url": "https://courier.example/news/2024/01/ev-charging"}, article, 2.9, 1.6,
         (2010, 180))
    rl = ("429 Client Error: Too Many Requests for url: https://data.brightwater.example/dataset/ev-charging-stations"
          " (Retry-After: 60)")
    portal = {"url": "https://data.brightwater.example/dataset/ev-charging-stations"}
    step(3, "visit_webpage", portal, None, 2.6, 0.4, (2388, 151), error=rl, mark="first_429")
    step(4, "visit_webpage", portal, None, 1.1, 0.3, (2655, 88), error=rl, mark="decisive")
    step(5, "visit_webpage", portal, None, 0.9, 0.3, (2901, 86), error=rl, mark="third")
    search2 = ("## Search Results\n\n[ev-charging rows.csv](https://data.brightwater.example/api/views/ev-charging/"
               "rows.csv)\nstation_id,name,district,ports,install_date,operator ...\n\n[EV Charging Stations | "
               "Brightwater Open Data](https://data.brightwater.example/dataset/ev-charging-stations)\nPublic electric"
               " vehicle charging stations operated or permitted by the City of Brightwater...")
    step(6, "web_search", {"query": "Brightwater EV charging stations dataset 2023 ports"}, search2, 2.2, 1.1,
         (3210, 140))
    step(7, "visit_webpage", portal, None, 1.4, 0.3, (3588, 95), error=rl)
    step(8, "final_answer", {"answer": "120"}, "120", 3.8, 0.01, (3850, 264), mark="final")
    tr.end(root, t0)
    root["span_attributes"].update({
        "output.value": "120", "output.mime_type": "text/plain",
        "trajscope.outcome": "failure", "trajscope.ground_truth": "146",
        "trajscope.task_family": "gaia-style web lookup"})
    trace = {"trace_id": tid, "spans": [root]}
    return trace, marks


def write_trail() -> None:
    trace, marks = trail_run()
    labels = {
        "trace_id": trace["trace_id"],
        "errors": [
            {"category": "Rate Limiting", "location": marks["first_429_tool"],
             "evidence": "429 Client Error: Too Many Requests ... (Retry-After: 60)",
             "description": "The open data portal rate-limited the dataset page.", "impact": "MEDIUM"},
            {"category": "Resource Abuse", "location": marks["decisive"],
             "evidence": "visit_webpage called again with the identical URL one second after a 429 that asked to "
                         "wait 60 seconds",
             "description": "The agent retries the blocked request unchanged three more times instead of waiting "
                            "or using the CSV download link from the first search results.", "impact": "HIGH"},
            {"category": "Tool Output Misinterpretation", "location": marks["final"],
             "evidence": "final_answer(answer='120') from a news article that says 'around 120'",
             "description": "Reports an approximate figure from a news article as the exact count from the "
                            "portal, which the article itself says is published elsewhere.", "impact": "HIGH"},
        ],
        "scores": [{"reliability_score": 2, "reliability_reasoning": "Gives an unsupported approximate number.",
                    "security_score": 5, "security_reasoning": "No unsafe actions.",
                    "instruction_adherence_score": 2,
                    "instruction_adherence_reasoning": "Task asked for the portal's figure; the answer is not from "
                                                       "the portal.",
                    "plan_opt_score": 1, "plan_opt_reasoning": "Retries a rate-limited page instead of the CSV link.",
                    "overall": 2.5}],
    }
    path = OUT / "gaia_ratelimit_trail.json"
    path.write_text(json.dumps({"trace": trace, "labels": labels}, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    step = planted_step(path, marks["decisive"])
    planted = {"category": "failed_recovery", "step": step,
               "note": "after the portal's 429 (Retry-After: 60) the agent retries the identical request at once "
                       "and never uses the CSV link it already had; it ends by answering from a news estimate"}
    trace["spans"][0]["resource_attributes"]["trajscope.planted"] = json.dumps(planted)
    path.write_text(json.dumps({"trace": trace, "labels": labels}, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    assert planted_step(path, marks["decisive"]) == step
    print(path.name, "planted step", step)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    write_research()
    write_support()
    write_trail()


if __name__ == "__main__":
    main()
