"""Guarded JSON reading shared by importers: size caps, encodings, binary and nesting checks.

Every function turns a bad input into :class:`analyzer.errors.ImportFailure` (whole file)
or a per-record error reported through the import context, never a crash or a hang.
"""

from __future__ import annotations

import contextlib
import json
import math
import mmap
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from analyzer import guard
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.salvage import salvage_document
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.reasons import reason
from analyzer.settings import LoadLimits, format_bytes

MAX_DOCUMENT_BYTES = LoadLimits().max_document_bytes
"""Default largest JSON document read whole (``load_limits.max_document_bytes``)."""

MAX_LINE_BYTES = LoadLimits().max_line_bytes
"""Default longest JSONL line parsed (``load_limits.max_line_bytes``); longer lines are
reported and skipped without being held."""

_CHUNK = 1 << 20


def decode_text(raw: bytes, where: str = "file") -> str:
    """Decode bytes as UTF-8 (BOM allowed); bytes that are not UTF-8 become U+FFFD (counted).

    Raises:
        ImportFailure: When the bytes look binary: more than one NUL byte in 64 of the first
            8 KB (UTF-16 text, a database, an image). A stray NUL in text is the damage of
            one record (a raw control character in a string), not the file's.
    """
    head = raw[:8192]
    if b"\x00" in head and head.count(b"\x00") > len(head) // 64:
        raise ImportFailure(reason("json_binary", where=where))
    return guard.decode_utf8(raw)


_BOM = "\ufeff"
_DIGITS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_TWENTY_DIGITS = b"0" * 20


