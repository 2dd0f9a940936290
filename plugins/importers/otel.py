"""OpenTelemetry span exports with GenAI or OpenInference attributes.

Accepted containers (``.json`` documents, or ``.jsonl`` with one of them per line):

* OTLP/JSON: ``{"resourceSpans": [{resource, scopeSpans: [{scope, spans: [...]}]}]}`` with
  attributes as ``[{key, value: {stringValue|intValue|doubleValue|boolValue|arrayValue|
  kvlistValue}}]`` and ids in hex or base64; a list of such documents.
* Flat span dicts (a list, ``{"spans": [...]}``, or one span per JSONL line): ``trace_id``/
  ``traceId``, ``span_id``, ``parent_id``/``parent_span_id``, attributes as a plain (possibly
  nested) dict, decimal/hex/base64 ids, ISO or epoch timestamps. Phoenix span rows
  (``context{trace_id, span_id}``, ``span_kind``, ``status_code``) are this shape.
* TRAIL rows: ``{"trace": {trace_id, spans: [... child_spans ...]}, "labels": {errors, scores}}``
  where ``trace``/``labels`` may be JSON strings (trailing commas tolerated); nested
  ``child_spans`` get their parent from the nesting.

Mapping (one trajectory per trace id):

* Span kind: ``openinference.span.kind`` (or the row's ``span_kind``), else from
  ``gen_ai.operation.name`` (``chat``/``text_completion``/``generate_content`` -> LLM,
  ``execute_tool`` -> TOOL, ``invoke_agent``/``create_agent`` -> AGENT, ``invoke_workflow`` -> CHAIN).
* Step 0 is a ``user`` step with the task: the root span's input (``input.value`` or its first
  user message), else the first user input message of the earliest LLM span.
* Each LLM span gives its output message: reasoning -> a ``thought`` step; each tool call ->
  a ``tool_call`` step (the first carries the message text); text without tool calls -> a
  ``message`` step. Token counts (``gen_ai.usage.*``, ``llm.token_count.*``) sit on the
  span's first step. An LLM span directly inside another LLM span (double instrumentation) is
  skipped.
* Each TOOL span gives an ``observation`` step (role ``tool``) with the result
  (``gen_ai.tool.call.result``/``output.value``), the call's name, id and arguments, and
  ``is_error`` from status code ERROR or an ``exception`` event. RETRIEVER spans are
  observations too.
* Steps follow start time (file order breaks ties and stands in when times are missing),
  except that a span with step-producing descendants (a tool that runs a sub-agent) is placed
  at its end time, after the work it returns.
* Agent of a step: the span's own ``gen_ai.agent.name``, else the nearest AGENT ancestor
  (``gen_ai.agent.name`` or the span name without ``invoke_agent``), else the nearest
  non-root CHAIN ancestor; defaults ``assistant``/``tool``.
* Run fields from the root span attributes, its resource attributes, and the OpenInference
  ``metadata`` JSON attribute: ``trajscope.outcome``/``outcome``, ``trajscope.score``/``score``,
  ``trajscope.planted`` (-> ``metadata.planted``), ``trajscope.ground_truth``/``ground_truth``,
  ``trajscope.final_answer`` (else the root ``output.value``), ``trajscope.task_family``.
  Without an explicit outcome a root status ERROR means failure, else unknown.
* TRAIL labels become ``metadata.trail_labels`` (each error with its span ``location``, the
  step index of the first step in that span's subtree, and the mapped taxonomy id) and
  ``metadata.trail_scores``.
"""

from __future__ import annotations

import ast
import base64
import binascii
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import (
    args_text,
    as_text,
    finite_float,
    first_json_char,
    loads,
    parse_json,
)
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.taxonomy import Category
from plugins.importers._messages import is_responses_list, responses_input, responses_output
from plugins.importers._outline import Outline, outline
from plugins.importers._spanio import iter_jsonl_exact, read_json_values, sanitize

MAX_NESTING = 256
"""Deepest ``child_spans`` nesting followed."""

MAX_EPOCH_NS = 253_402_300_800 * 10**9
"""Times at or beyond year 10000 (either side of the epoch) are not plausible span times."""

_LITERAL_CHARS = 100_000
"""Longest tool input read as a Python dict literal (``ast.literal_eval``; longer stays text)."""
_STEP_KINDS = frozenset({"LLM", "TOOL", "RETRIEVER"})
_OI_KINDS = frozenset({"LLM", "EMBEDDING", "CHAIN", "RETRIEVER", "RERANKER", "TOOL", "AGENT", "GUARDRAIL",
                       "EVALUATOR", "PROMPT", "DECISION", "UNKNOWN"})
