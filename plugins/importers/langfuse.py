"""Langfuse trace exports (trace + observations, and the public API's trace JSON).

``{"trace": {...}, "observations": [...]}`` and ``GET /api/public/traces/{id}``.

Shapes accepted (``.json``; ``.jsonl``/``.ndjson`` with one record per line):

* ``{"trace": Trace, "observations": [Observation, ...], "scores": [...]}``, or a list of them;
* ``TraceWithFullDetails`` (``GET /api/public/traces/{id}``): the trace's own fields plus
  ``observations: [ObservationsView]`` and ``scores``; a list of them or ``{"data": [...]}``.

Fields (Langfuse public API, ``fern/apis/server/definition/commons.yml``): a trace has ``id,
timestamp, name, input, output, sessionId, userId, metadata, tags``; an observation ``id,
traceId, type (GENERATION | SPAN | EVENT | AGENT | TOOL | CHAIN | RETRIEVER | EMBEDDING |
EVALUATOR | GUARDRAIL), name, startTime, endTime, model, modelParameters, input, output,
metadata, usage {input, output, total} / usageDetails, level (DEBUG | DEFAULT | WARNING |
ERROR), statusMessage, parentObservationId``. ``input``, ``output`` and ``metadata`` may be
JSON strings (decoded once more).

Mapping (one trajectory per trace; ``native_id`` = the trace id, ``native_step_id`` = the
observation id):

* GENERATION -> assistant steps (reasoning, tool calls, text; model and token usage) from the
  observation's ``input``/``output`` (chat messages, ``ChatCompletion``, OpenAI Responses API
  items, ...), else from the OpenInference ``llm.input_messages.*``/``llm.output_messages.*`` keys
  that Langfuse's OTel ingestion keeps in ``metadata.attributes``;
* TOOL and RETRIEVER -> observation steps; a SPAN with no child observations is a tool-like
  step too (LangChain/LlamaIndex integrations log tool calls as SPANs); a SPAN with children,
  AGENT and CHAIN observations are containers whose name is the agent of what runs inside;
* EVENT -> an observation step only at level ERROR (a logged error);
* level ERROR -> ``is_error`` with ``statusMessage`` as ``error_text``.

The task is the trace input (its first user message, or the text under ``task``/``question``/
``input``...), the final answer the trace output. Langfuse has no run outcome: it is taken from
``metadata.outcome`` or a score named success/correctness/outcome/… (BOOLEAN or 0/1), else
unknown. Scores are kept in ``metadata.langfuse_scores``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import as_text, first_json_char
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Trajectory
from plugins.importers._messages import input_messages, output_message, usage_tokens
from plugins.importers._outline import Outline, outline
from plugins.importers._spanio import decode_json_string, iter_top_records, sanitize
from plugins.importers.otel import (
    Span,
    attributes,
    bad_time,
    build_trajectory,
    outcome_value,
    to_ns,
)

_KINDS = {"GENERATION": "LLM", "TOOL": "TOOL", "RETRIEVER": "RETRIEVER", "AGENT": "AGENT", "CHAIN": "CHAIN",
          "EMBEDDING": "EMBEDDING", "EVALUATOR": "EVALUATOR", "GUARDRAIL": "GUARDRAIL"}
_OUTCOME_SCORES = ("success", "task_success", "correctness", "correct", "resolved", "outcome", "passed")


def _is_wrapped(o: Outline, path: str) -> bool:
    pre = f"{path}." if path else ""
    return o.has(path, "trace", "observations") and (
        o.any_of(f"{pre}observations[]", "parentObservationId", "traceId", "startTime", "type")
        or o.any_of(f"{pre}trace", "id"))


def _is_full(o: Outline, path: str) -> bool:
    pre = f"{path}." if path else ""
    return o.has(path, "id", "observations") and o.any_of(
        f"{pre}observations[]", "parentObservationId", "traceId") and o.any_of(f"{pre}observations[]", "startTime")


def claims(o: Outline) -> bool:
    """True for the outline of a Langfuse export."""
    if o.container not in ("object", "array", "lines", "values"):
        return False
    if _is_wrapped(o, "") or _is_full(o, ""):
        return True
    return o.container == "object" and (_is_full(o, "data[]") or _is_wrapped(o, "data[]"))


def _text_id(value: Any) -> str | None:
    return None if value is None or value == "" or isinstance(value, (dict, list)) else str(value)


def _obs_attrs(obs: Mapping[str, Any], kind: str) -> dict[str, Any]:
    inp, out = decode_json_string(obs.get("input")), decode_json_string(obs.get("output"))
    a: dict[str, Any] = {"openinference.span.kind": kind, "langfuse.type": obs.get("type")}
    meta = decode_json_string(obs.get("metadata"))
    if kind == "LLM":
        msgs = input_messages(inp)
        if msgs:
            a["gen_ai.input.messages"] = msgs
        msg = output_message(out)
        if msg is not None and (msg.get("content") or msg.get("tool_calls") or msg.get("parts")):
            a["gen_ai.output.messages"] = [msg]
        a.update(_oi_fallback(meta, a))
        if isinstance(obs.get("model"), str):
            a["gen_ai.request.model"] = obs["model"]
        ti, to = usage_tokens(obs.get("usageDetails"), obs.get("usage"))
        if ti is None and to is None:
            ti, to = (_int(obs.get("promptTokens")), _int(obs.get("completionTokens")))
        if ti is not None:
            a["gen_ai.usage.input_tokens"] = ti
        if to is not None:
            a["gen_ai.usage.output_tokens"] = to
    else:
        if inp is not None:
            a["input.value"] = inp
        if out is not None:
            a["output.value"] = out
        if kind in ("TOOL", "RETRIEVER"):
            a["tool.name"] = obs.get("name")
    if isinstance(meta, Mapping):
        a["langfuse.metadata"] = dict(meta)
    return {k: v for k, v in a.items() if v is not None}


_OI_KEYS = ("llm.model_name", "llm.token_count.prompt", "llm.token_count.completion")


def _oi_fallback(meta: Any, a: Mapping[str, Any]) -> dict[str, Any]:
    """OpenInference keys of an observation's ``metadata.attributes`` that its input/output lack.

    Langfuse's OTel ingestion keeps the span's attributes there: the ``llm.input_messages`` /
    ``llm.output_messages`` groups are taken for the messages ``input``/``output`` did not give,
    ``llm.model_name`` and token counts as fallbacks.
    """
    raw = meta.get("attributes") if isinstance(meta, Mapping) else None
    if not isinstance(raw, Mapping):
        return {}
    groups = [g for g, key in (("llm.input_messages", "gen_ai.input.messages"),
                               ("llm.output_messages", "gen_ai.output.messages")) if key not in a]

    def wanted(attrs: Mapping[str, Any]) -> dict[str, Any]:
        return {str(k): v for k, v in attrs.items()
                if k in _OI_KEYS or any(k == g or str(k).startswith(g + ".") for g in groups)}

    # flat dotted keys as Langfuse keeps them (values such as tool-call arguments may be objects:
    # they stay whole); nested ``{"llm": {...}}`` attributes are flattened
    return wanted(raw) or wanted(attributes(raw))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score_outcome(scores: Any) -> tuple[Outcome, str | None]:
    for sc in scores if isinstance(scores, list) else []:
        if not isinstance(sc, Mapping):
            continue
        name = str(sc.get("name") or "").strip().lower()
        if name in _OUTCOME_SCORES:
            out, _, raw = outcome_value(sc.get("stringValue", sc.get("value")))
            if out != Outcome.UNKNOWN:
                return out, f"score {name}={raw}"
    return Outcome.UNKNOWN, None


class LangfuseImporter:
    """Reads Langfuse trace exports (trace + observations)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims records with ``trace`` + ``observations``, or a trace ``id`` with observation objects."""
        if first_json_char(head) not in "{[":
            return False
        return claims(outline(path))

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace record."""
        found = False
        for where, rec in iter_top_records(path, ctx, wrappers=("data", "traces")):
            if ctx.cancel.cancelled:
                return
            try:
                t = self._one(rec, where, ctx)
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
                ctx.error(where, imsg("lf_unexpected_trace", error=f"{type(exc).__name__}: {exc}"))
                continue
            if t is not None:
                found = True
                yield t
        if not found and not ctx.errors:
            raise ImportFailure(imsg("lf_none_found"))

    @staticmethod
    def _one(rec: Any, where: str, ctx: ImportContext) -> Trajectory | None:
        if not isinstance(rec, Mapping):
            ctx.error(where, imsg("lf_not_trace"))
            return None
        if isinstance(rec.get("trace"), Mapping):
            trace, obs_list, scores = rec["trace"], rec.get("observations"), rec.get("scores", rec["trace"].get("scores"))
        else:
            trace, obs_list, scores = rec, rec.get("observations"), rec.get("scores")
        if not isinstance(obs_list, list):
            ctx.error(where, imsg("lf_no_observations"))
            return None
        tid = _text_id(trace.get("id"))
        if tid is None:
            tid = next((_text_id(o.get("traceId")) for o in obs_list if isinstance(o, Mapping) and o.get("traceId")),
                       None)
        if tid is None:
            ctx.error(where, imsg("lf_no_id"))
            return None
        meta = decode_json_string(trace.get("metadata"))
        root_attrs: dict[str, Any] = {"openinference.span.kind": "CHAIN"}
        t_in, t_out = decode_json_string(trace.get("input")), decode_json_string(trace.get("output"))
        if t_in is not None:
            root_attrs["input.value"] = t_in
            msgs = input_messages(t_in) if isinstance(t_in, (list, Mapping)) else []
            if msgs and any(m["role"] == "user" for m in msgs):
                root_attrs["gen_ai.input.messages"] = msgs
        if t_out is not None:
            out_msg = output_message(t_out) if not isinstance(t_out, str) else None
            root_attrs["output.value"] = out_msg["content"] if out_msg and isinstance(out_msg.get("content"), str) else t_out
        if isinstance(meta, Mapping):
            root_attrs["metadata"] = dict(meta)
        root_id = tid  # the trace is the root node of the observation tree (as in the Langfuse UI)
        start = to_ns(trace.get("timestamp"))
        spans: list[Span] = [Span(trace_id=tid, span_id=root_id, parent_id=None, name=str(trace.get("name") or "trace"),
                                  start_ns=start, end_ns=None, status="UNSET", status_message="", attrs=root_attrs,
                                  resource={}, events=[], order=0, record=where, native_id=tid)]
        ids = {_text_id(o.get("id")) for o in obs_list if isinstance(o, Mapping)}
        parents = {_text_id(o.get("parentObservationId")) for o in obs_list if isinstance(o, Mapping)}
        for i, obs in enumerate(obs_list):
            loc = f"{where} observations[{i}]" if where != "$" else f"observations[{i}]"
            try:
                span = _obs_span(obs, loc, tid, root_id, ids, parents, i + 1, ctx)
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                ctx.error(loc, imsg("lf_unreadable_observation", error=f"{type(exc).__name__}: {exc}"))
                span = None
            if span is not None:
                spans.append(span)
        failed_top = next((s for s in spans[1:] if s.parent_id == root_id and s.status == "ERROR"
                           and s.attrs.get("openinference.span.kind") in ("AGENT", "CHAIN")), None)
        if failed_top is not None:  # the run's top-level agent/chain observation ended at level ERROR
            spans[0].status, spans[0].status_message = "ERROR", failed_top.status_message
        t = build_trajectory(tid, spans, None, "langfuse")
        if t is None:
            ctx.error(where, imsg("lf_no_steps", trace=str(tid)))
            return None
        t.record = where
        t.framework = "langfuse"
        t.metadata.pop("otel_format", None)
        out, raw = _score_outcome(scores)
        if t.outcome == Outcome.UNKNOWN and out != Outcome.UNKNOWN:
            t.outcome, t.outcome_raw = out, raw
        if isinstance(scores, list) and scores:
            t.metadata["langfuse_scores"] = [
                {k: s.get(k) for k in ("name", "value", "stringValue", "dataType", "comment", "observationId")
                 if s.get(k) is not None} for s in scores if isinstance(s, Mapping)]
        for key in ("sessionId", "userId", "tags", "release", "version", "environment", "htmlPath"):
            if trace.get(key) not in (None, "", []):
                t.metadata[f"langfuse_{key}"] = trace[key]
        if t.final_answer is None and isinstance(t_out, str):
            t.final_answer = t_out
        return sanitize(t)


