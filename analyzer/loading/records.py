"""The first few records of a JSON list or JSONL file, for claiming a file by its majority.

A file is claimed by the first record's shape (:mod:`analyzer.loading.structure`); when no
importer claims it that way, the loader asks again record by record (:func:`record_views`,
up to :data:`VIEW_RECORDS` records) and a format that fits at least half of them claims the
file, so a damaged or odd first record is one error, not the file's. While an importer is
asked about record ``k``, :func:`current_view` is ``k``: sniffing helpers that read the file
themselves (the span exports' outline) then look at that record.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.loading.jsonio import loads, salvage_records
from analyzer.loading.structure import JsonShape, shape_of

VIEW_RECORDS = 5
"""Records looked at when claiming by majority."""

VIEW_MAX_BYTES = 64 * 1024 * 1024
"""Largest JSON document (or JSONL line) parsed to find its records while claiming."""

_LINE_SUFFIXES = (".jsonl", ".ndjson")
_VIEW: ContextVar[int] = ContextVar("trajscope_record_view", default=0)


@dataclass(frozen=True)
class RecordView:
    """One record of a file as a claim sees it.

    Attributes:
        index: Record number (0 is the first).
        head: Bytes a byte sniffer gets (a JSONL file's text from this record's line on).
        shape: The record's shape, None when it does not parse or is not an object.
    """

    index: int
    head: bytes
    shape: JsonShape | None


def current_view() -> int:
    """Index of the record a claim is asking about (0 outside a second-pass claim)."""
    return _VIEW.get()


@contextlib.contextmanager
def viewing(index: int) -> Iterator[None]:
    """Scope in which sniffing helpers look at record ``index``."""
    token = _VIEW.set(index)
    try:
        yield
    finally:
        _VIEW.reset(token)


def first_records(path: Path, n: int = VIEW_RECORDS) -> tuple[str, list[tuple[Any, int]]]:
    """``(container, [(record or None, byte offset of its line or 0)])`` of the first ``n`` records.

    ``container`` is ``lines`` (JSONL), ``list`` (a JSON list) or ``""`` (anything else).
    A record that does not parse is None. Cached per file (path, size, modification time):
    a claim asks about each record in turn.
    """
    try:
        st = path.stat()
    except OSError:
        return "", []
    return _first_records(str(path), st.st_size, st.st_mtime_ns, n)


@functools.lru_cache(maxsize=4)
def _first_records(name: str, size: int, mtime_ns: int, n: int) -> tuple[str, list[tuple[Any, int]]]:
    path = Path(name)
    try:
        if path.suffix.lower() in _LINE_SUFFIXES:
            out: list[tuple[Any, int]] = []
            with path.open("rb") as fh:
                offset = 0
                while len(out) < n:
                    line = fh.readline(VIEW_MAX_BYTES + 1)
                    if not line:
                        break
                    start, offset = offset, offset + len(line)
                    if len(line) > VIEW_MAX_BYTES:
                        break
                    if not line.strip():
                        continue
                    try:
                        out.append((loads(line, "line"), start))
                    except ImportFailure:
                        out.append((None, start))
            return "lines", out
        if path.stat().st_size > VIEW_MAX_BYTES:
            return "", []
        raw = path.read_bytes()
    except OSError:
        return "", []
    if raw.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] != b"[":
        return "", []
    try:
        doc = loads(raw, "file")
    except ImportFailure:
        doc = salvage_records(raw, ("",))
    if not isinstance(doc, list):
        return "", []
    return "list", [(None if isinstance(r, DamagedRecord) else r, 0) for r in doc[:n]]


def record_views(path: Path, head: bytes) -> list[RecordView]:
    """The first records of a JSON list or JSONL file as claims see them (empty for other files)."""
    container, recs = first_records(path)
    if len(recs) < 2:
        return []
    views = []
    for k, (rec, offset) in enumerate(recs):
        if container == "lines":
            with path.open("rb") as fh:
                fh.seek(offset)
                vhead = fh.read(len(head) or 65536)
            shape = shape_of(rec, "lines") if isinstance(rec, dict) else None
        else:
            vhead = head
            shape = shape_of([rec], "list") if isinstance(rec, dict) else None
        views.append(RecordView(k, vhead, shape))
    return views