_LLM_OPS = frozenset({"chat", "text_completion", "generate_content", "completion", "generate", "call_llm"})
_AGENT_OPS = frozenset({"invoke_agent", "create_agent"})
_HEX_ID = re.compile(r"(?:0x)?[0-9a-fA-F]{16}|(?:0x)?[0-9a-fA-F]{32}")
_ISO_FRACTION = re.compile(r"(\.\d{6})\d+")
_ISO_DURATION = re.compile(r"^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


# ---------------------------------------------------------------------------------------------
# value helpers


def norm_id(value: Any) -> str | None:
    """Normalise a trace/span id to lower-case hex (W3C trace context's form).

    Hex stays hex, base64 becomes hex, and an integer (the Python SDK's ``SpanContext`` dumped as
    JSON, e.g. by any-agent) becomes hex too: 16 digits up to 64 bits, else 32, negative values
    read as two's complement. A 128-bit id written as decimal text would otherwise reach
    ``traces.csv`` as a number too large for an integer column (polars' ``read_csv`` failed on
    it). Empty and all-zero ids are ``None`` (OTLP's "no parent").
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int_id(value)
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s:
        return None
    if _HEX_ID.fullmatch(s):
        s = s.lower().removeprefix("0x")
    elif len(s) in (12, 24) and not s.isdigit():
        try:
            raw = base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) in (8, 16):
            s = raw.hex()
    return None if s.strip("0") == "" else s


def int_id(value: int) -> str | None:
    """An integer trace/span id as W3C hex (see :func:`norm_id`); 0 is ``None``."""
    if value < 0:
        value &= (1 << 64) - 1 if value >= -(1 << 63) else (1 << 128) - 1
    if not value:
        return None
    return format(value, "016x" if value < 1 << 64 else "032x")


def to_ns(value: Any) -> int | None:
    """Epoch nanoseconds from an int/float (s, ms, us or ns by magnitude), a digit string or ISO text.

    A number no clock gives (NaN, infinite, beyond the year 10000) and a digit string longer
    than 19 digits give None; :func:`bad_time` tells such a value from an absent one.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return None
        if s.isdigit():
            return to_ns(int(s)) if len(s) <= 19 else None
        try:
            dt = datetime.fromisoformat(_ISO_FRACTION.sub(r"\1", s.replace("Z", "+00:00")))
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        try:
            ns = int(dt.timestamp() * 1_000_000) * 1000
        except (OverflowError, OSError, ValueError):
            return None
        return ns if -MAX_EPOCH_NS < ns < MAX_EPOCH_NS else None
    if isinstance(value, (int, float)):
        fv = finite_float(value)
        if fv is None:
            return None
        v = fv
        if not math.isfinite(v) or not -MAX_EPOCH_NS < v < MAX_EPOCH_NS:
            return None
        if v >= 1e17:
            ns = int(value)
        elif v >= 1e14:
            ns = int(v * 1e3)
        elif v >= 1e11:
            ns = int(v * 1e6)
        else:
            ns = int(v * 1e9)
        return ns if -MAX_EPOCH_NS < ns < MAX_EPOCH_NS else None
    return None


def bad_time(value: Any) -> bool:
    """True for a time value that is present but not a readable, plausible time (see :func:`to_ns`)."""
    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        return False
    return to_ns(value) is None


def iso_duration_s(value: Any) -> float | None:
    """Seconds of an ISO-8601 duration such as ``PT1M24.6S``."""
    if not isinstance(value, str):
        return None
    m = _ISO_DURATION.match(value.strip())
    if not m or not any(m.groups()):
        return None
    d, h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    return d * 86400 + h * 3600 + mi * 60 + s


def _iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _any_value(v: Any) -> Any:
    """Python value of an OTLP ``AnyValue`` (plain values pass through)."""
    if not isinstance(v, Mapping):
        return v
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return v["intValue"]
    if "doubleValue" in v:
        try:
            return float(v["doubleValue"])
        except (TypeError, ValueError):
            return v["doubleValue"]
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "arrayValue" in v:
        arr = v["arrayValue"]
        vals = arr.get("values") if isinstance(arr, Mapping) else None
        return [_any_value(x) for x in vals] if isinstance(vals, list) else []
    if "kvlistValue" in v:
        kv = v["kvlistValue"]
        vals = kv.get("values") if isinstance(kv, Mapping) else None
        return {str(x.get("key")): _any_value(x.get("value")) for x in vals or [] if isinstance(x, Mapping)}
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def _flatten(d: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted keys for nested dicts (lists are kept as values)."""
    out: dict[str, Any] = {}
    stack: list[tuple[str, Mapping[str, Any], int]] = [("", d, 0)]
    while stack:
        prefix, node, depth = stack.pop()
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, Mapping) and v and depth < 32:
                stack.append((key, v, depth + 1))
            else:
                out[key] = v
    return out


def attributes(raw: Any) -> dict[str, Any]:
    """Flat attribute dict from an OTLP key/value list, a (nested) dict, or a JSON string of either.

    OTLP lists already carry dotted keys, so their ``kvlistValue`` values stay whole (a tool
    result may be one); nested dicts (Phoenix-style exports) are flattened to dotted keys.
    """
    if isinstance(raw, str):
        try:
            raw = loads(raw, "attributes")
        except ImportFailure:
            return {}
    if isinstance(raw, list):
        d: dict[str, Any] = {}
        for item in raw:
            if isinstance(item, Mapping) and "key" in item:
                d[str(item["key"])] = _any_value(item.get("value"))
        return d
    if isinstance(raw, Mapping):
        return _flatten(raw)
    return {}


def _json_value(value: Any) -> Any:
    """Parse a JSON string attribute; other values pass through; unparsable strings stay strings."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return loads(value, "value")
        except ImportFailure:
            return value
    return value


def _indexed(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Items of an OpenInference-style indexed group (``prefix.<i>.rest``) or of a list value."""
    value = _json_value(attrs.get(prefix))
    if isinstance(value, list):
        return [_flatten(x) if isinstance(x, Mapping) else {"": x} for x in value]
    items: dict[int, dict[str, Any]] = {}
    pre = prefix + "."
    for k, v in attrs.items():
        if k.startswith(pre):
            idx, _, sub = k[len(pre):].partition(".")
            if idx.isdigit():
                items.setdefault(int(idx), {})[sub] = v
    return [items[i] for i in sorted(items)]


def _first(d: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        v = d.get(k)
        if v is not None and v != "":
            return v
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _status(code: Any) -> str:
    if code is None:
        return "UNSET"
    if isinstance(code, int) and not isinstance(code, bool):
        return {1: "OK", 2: "ERROR"}.get(code, "UNSET")
    s = str(code).strip().upper().removeprefix("STATUS_CODE_").removeprefix("STATUSCODE.")
    return {"1": "OK", "2": "ERROR", "0": "UNSET"}.get(s, s if s in ("OK", "ERROR") else "UNSET")


def loads_lenient(text: str, where: str) -> Any:
    """Parse JSON text, retrying without trailing commas (seen in TRAIL label rows)."""
    try:
        return parse_json(text, where)
    except ImportFailure:
        fixed = _TRAILING_COMMA.sub(r"\1", text)
        if fixed == text:
            raise
        return parse_json(fixed, where)


# ---------------------------------------------------------------------------------------------
# outcome


def outcome_value(value: Any) -> tuple[Outcome, float | None, str | None]:
    """Normalise an outcome attribute to ``(outcome, score, raw text)``.

    Booleans map directly; numbers 1 -> success, 0 -> failure, others unknown (kept as score);
    words such as success/pass/correct/resolved or failure/fail/incorrect/error.
    """
    if value is None:
        return Outcome.UNKNOWN, None, None
    if isinstance(value, bool):
        return (Outcome.SUCCESS if value else Outcome.FAILURE), float(value), str(value)
    if isinstance(value, (int, float)):
        got = finite_float(value)
        if got is None:
            return Outcome.UNKNOWN, None, str(value)
        num = got
        out = Outcome.SUCCESS if num == 1 else Outcome.FAILURE if num == 0 else Outcome.UNKNOWN
        return out, num, str(value)
    text = as_text(value)
    low = text.strip().lower()
    if low in ("success", "succeeded", "pass", "passed", "correct", "c", "true", "yes", "resolved", "solved"):
        return Outcome.SUCCESS, None, text
    if low in ("failure", "failed", "fail", "incorrect", "i", "false", "no", "error", "unresolved", "wrong"):
        return Outcome.FAILURE, None, text
    try:
        out, parsed, _ = outcome_value(float(low))
    except ValueError:
        return Outcome.UNKNOWN, None, text
    return out, parsed, text


# ---------------------------------------------------------------------------------------------
# spans


@dataclass
class Span:
    """One span, normalised from any of the accepted containers."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    status: str
    status_message: str
    attrs: dict[str, Any]
    resource: dict[str, Any]
    events: list[dict[str, Any]]
    order: int
    kind_hint: str | None = None
    record: str = ""
    native_id: str | None = None
    """The source's own id of the span (as its tool shows it) when it differs from ``span_id``."""

    @property
    def kind(self) -> str:
        """OpenInference-style kind (LLM, TOOL, AGENT, CHAIN, RETRIEVER, ... or OTHER)."""
        k = self.attrs.get("openinference.span.kind")
        if isinstance(k, str) and k.strip():
            return k.strip().upper()
        if self.kind_hint and self.kind_hint.strip().upper() in _OI_KINDS - {"UNKNOWN"}:
            return self.kind_hint.strip().upper()  # Phoenix rows; TRAIL/OTLP kinds (Internal ...) are not these
        op = self.attrs.get("gen_ai.operation.name")
        op = op if isinstance(op, str) else None
        if op in _LLM_OPS:
            return "LLM"
        if op == "execute_tool":
            return "TOOL"
        if op in _AGENT_OPS:
            return "AGENT"
        if op == "invoke_workflow":
            return "CHAIN"
        if op == "embeddings":
            return "EMBEDDING"
        if "gen_ai.tool.name" in self.attrs:
            return "TOOL"
        if any(k.startswith(("gen_ai.completion", "gen_ai.output.messages", "llm.output_messages"))
               for k in self.attrs):
            return "LLM"
        return "OTHER"


def _events(raw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for ev in raw if isinstance(raw, list) else []:
        if isinstance(ev, Mapping):
            out.append({"name": str(ev.get("name") or ""), "attributes": attributes(ev.get("attributes")),
                        "time": to_ns(_first(ev, "timeUnixNano", "time_unix_nano", "timestamp"))})
    return out


class _Collector:
    """Gathers spans (grouped by trace id, in order of first appearance) and TRAIL labels."""

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self.traces: dict[str, list[Span]] = {}
        self.labels: dict[str, dict[str, Any]] = {}
        self.variants: dict[str, str] = {}
        self.document: Any = None
        """The whole document of a single-document file (for wrapper keys next to the spans)."""
        self._n = 0

    # -- dispatch ----------------------------------------------------------
    def add_doc(self, doc: Any, where: str) -> bool:
        """Add every span of one document or JSONL line; False when the shape is not recognised."""
        if isinstance(doc, Mapping):
            rs = doc.get("resourceSpans", doc.get("resource_spans"))
            if rs is not None:
                self._otlp(rs, where)
                return True
            if "trace" in doc and isinstance(doc["trace"], (Mapping, str)):
                self._trail(doc, where)
                return True
            if isinstance(doc.get("spans"), list):
                self._span_list(doc["spans"], self._loc(where, "spans"), {}, norm_id(doc.get("trace_id")), "flat")
                return True
            data = doc.get("data")
            if isinstance(data, list) and data and all(isinstance(x, Mapping) and self._span_like(x) for x in data):
                self._span_list(data, self._loc(where, "data"), {}, None, "flat")  # Phoenix REST response
                return True
            if self._span_like(doc):
                self._span_tree(doc, where, {}, None, "flat")
                return True
            return False
        if isinstance(doc, list) and doc and all(isinstance(x, Mapping) for x in doc):
            if all("resourceSpans" in x or "resource_spans" in x for x in doc):
                for i, x in enumerate(doc):
                    self.add_doc(x, self._loc(where, f"[{i}]"))
                return True
            if any(self._span_like(x) for x in doc):
                self._span_list(doc, where, {}, None, "flat")
                return True
        return False

    @staticmethod
    def _span_like(d: Mapping[str, Any]) -> bool:
        return any(k in d for k in ("span_id", "spanId", "context")) and (
            any(k in d for k in ("trace_id", "traceId", "name", "span_name")))

    @staticmethod
    def _loc(where: str, sub: str) -> str:
        if where == "$":
            return sub
        return f"{where}{sub}" if sub.startswith("[") else f"{where} {sub}"

    # -- containers --------------------------------------------------------
    def _otlp(self, rs: Any, where: str) -> None:
        if not isinstance(rs, list):
            raise ImportFailure(imsg("otel_resource_not_list"), record=None if where == "$" else where)
        for i, r in enumerate(rs):
            loc = self._loc(where, f"resourceSpans[{i}]")
            if not isinstance(r, Mapping):
                self.ctx.error(loc, imsg("otel_resource_not_object"))
                continue
            res = r.get("resource")
            resource = attributes(res.get("attributes")) if isinstance(res, Mapping) else {}
            scopes = r.get("scopeSpans", r.get("scope_spans", r.get("instrumentationLibrarySpans")))
            if not isinstance(scopes, list):
                self.ctx.error(loc, imsg("otel_no_scope_spans"))
                continue
            for j, ss in enumerate(scopes):
                sloc = f"{loc}.scopeSpans[{j}]"
                spans = ss.get("spans") if isinstance(ss, Mapping) else None
                if not isinstance(spans, list):
                    self.ctx.error(sloc, imsg("otel_no_spans"))
                    continue
                for k, sp in enumerate(spans):
                    self._span_tree(sp, f"{sloc}.spans[{k}]", resource, None, "otlp")

    def _trail(self, row: Mapping[str, Any], where: str) -> None:
        trace = row["trace"]
        if isinstance(trace, str):
            trace = loads_lenient(trace, self._loc(where, "trace"))
        labels = row.get("labels")
        if isinstance(labels, str) and labels.strip():
            try:
                labels = loads_lenient(labels, self._loc(where, "labels"))
            except ImportFailure as exc:
                self.ctx.error(self._loc(where, "labels"), wrap("otel_labels_ignored", exc.message or exc.reason))
                labels = None
        if not isinstance(trace, Mapping) or not isinstance(trace.get("spans"), list):
            raise ImportFailure(imsg("otel_trail_no_spans"), record=None if where == "$" else where)
        tid = norm_id(trace.get("trace_id"))
        self._span_list(trace["spans"], self._loc(where, "trace.spans"), {}, tid, "trail")
        if isinstance(labels, Mapping):
            ltid = norm_id(labels.get("trace_id")) or tid
            if ltid:
                self.labels[ltid] = dict(labels)

    def _span_list(self, spans: list[Any], where: str, resource: dict[str, Any], trace_hint: str | None,
                   variant: str) -> None:
        for i, sp in enumerate(spans):
            self._span_tree(sp, f"{where}[{i}]", resource, trace_hint, variant)

    def _span_tree(self, root: Any, where: str, resource: dict[str, Any], trace_hint: str | None,
                   variant: str) -> None:
        stack: list[tuple[Any, str, str | None, str | None, int]] = [(root, where, None, trace_hint, 0)]
        while stack:
            d, rec, parent, tid, depth = stack.pop()
            if not isinstance(d, Mapping):
                self.ctx.error(rec, imsg("otel_span_not_object"))
                continue
            try:
                span = self._span(d, rec, resource, parent, tid)
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:  # e.g. nesting orjson refuses
                self.ctx.error(rec, imsg("otel_unreadable_span", error=f"{type(exc).__name__}: {exc}"))
                span = None
            if span is not None:
                self.traces.setdefault(span.trace_id, []).append(span)
                self.variants.setdefault(span.trace_id, variant)
            children = d.get("child_spans")
            if isinstance(children, list) and children:
                if depth >= MAX_NESTING:
                    self.ctx.error(rec, imsg("otel_too_deep", depth=MAX_NESTING))
                    continue
                for ci in range(len(children) - 1, -1, -1):
                    stack.append((children[ci], f"{rec}.child_spans[{ci}]",
                                  span.span_id if span else parent, span.trace_id if span else tid, depth + 1))

    def _span(self, d: Mapping[str, Any], rec: str, resource: dict[str, Any], parent_hint: str | None,
              trace_hint: str | None) -> Span | None:
        ctxo = d.get("context") if isinstance(d.get("context"), Mapping) else {}
        assert isinstance(ctxo, Mapping)
        tid = norm_id(_first(d, "traceId", "trace_id")) or norm_id(_first(ctxo, "trace_id", "traceId")) or trace_hint
        sid = norm_id(_first(d, "spanId", "span_id")) or norm_id(_first(ctxo, "span_id", "spanId"))
        if tid is None:
            self.ctx.error(rec, imsg("otel_no_trace_id"))
            return None
        if sid is None:
            self.ctx.error(rec, imsg("otel_no_span_id"))
            return None
        parent = norm_id(_first(d, "parentSpanId", "parent_span_id", "parent_id", "parentId")) or parent_hint
        if parent is None and isinstance(d.get("parent"), Mapping):  # ReadableSpan-style {"parent": {span_id}}
            parent = norm_id(_first(d["parent"], "span_id", "spanId"))
        res = dict(resource)
        rr = d.get("resource")
        if isinstance(rr, Mapping):
            res.update(attributes(rr.get("attributes", rr)))
        if d.get("resource_attributes") is not None:
            res.update(attributes(d.get("resource_attributes")))
        if isinstance(d.get("service_name"), str):
            res.setdefault("service.name", d["service_name"])
        st = d.get("status")
        if isinstance(st, Mapping):
            code = _first(st, "code", "status_code", "statusCode")
            msg = _first(st, "message", "description")
        else:
            code = st if st is not None else _first(d, "status_code", "statusCode")
            msg = _first(d, "status_message", "statusMessage")
        raw_start = _first(d, "startTimeUnixNano", "start_time_unix_nano", "start_time", "startTime", "timestamp")
        raw_end = _first(d, "endTimeUnixNano", "end_time_unix_nano", "end_time", "endTime")
        start, end = to_ns(raw_start), to_ns(raw_end)
        for label, raw in (("start", raw_start), ("end", raw_end)):
            if bad_time(raw):
                self.ctx.error(rec, imsg(f"otel_bad_{label}", id=str(sid), value=repr(str(raw)[:40])))
        if end is None and start is not None:
            dur = iso_duration_s(d.get("duration"))
            if dur is None and isinstance(d.get("duration_ms"), (int, float)):
                dur = float(d["duration_ms"]) / 1000
            if dur is not None:
                end = start + int(dur * 1e9)
        events = _events(d.get("events"))
        hint = d.get("span_kind")
        self._n += 1
        return Span(trace_id=tid, span_id=sid, parent_id=parent if parent != sid else None,
                    name=str(_first(d, "name", "span_name") or ""), start_ns=start, end_ns=end,
                    status=_status(code), status_message=as_text(msg) if msg else "",
                    attrs=attributes(_first(d, "attributes", "span_attributes")), resource=res,
                    events=events, order=self._n,
                    kind_hint=hint if isinstance(hint, str) else None, record=rec)


# ---------------------------------------------------------------------------------------------
# messages


@dataclass
class _Msg:
    role: str = ""
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str | None, str | None, Any]] = field(default_factory=list)
    finish_reason: str | None = None


def _genai_messages(value: Any) -> list[_Msg]:
    """Messages of a ``gen_ai.input.messages``/``gen_ai.output.messages`` value.

    Accepts the parts layout and OpenAI-style ``content``/``tool_calls`` messages.
    """
    value = _json_value(value)
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[_Msg] = []
    for m in value:
        if not isinstance(m, Mapping):
            continue
        msg = _Msg(role=str(m.get("role") or ""), finish_reason=m.get("finish_reason")
                   if isinstance(m.get("finish_reason"), str) else None)
        texts: list[str] = []
        parts = m.get("parts")
        for p in parts if isinstance(parts, list) else []:
            if not isinstance(p, Mapping):
                continue
            ptype = p.get("type")
            if ptype == "text":
                texts.append(as_text(p.get("content", p.get("text"))))
            elif ptype in ("reasoning", "thinking"):
                msg.reasoning += as_text(p.get("content", p.get("text")))
            elif ptype in ("tool_call", "server_tool_call"):
                msg.calls.append((_opt(p.get("id")), _opt(p.get("name")), p.get("arguments")))
            elif ptype in ("tool_call_response", "server_tool_call_response"):
                texts.append(as_text(p.get("response", p.get("result"))))
        if m.get("content") is not None:
            texts.append(as_text(m.get("content")))
        for c in m.get("tool_calls") or [] if isinstance(m.get("tool_calls"), list) else []:
            if isinstance(c, Mapping):
                fn = c.get("function") if isinstance(c.get("function"), Mapping) else c
                assert isinstance(fn, Mapping)
                msg.calls.append((_opt(c.get("id")), _opt(fn.get("name")), fn.get("arguments")))
        msg.text = "\n".join(t for t in texts if t.strip())
        out.append(msg)
    return out


def _opt(value: Any) -> str | None:
    return None if value is None else str(value)


def _oi_messages(attrs: Mapping[str, Any], prefix: str) -> list[_Msg]:
    """Messages of an OpenInference ``llm.input_messages``/``llm.output_messages`` group."""
    out: list[_Msg] = []
    for item in _indexed(attrs, prefix):
        msg = _Msg(role=str(item.get("message.role") or ""))
        texts = [as_text(item.get("message.content"))] if item.get("message.content") is not None else []
        for c in _indexed(item, "message.contents"):
            if c.get("message_content.type", "text") == "text":
                texts.append(as_text(c.get("message_content.text")))
        for tc in _indexed(item, "message.tool_calls"):
            msg.calls.append((_opt(tc.get("tool_call.id")), _opt(tc.get("tool_call.function.name")),
                              tc.get("tool_call.function.arguments")))
        msg.text = "\n".join(t for t in texts if t.strip())
        msg.reasoning = as_text(item.get("message.reasoning_content")) if item.get("message.reasoning_content") else ""
        out.append(msg)
    return out


def _legacy_messages(attrs: Mapping[str, Any], prefix: str) -> list[_Msg]:
    """Messages of the pre-1.37 ``gen_ai.prompt.<i>``/``gen_ai.completion.<i>`` layout."""
    out: list[_Msg] = []
    for item in _indexed(attrs, prefix):
        msg = _Msg(role=str(item.get("role") or ""), text=as_text(item.get("content")) if item.get("content") else "",
                   finish_reason=_opt(item.get("finish_reason")))
        for tc in _indexed(item, "tool_calls"):
            msg.calls.append((_opt(tc.get("id")), _opt(tc.get("name")), tc.get("arguments")))
        out.append(msg)
    return out


def _value_messages(value: Any) -> list[_Msg]:
    """Messages inside an ``input.value``/``output.value`` JSON payload (OpenAI shapes).

    Chat Completions (``choices``, ``messages``, a message list) and the Responses API (a
    ``{"object": "response", "output": [...]}`` object, a request's ``input`` item list, also
    under MLflow's ``{"request": ...}``).
    """
    doc = _json_value(value)
    if isinstance(doc, Mapping):
        choices = doc.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            m = choices[0].get("message")
            return _genai_messages([m]) if isinstance(m, Mapping) else []
        if isinstance(doc.get("messages"), list):
            return _genai_messages(doc["messages"])
        out = responses_output(doc)
        if out is not None:
            return _genai_messages([out])
        return _genai_messages(responses_input(doc))
    if is_responses_list(doc):
        return _genai_messages(responses_input(doc))
    if isinstance(doc, list) and doc and all(isinstance(m, Mapping) and "role" in m for m in doc):
        return _genai_messages(doc)
    return []


def _input_messages(span: Span) -> list[_Msg]:
    a = span.attrs
    if a.get("gen_ai.input.messages") is not None:
        return _genai_messages(a["gen_ai.input.messages"])
    msgs = _oi_messages(a, "llm.input_messages") or _legacy_messages(a, "gen_ai.prompt")
    return msgs or _value_messages(a.get("input.value"))


def _output_message(span: Span) -> _Msg:
    a = span.attrs
    msgs: list[_Msg] = []
    if a.get("gen_ai.output.messages") is not None:
        msgs = _genai_messages(a["gen_ai.output.messages"])
    msgs = msgs or _oi_messages(a, "llm.output_messages") or _legacy_messages(a, "gen_ai.completion")
    if not msgs:
        for ev in span.events:
            if ev["name"] in ("gen_ai.choice", "gen_ai.content.completion"):
                ea = ev["attributes"]
                msgs += _genai_messages(ea.get("message")) if ea.get("message") else [
                    _Msg(role="assistant", text=as_text(ea.get("gen_ai.completion") or ea.get("content") or ""))]
    if not msgs:
        msgs = _anyagent_output(a)
    if not msgs and a.get("output.value") is not None:
        msgs = _value_messages(a["output.value"]) or [_Msg(role="assistant", text=as_text(a["output.value"]))]
    merged = _Msg(role="assistant")
    for m in msgs:
        if m.role not in ("", "assistant", "model", "ai"):
            continue
        merged.text = "\n".join(t for t in (merged.text, m.text) if t.strip())
        merged.reasoning = "\n".join(t for t in (merged.reasoning, m.reasoning) if t.strip())
        merged.calls.extend(m.calls)
        merged.finish_reason = merged.finish_reason or m.finish_reason
    return merged


_LANGCHAIN_GENERATIONS = ("ChatGeneration", "ChatGenerationChunk")


def _langchain_message(m: Mapping[str, Any]) -> dict[str, Any]:
    """A LangChain ``AIMessage`` (as a ``ChatGeneration``'s ``message``) in the OpenAI chat shape.

    Its calls are LangChain ``ToolCall`` records (``name``, ``args``, ``id``) in ``tool_calls``, or the
    provider's OpenAI calls in ``additional_kwargs.tool_calls``.
    """
    calls = m.get("tool_calls")
    if isinstance(calls, list) and calls:
        calls = [{"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("args")}}
                 for c in calls if isinstance(c, Mapping)]
    else:
        extra = m.get("additional_kwargs")
        calls = extra.get("tool_calls") if isinstance(extra, Mapping) and isinstance(extra.get("tool_calls"), list) \
            else []
    return {"role": "assistant", "content": m.get("content"), "tool_calls": calls}


def _llamaindex_message(m: Mapping[str, Any]) -> dict[str, Any]:
    """A LlamaIndex ``ChatMessage`` (``role``, ``blocks``, ``additional_kwargs``) in the OpenAI chat shape.

    Its text is its ``text`` blocks; its calls are the provider's OpenAI calls in
    ``additional_kwargs.tool_calls``.
    """
    raw_blocks = m.get("blocks")
    blocks: list[Any] = raw_blocks if isinstance(raw_blocks, list) else []
    text = "\n".join(as_text(b.get("text")) for b in blocks
                     if isinstance(b, Mapping) and b.get("block_type", "text") == "text" and b.get("text"))
    extra = m.get("additional_kwargs")
    calls = extra.get("tool_calls") if isinstance(extra, Mapping) and isinstance(extra.get("tool_calls"), list) \
        else []
    content = m.get("content") if m.get("content") is not None else text
    return {"role": m.get("role") or "assistant", "content": content, "tool_calls": calls}


def _anyagent_output(a: Mapping[str, Any]) -> list[_Msg]:
    """any-agent's ``gen_ai.output`` (older: ``genai.output``): the text, or the model's tool calls.

    The calls come as a JSON list of OpenAI calls (``function``/``name``), of any-agent's own
    ``{"tool.name", "tool.args"}`` records (its smolagents, LlamaIndex and Agno traces), or as a
    LangChain ``ChatGeneration`` (its LangChain/LangGraph traces) or a LlamaIndex ``ChatMessage``
    (its LlamaIndex traces).
    """
    raw = _first(a, "gen_ai.output", "genai.output")
    if raw is None:
        return []
    doc = _json_value(raw)
    if isinstance(doc, list) and doc and all(isinstance(c, Mapping) for c in doc):
        if all("tool.name" in c for c in doc):
            doc = [{"function": {"name": c.get("tool.name"), "arguments": c.get("tool.args")}} for c in doc]
        if all("function" in c or "name" in c for c in doc):
            return _genai_messages([{"role": "assistant", "tool_calls": doc}])
    if isinstance(doc, Mapping):
        if isinstance(doc.get("message"), Mapping) and isinstance(doc.get("type"), str) \
                and doc.get("type") in _LANGCHAIN_GENERATIONS:
            doc = _langchain_message(doc["message"])
        elif "blocks" in doc or "additional_kwargs" in doc:
            doc = _llamaindex_message(doc)
        if "role" in doc or "tool_calls" in doc:
            return _genai_messages([doc])
    return [_Msg(role="assistant", text=as_text(raw))]


def _first_user_text(msgs: list[_Msg]) -> str:
    return next((m.text for m in msgs if m.role in ("user", "human") and m.text.strip()), "")


def _input_text(span: Span) -> str:
    """Task-like text of a span's input: its first user message or ``input.value``."""
    text = _first_user_text(_input_messages(span))
    if text:
        return text
    val = span.attrs.get("input.value")
    if val is None:
        return ""
    doc = _json_value(val)
    if isinstance(doc, Mapping):
        for k in ("task", "question", "input", "query", "prompt", "instruction", "user_message"):
            if isinstance(doc.get(k), str) and doc[k].strip():
                return str(doc[k])
        return as_text(doc)
    return as_text(doc)


# ---------------------------------------------------------------------------------------------
# TRAIL categories -> taxonomy

_TRAIL_MAP: tuple[tuple[str, Category], ...] = (
    ("hallucination", Category.HALLUCINATION), ("language-only", Category.HALLUCINATION),
    ("tool-related", Category.HALLUCINATION), ("poor information retrieval", Category.EVIDENCE_ACTION_GAP),
    ("tool output misinterpretation", Category.EVIDENCE_ACTION_GAP),
    ("incorrect problem identification", Category.PLANNING_ERROR), ("tool selection", Category.PLANNING_ERROR),
    ("task orchestration", Category.PLANNING_ERROR), ("context handling", Category.ERROR_ACCUMULATION),
    ("resource abuse", Category.REPEATED_ACTION), ("goal deviation", Category.GOAL_DRIFT),
    ("rate limit", Category.ENVIRONMENT_FAILURE), ("authentication", Category.ENVIRONMENT_FAILURE),
    ("service error", Category.ENVIRONMENT_FAILURE), ("resource not found", Category.ENVIRONMENT_FAILURE),
    ("resource exhaustion", Category.ENVIRONMENT_FAILURE), ("timeout", Category.ENVIRONMENT_FAILURE),
    ("environment setup", Category.ENVIRONMENT_FAILURE), ("tool definition", Category.ENVIRONMENT_FAILURE),
)


def trail_category(name: str) -> str:
    """Taxonomy id for a TRAIL error category (``other`` when none fits)."""
    low = name.lower()
    for needle, cat in _TRAIL_MAP:
        if needle in low:
            return str(cat)
    return str(Category.OTHER)


# ---------------------------------------------------------------------------------------------
# trace -> trajectory


class _Trace:
    """Span tree helpers for one trace."""

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self.by_id = {s.span_id: s for s in spans}
        self.kinds = {s.span_id: s.kind for s in spans}
        roots = [s for s in spans if not s.parent_id or s.parent_id not in self.by_id]
        self.root = min(roots or spans, key=self._key)

    @staticmethod
    def _key(s: Span) -> tuple[int, int]:
        return (s.start_ns if s.start_ns is not None else 0, s.order)

    def ancestors(self, span: Span) -> Iterator[Span]:
        seen = {span.span_id}
        cur = span.parent_id
        while cur and cur in self.by_id and cur not in seen:
            seen.add(cur)
            p = self.by_id[cur]
            yield p
            cur = p.parent_id

    def agent_of(self, span: Span) -> str | None:
        own = _first(span.attrs, "gen_ai.agent.name", "agent.name")
        if own:
            return str(own)
        chain: str | None = None
        for p in self.ancestors(span):
            k = self.kinds[p.span_id]
            if k == "AGENT":
                return _agent_name(p)
            if k == "CHAIN" and chain is None and p is not self.root:
                chain = _agent_name(p)
        if chain is None:  # parents not in the file (Google ADK traces): the run's only agent, if one
            agents = {_agent_name(s) for s in self.spans if self.kinds[s.span_id] == "AGENT"}
            if len(agents) == 1:
                return next(iter(agents))
        return chain

    def step_spans(self) -> list[Span]:
        out = []
        for s in self.spans:
            k = self.kinds[s.span_id]
            if k not in _STEP_KINDS:
                continue
            parent = self.by_id.get(s.parent_id or "")
            if k == "LLM" and parent is not None and self.kinds[parent.span_id] == "LLM":
                continue
            out.append(s)
        containers: set[str] = set()
        for s in out:
            for p in self.ancestors(s):
                containers.add(p.span_id)
        timed = all(s.start_ns is not None for s in out)

        def key(s: Span) -> tuple[int, int]:
            if not timed:
                return (0, s.order)
            t = s.end_ns if s.span_id in containers and s.end_ns is not None else s.start_ns
            return (t or 0, s.order)

        return sorted(out, key=key)


def _agent_name(span: Span) -> str:
    name = _first(span.attrs, "gen_ai.agent.name", "agent.name")
    if name:
        return str(name)
    for prefix in ("invoke_agent ", "create_agent "):
        if span.name.startswith(prefix):
            return span.name[len(prefix):]
    return span.name or span.span_id


def _model_of(span: Span) -> str | None:
    m = _first(span.attrs, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
    return None if m is None else str(m)


def _exception_text(span: Span) -> str | None:
    for ev in span.events:
        if ev["name"] == "exception":
            ea = ev["attributes"]
            kind, msg = ea.get("exception.type"), ea.get("exception.message")
            return ": ".join(str(x) for x in (kind, msg) if x) or "exception"
    return None


def _step_base(span: Span) -> dict[str, Any]:
    dur = (span.end_ns - span.start_ns) / 1e9 if span.start_ns is not None and span.end_ns is not None else None
    return {"span_id": span.span_id, "parent_span_id": span.parent_id, "timestamp": _iso(span.start_ns),
            "duration_s": dur if dur is None or dur >= 0 else None,
            "native_step_id": span.native_id or span.span_id}


def _llm_steps(span: Span, agent: str, steps: list[Step]) -> None:
    out = _output_message(span)
    base = _step_base(span)
    first = len(steps)

    def add(**kw: Any) -> None:
        steps.append(Step(index=len(steps), agent=agent, role=Role.ASSISTANT, **base, **kw))

    if out.reasoning.strip():
        add(kind=StepKind.THOUGHT, text=out.reasoning)
    for i, (cid, name, args) in enumerate(out.calls):
        add(kind=StepKind.TOOL_CALL, text=out.text if i == 0 else "", tool_name=name, tool_args=args_text(args),
            tool_call_id=cid)
    if not out.calls and (out.text.strip() or len(steps) == first):
        add(kind=StepKind.MESSAGE, text=out.text)
    a = span.attrs
    st = steps[first]
    st.tokens_in = _int(_first(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"))
    st.tokens_out = _int(_first(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                                "llm.token_count.completion"))
    meta: dict[str, Any] = {"span_name": span.name, "span_kind": "LLM"}
    if _model_of(span):
        meta["model"] = _model_of(span)
    if out.finish_reason:
        meta["finish_reason"] = out.finish_reason
    if span.status == "ERROR":
        st.is_error, st.error_text = True, span.status_message or _exception_text(span) or "LLM call failed"
    st.metadata.update(meta)


def _call_args(value: Any) -> Any:
    """Tool arguments, unwrapping smolagents' ``{"args": [], "sandbox": ..., "kwargs": {...}}`` input.

    A Python dict literal (``{'timezone': 'America/New_York'}``: LangChain tools' input as
    any-agent records it) is read as the dict it writes, and JSON arguments written as a JSON
    string (any-agent's OpenAI Agents traces) are unwrapped.
    """
    doc = _json_value(value)
    if isinstance(doc, str) and doc.strip()[:1] == '"':  # JSON arguments inside a JSON string (OpenAI Agents)
        try:
            inner = orjson.loads(doc.strip())
        except orjson.JSONDecodeError:
            inner = None
        if isinstance(inner, str) and inner.lstrip()[:1] in ("{", "["):
            value = inner
            doc = _json_value(inner)
    if (isinstance(doc, Mapping) and isinstance(doc.get("kwargs"), Mapping) and not doc.get("args")
            and set(doc) <= {"args", "kwargs", "sandbox"}):
        return dict(doc["kwargs"])
    if isinstance(doc, str) and doc.lstrip()[:1] == "{" and len(doc) <= _LITERAL_CHARS:
        try:
            lit = ast.literal_eval(doc)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
        if isinstance(lit, dict):
            return lit
    return value


_MCP_REPR_TEXT_RE = re.compile(r"TextContent\(type='text', text=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
_MCP_TEXT_KEYS = frozenset({"type", "text", "annotations", "meta", "_meta"})
_MCP_RESULT_KEYS = frozenset({"content", "isError", "meta", "structuredContent", "_meta"})


def _mcp_text(text: str) -> str | None:
    """The text of an MCP tool result, or None when ``text`` is not one.

    any-agent writes an MCP tool's result as JSON (``{"type": "text", "text": ...}``, a list of
    them, or ``{"content": [...], "isError": ...}``) or as the Python repr of a
    ``CallToolResult`` (``meta=None content=[TextContent(type='text', text='...')] ...``).
    """
    s = text.strip()
    if s.startswith(("meta=", "content=[")) and "TextContent(" in s:
        parts: list[str] = []
        for m in _MCP_REPR_TEXT_RE.finditer(s[:_LITERAL_CHARS]):
            try:
                parts.append(str(ast.literal_eval(m.group(1))))
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return None
        return "\n".join(parts) if parts else None
    doc = _json_value(s)
    if isinstance(doc, Mapping) and isinstance(doc.get("content"), list) and set(doc) <= _MCP_RESULT_KEYS:
        doc = doc["content"]
    items = doc if isinstance(doc, list) else [doc]
    if items and all(isinstance(d, Mapping) and d.get("type") == "text" and isinstance(d.get("text"), str)
                     and set(d) <= _MCP_TEXT_KEYS for d in items):
        return "\n".join(str(d["text"]) for d in items)
    return None


def _tool_result_text(result: Any) -> str:
    """A tool span's result as text.

    A JSON string literal (a quoted ``"2025"``, as any-agent's LangChain traces write a tool's
    output) is unquoted, a bare ``null`` is no output, and an MCP result is its text
    (:func:`_mcp_text`).
    """
    text = as_text(result)
    stripped = text.strip()
    if stripped == "null":
        return ""
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        try:
            inner = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            return text
        if isinstance(inner, str):
            text = "" if inner.strip() == "null" else inner
    mcp = _mcp_text(text)
    return text if mcp is None else mcp


def _tool_step(span: Span, agent: str | None, steps: list[Step]) -> None:
    a = span.attrs
    kind = "RETRIEVER" if span.kind == "RETRIEVER" else "TOOL"
    name = _first(a, "gen_ai.tool.name", "tool.name", "tool_call.function.name")
    if name is None:
        name = span.name.removeprefix("execute_tool ") or ("retriever" if kind == "RETRIEVER" else None)
    args = _call_args(_first(a, "gen_ai.tool.call.arguments", "gen_ai.tool.args", "tool_call.function.arguments",
                             "input.value"))
    result = _first(a, "gen_ai.tool.call.result", "output.value", "gen_ai.output", "genai.output")
    if result is None and kind == "RETRIEVER":
        docs = _indexed(a, "retrieval.documents")
        result = "\n\n".join(as_text(d.get("document.content")) for d in docs if d.get("document.content"))
    exc = _exception_text(span)
    is_err = span.status == "ERROR" or exc is not None
    err = (span.status_message or exc or "tool span ended with status ERROR") if is_err else None
    steps.append(Step(index=len(steps), agent=agent or "tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                      text=_tool_result_text(result) if result is not None else (err or ""),
                      tool_name=None if name is None else str(name), tool_args=args_text(args),
                      tool_call_id=_opt(_first(a, "gen_ai.tool.call.id", "tool_call.id")),
                      is_error=is_err, error_text=err[:2000] if err else None,
                      metadata={"span_name": span.name, "span_kind": kind}, **_step_base(span)))


def _run_attrs(root: Span) -> list[Mapping[str, Any]]:
    sources: list[Mapping[str, Any]] = [root.attrs, root.resource]
    meta = _json_value(root.attrs.get("metadata"))
    if isinstance(meta, Mapping):
        sources.append(_flatten(meta))
    return sources


def _lookup(sources: list[Mapping[str, Any]], *keys: str) -> Any:
    for src in sources:
        v = _first(src, *keys)
        if v is not None:
            return v
    return None


def _dedupe_spans(spans: list[Span]) -> list[Span]:
    """One span per written-twice span: the same id, name and start (the ended copy is kept).

    any-agent's OpenAI Agents traces repeat a tool span. Spans that only share an id (a
    redacted or broken exporter) are different spans and all kept.
    """
    kept: dict[tuple[str, str, int | None], Span] = {}
    for s in spans:
        key = (s.span_id, s.name, s.start_ns)
        had = kept.get(key)
        if had is None or (had.end_ns is None and s.end_ns is not None):
            kept[key] = s
    return spans if len(kept) == len(spans) else [s for s in spans if kept[(s.span_id, s.name, s.start_ns)] is s]


def _link_call_ids(steps: list[Step]) -> None:
    """Give a model's id-less tool call the id of the tool span that ran it.

    Some traces (any-agent's Agno and Google ADK runs) log the call id only on the tool span:
    the observation's id goes to the nearest earlier call of the same tool that has none.
    """
    ids = {s.tool_call_id for s in steps if s.kind == StepKind.TOOL_CALL and s.tool_call_id}
    for i, obs in enumerate(steps):
        if obs.kind != StepKind.OBSERVATION or not obs.tool_call_id or obs.tool_call_id in ids:
            continue
        call = next((s for s in reversed(steps[:i]) if s.kind == StepKind.TOOL_CALL and s.tool_call_id is None
                     and s.tool_name == obs.tool_name), None)
        if call is not None:
            call.tool_call_id = obs.tool_call_id
            ids.add(obs.tool_call_id)


_FINAL_TOOLS = frozenset({"final_answer", "final_output"})


def _final_tool_answer(st: Step) -> str | None:
    """The answer a final-answer tool's output holds.

    smolagents' ``final_answer`` returns it; any-agent's ``final_output`` tool returns
    ``{"success": true, "result": "..."}`` (its ``result`` when it succeeded).
    """
    if st.tool_name == "final_output":
        doc = _json_value(st.text)
        if isinstance(doc, Mapping) and "success" in doc:
            res = doc.get("result")
            return as_text(res) if doc.get("success") is True and res is not None and as_text(res).strip() else None
    return st.text if st.text.strip() else None


def build_trajectory(trace_id: str, spans: list[Span], labels: Mapping[str, Any] | None,
                     variant: str) -> Trajectory | None:
    """One trajectory from the spans of one trace; None when no span makes a step."""
    spans = _dedupe_spans(spans)
    tr = _Trace(spans)
    step_spans = tr.step_spans()
    if not step_spans:
        return None
    root = tr.root
    task = _input_text(root)
    task_span = root
    if not task:
        llm = next((s for s in step_spans if tr.kinds[s.span_id] == "LLM"), None)
        if llm is not None:
            task, task_span = _first_user_text(_input_messages(llm)), llm
    steps: list[Step] = []
    if task:
        steps.append(Step(index=0, agent="user", role=Role.USER, kind=StepKind.USER, text=task,
                          span_id=task_span.span_id, parent_span_id=task_span.parent_id,
                          native_step_id=task_span.native_id or task_span.span_id,
                          timestamp=_iso(task_span.start_ns), metadata={"source": "task"}))
    first_step: dict[str, int] = {}
    for s in step_spans:
        start = len(steps)
        agent = tr.agent_of(s)
        if tr.kinds[s.span_id] == "LLM":
            _llm_steps(s, agent or "assistant", steps)
        else:
            _tool_step(s, agent, steps)
        for sid in (s.span_id, *(p.span_id for p in tr.ancestors(s))):
            first_step.setdefault(sid, start)
    _link_call_ids(steps)

    sources = _run_attrs(root)
    outcome, score, raw = outcome_value(_lookup(sources, "trajscope.outcome", "outcome", "success", "resolved"))
    num = _lookup(sources, "trajscope.score", "score", "reward")
    if isinstance(num, (int, float)) and not isinstance(num, bool):
        score = float(num)
    if outcome == Outcome.UNKNOWN and raw is None and root.status == "ERROR":
        outcome, raw = Outcome.FAILURE, "root span status ERROR"
    answer = _lookup(sources, "trajscope.final_answer", "final_answer")
    if answer is None and root.attrs.get("output.value") is not None:
        msgs = _value_messages(root.attrs["output.value"])
        answer = msgs[-1].text if msgs else as_text(root.attrs["output.value"])
    if answer is None:  # smolagents and any-agent end a run by calling a final-answer tool
        answer = next((a for st in reversed(steps) if st.kind == StepKind.OBSERVATION
                       and st.tool_name in _FINAL_TOOLS and (a := _final_tool_answer(st))), None)
    if answer is None:
        answer = next((st.text for st in reversed(steps) if st.kind == StepKind.MESSAGE and st.text.strip()), None)
    truth = _lookup(sources, "trajscope.ground_truth", "ground_truth", "expected_answer")
    family = _lookup(sources, "trajscope.task_family", "task_family")
    models = [m for m in (st.metadata.get("model") for st in steps) if m]
    has_oi = any("openinference.span.kind" in s.attrs for s in spans)

    meta: dict[str, Any] = {"otel_format": variant, "span_count": len(spans), "root_span": root.name}
    planted = _json_value(_lookup(sources, "trajscope.planted", "planted"))
    if planted is not None:
        meta["planted"] = planted
    service = root.resource.get("service.name")
    if service:
        meta["service_name"] = service
    if root.status != "UNSET":
        meta["root_status"] = root.status
    if labels:
        errors = labels.get("errors")
        meta["trail_labels"] = [
            {"category": e.get("category"), "taxonomy": trail_category(str(e.get("category") or "")),
             "location": norm_id(e.get("location")), "step": first_step.get(norm_id(e.get("location")) or ""),
             "evidence": e.get("evidence"), "description": e.get("description"), "impact": e.get("impact")}
            for e in (errors if isinstance(errors, list) else []) if isinstance(e, Mapping)]
        if labels.get("scores") is not None:
            meta["trail_scores"] = labels.get("scores")

    framework = _lookup(sources, "trajscope.framework")
    return Trajectory(
        native_id=trace_id,
        record=f"trace {trace_id}",
        task=task,
        model=models[0] if models else None,
        framework=str(framework) if framework else ("openinference" if has_oi else "otel-genai"),
        outcome=outcome,
        outcome_raw=raw,
        score=score,
        final_answer=None if answer is None else as_text(answer),
        ground_truth=None if truth is None else as_text(truth),
        task_family=None if family is None else as_text(family),
        metadata=meta,
        steps=steps,
    )


# ---------------------------------------------------------------------------------------------
# importer


class OtelImporter:
    """Reads OpenTelemetry span exports (OTLP JSON, flat span rows, Phoenix, TRAIL)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON that looks like a span export.

        Signs: OTLP containers, GenAI/OpenInference keys on spans, nested ``child_spans``, or
        span rows with ``span_id`` and ``parent_id``.
        """
        if first_json_char(head) not in "{[":
            return False
        if b'"resourceSpans"' in head or b'"resource_spans"' in head or b"child_spans" in head:
            return True
        spanish = any(k in head for k in (b'"span_id"', b'"spanId"', b"span_id\\\"", b'"spans"'))
        if spanish and (b"openinference.span.kind" in head or b'"gen_ai.' in head):
            return True
        if b'"span_id"' in head and b'"parent_id"' in head:
            return True
        return len(head) >= 65536 and _outline_claims(outline(path))  # keys past the head window

    variant: str | None = None
    """Overrides the per-trace container variant in ``metadata.otel_format`` (subclasses)."""

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace id found in the file."""
        col = collect_spans(path, ctx)
        yield from emit_trajectories(col, ctx, self.variant)


def _outline_claims(o: Outline) -> bool:
    """Structural check for files whose decisive keys sit past the first 64 KB."""
    if o.any_of("", "resourceSpans", "resource_spans"):
        return True
    for p in ("", "spans[]", "data[]"):
        keys = o.at(p)
        if any(k in keys for k in ("span_id", "spanId", "context")) and any(
                k in keys for k in ("trace_id", "traceId", "name", "span_name")):
            return True
    return o.has("", "trace") and o.any_of("trace", "spans", "trace_id")


def collect_spans(path: Path, ctx: ImportContext) -> _Collector:
    """Gather the spans of a span file: JSONL, one JSON document, or concatenated JSON objects.

    Raises:
        ImportFailure: When the file holds no readable span at all.
    """
    col = _Collector(ctx)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for lineno, obj in iter_jsonl_exact(path, ctx):
            where = f"line {lineno}"
            try:
                if not col.add_doc(obj, where):
                    ctx.error(where, imsg("otel_line_not_span"))
            except ImportFailure as exc:
                ctx.error(exc.record or where, wrap("otel_line_skipped", exc.message or exc.reason))
    else:
        values = read_json_values(path, ctx)
        if len(values) == 1 and values[0][0] == "$":
            col.document = values[0][1]
            if not col.add_doc(values[0][1], "$"):
                raise ImportFailure(imsg("otel_not_export"))
        else:
            for where, obj in values:
                try:
                    if not col.add_doc(obj, where):
                        ctx.error(where, imsg("otel_object_not_span"))
                except ImportFailure as exc:
                    ctx.error(exc.record or where, wrap("otel_object_skipped", exc.message or exc.reason))
    if not col.traces:
        raise ImportFailure(imsg("no_spans_found"))
    return col


def emit_trajectories(col: _Collector, ctx: ImportContext, variant: str | None = None,
                      framework: str | None = None) -> Iterator[Trajectory]:
    """Build one trajectory per collected trace; a bad trace is reported and skipped."""
    for tid, spans in col.traces.items():
        if ctx.cancel.cancelled:
            return
        try:
            t = build_trajectory(tid, spans, col.labels.get(tid), variant or col.variants.get(tid, "flat"))
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
            ctx.error(f"trace {tid}", imsg("otel_unexpected_trace", error=f"{type(exc).__name__}: {exc}"))
            continue
        if t is None:
            ctx.error(f"trace {tid}", imsg("otel_no_steps"))
            continue
        if framework and t.framework in ("otel-genai", "openinference"):
            t.framework = framework
        yield sanitize(t)
