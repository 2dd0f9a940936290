"""The parsed top-level shape of a JSON/JSONL file, for claiming files by structure.

Sniffing a byte window fails when the key that decides the format sits past it (a Who&When
file whose long ``history`` comes first). :func:`json_shape` reads the file's structure
instead: the top-level keys, the keys of the first record and, for each of those, the kind of
its value, short string values, and the keys of its object value or of its list's first item.
Documents and first JSONL lines up to :data:`FULL_PARSE_BYTES` are parsed whole with orjson;
bigger ones are streamed with ``ijson`` (a list stops after its first item), never more than
:data:`SHAPE_SCAN_BYTES`.

Importers that define ``sniff_structure(shape, path)`` are asked with this shape; those that
define only ``sniff(head, path)`` still get the head bytes. :class:`KeyRule` is a small helper
for both claiming and naming what a near miss lacks (``near_miss(shape, path)``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson

from analyzer.errors import ImportFailure
from analyzer.guard import Utf8RepairReader, limits
from analyzer.loading.jsonio import loads

SHORT_VALUE_CHARS = 200
"""Longest first-record string value kept in :attr:`JsonShape.values`."""

SHAPE_SCAN_BYTES = 16 * 1024 * 1024
"""Most bytes streamed to find the keys of a document too big to parse whole (the later keys
of a bigger object are not seen: ``complete`` is False)."""

_LINES_SUFFIXES = (".jsonl", ".ndjson")

SCAN_BUF = SHAPE_SCAN_BYTES
"""Bytes handed to ijson at a time: the whole byte bound (in smaller pieces its C lexer
rescans a long string token from its start each time: quadratic on a 10 MB string of escapes)."""


@dataclass(frozen=True)
class JsonShape:
    """Structure of a JSON document or JSONL file, without its values.

    Attributes:
        container: ``object`` (one JSON object), ``list`` (a JSON list) or ``lines`` (JSONL).
        keys: Top-level keys of an ``object`` document (empty otherwise).
        record_keys: Keys of the first record: the object itself, the list's first item or the
            first JSONL line (empty when that is not an object).
        children: For each key of the first record, the keys of its object value or of the first
            item of its list value (only for values that are objects or lists of objects).
        kinds: For each key of the first record, the JSON kind of its value (``object``,
            ``list``, ``string``, ``number``, ``boolean``, ``null``).
        values: For each key of the first record whose value is a short string (up to
            :data:`SHORT_VALUE_CHARS`), that string (``schema_version``, ``kind`` ...).
        complete: False when the scan stopped early (size bound, invalid or truncated JSON).
    """

    container: str
    keys: tuple[str, ...] = ()
    record_keys: tuple[str, ...] = ()
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    complete: bool = True
    values: Mapping[str, str] = field(default_factory=dict)

    def has(self, *names: str) -> bool:
        """True when the first record has every one of ``names``."""
        return all(n in self.record_keys for n in names)

    def has_any(self, *names: str) -> bool:
        """True when the first record has at least one of ``names``."""
        return any(n in self.record_keys for n in names)

    def kind(self, name: str) -> str | None:
        """JSON kind of the first record's ``name`` value, or None when absent."""
        return self.kinds.get(name)

    def value(self, name: str) -> str | None:
        """Short string value of the first record's ``name``, or None."""
        return self.values.get(name)

    def child(self, name: str) -> tuple[str, ...]:
        """Keys of the first record's ``name`` object (or of its list's first item)."""
        return self.children.get(name, ())


class _Capped:
    """A binary reader that reports end of file after ``cap`` bytes."""

    def __init__(self, fh: IO[bytes], cap: int) -> None:
        self.fh = fh
        self.left = cap
        self.capped = False

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            self.capped = True
            return b""
        want = self.left if n is None or n < 0 else min(n, self.left)
        data = self.fh.read(want)
        self.left -= len(data)
        return data


_SCALAR = {"string": "string", "number": "number", "integer": "number", "double": "number",
           "boolean": "boolean", "null": "null"}

FULL_PARSE_BYTES = 64 * 1024 * 1024
"""Documents (and first JSONL lines) up to this size are parsed whole with orjson: about 20
times faster than streaming ijson events through Python, and no more memory than the importer
that reads the file next. Bigger ones are streamed, up to :data:`SHAPE_SCAN_BYTES`."""


