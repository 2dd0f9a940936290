"""Structural sniffing: the parsed shape of a JSON file's head, not a byte window.

Importers of span and run exports decide whether a file is theirs from its *keys*: the
top-level keys of a document, and the keys of its first record (first array item, first
JSONL line, first object of concatenated JSON). A decisive key may sit past the first 64 KB
(a long ``history`` or ``spans`` value first), so :func:`outline` streams the document's
``ijson.basic_parse`` events (with its own container stack, so hostile nesting costs linear
time) up to :data:`SNIFF_BYTES` and records the keys of every object down to
:data:`MAX_DEPTH` levels (array items merged under ``[]``), stopping early once the first
top-level value is complete. Results are cached per file (path, size, mtime), so several
importers sniffing the same file parse it once.
"""

from __future__ import annotations

import functools
import io
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer import guard
from analyzer.errors import ImportFailure
from analyzer.loading.jsonio import loads
from analyzer.loading.records import current_view, first_records

SNIFF_BYTES = 32 * 1024 * 1024
"""Most bytes of one file streamed while sniffing (with ijson's C backend)."""

SNIFF_BYTES_SLOW = 4 * 1024 * 1024
"""Byte bound when only ijson's pure-Python backend is available."""

SNIFF_BUF = SNIFF_BYTES
"""Bytes handed to ijson at a time: the whole byte bound. ijson's C lexer scans a string token
again from its start each time it is handed more bytes, so a 10 MB string of escapes read in
64 KB pieces cost time quadratic in its length (16 M escapes: 40-49 s); handed at once, every
token is scanned once (linear, 16 M escapes in about 1 s)."""

MAX_DEPTH = 4
"""Deepest object level whose keys are recorded."""

MAX_LINE = 16 * 1024 * 1024
"""Longest first JSONL line parsed while sniffing."""

LINE_SUFFIXES = (".jsonl", ".ndjson")

_TOP = "\x00top-level array"
"""Path marker of a top-level array (its items, not the array, are records)."""


@dataclass(frozen=True)
class Outline:
    """Keys of a JSON file's head.

    Attributes:
        container: ``object`` (one document), ``array`` (a top-level list), ``lines`` (JSONL),
            ``values`` (concatenated JSON objects) or ``""`` (not JSON / unreadable).
        keys: Path -> keys of the objects at that path. ``""`` is the top-level object (for
            ``array``/``lines``/``values`` files: the first record); nested paths are dotted,
            array items are ``[]`` (``data.spans[]``, ``[]`` never appears at the top since the
            first record is the root).
        complete: True when the whole first record was seen (not cut by the byte bound).
    """

    container: str = ""
    keys: Mapping[str, frozenset[str]] = field(default_factory=dict)
    complete: bool = False

    def has(self, path: str, *names: str) -> bool:
        """True when the object(s) at ``path`` have every one of ``names``."""
        ks = self.keys.get(path, frozenset())
        return all(n in ks for n in names)

    def any_of(self, path: str, *names: str) -> bool:
        """True when the object(s) at ``path`` have at least one of ``names``."""
        ks = self.keys.get(path, frozenset())
        return any(n in ks for n in names)

    def at(self, path: str) -> frozenset[str]:
        """Keys recorded at ``path`` (empty when none)."""
        return self.keys.get(path, frozenset())


class _Capped(io.RawIOBase):
    """A read-only stream that ends after ``cap`` bytes of the wrapped file."""

    def __init__(self, fh: io.BufferedReader, cap: int) -> None:
        self._fh = fh
        self._left = cap

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        n = self._left if size is None or size < 0 else min(size, self._left)
        data = self._fh.read(n)
        self._left -= len(data)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


def _keys_of_value(value: Any, path: str, out: dict[str, set[str]], depth: int) -> None:
    """Record the keys of a parsed value (first items of lists only)."""
    stack: list[tuple[Any, str, int]] = [(value, path, depth)]
    while stack:
        v, p, d = stack.pop()
        if d > MAX_DEPTH:
            continue
        if isinstance(v, Mapping):
            out.setdefault(p, set()).update(str(k) for k in v)
            for k, sub in v.items():
                if isinstance(sub, (Mapping, list)):
                    stack.append((sub, f"{p}.{k}" if p else str(k), d + 1))
        elif isinstance(v, list):
            for item in v[:3]:
                if isinstance(item, (Mapping, list)):
                    stack.append((item, f"{p}[]", d + 1))


def _outline_lines(path: Path) -> Outline:
    with path.open("rb") as fh:
        for _ in range(20):
            line = fh.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE:
                return Outline()
            if not line.strip():
                continue
            try:
                obj = loads(line, "line")
            except ImportFailure:
                continue
            out: dict[str, set[str]] = {}
            _keys_of_value(obj, "", out, 0)
            return Outline("lines", {k: frozenset(v) for k, v in out.items()}, True)
    return Outline()


