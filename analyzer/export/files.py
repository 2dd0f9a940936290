"""Writing export files safely: atomic replace, clear errors."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_read_umask()  # read once at import: os.umask is process-wide


class ExportError(Exception):
    """An export could not be written (names the file and the reason)."""


def atomic_write(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Write a file through a temporary sibling and rename it into place.

    A reader never sees a half-written file, and a failed export leaves the old file intact.

    Args:
        path: Destination.
        write: Callback that writes the content to the temporary path it receives.

    Returns:
        The destination path.

    Raises:
        ExportError: If the folder cannot be created or the file cannot be written.
    """
    dest = Path(path)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
        os.close(fd)
    except OSError as exc:
        raise ExportError(f"{dest}: cannot write ({exc.strerror or exc})") from None
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, dest)
    except OSError as exc:
        raise ExportError(f"{dest}: cannot write ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Atomically write bytes."""
    return atomic_write(path, lambda p: p.write_bytes(data))


def write_text(path: str | Path, text: str) -> Path:
    """Atomically write UTF-8 text with Unix line ends."""
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8", newline="\n"))