def _has_long_digit_run(raw: bytes) -> bool:
    """True when ``raw`` holds 20 digits in a row (maybe an integer beyond 64 bits).

    orjson would read such an integer as a float, losing digits. ``bytes.translate`` plus a
    substring search run at C speed (a regular expression scanned 25 MB/s, slower than the
    parse itself).
    """
    return len(raw) >= 20 and _TWENTY_DIGITS in raw.translate(_DIGITS)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate escape (a backslash, ``u``, then ``d8``-``df``); text without one has no lone surrogate."""


def _parse_constant(name: str) -> None:
    """``NaN``, ``Infinity``, ``-Infinity`` (what Python's ``json.dumps`` writes): null, counted."""
    guard.current().numbers_nulled += 1


def _parse_float(text: str) -> float | None:
    """A JSON fraction/exponent; one beyond a double's range (``1e400``) is null, counted."""
    value = float(text)
    if math.isinf(value) or math.isnan(value):
        guard.current().numbers_nulled += 1
        return None
    return value


def _parse_int(text: str) -> int | str:
    """A JSON integer, exactly; one past Python's digit limit is kept as its text, counted."""
    try:
        return int(text)
    except ValueError:
        guard.current().numbers_as_text += 1
        return text


_LENIENT = json.JSONDecoder(parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant,
                            strict=False)
"""The fallback decoder: what orjson refuses but a tool really writes is read, not rejected."""


def _fix_surrogates(value: Any) -> Any:
    """``value`` with lone surrogates in its strings (and keys) replaced by U+FFFD, counted (iterative)."""

    def fix(s: str) -> str:
        n = len(_SURROGATE.findall(s))
        guard.current().surrogates_replaced += n
        return _SURROGATE.sub("\ufffd", s)

    def bad(s: str) -> bool:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False

    if isinstance(value, str):
        return fix(value) if bad(value) else value
    if not isinstance(value, (dict, list)):
        return value
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k in list(v):
                item = v[k]
                if isinstance(k, str) and bad(k):
                    del v[k]
                    k = fix(k)
                    v[k] = item
                if isinstance(item, str):
                    if bad(item):
                        v[k] = fix(item)
                elif isinstance(item, (dict, list)):
                    stack.append(item)
        else:
            for i, item in enumerate(v):
                if isinstance(item, str):
                    if bad(item):
                        v[i] = fix(item)
                elif isinstance(item, (dict, list)):
                    stack.append(item)
    return value


def lenient_loads(text: str) -> Any:
    """Parse ``text`` with the standard library's decoder and the lenient hooks (no fast path).

    ``NaN``/``Infinity``/``-Infinity`` and numbers beyond a double's range become null, big
    integers stay exact, lone surrogates become U+FFFD, raw control characters (a NUL) in
    strings are kept; each repair is counted on the active
    guard (:mod:`analyzer.guard`). Raises ``json.JSONDecodeError`` for invalid JSON and
    ``RecursionError`` for nesting past the interpreter's limit.
    """
    value, end = _LENIENT.raw_decode(text, _skip_ws(text, 0))
    if _skip_ws(text, end) != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return _fix_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


def lenient_raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """One value of ``text`` starting at ``pos`` (lenient, see :func:`lenient_loads`): ``(value, end)``."""
    value, end = _LENIENT.raw_decode(text, pos)
    return (_fix_surrogates(value) if _SURROGATE_ESCAPE.search(text, pos, end) else value), end


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


def loads(raw: bytes | str, where: str = "file") -> Any:
    """Parse one JSON value: the one JSON reading path of every importer.

    Fast path: orjson. Only when orjson refuses the text, or it holds an integer of 20+
    digits that orjson would turn into a float, the lenient decoder reads it (see
    :func:`lenient_loads`): ``NaN``/``Infinity`` and out-of-range numbers become null, lone
    surrogates U+FFFD, big integers stay exact. A UTF-8 BOM is whitespace; bytes that are not
    UTF-8 become U+FFFD (counted). Nesting past 254 levels is cut at ``load_limits.max_depth``
    and marked (:func:`analyzer.guard.limit_depth`) before any importer sees the value.

    Raises:
        ImportFailure: For empty, truncated, invalid or binary input (naming ``where``).
    """
    if isinstance(raw, bytes):
        big = _has_long_digit_run(raw)
        raw = decode_text(raw, where)
    else:
        if raw.startswith(_BOM):
            raw = raw[1:]
        big = _has_long_digit_run(raw.encode("utf-8", "surrogatepass"))
    if not raw.strip():
        raise ImportFailure(reason("json_empty", where=where))
    if not big:
        try:
            return guard.limit_depth(orjson.loads(raw), len(raw))
        except orjson.JSONDecodeError as exc:
            first: Exception = exc
    else:
        first = ValueError("big integer")
    try:
        return guard.limit_depth(lenient_loads(raw), len(raw))
    except RecursionError:
        raise ImportFailure(reason("json_too_deep", where=where)) from None
    except (json.JSONDecodeError, ValueError) as exc:
        if not isinstance(first, orjson.JSONDecodeError):
            try:
                orjson.loads(raw)
            except orjson.JSONDecodeError as oexc:
                first = oexc
            else:  # pragma: no cover - the lenient decoder accepts all orjson does
                first = exc
        raise _failure(first, where) from None


def _failure(exc: Exception, where: str) -> ImportFailure:
    """The load problem for orjson's error ``exc`` (too deep, truncated or invalid)."""
    msg = _where_in(str(exc), where)
    low = msg.lower()
    if "recursion" in low or "depth limit" in low:
        return ImportFailure(reason("json_too_deep", where=where))
    if "unexpected end" in low or "eof" in low:
        return ImportFailure(reason("json_truncated", where=where, error=msg))
    return ImportFailure(reason("json_invalid", where=where, error=msg))


def parse_json(raw: bytes | str, where: str = "file") -> Any:
    """Parse one JSON value (the same as :func:`loads`, kept for existing callers)."""
    return loads(raw, where)


_POSITION = re.compile(r": line (\d+) column (\d+) \(char \d+\)$")


def _where_in(msg: str, where: str) -> str:
    """Rewrite orjson's ``: line 1 column 7 (char 6)`` suffix into plain words."""
    msg = msg.replace("unexpected content after document", "more data after the end of the JSON value")
    m = _POSITION.search(msg)
    if not m:
        return msg
    line, col = m.groups()
    pos = f"at column {col}" if where != "file" and line == "1" else f"at line {line}, column {col}"
    return f"{msg[: m.start()]} {pos}"


def _decode_one(text: str, pos: int) -> tuple[Any, int]:
    """One value at ``pos`` (lenient), nesting cut like a whole document: ``(value, end)``."""
    value, end = lenient_raw_decode(text, pos)
    return guard.limit_depth(value, end - pos), end


def _strict(text: str) -> Any:
    return loads(text, "file")


def read_json_document(path: Path, max_bytes: int | None = None, records: tuple[str, ...] = ()) -> Any:
    """Read a whole-file JSON document with a size cap (default ``load_limits.max_document_bytes``).

    Args:
        path: The file.
        max_bytes: Size cap.
        records: Where the file keeps one record per list item: ``""`` (a top-level list)
            and/or keys of a top-level object (``"samples"``). When the document does not
            parse, the list there is salvaged (:mod:`analyzer.loading.salvage`): each record
            that does not parse becomes a :class:`analyzer.errors.DamagedRecord` (reported by
            :meth:`ImportContext.guarded` for its record) and the others are read.

    Raises:
        ImportFailure: When the file is empty, over the cap, or does not parse (and could not
            be salvaged).
    """
    if max_bytes is None:
        max_bytes = guard.limits().max_document_bytes
    size = path.stat().st_size
    if size == 0:
        raise ImportFailure(reason("file_empty"))
    if size > max_bytes:
        raise ImportFailure(reason("document_over_cap", size=format_bytes(size), cap=format_bytes(max_bytes),
                                   setting=LoadLimits.setting("max_document_bytes")))
    raw = path.read_bytes()
    try:
        return loads(raw, "file")
    except ImportFailure as exc:
        if not records or exc.message is None or exc.message.id not in ("json_invalid", "json_truncated",
                                                                         "json_too_deep"):
            raise
        failure = exc
    got = salvage_records(raw, records)
    if got is None:
        raise failure
    return got


def salvage_records(raw: bytes, records: tuple[str, ...]) -> Any | None:
    """The document of ``raw`` with its record list salvaged (see :func:`read_json_document`), or None."""
    text = decode_text(raw, "file")
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    got = salvage_document(text, _decode_one, _strict, records, byte_base=bom)
    return None if got is None else got[0]


def _too_long(max_line_bytes: int) -> Message:
    return reason("line_too_long", cap=format_bytes(max_line_bytes), setting=LoadLimits.setting("max_line_bytes"))


def iter_jsonl(path: Path, ctx: ImportContext, max_line_bytes: int | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each good line of a JSONL file, streaming.

    Bad lines (invalid JSON, over ``max_line_bytes``, default ``load_limits.max_line_bytes``)
    are reported through ``ctx.error`` as ``line N`` and skipped; bytes that are not UTF-8 are
    replaced. Blank lines are ignored. The cancel token is checked every line.
    """
    if max_line_bytes is None:
        max_line_bytes = guard.limits().max_line_bytes
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
                ctx.error(f"line {lineno}", _too_long(max_line_bytes))
                continue
            if not line.strip():
                continue
            try:
                yield lineno, parse_json(line, f"line {lineno}")
            except ImportFailure as exc:
                ctx.error(f"line {lineno}", exc.message or exc.reason)


LINE_CHUNK_BYTES = 64 * 1024 * 1024
"""Default size of the blocks of whole lines handed to a columnar JSONL reader."""


def iter_line_chunks(
    path: Path,
    ctx: ImportContext,
    chunk_bytes: int = LINE_CHUNK_BYTES,
    max_line_bytes: int | None = None,
) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(first_line_number, n_lines, block)`` for blocks of whole lines of a JSONL file.

    Each block holds complete lines (ending with a newline, except possibly the file's last
    line) and is about ``chunk_bytes`` long, so a columnar reader can parse it in one call.
    The file is memory-mapped and each block copied out once, so a 1 GB file is never held
    in memory at once (pages already handed out are released from the mapping). ``n_lines``
    counts the lines in the block, blank ones included. A UTF-8 BOM at the start is dropped.
    Lines longer than ``max_line_bytes`` are reported through ``ctx.error`` as ``line N`` and
    skipped without being copied. The cancel token is checked between blocks.

    Args:
        path: JSONL file.
        ctx: Import context receiving per-line errors.
        chunk_bytes: Target block size.
        max_line_bytes: Longest line passed on (default ``load_limits.max_line_bytes``).

    Raises:
        ImportFailure: When the file cannot be mapped.
    """
    if max_line_bytes is None:
        max_line_bytes = guard.limits().max_line_bytes
    too_long = _too_long(max_line_bytes)
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return
        try:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise ImportFailure(imsg("cannot_map", error=str(exc))) from None
        with mm:
            pos = 3 if mm[:3] == b"\xef\xbb\xbf" else 0
            lineno = 1
            while pos < size and not ctx.cancel.cancelled:
                end = min(pos + chunk_bytes, size)
                cut = mm.rfind(b"\n", pos, end) if end < size else end - 1
                if cut < 0:  # the line starting at pos is longer than a block
                    nl = mm.find(b"\n", end)
                    line_end = size if nl < 0 else nl + 1
                    if line_end - pos > max_line_bytes:
                        ctx.error(f"line {lineno}", too_long)
                        lineno += 1
                        _release(mm, pos, line_end)
                        pos = line_end
                        continue
                    cut = line_end - 1
                body = mm[pos: cut + 1]
                n_lines = body.count(b"\n")
                yield lineno, n_lines, body
                _release(mm, pos, cut + 1)
                lineno += n_lines
                pos = cut + 1


@dataclass(frozen=True)
class LineStats:
    """Shape of a text file's lines, measured without holding the file in memory.

    Attributes:
        n_lines: Number of lines (a last line without a newline counts).
        longest_bound: An upper bound of the longest line's length in bytes (exact to the
            scan's block size: no line is longer, one may be up to two blocks shorter).
        bom: The file starts with a UTF-8 byte-order mark.
    """

    n_lines: int
    longest_bound: int
    bom: bool


def line_stats(path: Path, block: int = 1 << 20) -> LineStats:
    """Count the lines of a file and bound its longest one, over a memory map in blocks.

    Only newlines are counted (numpy, about 6 GB/s, GIL released), so this can run beside
    a polars parse. A line of ``L`` bytes covers at least ``L // block - 1`` whole blocks
    without a newline, which gives the bound.
    """
    import numpy as np

    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return LineStats(0, 0, False)
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            bom = mm[:3] == b"\xef\xbb\xbf"
            data = np.frombuffer(mm, dtype=np.uint8)
            try:
                n = run = longest_run = 0
                for start in range(0, size, block):
                    c = int(np.count_nonzero(data[start: start + block] == 10))
                    n += c
                    run = run + 1 if c == 0 else 0
                    longest_run = max(longest_run, run)
                ends_open = data[size - 1] != 10
            finally:
                del data
    return LineStats(n + int(ends_open), min(size, (longest_run + 2) * block), bom)


def _release(mm: mmap.mmap, start: int, end: int) -> None:
    """Drop pages of ``[start, end)`` from the process mapping (they stay in the OS cache)."""
    if not hasattr(mm, "madvise") or not hasattr(mmap, "MADV_DONTNEED"):
        return
    first = start - start % mmap.PAGESIZE
    length = end - first - (end - first) % mmap.PAGESIZE
    if length > 0:
        with contextlib.suppress(OSError, ValueError):
            mm.madvise(mmap.MADV_DONTNEED, first, length)


def head_bytes(path: Path, n: int = 65536) -> bytes:
    """First ``n`` bytes of a file."""
    with path.open("rb") as fh:
        return fh.read(n)


def first_json_char(head: bytes) -> str:
    """First non-whitespace character of a text head (after a UTF-8 BOM), or ''."""
    s = head.lstrip(b"\xef\xbb\xbf").lstrip()
    return chr(s[0]) if s else ""


def finite_float(value: Any) -> float | None:
    """``value`` as a finite float, or None.

    None for non-numbers, booleans, NaN, infinities and integers beyond a double's range (an
    exact 400-digit integer must not raise ``OverflowError`` in an importer).
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        out = float(value)
    except OverflowError:
        return None
    return out if math.isfinite(out) else None


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
                    parts.append(guard.dumps(p))
            else:
                parts.append(str(p))
        return "\n".join(parts)
    if isinstance(value, dict):
        for key in ("text", "content"):
            if isinstance(value.get(key), str):
                return str(value[key])
        return guard.dumps(value)
    return str(value)


def args_text(value: Any) -> str | None:
    """Tool arguments as JSON text: objects are serialised, strings kept raw (parsed or not)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return guard.dumps(value)


def iter_records(path: Path, ctx: ImportContext, shape_error: str | Message,
                 records: tuple[str, ...] = ("",)) -> Iterator[tuple[str, Any]]:
    """Yield ``(record locator, value)`` for the records of a one-record-per-item file.

    ``.jsonl``/``.ndjson``: one record per line (``line N``); otherwise a JSON document holding
    one object (``$``) or a list of them (``[i]``). Bad JSONL lines are reported through
    ``ctx``; the cancel token is checked between records. ``records`` says where a damaged
    document keeps its records (see :func:`read_json_document`): a record that does not
    parse is then one error (or a :class:`DamagedRecord` inside the object yielded).

    Raises:
        ImportFailure: With ``shape_error`` when the document is neither an object nor a list.
    """
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for lineno, obj in iter_jsonl(path, ctx):
            yield f"line {lineno}", obj
        return
    doc = read_json_document(path, records=records)
    if isinstance(doc, dict):
        yield "$", doc
    elif isinstance(doc, list):
        for i, obj in enumerate(doc):
            if ctx.cancel.cancelled:
                return
            if isinstance(obj, DamagedRecord):
                ctx.error(f"[{i}]", obj.message)
                continue
            yield f"[{i}]", obj
    else:
        raise ImportFailure(shape_error)


def label_native_steps(steps: Iterable[Any], list_path: str) -> None:
    """Fill ``native_step_id`` as ``<list_path>[<native_index>]`` where a step has no id yet.

    For formats whose steps come from one list of the record (``messages``, ``history``,
    ``trajectory``), the list path is the source's own address of the step.

    Args:
        steps: Canonical steps (``Step`` objects).
        list_path: JSON path of the list in the record, e.g. ``messages``.
    """
    for st in steps:
        if st.native_step_id is None and st.native_index is not None:
            st.native_step_id = f"{list_path}[{st.native_index}]"
