"""OpenTelemetry SDK span JSON: ``ReadableSpan.to_json()`` (ConsoleSpanExporter, any-agent).

Shapes accepted (``.json``, ``.jsonl``, ``.ndjson``):

* concatenated pretty-printed span objects (``ConsoleSpanExporter`` output redirected to a
  file), or one span object per JSONL line;
* a list of span objects, or ``{"spans": [...]}`` (any-agent's ``AgentTrace`` dump, with
  ``final_output`` next to the spans).

A span (``opentelemetry.sdk.trace.ReadableSpan.to_json``)::

    {"name": "execute_tool search", "context": {"trace_id": "0x5b8a…", "span_id": "0x051f…",
     "trace_state": "[]"}, "kind": "SpanKind.INTERNAL", "parent_id": "0x8a3c…" | null,
     "start_time": "2025-05-21T11:17:58.532150Z", "end_time": "…",
     "status": {"status_code": "OK" | "ERROR" | "UNSET", "description": "…"},
     "attributes": {"gen_ai.operation.name": "execute_tool", …}, "events": [{"name",
     "timestamp", "attributes"}], "links": [], "resource": {"attributes": {…}, "schema_url": ""}}

any-agent writes the same fields with integer ids (128-bit trace ids, read exactly),
``parent: {trace_id, span_id}`` objects, epoch-nanosecond times and lower-case status codes.
Attributes follow the GenAI semantic conventions (``gen_ai.operation.name`` chat/call_llm/
execute_tool/invoke_agent, ``gen_ai.input.messages``, ``gen_ai.output`` (any-agent: the text or
a JSON list of tool calls), ``gen_ai.tool.name``/``gen_ai.tool.args``, ``gen_ai.usage.*``) or
OpenInference. The span tree becomes steps exactly as in :mod:`plugins.importers.otel` (one
trajectory per trace id; the span id, as ``0x``-less hex or the integer as written, is each step's
``native_step_id``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from analyzer.loading.jsonio import first_json_char
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Trajectory
from plugins.importers._outline import Outline, outline
from plugins.importers.otel import _Collector, collect_spans, emit_trajectories

_SDK_KEYS = ("kind", "parent", "parent_id", "resource", "links", "status")


def _sdk_span(o: Outline, path: str) -> bool:
    keys = o.at(path)
    ctx = f"{path}.context" if path else "context"
    return ("name" in keys and "context" in keys and o.any_of(ctx, "span_id", "spanId")
            and any(k in keys for k in _SDK_KEYS) and "span_kind" not in keys
            and "status_code" not in keys and "start_time_unix_nano" not in keys)


def claims(o: Outline) -> bool:
    """True for the outline of an SDK span file (first record is a ``to_json()`` span)."""
    if o.container in ("object", "values", "lines", "array") and _sdk_span(o, ""):
        return True
    return o.container in ("object", "values") and _sdk_span(o, "spans[]")


class OtelSdkImporter:
    """Reads ``ReadableSpan.to_json()`` output (ConsoleSpanExporter, any-agent traces)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims files whose first span object has ``name``, ``context.span_id`` and SDK keys."""
        if first_json_char(head) not in "{[":
            return False
        return claims(outline(path))

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace id."""
        col = collect_spans(path, ctx)
        final = _final_output(col)
        for t in emit_trajectories(col, ctx, "otel-sdk"):
            if final is not None and len(col.traces) == 1:
                t.final_answer = final
            yield t


def _final_output(col: _Collector) -> str | None:
    """any-agent's ``final_output`` next to the spans (a structured output as JSON; ``{}`` is none)."""
    doc = col.document
    out = doc.get("final_output") if isinstance(doc, dict) else None
    if isinstance(out, str):
        return out
    if isinstance(out, (dict, list)) and out:
        return orjson.dumps(out).decode()
    return None
