"""MLflow trace JSON (``mlflow traces get``, ``Trace.to_json()``; MLflow 2 and 3).

Shape: ``{"info": {...}, "data": {"spans": [...]}}``; also a list of those, one per JSONL line,
or concatenated; and a Databricks model-serving response that carries its trace (``{"object":
"response", "output": [...], "databricks_output": {"trace": <trace>, "databricks_request_id"}}``,
record ``databricks_output.trace``).

* ``info`` (MLflow 3): ``trace_id`` ("tr-…"), ``state`` (OK / ERROR / IN_PROGRESS),
  ``request_time``, ``execution_duration``, ``request_preview``, ``response_preview``,
  ``trace_metadata``, ``tags``, ``assessments``. MLflow 2: ``request_id``, ``status``,
  ``timestamp_ms``, ``execution_time_ms``, ``request_metadata``, ``tags``.
* spans (MLflow 3, OTel-shaped): ``trace_id``/``span_id``/``parent_span_id`` (base64),
  ``name``, ``start_time_unix_nano``, ``end_time_unix_nano``, ``status: {code:
  STATUS_CODE_OK|STATUS_CODE_ERROR, message}``, ``events`` (``exception`` with
  ``exception.type``/``exception.message``), ``attributes``. MLflow 2: ``context: {trace_id,
  span_id}`` (hex), ``parent_id``, ``start_time``/``end_time`` (ns), ``status_code``,
  ``status_message``.
* attributes hold JSON-encoded values: ``mlflow.spanType`` (LLM, CHAT_MODEL, TOOL, AGENT,
  CHAIN, RETRIEVER, PARSER, EMBEDDING, RERANKER, UNKNOWN), ``mlflow.spanInputs``,
  ``mlflow.spanOutputs``, ``mlflow.chat.messages``, ``mlflow.chat.tokenUsage``.

Mapping: one trajectory per trace (``native_id`` = the trace/request id). LLM/CHAT_MODEL spans
give assistant steps (output from ``ChatCompletion`` choices, LangChain generations or text;
model from inputs/outputs ``model``), TOOL and RETRIEVER spans observations (``is_error`` from
status ERROR or an ``exception`` event), AGENT spans name the agent of the spans below them.
The task is the root span's input (a ``ResponsesAgent``'s ``{"request": {"input": [...]}}``: its
first user message), the final answer its output (a Responses API object: its output text); when
either is still only JSON, ``info.request_preview``/``response_preview`` is taken if it is plain
text (``metadata.mlflow_task_from``/``mlflow_final_answer_from`` say so). A trace ``state``/``status``
ERROR makes the run a failure (unless an assessment named success/correctness/… says otherwise).
Each step's ``native_step_id`` is its span id (hex, as the MLflow UI shows it). Repeated span ids
(exports with every id ``"<redacted>"``) get a ``#n`` suffix in ``span_id`` (``native_step_id``
keeps the source's), a parent id names the first span with it, and ``metadata.mlflow_repeated_span_ids``
counts them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import first_json_char
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Trajectory
from plugins.importers._messages import input_messages, output_message, usage_tokens
from plugins.importers._outline import Outline, outline
from plugins.importers._spanio import decode_json_string, iter_top_records, sanitize
from plugins.importers.otel import Span, _Collector, build_trajectory, norm_id, outcome_value

_KINDS = {"LLM": "LLM", "CHAT_MODEL": "LLM", "TOOL": "TOOL", "AGENT": "AGENT", "RETRIEVER": "RETRIEVER",
          "CHAIN": "CHAIN", "PARSER": "CHAIN", "EMBEDDING": "EMBEDDING", "RERANKER": "RERANKER",
          "UNKNOWN": "CHAIN"}
_OUTCOME_ASSESSMENTS = ("success", "task_success", "correctness", "correct", "resolved", "outcome", "passed")


def _is_trace(o: Outline, path: str) -> bool:
    pre = f"{path}." if path else ""
    return (o.has(path, "info", "data") and o.any_of(f"{pre}info", "trace_id", "request_id")
            and o.any_of(f"{pre}data", "spans"))


_WRAPPED = "databricks_output.trace"
"""Where a Databricks model-serving response (``{..., "databricks_output": {"trace": ...}}``,
returned when a served agent is asked for its trace) holds the MLflow 3 trace."""


def claims(o: Outline) -> bool:
    """True for the outline of an MLflow trace file (or of Databricks responses carrying one)."""
    return o.container in ("object", "array", "lines", "values") and (_is_trace(o, "") or _is_trace(o, _WRAPPED))


def _unwrap(rec: Any) -> tuple[Any, str]:
    """The trace of a record: the record itself, or a Databricks response's ``databricks_output.trace``."""
    if isinstance(rec, Mapping) and not isinstance(rec.get("info"), Mapping):
        out = rec.get("databricks_output")
        trace = out.get("trace") if isinstance(out, Mapping) else None
        if isinstance(trace, Mapping):
            return trace, _WRAPPED
    return rec, ""


