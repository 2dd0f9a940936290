"""Plain-words diagnosis of a file that no importer claimed.

Instead of only "no importer recognised this file", say what is wrong with it when we can
tell cheaply: empty, binary, not UTF-8, invalid or truncated JSON, or valid JSON whose shape
no importer knows. Only the head of the file is read, except for JSON documents up to
:data:`FULL_PARSE_BYTES`, which are parsed whole to find where they break.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, message_of, wrap
from analyzer.loading.jsonio import parse_json
from analyzer.messages import Message, Param
from analyzer.reasons import reason

FULL_PARSE_BYTES = 16 * 1024 * 1024
"""JSON documents up to this size are parsed whole to find out why nobody claimed them."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF8", "gif"),
    (b"%PDF", "pdf"),
    (b"PK\x03\x04", "zip"),
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"SQLite format 3\x00", "sqlite"),
    (b"PAR1", "parquet"),
)
"""Magic bytes -> kind (message ``binary_<kind>`` of :mod:`analyzer.import_messages`)."""
_LINES_SUFFIXES = (".jsonl", ".ndjson")


def _shape(value: Any) -> str:
    """Short description of a parsed JSON value."""
    if isinstance(value, dict):
        keys = list(value)[:6]
        more = ", ..." if len(value) > 6 else ""
        return f"a JSON object with keys {', '.join(keys)}{more}" if keys else "an empty JSON object"
    if isinstance(value, list):
        if not value:
            return "an empty JSON list"
        kinds = sorted({_kind(v) for v in value[:100]})
        plural = "/".join(k + ("s" if len(value) > 1 else "") for k in kinds)
        return f"a JSON list of {len(value)} {plural}"
    return f"a JSON {_kind(value)} ({str(value)[:40]!r})" if not isinstance(value, str) else "a JSON string"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "object" if isinstance(value, dict) else "list"


def _text_problem(head: bytes, whole: bool) -> Message | None:
    """Binary / encoding problems visible in the head, or None."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return imsg(f"binary_{kind}")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return imsg("text_utf16")
    if b"\x00" in head[:8192]:
        return imsg("text_nul")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a multi-byte character cut by the end of the head is not an error
        if whole or exc.start < len(head) - 4:
            return imsg("text_not_utf8", offset=exc.start)
    return None


def _first_line(path: Path, limit: int) -> tuple[int, bytes] | None:
    with path.open("rb") as fh:
        for lineno in range(1, 101):
            line = fh.readline(limit + 1)
            if not line:
                return None
            if len(line) > limit:
                return None
            if line.strip():
                return lineno, line
    return None


def diagnose_unclaimed(path: Path, head: bytes, tried: list[str], closest: str | None = None) -> str | Message:
    """Reason to report for a file whose pattern matched importers but none claimed it.

    Args:
        path: The file.
        head: Its first bytes (as given to the sniffers).
        tried: Ids of the importers whose patterns matched.
        closest: What the closest importer found missing (``looks like Who&When but has no
            `history```), used for well-formed JSON whose shape nobody claimed.

    Returns:
        A reason naming what is wrong, ending with the importers tried: a load-problem message
        (:mod:`analyzer.reasons`), or plain words when it quotes the closest importer.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        return reason("cannot_read", error=str(exc.strerror or exc))
    if size == 0:
        return reason("file_empty")
    whole = size <= len(head)
    if whole and not head.strip():
        return reason("file_whitespace")
    problem = _text_problem(head, whole)
    if problem:
        return problem
    try:
        if path.suffix.lower() in _LINES_SUFFIXES:
            first = _first_line(path, FULL_PARSE_BYTES)
            if first is None:
                return _nobody(tried)
            lineno, line = first
            value = parse_json(line, f"line {lineno}")
            if closest:
                return _quote_closest(f"line {lineno} ", closest, tried, lineno)
            return _unknown_shape(f"line {lineno}", _shape(value), tried)
        if size > FULL_PARSE_BYTES:
            return _quote_closest("file ", closest, tried) if closest else _nobody(tried)
        value = parse_json(path.read_bytes(), "file")
    except ImportFailure as exc:
        return exc.message or exc.reason
    except (OSError, RecursionError, MemoryError) as exc:
        return reason("cannot_read", error=type(exc).__name__)
    if closest:
        return _quote_closest("file ", closest, tried)
    return _unknown_shape("file", _shape(value), tried)


def _quote_closest(where: str, closest: str, tried: list[str], lineno: int | None = None) -> str | Message:
    """``<where><closest> (tried: …)``: an importer message around the hint when it has one."""
    inner = message_of(closest)
    if inner is None:  # a third party's plain words: quoted as written
        return f"{where}{closest}" + (f" (tried: {', '.join(tried)})" if tried else "")
    base = "closest_line" if lineno is not None else "closest_file"
    params: dict[str, Param] = {"lineno": lineno} if lineno is not None else {}
    if tried:
        return wrap(base + "_tried", inner, tried=", ".join(tried), **params)
    return wrap(base, inner, **params)


def _nobody(tried: list[str]) -> Message:
    return reason("no_importer_tried", tried=", ".join(tried)) if tried else reason("no_importer")


def _unknown_shape(where: str, shape: str, tried: list[str]) -> Message:
    if tried:
        return reason("unknown_shape_tried", where=where, shape=shape, tried=", ".join(tried))
    return reason("unknown_shape", where=where, shape=shape)


def not_a_trace(path: Path, head: bytes, opened: bool) -> Message | None:
    """What a file no importer's pattern matches is, when that is worth a load problem; else None.

    An SQLite database is always named (it may well be a trace store: Phoenix spans saved to
    SQLite); any other file only when it was opened on its own (not found in a folder, where
    READMEs, images and logs are skipped quietly): binary data, or a kind no importer reads.

    Args:
        path: The file.
        head: Its first bytes.
        opened: True when the file was given itself (not found in a folder).
    """
    if head.startswith(b"SQLite format 3\x00"):
        return imsg("not_a_trace_sqlite")
    if not opened:
        return None
    problem = _text_problem(head, len(head) < 65536)
    if problem is not None:
        kind = problem.id.removeprefix("binary_") if problem.id.startswith("binary_") else None
        return problem if kind else imsg("not_a_trace_binary")
    return imsg("not_a_trace_kind", suffix=path.suffix or path.name)
