"""Reading helpers shared by the span/run-export importers.

* :func:`read_json_values`: one JSON document, or several concatenated JSON objects (what
  opentelemetry-sdk's ``ConsoleSpanExporter`` writes: one pretty-printed ``to_json()`` object
  per span, back to back). Integers beyond 64 bits (any-agent writes 128-bit trace ids as
  integers) are read exactly. A bad object in a concatenated file is reported with its line
  and the reader resumes at the next line that starts with ``{``.
* :func:`iter_top_records`: the records of a "one record per item" export (JSONL line, list
  item, an object, or the items of a wrapper key such as ``{"runs": [...]}``).
* :func:`decode_json_string`: the second decode that Langfuse/MLflow string fields need.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from analyzer import guard
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import (
    MAX_DOCUMENT_BYTES,
    decode_text,
    iter_jsonl,
    lenient_raw_decode,
    loads,
    salvage_records,
)
from analyzer.plugin_host.protocols import ImportContext
from analyzer.reasons import reason
from analyzer.schema.models import Trajectory

_NEXT_OBJECT = re.compile(r"\n(?=\{)")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def read_json_values(path: Path, ctx: ImportContext, max_bytes: int = MAX_DOCUMENT_BYTES,
                     records: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    """Parse a file holding one JSON document or several concatenated JSON objects.

    Returns:
        ``[("$", doc)]`` for one document; ``[("object 2 (line 41)", value), ...]`` for
        concatenated objects (bad objects are reported through ``ctx`` and skipped).

    Raises:
        ImportFailure: For an empty, oversized, binary, non-UTF-8 or truncated single document.
    """
    size = path.stat().st_size
    if size == 0:
        raise ImportFailure(reason("file_empty"))
    if size > max_bytes:
        raise ImportFailure(imsg("document_over_limit", size=f"{size / 1e6:.0f}", limit=f"{max_bytes / 1e6:.0f}"))
    raw = path.read_bytes()
    try:
        doc = loads(raw, "file")
    except ImportFailure as exc:
        failure = exc
    else:
        return [("$", doc)]
    if records and failure.message is not None and failure.message.id in ("json_invalid", "json_truncated"):
        salvaged = salvage_records(raw, records)
        if salvaged is not None:
            return [("$", salvaged)]
    text = failure.reason
    if ("unexpected content after document" not in text and "more data after the end" not in text
            and "trailing" not in text):
        raise ImportFailure(failure.message or text)
    return _concatenated(decode_text(raw, "file"), ctx)


def _concatenated(text: str, ctx: ImportContext) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos, n = 0, len(text)
    count = 0
    while pos < n:
        while pos < n and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= n:
            break
        count += 1
        line = _line_of(text, pos)
        where = f"object {count} (line {line})"
        try:
            value, end = lenient_raw_decode(text, pos)
            value = guard.limit_depth(value, end - pos)
        except (json.JSONDecodeError, RecursionError) as exc:
            m = _NEXT_OBJECT.search(text, pos + 1)
            then = "next" if m else "rest"
            if isinstance(exc, RecursionError):
                ctx.error(where, imsg(f"object_too_deep_{then}"))
            else:
                ctx.error(where, imsg(f"object_invalid_{then}",
                                      error=f"{exc.msg} at line {exc.lineno}, column {exc.colno}"))
            if not m:
                break
            pos = m.end()
            continue
        out.append((where, value))
        pos = end
    if not out:
        raise ImportFailure(imsg("no_json_object"))
    return out


def decode_json_string(value: Any) -> Any:
    """Decode a JSON text held in a string field (an object, array or quoted string); else the value."""
    if isinstance(value, str):
        s = value.strip()
        if s[:1] in ("{", "[", '"') or s in ("null", "true", "false"):
            try:
                return loads(s, "value")
            except ImportFailure:
                return value
    return value


def iter_jsonl_exact(path: Path, ctx: ImportContext, max_line_bytes: int | None = None) -> Iterator[tuple[int, Any]]:
    """:func:`analyzer.loading.jsonio.iter_jsonl` (which reads 20+-digit integers exactly)."""
    yield from iter_jsonl(path, ctx, max_line_bytes)


def iter_top_records(path: Path, ctx: ImportContext, wrappers: Sequence[str] = ()) -> Iterator[tuple[str, Any]]:
    """Yield ``(locator, record)`` for a one-record-per-item export.

    ``.jsonl``/``.ndjson``: one record per line (``line N``; bad lines reported). Otherwise the
    document: a list (``[i]``), an object holding a list under one of ``wrappers``
    (``runs[i]``), or one object (``$``); concatenated objects are records too.
    """
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for lineno, obj in iter_jsonl_exact(path, ctx):
            yield f"line {lineno}", obj
        return
    for where, doc in read_json_values(path, ctx, records=("", *wrappers)):
        prefix = "" if where == "$" else f"{where} "
        if isinstance(doc, list):
            for i, obj in enumerate(doc):
                if ctx.cancel.cancelled:
                    return
                if isinstance(obj, DamagedRecord):
                    ctx.error(f"{prefix}[{i}]", obj.message)
                    continue
                yield f"{prefix}[{i}]", obj
            continue
        if isinstance(doc, dict):
            key = next((k for k in wrappers if isinstance(doc.get(k), list)), None)
            if key is not None:
                for i, obj in enumerate(doc[key]):
                    if ctx.cancel.cancelled:
                        return
                    if isinstance(obj, DamagedRecord):
                        ctx.error(f"{prefix}{key}[{i}]", obj.message)
                        continue
                    yield f"{prefix}{key}[{i}]", obj
                continue
        yield where, doc


MAX_KEPT_JSON = 20_000
"""Longest JSON text kept for a source value that the frames cannot serialise as-is."""


def safe_json_value(value: Any) -> Any:
    """A metadata value the frames can serialise (orjson: <= 254 levels, 64-bit ints, valid UTF-8).

    Values that orjson refuses are kept as their (stdlib) JSON text, cut to
    :data:`MAX_KEPT_JSON` characters, or as a marker when even that fails (nesting beyond
    Python's recursion limit).
    """
    try:
        orjson.dumps(value, default=str)
        return value
    except TypeError:
        pass
    try:
        text = json.dumps(value, default=str, ensure_ascii=True)
    except (RecursionError, ValueError, TypeError):
        return "<value nested too deeply to keep>"
    return text if len(text) <= MAX_KEPT_JSON else text[:MAX_KEPT_JSON] + "…"


def clean_text(value: str | None) -> str | None:
    """Text with lone surrogates (possible in JSON escapes) replaced, so it encodes as UTF-8."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")


def sanitize(t: Trajectory) -> Trajectory:
    """Make a built trajectory safe for the frames: metadata values and texts (in place)."""
    t.metadata = {str(k): safe_json_value(v) for k, v in t.metadata.items()}
    for name in ("task", "final_answer", "ground_truth", "outcome_raw", "native_id", "model", "task_family"):
        v = getattr(t, name)
        if isinstance(v, str):
            setattr(t, name, clean_text(v))
    for st in t.steps:
        st.metadata = {str(k): safe_json_value(v) for k, v in st.metadata.items()}
        for name in ("text", "tool_name", "tool_args", "tool_call_id", "error_text", "agent", "span_id",
                     "parent_span_id", "native_step_id"):
            v = getattr(st, name)
            if isinstance(v, str):
                setattr(st, name, clean_text(v))
    return t
