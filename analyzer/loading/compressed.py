"""Compressed trace files (``.gz``, ``.bz2``, ``.xz``, ``.zst``), read transparently.

``run.json.gz`` is read as ``run.json``: :func:`inflate_to` streams it into a private temporary
file named for what it holds, under the same limits as a compressed member of an ``.eval`` log
(``load_limits.max_member_bytes`` and ``max_inflate_ratio``, checked while inflating, so a
decompression bomb is refused after at most one chunk past a cap and never held in memory), and
the loader then claims and reads that file as it would the plain one; its runs and problems
name the compressed file.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.settings import LoadLimits, format_bytes

STREAM_SUFFIXES: dict[str, str] = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}
"""File endings read as a compressed stream -> the compression's name."""

_CHUNK = 1 << 20


def inner_name(path: Path) -> str | None:
    """The name of what a compressed file holds (``run.json`` of ``run.json.gz``), or None."""
    suffix = path.suffix.lower()
    if suffix not in STREAM_SUFFIXES or len(path.name) <= len(suffix):
        return None
    return path.name[: -len(suffix)]


def _open(path: Path) -> IO[bytes]:
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    import zstandard  # only needed for .zst

    fh = path.open("rb")
    reader: Any = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)
    return reader  # type: ignore[no-any-return]


def check_inflated(total: int, compressed_bytes: int, limits: LoadLimits, record: str) -> None:
    """Refuse an inflating stream that crossed ``max_member_bytes`` or ``max_inflate_ratio``.

    Raises:
        ImportFailure: With ``record`` set, naming the cap and its setting.
    """
    if total > limits.max_member_bytes:
        raise ImportFailure(imsg("member_inflates_past_cap", cap=format_bytes(limits.max_member_bytes),
                                 setting=LoadLimits.setting("max_member_bytes")), record=record)
    if total > limits.ratio_floor_bytes and total > limits.max_inflate_ratio * max(compressed_bytes, 1):
        raise ImportFailure(imsg("member_inflate_ratio", ratio=f"{limits.max_inflate_ratio:g}",
                                 packed=format_bytes(compressed_bytes), unpacked=format_bytes(total),
                                 setting=LoadLimits.setting("max_inflate_ratio")), record=record)


def inflate_to(path: Path, folder: Path, limits: LoadLimits,
               cancelled: Callable[[], bool] = lambda: False) -> Path:
    """Decompress a ``.gz``/``.bz2``/``.xz``/``.zst`` file into ``folder``, streaming, under the caps.

    Args:
        path: The compressed file.
        folder: A private folder for the inflated copy (named :func:`inner_name`).
        limits: The caps (``max_member_bytes``, ``max_inflate_ratio``, ``ratio_floor_bytes``).
        cancelled: Checked between chunks.

    Returns:
        The inflated file.

    Raises:
        ImportFailure: When the file cannot be decompressed or crosses a cap (nothing is kept).
        OSError: When it cannot be read.
    """
    name = inner_name(path)
    if name is None:
        raise ValueError(f"not a compressed stream: {path}")
    out_path = folder / name
    packed = path.stat().st_size
    kind = STREAM_SUFFIXES[path.suffix.lower()]
    total = 0
    try:
        with _open(path) as src, out_path.open("wb") as out:
            while not cancelled():
                chunk = src.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                check_inflated(total, packed, limits, "file")
                out.write(chunk)
    except ImportFailure:
        out_path.unlink(missing_ok=True)
        raise
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile, ValueError) as exc:
        out_path.unlink(missing_ok=True)
        raise ImportFailure(imsg("cannot_decompress", kind=kind, error=f"{type(exc).__name__}: {exc}"[:200]),
                            record="file") from exc
    except OSError as exc:
        out_path.unlink(missing_ok=True)
        if type(exc).__name__ == "ZstdError" or "compressed" in str(exc).lower() or "invalid" in str(exc).lower():
            raise ImportFailure(imsg("cannot_decompress", kind=kind, error=str(exc)[:200]), record="file") from exc
        raise
    except Exception as exc:  # zstandard.ZstdError and other codec errors
        out_path.unlink(missing_ok=True)
        raise ImportFailure(imsg("cannot_decompress", kind=kind, error=f"{type(exc).__name__}: {exc}"[:200]),
                            record="file") from exc
    return out_path