def _outline_stream(path: Path) -> Outline:
    """Stream ``ijson.basic_parse`` events (no prefixes: linear in the nesting depth) up to the cap."""
    try:
        import ijson
    except ImportError:  # pragma: no cover - ijson is a declared dependency
        return _outline_whole(path)
    cap = SNIFF_BYTES if "python" not in str(getattr(ijson, "backend", "")) else SNIFF_BYTES_SLOW
    keys: dict[str, set[str]] = {}
    container = ""
    complete = False
    values = 0
    # one frame per open container: (is_map, path of the container or None when too deep)
    stack: list[tuple[bool, str | None]] = []
    key: str | None = None
    with path.open("rb") as raw:
        # bytes that are not UTF-8 become U+FFFD (ijson stops at the first one otherwise)
        stream = guard.Utf8RepairReader(io.BufferedReader(_Capped(raw, cap)), count=False)
        try:
            deadline = time.monotonic() + guard.limits().max_sniff_seconds
            for n_events, (event, value) in enumerate(
                    ijson.basic_parse(stream, multiple_values=True, buf_size=SNIFF_BUF)):
                if n_events & 4095 == 0 and time.monotonic() > deadline:
                    break  # load_limits.max_sniff_seconds: keep the keys seen so far
                if event in ("start_map", "start_array"):
                    if not stack:
                        values += 1
                        if values > 1:
                            container = "values"
                            break
                        container = "object" if event == "start_map" else "array"
                        # a top-level array's first item is the root record ("" path); the array has none
                        stack.append((event == "start_map", "" if event == "start_map" else _TOP))
                        key = None
                        continue
                    is_map, ppath = stack[-1]
                    if ppath is None or len(stack) > MAX_DEPTH:
                        cpath = None
                    elif ppath == _TOP:
                        cpath = ""  # the first record of a top-level array
                    elif is_map:
                        cpath = f"{ppath}.{key}" if ppath else str(key)
                    else:
                        cpath = f"{ppath}[]"
                    stack.append((event == "start_map", cpath))
                    key = None
                elif event in ("end_map", "end_array"):
                    stack.pop()
                    if not stack:
                        complete = True
                    elif container == "array" and len(stack) == 1:
                        complete = True  # the first record is done
                        break
                elif event == "map_key":
                    key = str(value)
                    cpath = stack[-1][1] if stack else None
                    if cpath is not None and cpath != _TOP:
                        keys.setdefault(cpath, set()).add(key)
        except Exception:
            pass
    if not container:
        return Outline()
    return Outline(container, {k: frozenset(v) for k, v in keys.items()}, complete)


def _outline_whole(path: Path) -> Outline:
    """Fallback without ijson: parse files up to the byte bound whole."""
    if path.stat().st_size > SNIFF_BYTES:
        return Outline()
    try:
        doc = loads(path.read_bytes(), "file")
    except ImportFailure:
        return Outline()
    out: dict[str, set[str]] = {}
    if isinstance(doc, list):
        first = next((x for x in doc if isinstance(x, Mapping)), None)
        if first is None:
            return Outline("array", {}, True)
        _keys_of_value(first, "", out, 0)
        return Outline("array", {k: frozenset(v) for k, v in out.items()}, True)
    _keys_of_value(doc, "", out, 0)
    return Outline("object", {k: frozenset(v) for k, v in out.items()}, True)


@functools.lru_cache(maxsize=64)
def _cached(path: str, size: int, mtime_ns: int) -> Outline:
    p = Path(path)
    if p.suffix.lower() in LINE_SUFFIXES:
        out = _outline_lines(p)
        if out.container:
            return out
    return _outline_stream(p)


@functools.lru_cache(maxsize=64)
def _cached_view(path: str, size: int, mtime_ns: int, index: int) -> Outline:
    """The outline of record ``index`` of a JSON list or JSONL file (see :mod:`analyzer.loading.records`)."""
    container, recs = first_records(Path(path))
    if index >= len(recs) or not isinstance(recs[index][0], Mapping):
        return Outline()
    out: dict[str, set[str]] = {}
    _keys_of_value(recs[index][0], "", out, 0)
    return Outline("lines" if container == "lines" else "array", {k: frozenset(v) for k, v in out.items()}, True)


def outline(path: Path) -> Outline:
    """The :class:`Outline` of a JSON/JSONL file; an empty outline when it cannot be read.

    While the loader claims a file record by record (:func:`analyzer.loading.records.viewing`),
    the outline is that of the record asked about.
    """
    try:
        st = path.stat()
    except OSError:
        return Outline()
    if st.st_size == 0:
        return Outline()
    try:
        view = current_view()
        if view:
            return _cached_view(str(path), st.st_size, st.st_mtime_ns, view)
        return _cached(str(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return Outline()
