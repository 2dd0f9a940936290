"""MLflow trace JSON (``mlflow traces get``, ``Trace.to_json()``; MLflow 2 and 3).

Shape: ``{"info": {...}, "data": {"spans": [...]}}``; also a list of those, one per JSONL line,
or concatenated.

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
The task is the root span's input; a trace ``state``/``status`` ERROR makes the run a failure
(unless an assessment named success/correctness/… says otherwise). Each step's
``native_step_id`` is its span id (hex, as the MLflow UI shows it).
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
from plugins.importers.otel import Span, _Collector, build_trajectory, outcome_value

_KINDS = {"LLM": "LLM", "CHAT_MODEL": "LLM", "TOOL": "TOOL", "AGENT": "AGENT", "RETRIEVER": "RETRIEVER",
          "CHAIN": "CHAIN", "PARSER": "CHAIN", "EMBEDDING": "EMBEDDING", "RERANKER": "RERANKER",
          "UNKNOWN": "CHAIN"}
_OUTCOME_ASSESSMENTS = ("success", "task_success", "correctness", "correct", "resolved", "outcome", "passed")


def _is_trace(o: Outline, path: str) -> bool:
    pre = f"{path}." if path else ""
    return (o.has(path, "info", "data") and o.any_of(f"{pre}info", "trace_id", "request_id")
            and o.any_of(f"{pre}data", "spans"))


def claims(o: Outline) -> bool:
    """True for the outline of an MLflow trace file."""
    return o.container in ("object", "array", "lines", "values") and _is_trace(o, "")


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
        if not spans:
            ctx.error(where, imsg("ml_no_readable_spans"))
            return None
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
        t.metadata.update({"mlflow_state": state or None,
                           "mlflow_tags": dict(info["tags"]) if isinstance(info.get("tags"), Mapping) else None,
                           "mlflow_metadata": dict(meta) if isinstance(meta, Mapping) else None})
        t.metadata = {k: v for k, v in t.metadata.items() if v is not None}
        return sanitize(t)
