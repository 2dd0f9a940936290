"""Guards for reading untrusted trace files: caps, nesting cuts, UTF-8 repair, capped inflation.

The loader opens a :func:`guarding` scope around each file it reads. Inside it,

* :func:`limits` gives the per-file caps (:class:`analyzer.settings.LoadLimits`) to any
  importer helper without threading them through every call;
* :func:`limit_depth` (on each parsed document) and :func:`dumps` (on each value written)
  cut values nested deeper than the frames' writer can go (orjson stops at 254 levels) at
  ``max_depth`` and put the marker ``"[nesting cut at depth N]"`` in place of each cut value;
* :func:`decode_utf8` and :class:`Utf8RepairReader` replace bytes that are not UTF-8 with
  U+FFFD instead of refusing the file;
* :func:`inflate_capped` reads a decompressing stream in chunks and refuses it as soon as
  it crosses the size or ratio cap, so a zip bomb never fills memory.

Each cut and replacement is counted on the active :class:`FileGuard`; the loader turns the
counts into one note per file ("N invalid UTF-8 bytes replaced"). Outside a scope the
defaults apply and nothing is counted.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

import orjson

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.settings import LoadLimits, format_bytes

CUT_MARKER = "[nesting cut at depth {depth}]"
"""Text put in place of a value nested deeper than ``LoadLimits.max_depth``."""

_ERRORS = "trajscope-count-replace"


@dataclass
class FileGuard:
    """Caps and counters of the file being read.

    Attributes:
        limits: Caps of this read.
        utf8_replaced: Invalid UTF-8 bytes replaced with U+FFFD.
        nesting_cuts: Values cut because they were nested deeper than ``limits.max_depth``.
        numbers_nulled: ``NaN``/``Infinity`` and numbers beyond a double's range read as null.
        numbers_as_text: Integers too long to convert (over Python's digit limit) kept as text.
        surrogates_replaced: Lone surrogate escapes (a high one with no low one) replaced with U+FFFD.
    """

    limits: LoadLimits = field(default_factory=LoadLimits)
    utf8_replaced: int = 0
    nesting_cuts: int = 0
    numbers_nulled: int = 0
    numbers_as_text: int = 0
    surrogates_replaced: int = 0

    def notes(self) -> list[str]:
        """Plain-words notes about what was repaired in the file (empty when nothing was)."""
        out = []
        if self.utf8_replaced:
            n = self.utf8_replaced
            out.append(f"{n} invalid UTF-8 byte{'s' if n != 1 else ''} replaced with U+FFFD")
        if self.nesting_cuts:
            n = self.nesting_cuts
            out.append(f"{n} value{'s' if n != 1 else ''} nested deeper than {self.limits.max_depth} levels "
                       f"cut and marked {CUT_MARKER.format(depth=self.limits.max_depth)!r} "
                       f"(cap {LoadLimits.setting('max_depth')})")
        if self.numbers_nulled:
            n = self.numbers_nulled
            out.append(f"{n} number{'s' if n != 1 else ''} that {'are' if n != 1 else 'is'} not finite "
                       f"(NaN, Infinity or beyond a double's range) read as null")
        if self.numbers_as_text:
            n = self.numbers_as_text
            out.append(f"{n} integer{'s' if n != 1 else ''} too long to convert kept as text")
        if self.surrogates_replaced:
            n = self.surrogates_replaced
            out.append(f"{n} lone surrogate escape{'s' if n != 1 else ''} replaced with U+FFFD")
        return out


_CURRENT: ContextVar[FileGuard | None] = ContextVar("trajscope_file_guard", default=None)


@contextlib.contextmanager
def guarding(limits: LoadLimits | None = None) -> Iterator[FileGuard]:
    """Scope in which helpers use ``limits`` and count repairs on the yielded guard."""
    guard = FileGuard(limits or LoadLimits())
    token = _CURRENT.set(guard)
    try:
        yield guard
    finally:
        _CURRENT.reset(token)


def current() -> FileGuard:
    """The active guard (a fresh uncounted one outside any :func:`guarding` scope)."""
    return _CURRENT.get() or FileGuard()


def limits() -> LoadLimits:
    """Caps of the file being read (defaults outside a :func:`guarding` scope)."""
    guard = _CURRENT.get()
    return guard.limits if guard is not None else LoadLimits()


# ---- nesting ---------------------------------------------------------------------------------


_INT_MIN, _UINT_MAX = -(2**63), 2**64 - 1


def cut_nesting(value: Any, max_depth: int | None = None, big_ints_as_text: bool = True) -> Any:
    """A copy of ``value`` whose containers nested deeper than ``max_depth`` are replaced.

    The top value is at depth 1; a dict or list at a depth over ``max_depth`` becomes the
    marker string. Integers beyond 64 bits become their decimal text (when
    ``big_ints_as_text``; a freshly parsed value keeps them exact). Iterative, so any depth
    is safe. Each cut is counted on the active guard.
    """
    depth_cap = limits().max_depth if max_depth is None else max_depth
    marker = CUT_MARKER.format(depth=depth_cap)
    guard = _CURRENT.get()
    cuts = 0

    def child(v: Any, depth: int) -> Any:
        nonlocal cuts
        if isinstance(v, (dict, list, tuple)) and depth > depth_cap:
            cuts += 1
            return marker
        if big_ints_as_text and isinstance(v, int) and not isinstance(v, bool) and not _INT_MIN <= v <= _UINT_MAX:
            return str(v)  # JSON writers stop at 64 bits; keep the digits as text
        return v

    root = child(value, 1)
    if root is marker or not isinstance(root, (dict, list, tuple)):
        if guard is not None:
            guard.nesting_cuts += cuts
        return root
    out: Any = {} if isinstance(root, dict) else []
    stack: list[tuple[Any, Any, int]] = [(root, out, 1)]
    while stack:
        src, dst, depth = stack.pop()
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for k, v in items:
            new = child(v, depth + 1)
            if isinstance(new, (dict, list, tuple)):
                holder: Any = {} if isinstance(new, dict) else []
                stack.append((new, holder, depth + 1))
                new = holder
            if isinstance(dst, dict):
                dst[k] = new
            else:
                dst.append(new)
    if guard is not None:
        guard.nesting_cuts += cuts
    return out


_DEPTH_CHECK_MAX_BYTES = 64 * 1024 * 1024


def limit_depth(value: Any, text_bytes: int) -> Any:
    """``value`` itself, or a cut copy when it is nested deeper than a JSON writer can go.

    Called on each freshly parsed document or line so that no importer ever walks (or
    ``repr``s) a 1,000-level value. The check is one C-speed ``orjson.dumps`` (it fails past
    254 levels); only a value that fails it is walked and cut at ``max_depth``. Documents
    over 64 MB of text are not checked here (the extra copy would cost too much memory);
    their values are still cut when written (:func:`dumps`).

    Args:
        value: A parsed JSON value.
        text_bytes: Length of the text it was parsed from (short texts cannot be deep).
    """
    if not isinstance(value, (dict, list)) or text_bytes <= 2 * 254 or text_bytes > _DEPTH_CHECK_MAX_BYTES:
        return value
    try:
        orjson.dumps(value)
    except TypeError:  # too deep, or an integer beyond 64 bits (kept exact here)
        return cut_nesting(value, big_ints_as_text=False)
    return value


def dumps(value: Any, option: int | None = None) -> str:
    """JSON text of ``value`` (``default=str``), cutting what the writer cannot serialise.

    Nesting deeper than ``load_limits.max_depth`` is cut and marked (orjson stops at 254
    levels); integers beyond 64 bits are written as strings. The normal path is one
    ``orjson.dumps`` call; the repairing copy is made only when that call fails.

    Args:
        value: Any parsed JSON value (or objects ``str()`` can render).
        option: orjson options (e.g. ``orjson.OPT_SORT_KEYS``).
    """
    try:
        return orjson.dumps(value, default=str, option=option).decode()
    except TypeError:  # "Recursion limit reached" or "Integer exceeds 64-bit range"
        pass
    return orjson.dumps(cut_nesting(value), default=str, option=option).decode()


# ---- UTF-8 -----------------------------------------------------------------------------------


def _count_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    guard = _CURRENT.get()
    if guard is not None:
        guard.utf8_replaced += exc.end - exc.start
    return "\ufffd", exc.end


codecs.register_error(_ERRORS, _count_replace)


def decode_utf8(raw: bytes, bom: bool = True) -> str:
    """Text of ``raw`` as UTF-8 (BOM dropped when ``bom``); invalid bytes become U+FFFD, counted."""
    codec = "utf-8-sig" if bom else "utf-8"
    try:
        return raw.decode(codec)
    except UnicodeDecodeError:
        return raw.decode(codec, _ERRORS)


class _Reads(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...


class Utf8RepairReader:
    """Binary reader over a stream that hands out only valid UTF-8 (invalid bytes -> U+FFFD).

    For streaming parsers (``ijson``) that would otherwise fail on the first bad byte. Each
    replaced byte is counted on the active guard.

    Args:
        raw: A binary stream with ``read(n)``.
        count: Count replacements on the active guard (off for a second pass over the same
            bytes, so each bad byte is counted once).
    """

    def __init__(self, raw: IO[bytes] | _Reads, count: bool = True) -> None:
        self._raw = raw
        self._dec = codecs.getincrementaldecoder("utf-8")(_ERRORS if count else "replace")

    def read(self, n: int = -1) -> bytes:
        """Up to about ``n`` bytes of valid UTF-8 (b"" at the end)."""
        while True:
            chunk = self._raw.read(n)
            final = not chunk
            text = self._dec.decode(chunk, final)
            if text or final:
                return text.encode("utf-8")


# ---- inflation -------------------------------------------------------------------------------

_INFLATE_CHUNK = 1 << 20


def inflate_capped(read: Callable[[int], bytes], compressed_bytes: int, record: str,
                   declared_bytes: int | None = None) -> bytes:
    """Read a decompressing stream whole, refusing it as soon as it crosses a cap.

    Args:
        read: ``read(n)`` of the decompressing stream (``b""`` at its end).
        compressed_bytes: Size of the compressed data (for the ratio).
        record: Member name, for the error.
        declared_bytes: Inflated size the archive declares; reading stops one byte past it.

    Raises:
        ImportFailure: With ``record`` set, naming the cap and its setting.
    """
    lim = limits()
    cap = lim.max_member_bytes
    stop = cap + 1 if declared_bytes is None else min(cap, declared_bytes) + 1
    out = bytearray()
    while len(out) < stop:
        chunk = read(min(_INFLATE_CHUNK, stop - len(out)))
        if not chunk:
            break
        out += chunk
        if len(out) > cap:
            raise ImportFailure(imsg("member_inflates_past_cap", cap=format_bytes(cap),
                                     setting=LoadLimits.setting('max_member_bytes')), record=record)
        if len(out) > lim.ratio_floor_bytes and len(out) > lim.max_inflate_ratio * max(compressed_bytes, 1):
            raise ImportFailure(imsg("member_inflate_ratio", ratio=f"{lim.max_inflate_ratio:g}",
                                     packed=format_bytes(compressed_bytes), unpacked=format_bytes(len(out)),
                                     setting=LoadLimits.setting('max_inflate_ratio')), record=record)
    return bytes(out)
