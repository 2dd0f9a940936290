"""Guarded JSON reading shared by importers: size caps, encodings, binary and nesting checks.

Every function turns a bad input into :class:`analyzer.errors.ImportFailure` (whole file)
or a per-record error reported through the import context, never a crash or a hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from analyzer.errors import ImportFailure
from analyzer.plugin_host.protocols import ImportContext

MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
"""Largest single JSON document read whole (bigger files must be JSONL or a zip)."""

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest JSONL line parsed; longer lines are reported and skipped without being held."""

_CHUNK = 1 << 20


def decode_text(raw: bytes, where: str = "file") -> str:
    """Decode bytes as UTF-8 (BOM allowed) or raise a plain-words failure."""
    if b"\x00" in raw[:8192]:
        raise ImportFailure(f"{where} looks binary (contains NUL bytes), not JSON text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailure(f"{where} is not valid UTF-8 (byte {exc.start})") from None


def parse_json(raw: bytes | str, where: str = "file") -> Any:
    """Parse one JSON value with clear errors for empty, truncated and too-deep input."""
    if isinstance(raw, bytes):
        raw = decode_text(raw, where)
    if not raw.strip():
        raise ImportFailure(f"{where} is empty")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        msg = str(exc)
        if "recursion" in msg.lower():
            raise ImportFailure(f"{where} is nested too deeply to read safely") from None
        if "unexpected end" in msg.lower() or "eof" in msg.lower():
            raise ImportFailure(f"{where} is truncated or incomplete JSON ({msg})") from None
        raise ImportFailure(f"{where} is not valid JSON ({msg})") from None


def read_json_document(path: Path, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Read a whole-file JSON document with a size cap."""
    size = path.stat().st_size
    if size == 0:
        raise ImportFailure("file is empty")
    if size > max_bytes:
        raise ImportFailure(f"file is {size / 1e6:.0f} MB, over the {max_bytes / 1e6:.0f} MB limit for one JSON document")
    return parse_json(path.read_bytes(), "file")


def iter_jsonl(path: Path, ctx: ImportContext, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each good line of a JSONL file, streaming.

    Bad lines (invalid JSON, not UTF-8, over ``max_line_bytes``) are reported through
    ``ctx.error`` as ``line N`` and skipped. Blank lines are ignored. The cancel token is
    checked every line.
    """
    with path.open("rb") as fh:
        lineno = 0
        while True:
            if ctx.cancel.cancelled:
                return
            line = fh.readline(max_line_bytes + 1)
            if not line:
                return
            lineno += 1
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                # Skip the rest of the oversized line without holding it.
                while True:
                    chunk = fh.readline(_CHUNK)
                    if not chunk or chunk.endswith(b"\n"):
                        break
                ctx.error(f"line {lineno}", f"line is longer than {max_line_bytes // (1024 * 1024)} MB; skipped")
                continue
            if not line.strip():
                continue
            try:
                yield lineno, parse_json(line, f"line {lineno}")
            except ImportFailure as exc:
                ctx.error(f"line {lineno}", exc.reason)


def head_bytes(path: Path, n: int = 65536) -> bytes:
    """First ``n`` bytes of a file."""
    with path.open("rb") as fh:
        return fh.read(n)


def first_json_char(head: bytes) -> str:
    """First non-whitespace character of a text head (after a UTF-8 BOM), or ''."""
    s = head.lstrip(b"\xef\xbb\xbf").lstrip()
    return chr(s[0]) if s else ""


def as_text(value: Any) -> str:
    """Best-effort plain text of a content value (str, list of parts, dict, None)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for p in value:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict):
                for key in ("text", "content", "thinking", "reasoning", "output", "result"):
                    if isinstance(p.get(key), str):
                        parts.append(p[key])
                        break
                else:
                    parts.append(orjson.dumps(p, default=str).decode())
            else:
                parts.append(str(p))
        return "\n".join(parts)
    if isinstance(value, dict):
        for key in ("text", "content"):
            if isinstance(value.get(key), str):
                return str(value[key])
        return orjson.dumps(value, default=str).decode()
    return str(value)


def args_text(value: Any) -> str | None:
    """Tool arguments as JSON text: objects are serialised, strings kept raw (parsed or not)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()