class _Scan:
    """Collects the shape from ``ijson.basic_parse`` events of the first top-level value.

    Only a stack of container roles is kept (no JSON paths), so deep nesting costs O(depth)
    memory and O(1) work per event.
    """

    def __init__(self) -> None:
        self.container = ""
        self.record_keys: list[str] = []
        self.children: dict[str, list[str]] = {}
        self.kinds: dict[str, str] = {}
        self.values: dict[str, str] = {}
        self.stack: list[str] = []  # role of each open container
        self.pending: str | None = None  # record key whose value comes next
        self.child: str | None = None  # record key whose value is the open child container
        self.item_seen = False  # the child list's first item has been seen
        self.done = False

    def _open(self, kind: str) -> str:
        if not self.stack:
            self.container = kind
            return "record" if kind == "object" else "top"
        parent = self.stack[-1]
        if parent == "top":
            if kind != "object":
                self.done = True  # a list whose first item is not an object: no record keys
            return "record"
        if parent == "record" and self.pending is not None:
            self.kinds[self.pending] = kind
            self.child, self.pending, self.item_seen = self.pending, None, False
            return "child_obj" if kind == "object" else "child_list"
        if parent == "child_list" and not self.item_seen:
            self.item_seen = True
            return "child_item" if kind == "object" else "other"
        return "other"

    def feed(self, event: str, value: Any) -> None:
        if event in ("start_map", "start_array"):
            self.stack.append(self._open("object" if event == "start_map" else "list"))
        elif event in ("end_map", "end_array"):
            role = self.stack.pop() if self.stack else "top"
            if not self.stack or (role == "record" and self.container == "list"):
                self.done = True  # the first top-level value (or the list's first item) is over
        elif event == "map_key":
            role = self.stack[-1] if self.stack else ""
            key = str(value)
            if role == "record":
                if key not in self.kinds:
                    self.record_keys.append(key)
                    self.kinds[key] = ""
                    self.pending = key
                else:
                    self.pending = None
            elif role in ("child_obj", "child_item") and self.child is not None \
                    and len(self.stack) == (2 if self.container == "object" else 3) + (role == "child_item"):
                keys = self.children.setdefault(self.child, [])
                if key not in keys and len(keys) < 200:
                    keys.append(key)
        else:
            if not self.stack:
                self.done = True  # a bare scalar document
                return
            role = self.stack[-1]
            if role == "top":
                self.done = True  # a list whose first item is a scalar
            elif role == "record" and self.pending is not None:
                self.kinds[self.pending] = _SCALAR.get(event, "string")
                if event == "string" and len(value) <= SHORT_VALUE_CHARS:
                    self.values[self.pending] = value
                self.pending = None
            elif role == "child_list":
                self.item_seen = True


def json_shape(path: Path, max_bytes: int = SHAPE_SCAN_BYTES) -> JsonShape | None:
    """Stream the structure of a JSON or JSONL file.

    Args:
        path: The file.
        max_bytes: Most bytes read.

    Returns:
        The shape, or None when the file does not start with a JSON object or list (or
        cannot be read). A document that breaks part-way gives the keys seen before the
        break with ``complete=False``.
    """
    lines = path.suffix.lower() in _LINES_SUFFIXES
    decided, whole = _parsed_whole(path, lines)
    if decided:
        return whole
    scan = _Scan()
    complete = True
    try:
        with path.open("rb") as fh:
            start = fh.read(3)
            if start != b"\xef\xbb\xbf":
                fh.seek(0)
            reader = _Capped(fh, max_bytes)
            repaired = Utf8RepairReader(reader, count=False)  # ijson stops at a byte that is not UTF-8
            try:
                deadline = time.monotonic() + limits().max_sniff_seconds
                for n_events, (event, value) in enumerate(
                        ijson.basic_parse(repaired, multiple_values=True, use_float=True, buf_size=SCAN_BUF)):
                    scan.feed(event, value)
                    if scan.done:
                        break
                    if n_events & 4095 == 0 and time.monotonic() > deadline:
                        complete = False  # load_limits.max_sniff_seconds
                        break
            except Exception:  # invalid, truncated or capped JSON: keep what was seen
                complete = False
            if reader.capped:
                complete = False
    except OSError:
        return None
    if scan.container == "":
        return None
    if not scan.done:
        complete = False
    container = "lines" if lines and scan.container == "object" else scan.container
    return JsonShape(
        container=container,
        keys=tuple(scan.record_keys) if scan.container == "object" else (),
        record_keys=tuple(scan.record_keys),
        children={k: tuple(v) for k, v in scan.children.items()},
        kinds={k: v for k, v in scan.kinds.items() if v},
        complete=complete,
        values=scan.values,
    )