def _raw_parent(sd: Mapping[str, Any]) -> str | None:
    """A span's parent id as written (MLflow 3 ``parent_span_id``, MLflow 2 ``parent_id``)."""
    for key in ("parent_span_id", "parent_id", "parentSpanId"):
        pid = norm_id(sd.get(key))
        if pid is not None:
            return pid
    return None


def _distinct_span_ids(spans: list[Span], parents: list[str | None]) -> dict[str, int]:
    """Give repeated span ids a ``#n`` suffix (in order); a parent id names the first span with it.

    Exports with redacted ids (``"<redacted>"`` for every span) would otherwise fold spans into
    one node, or make a span its own parent. Returns the repeated ids and how often each occurs.
    """
    seen: dict[str, int] = {}
    for s in spans:
        seen[s.span_id] = seen.get(s.span_id, 0) + 1
    repeated = {k: n for k, n in seen.items() if n > 1}
    if not repeated:
        return {}
    count: dict[str, int] = {}
    for s, raw_parent in zip(spans, parents, strict=True):
        sid = s.span_id
        count[sid] = count.get(sid, 0) + 1
        s.native_id = s.native_id or sid
        if count[sid] > 1:
            s.span_id = f"{sid}#{count[sid]}"
        if s.parent_id is None and raw_parent is not None and raw_parent != s.span_id:
            s.parent_id = raw_parent  # was dropped as the span's own id: it names the first span with it
    return repeated


def _json_like(text: str | None) -> bool:
    return isinstance(text, str) and text.lstrip()[:1] in ("{", "[")


def _preview(info: Mapping[str, Any], key: str) -> str | None:
    """``info.request_preview``/``response_preview`` when it is plain text (not cut JSON)."""
    v = info.get(key)
    return v if isinstance(v, str) and v.strip() and not _json_like(v) else None


def _attrs(raw: Mapping[str, Any]) -> dict[str, Any]:
    """MLflow attributes with their JSON-encoded values decoded, plus OpenInference/GenAI keys."""
    a = {str(k): decode_json_string(v) if str(k).startswith("mlflow.") else v for k, v in raw.items()}
    kind = _KINDS.get(str(a.get("mlflow.spanType") or "UNKNOWN").upper(), "CHAIN")
    a["openinference.span.kind"] = kind
    inputs, outputs = a.get("mlflow.spanInputs"), a.get("mlflow.spanOutputs")
    if inputs is not None:
        a["input.value"] = inputs
    if outputs is not None:
        a["output.value"] = outputs
    if kind == "LLM":
        chat = a.get("mlflow.chat.messages")
        msgs = input_messages(inputs)
        if not msgs and isinstance(chat, list):
            msgs = input_messages([m for m in chat[:-1]] if chat and isinstance(chat[-1], Mapping)
                                  and chat[-1].get("role") == "assistant" else chat)
        if msgs:
            a["gen_ai.input.messages"] = msgs
        out = output_message(outputs)
        if out is None and isinstance(chat, list) and chat:
            out = output_message(chat[-1:])
        if out is not None:
            a["gen_ai.output.messages"] = [out]
        for src, key in ((outputs, "gen_ai.response.model"), (inputs, "gen_ai.request.model")):
            if isinstance(src, Mapping) and isinstance(src.get("model"), str):
                a[key] = src["model"]
        ti, to = usage_tokens(a.get("mlflow.chat.tokenUsage"),
                              outputs.get("usage") if isinstance(outputs, Mapping) else None)
        if ti is not None:
            a["gen_ai.usage.input_tokens"] = ti
        if to is not None:
            a["gen_ai.usage.output_tokens"] = to
    return a


def _assessment_outcome(info: Mapping[str, Any]) -> tuple[Outcome, str | None]:
    for a in info.get("assessments") or [] if isinstance(info.get("assessments"), list) else []:
        if not isinstance(a, Mapping):
            continue
        name = str(a.get("assessment_name", a.get("name", ""))).strip().lower()
        if name not in _OUTCOME_ASSESSMENTS:
            continue
        fb = a.get("feedback")
        value = fb.get("value") if isinstance(fb, Mapping) else a.get("value")
        out, _, raw = outcome_value(value)
        if out != Outcome.UNKNOWN:
            return out, f"assessment {name}={raw}"
    return Outcome.UNKNOWN, None