def _obs_span(obs: Any, loc: str, tid: str, root_id: str, ids: set[str | None], parents: set[str | None],
              order: int, ctx: ImportContext) -> Span | None:
    if not isinstance(obs, Mapping):
        ctx.error(loc, imsg("lf_observation_not_object"))
        return None
    oid = _text_id(obs.get("id"))
    if oid is None:
        ctx.error(loc, imsg("lf_observation_no_id"))
        return None
    otype = str(obs.get("type") or "SPAN").upper()
    level = str(obs.get("level") or "DEFAULT").upper()
    kind = _KINDS.get(otype)
    if kind is None:
        if otype == "EVENT":
            kind = "TOOL" if level == "ERROR" else "CHAIN"
        else:  # SPAN and unknown types: a leaf is a tool-like step, a parent a container
            kind = "CHAIN" if oid in parents else "TOOL"
    times = []
    for label in ("startTime", "endTime"):
        raw = obs.get(label)
        if bad_time(raw):
            ctx.error(loc, imsg("lf_bad_time", id=str(oid), field=label, value=repr(str(raw)[:40])))
        times.append(to_ns(raw))
    parent = _text_id(obs.get("parentObservationId"))
    if parent is None or parent not in ids:
        parent = root_id
    msg = as_text(obs.get("statusMessage")) if obs.get("statusMessage") else ""
    return Span(trace_id=tid, span_id=oid, parent_id=parent if parent != oid else root_id,
                name=str(obs.get("name") or otype.lower()), start_ns=times[0], end_ns=times[1],
                status="ERROR" if level == "ERROR" else "UNSET",
                status_message=msg or (f"{otype.lower()} logged at level ERROR" if level == "ERROR" else ""),
                attrs=_obs_attrs(obs, kind), resource={}, events=[], order=order, record=loc, native_id=oid)
