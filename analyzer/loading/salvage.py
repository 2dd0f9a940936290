"""Recovering the records of a damaged JSON list: one bad record costs only itself.

When a document ``[r0, r1, ...]`` does not parse as a whole, :func:`salvage_list` reads it
record by record (the lenient decoder of :mod:`analyzer.loading.jsonio`). At a record that
does not parse it resyncs at the next top-level record: the first later ``,`` + record start
from which the rest of the list parses to its closing ``]`` (preferring the separator the
good records used, e.g. a comma, newline and two spaces, so an object nested in the damaged record is not taken
for a record). The damaged record becomes a :class:`analyzer.errors.DamagedRecord` holding
its byte range, so the list keeps its length and every other record its index.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from analyzer.errors import DamagedRecord
from analyzer.reasons import reason

_NEXT = re.compile(r",(\s*)(?=[\[{])")
_WS = " \t\r\n\ufeff"
MAX_CANDIDATES = 5000
"""Most resync points tried after one damaged record."""

Decode = Callable[[str, int], tuple[Any, int]]


@dataclass
class Salvaged:
    """Records of a damaged list.

    Attributes:
        items: One value per record, a :class:`DamagedRecord` for each that did not parse.
        end: Position in the text just after the list's closing ``]`` (the text's end when
            the list is cut short).
        damaged: How many records are damaged.
    """

    items: list[Any] = field(default_factory=list)
    end: int = 0
    damaged: int = 0


def _skip(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _WS:
        pos += 1
    return pos


def _byte_offset(text: str, pos: int, base: int) -> int:
    return base + len(text[:pos].encode("utf-8", "surrogatepass"))


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _at_end(text: str, pos: int) -> bool:
    """True when only whitespace follows ``pos`` (what may follow a top-level list's ``]``)."""
    return _skip(text, pos) >= len(text)


AfterOk = Callable[[int], bool]
"""``(position after the list's closing ]) -> whether the rest of the document fits``."""


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')
"""A string (which never holds a raw newline, so a broken one ends at its line) or a bracket."""


def _record_starts(text: str, start: int) -> set[int]:
    """Positions of the list's direct items that are objects or lists, by a bracket count.

    The count skips strings; a string broken by the damage ends at its line, so in a
    pretty-printed file the count is right again after the damaged line.
    """
    out: set[int] = set()
    depth = 0
    for m in _TOKEN.finditer(text, start):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth == 2:
                out.add(m.start())
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                break
    return out


def _tail_ok(text: str, pos: int, decode: Decode, after_ok: AfterOk, budget: list[int],
             strict: bool = False) -> tuple[bool, int]:
    """Whether the records from ``pos`` parse to the list's end: ``(ok, records read)``.

    A later damaged record, or the text's end (a cut file), ends the check with ``ok`` True
    once two records (one, for the end) were read, unless ``strict``: then only the list's
    proper end counts.
    """
    n = len(text)
    count = 0
    while True:
        try:
            _value, end = decode(text, pos)
        except (json.JSONDecodeError, RecursionError, ValueError):
            return count >= 2 and not strict, count
        budget[0] -= end - pos
        count += 1
        nxt = _skip(text, end)
        if nxt >= n:
            return not strict, count  # cut short after a whole record
        if text[nxt] == "]":
            return after_ok(nxt + 1), count
        if text[nxt] != "," or budget[0] < 0:
            return count >= 2 and budget[0] >= 0 and not strict, count
        pos = _skip(text, nxt + 1)


def _list_end(text: str, pos: int, after_ok: AfterOk, tries: int = 64) -> int | None:
    """Position after the ``]`` closing the list when the damaged record at ``pos`` is its last.

    The ``]`` after which the rest of the document fits, tried from the text's end backwards.
    """
    j = len(text)
    for _ in range(tries):
        j = text.rfind("]", pos, j)
        if j < 0:
            return None
        if after_ok(j + 1):
            return j + 1
    return None


def _resync(text: str, pos: int, sep: str | None, decode: Decode, after_ok: AfterOk, budget: list[int],
            starts: set[int]) -> int | None:
    """Start of the next good top-level record after a damaged one at ``pos``, or None.

    Candidates (a ``,`` then ``{`` or ``[``) are tried in order of trust: first those the
    bracket count puts at the list's top level (:func:`_record_starts`) and, when the good
    records showed it, after their separator; then the top-level ones; then the others,
    which must parse to the list's proper end (an object nested in the damaged record is
    never taken for a record because the rest of a cut file parses from it).
    """
    groups: list[list[int]] = [[], [], [], []]
    for tried, m in enumerate(_NEXT.finditer(text, pos + 1)):
        if tried >= MAX_CANDIDATES:
            break
        top = m.end() in starts
        same = sep is None or m.group(1) == sep
        groups[0 if top and same else 1 if top else 2 if same else 3].append(m.end())
    for g, group in enumerate(groups):
        for q in group:
            if budget[0] < 0:
                return None
            if _tail_ok(text, q, decode, after_ok, budget, strict=g >= 2)[0]:
                return q
    return None


def salvage_list(text: str, start: int, decode: Decode, *, after_ok: AfterOk | None = None,
                 byte_base: int = 0) -> Salvaged:
    """Read the records of the list whose ``[`` is at ``start``, record by record.

    Args:
        text: The document text.
        start: Position of the list's opening ``[``.
        decode: ``(text, pos) -> (value, end)`` for one value (the lenient decoder).
        after_ok: Whether the rest of the document after the list's closing ``]`` (given
            the position after it) fits; default: only whitespace (a top-level list).
        byte_base: Bytes before ``text`` in the file (a dropped byte-order mark), so the byte
            ranges are the file's.

    Returns:
        The records, a :class:`DamagedRecord` in place of each that does not parse.
    """
    out = Salvaged()
    n = len(text)
    pos = start + 1
    sep: str | None = None
    starts: set[int] | None = None  # computed at the first damaged record
    after_ok = after_ok or (lambda end: _at_end(text, end))
    budget = [20 * n + 1_000_000]  # characters the resync checks may parse in all
    while True:
        pos = _skip(text, pos)
        if pos >= n:
            out.end = n
            return out
        if text[pos] == "]":  # the end (or a trailing comma before it)
            out.end = pos + 1
            return out
        try:
            value, end = decode(text, pos)
            nxt = _skip(text, end)
            if nxt >= n:
                out.items.append(value)
                out.end = n
                return out
            if text[nxt] == "]":
                out.items.append(value)
                out.end = nxt + 1
                return out
            if text[nxt] == ",":
                out.items.append(value)
                after = _skip(text, nxt + 1)
                sep = text[nxt + 1: after]
                pos = after
                continue
            error = f"expected ',' or ']' after the record, found {text[nxt]!r}"
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            error = _error_text(exc)
        if starts is None:
            starts = _record_starts(text, start)
        q = _resync(text, pos, sep, decode, after_ok, budget, starts)
        close = _list_end(text, pos, after_ok) if q is None else None
        if q is None and close is None:
            error = f"truncated: the file ends inside this record ({error})"
        stop = q if q is not None else close - 1 if close is not None else n
        cut = stop
        if q is not None:  # the damaged record ends before the separator that precedes q
            cut = text.rfind(",", pos, q)
            cut = stop if cut < 0 else cut
        a, b = _byte_offset(text, pos, byte_base), _byte_offset(text, cut, byte_base)
        out.items.append(DamagedRecord(reason("record_damaged", start=a, end=b, error=error), a, b))
        out.damaged += 1
        if q is None:
            out.end = close if close is not None else n
            return out
        pos = q


def salvage_document(text: str, decode: Decode, parse: Callable[[str], Any], keys: tuple[str, ...],
                     byte_base: int = 0) -> tuple[Any, int] | None:
    """The value of a damaged document whose records sit in one list, or None.

    ``keys`` names where that list is: ``""`` for a top-level list, a key for a list under
    that key of a top-level object (``samples``, ``trajectories``). The list is read with
    :func:`salvage_list`; for an object the rest of the document (without the list) must then
    parse (``parse``), and the salvaged list is put back under its key.

    Returns:
        ``(value, damaged records)``, or None when the damage is not inside such a list or
        no record could be read.
    """
    start = _skip(text, 0)
    if start >= len(text):
        return None
    if text[start] == "[":
        if "" not in keys:
            return None
        got = salvage_list(text, start, decode, byte_base=byte_base)
        if got.damaged == len(got.items) or not _at_end(text, got.end):
            return None
        return got.items, got.damaged
    if text[start] != "{":
        return None
    for key in keys:
        if not key:
            continue
        m = re.search(r'"' + re.escape(key) + r'"\s*:\s*\[', text)
        if m is None:
            continue
        head = text[: m.end() - 1] + "[]"

        def rest(end: int, head: str = head) -> Any:
            try:
                return parse(head + text[end:])
            except Exception:
                return None

        got = salvage_list(text, m.end() - 1, decode, after_ok=lambda end: rest(end) is not None,
                           byte_base=byte_base)
        if got.damaged == len(got.items):
            continue
        doc = rest(got.end)
        if isinstance(doc, dict) and doc.get(key) == []:
            doc[key] = got.items
            return doc, got.damaged
    return None