class MlflowTraceImporter:
    """Reads MLflow trace JSON (``{"info": ..., "data": {"spans": [...]}}``)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims files whose (first) record has ``info`` (trace/request id) and ``data.spans``."""
        if first_json_char(head) not in "{[":
            return False
        return claims(outline(path))

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace record."""
        any_trace = False
        for where, rec in iter_top_records(path, ctx, wrappers=("traces",)):
            if ctx.cancel.cancelled:
                return
            try:
                t = self._one(rec, where, ctx)
            except ImportFailure as exc:
                ctx.error(exc.record or where, wrap("ml_trace_skipped", exc.message or exc.reason))
                continue
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
                ctx.error(where, imsg("ml_unexpected_trace", error=f"{type(exc).__name__}: {exc}"))
                continue
            if t is not None:
                any_trace = True
                yield t
        if not any_trace and not ctx.errors:
            raise ImportFailure(imsg("ml_none_found"))

    @staticmethod
    def _one(rec: Any, where: str, ctx: ImportContext) -> Trajectory | None:
        rec, wrapped = _unwrap(rec)
        if wrapped:
            where = f"{where} {wrapped}" if where != "$" else wrapped
        if not isinstance(rec, Mapping) or not isinstance(rec.get("info"), Mapping):
            ctx.error(where, imsg("ml_not_trace"))
            return None
        info = rec["info"]
        data = rec.get("data")
        spans_raw = data.get("spans") if isinstance(data, Mapping) else None
        if not isinstance(spans_raw, list):
            ctx.error(where, imsg("ml_no_spans_list"))
            return None
        tid = str(info.get("trace_id") or info.get("request_id") or "").strip()
        if not tid:
            ctx.error(f"{where} info", imsg("ml_no_id"))
            return None
        col = _Collector(ctx)
        spans: list[Span] = []
        parents: list[str | None] = []
        for i, sd in enumerate(spans_raw):
            loc = f"{where} data.spans[{i}]"
            if not isinstance(sd, Mapping):
                ctx.error(loc, imsg("ml_span_not_object"))
                continue
            attrs = sd.get("attributes")
            try:
                span = col._span({**sd, "attributes": {}}, loc, {}, None, tid)
                if span is None:
                    continue
                span.trace_id = tid
                span.attrs = _attrs(attrs if isinstance(attrs, Mapping) else {})
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                ctx.error(loc, imsg("ml_unreadable_span", error=f"{type(exc).__name__}: {exc}"))
                continue
            spans.append(span)
            parents.append(_raw_parent(sd))
        if not spans:
            ctx.error(where, imsg("ml_no_readable_spans"))
            return None
        repeated = _distinct_span_ids(spans, parents)
        state = str(info.get("state") or info.get("status") or "").strip().upper()
        by_id = {s.span_id for s in spans}
        for s in spans:
            if (not s.parent_id or s.parent_id not in by_id) and state == "ERROR" and s.status != "ERROR":
                s.status, s.status_message = "ERROR", s.status_message or "trace state ERROR"
        t = build_trajectory(tid, spans, None, "mlflow")
        if t is None:
            ctx.error(where, imsg("ml_no_steps"))
            return None
        out, raw = _assessment_outcome(info)
        if out != Outcome.UNKNOWN:
            t.outcome, t.outcome_raw = out, raw
        elif state == "ERROR":
            t.outcome_raw = "trace state ERROR"
        t.record = where
        t.framework = "mlflow"
        meta = info.get("trace_metadata", info.get("request_metadata"))
        task_step = t.steps[0] if t.steps and t.steps[0].metadata.get("source") == "task" else None
        if _json_like(t.task) and _preview(info, "request_preview"):
            t.task = _preview(info, "request_preview") or ""
            if task_step is not None:
                task_step.text = t.task
            t.metadata["mlflow_task_from"] = "request_preview"
        if _json_like(t.final_answer) and _preview(info, "response_preview"):
            t.final_answer = _preview(info, "response_preview")
            t.metadata["mlflow_final_answer_from"] = "response_preview"
        if repeated:  # noted once per trace: the ids the steps show are the source's, repeated
            t.metadata["mlflow_repeated_span_ids"] = repeated
        if wrapped:
            t.metadata["mlflow_container"] = wrapped
        t.metadata.update({"mlflow_state": state or None,
                           "mlflow_tags": dict(info["tags"]) if isinstance(info.get("tags"), Mapping) else None,
                           "mlflow_metadata": dict(meta) if isinstance(meta, Mapping) else None})
        t.metadata = {k: v for k, v in t.metadata.items() if v is not None}
        return sanitize(t)