def _kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else "string"


def _child_keys(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return tuple(value)[:200] if isinstance(value, dict) else None


def shape_of(value: Any, container: str) -> JsonShape | None:
    """Shape of a parsed document (``object``/``list``) or first JSONL line (``lines``)."""
    if container == "list":
        if not isinstance(value, list):
            return None
        first = value[0] if value else None
        rec: dict[str, Any] = first if isinstance(first, dict) else {}
        keys: tuple[str, ...] = ()
    else:
        if not isinstance(value, dict):
            return None
        rec = value
        keys = tuple(value) if container == "object" else ()
    children = {k: c for k, v in rec.items() if (c := _child_keys(v)) is not None}
    values = {k: v for k, v in rec.items() if isinstance(v, str) and len(v) <= SHORT_VALUE_CHARS}
    return JsonShape(container, keys, tuple(rec), children, {k: _kind_of(v) for k, v in rec.items()}, True, values)


def _parsed_whole(path: Path, lines: bool) -> tuple[bool, JsonShape | None]:
    """``(decided, shape)`` from an orjson parse of a small document or of the first JSONL line.

    ``decided`` is False when the text is too big or does not parse, so the streaming scan
    should try (it keeps the keys seen before a break).
    """
    try:
        with path.open("rb") as fh:
            if lines:
                raw = b""
                while not raw.strip():
                    raw = fh.readline(FULL_PARSE_BYTES + 1)
                    if not raw:
                        return True, None
                    if len(raw) > FULL_PARSE_BYTES:
                        return False, None
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
            else:
                if os.fstat(fh.fileno()).st_size > FULL_PARSE_BYTES:
                    return False, None
                raw = fh.read().removeprefix(b"\xef\xbb\xbf")
    except OSError:
        return True, None
    text = raw.lstrip()
    if not text.startswith((b"{", b"[")):
        return True, None
    try:
        value = loads(text, "file")
    except ImportFailure:
        return False, None
    if lines:
        return True, shape_of(value, "lines" if isinstance(value, dict) else "list")
    return True, shape_of(value, "object" if isinstance(value, dict) else "list")


@dataclass(frozen=True)
class KeyRule:
    """Which keys a format's records have, for claiming by structure and naming near misses.

    Attributes:
        label: Format name used in messages (``Who&When``).
        all_of: Keys every record has.
        any_of: Keys of which a record has at least one (empty: no such requirement).
        distinctive: Keys that, when present, make a near miss worth naming (defaults to
            ``all_of``).
    """

    label: str
    all_of: tuple[str, ...]
    any_of: tuple[str, ...] = ()
    distinctive: tuple[str, ...] = ()

    def matches(self, keys: Iterable[str]) -> bool:
        """True when ``keys`` satisfy the rule."""
        have = set(keys)
        return all(k in have for k in self.all_of) and (not self.any_of or any(k in have for k in self.any_of))

    def near_miss(self, keys: Iterable[str]) -> tuple[float, str] | None:
        """``(closeness 0-1, what is missing)`` for keys that almost satisfy the rule, else None."""
        have = set(keys)
        if self.matches(have):
            return None
        marks = self.distinctive or self.all_of
        if not any(k in have for k in marks):
            return None
        missing = [k for k in self.all_of if k not in have]
        need = len(self.all_of) + (1 if self.any_of else 0)
        got = len(self.all_of) - len(missing)
        parts = [f"no `{k}`" for k in missing]
        if self.any_of and not any(k in have for k in self.any_of):
            parts.append("none of " + ", ".join(f"`{k}`" for k in self.any_of))
        else:
            got += 1 if self.any_of else 0
        return got / max(need, 1), self._near_text(missing, parts)

    def _near_text(self, missing: list[str], parts: list[str]) -> str:
        """What a near miss lacks: an importer message (translatable) for the usual shapes."""
        from analyzer.import_messages import itext

        none_of = len(parts) > len(missing)
        keys = ", ".join(f"`{k}`" for k in self.any_of)
        if not none_of and len(missing) == 1:
            return itext("near_no_key", label=self.label, key=missing[0])
        if not none_of and len(missing) == 2:
            return itext("near_no_keys", label=self.label, key=missing[0], key2=missing[1])
        if none_of and not missing:
            return itext("near_none_of", label=self.label, keys=keys)
        if none_of and len(missing) == 1:
            return itext("near_no_key_none_of", label=self.label, key=missing[0], keys=keys)
        return f"looks like {self.label} but has " + " and ".join(parts)  # 3+ gaps: plain words
