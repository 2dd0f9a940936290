"""Storage faults of the workspace in plain words: what is wrong and what to do.

SQLite and the OS report a full disk, a read-only file or folder, a held lock or a damaged file
as terse codes (``SQLITE_READONLY_DIRECTORY``, ``EACCES``, "disk I/O error"). :func:`storage_error`
turns them into a :class:`WorkspaceError` whose message names the file or folder, the cause and
the remedy, and says whether anything was lost (never: a failed action is rolled back, and every
action acknowledged before it stays committed).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

try:  # POSIX only; on other systems no file-size limit is reported
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

_KEPT = "nothing was saved by this action; everything saved before it is kept"
_FREE_LOW = 8 * 1024 * 1024
"""Below this many free bytes the disk counts as full."""


class WorkspaceError(Exception):
    """The workspace cannot be opened or written, or an action is invalid.

    Args:
        reason: What is wrong and what to do (without the path).
        path: The workspace file the error is about, if any; the message starts with it.

    Attributes:
        reason: What is wrong and what to do.
        path: The workspace file, or None.
    """

    def __init__(self, reason: str, path: Path | None = None) -> None:
        super().__init__(f"{path}: {reason}" if path is not None else reason)
        self.reason = reason
        self.path = path


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"  # pragma: no cover


def _folder(path: Path) -> Path:
    """The nearest existing folder of ``path`` (the workspace's folder or an ancestor)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _read_only_fs(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and not _read_only_fs(folder)


def _size_limit() -> int | None:
    """The process's soft file-size limit (``ulimit -f``) in bytes, or None when unlimited."""
    if resource is None:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _no_space(path: Path, io_error: bool) -> str | None:
    """Why a write ran out of room (size limit, full disk), or None when neither explains it."""
    limit = _size_limit()
    if limit is not None:
        return (f"cannot write the workspace: a file-size limit of {_size(limit)} (ulimit -f) stopped the write; "
                f"{_KEPT}. Raise the limit (ulimit -f unlimited) and repeat the action.")
    folder = _folder(path)
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = None
    if free is not None and free < _FREE_LOW:
        return (f"cannot write the workspace: the disk holding {folder} is full ({_size(free)} free); {_KEPT}. "
                f"Free some space on that disk and repeat the action.")
    if io_error:
        return None
    return (f"cannot write the workspace: the database or the disk is full; {_KEPT}. Free some space on the disk "
            f"holding {folder} and repeat the action.")


def _read_only_folder(path: Path, action: str) -> str:
    folder = _folder(path)
    where = "is on a read-only file system" if _read_only_fs(folder) else "is not writable"
    return (f"cannot {action} the workspace: the folder {folder} {where}, and a workspace needs to create "
            f"{path.name}-wal and {path.name}-shm beside its file. Make the folder writable (chmod u+w '{folder}') "
            f"or use a workspace in a folder you can write to (File ▸ Open workspace, or --workspace).")


def _read_only_file(path: Path) -> str:
    folder = _folder(path)
    if _read_only_fs(folder):
        return ("the workspace file is on a read-only file system, so no tag can be saved in it. Copy it to a "
                "writable folder and open the copy (File ▸ Open workspace, or --workspace).")
    return (f"the workspace file is read-only, so no tag can be saved in it. Make it writable (chmod u+w '{path}') "
            f"or open a writable copy (File ▸ Open workspace, or --workspace).")


def _from_sqlite(path: Path, exc: sqlite3.Error, action: str) -> str:
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    folder_ok = _writable(_folder(path))
    if name.startswith("SQLITE_FULL"):
        return _no_space(path, io_error=False) or ""
    if name.startswith("SQLITE_IOERR"):
        return _no_space(path, io_error=True) or (
            f"cannot {action} the workspace: the disk reported an I/O error ({name}: {exc}); {_KEPT}. "
            f"Check that the disk is connected and healthy, then repeat the action.")
    if name == "SQLITE_READONLY_DIRECTORY" or (name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")) and not folder_ok):
        return _read_only_folder(path, action)
    if name.startswith("SQLITE_READONLY"):
        return _read_only_file(path)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return (f"the workspace is busy: another program (another TrajScope window?) kept it locked too long; "
                f"{_KEPT}. Repeat the action in a moment, or close the other program.")
    if name.startswith(("SQLITE_PERM", "SQLITE_AUTH")):
        return f"permission denied ({exc}). Check that you may read and write {path}."
    if name.startswith("SQLITE_CANTOPEN"):
        if action == "open" and not path.exists() and path.parent.exists():
            return "no such workspace file. Check the path, or create a new workspace (File ▸ New workspace)."
        return (f"cannot open the workspace file ({exc}). Check that {path.parent} exists and that you may read and "
                f"write there.")
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or (not name and isinstance(exc, sqlite3.DatabaseError)
                                                                 and "not a database" in str(exc)):
        return (f"not a TrajScope workspace or damaged ({exc}). Open another workspace, or restore this one from a "
                f"backup or an annotations export (File ▸ Import annotations).")
    return f"cannot {action} the workspace ({name or type(exc).__name__}: {exc})."


def _from_os(path: Path, exc: OSError, action: str) -> str:
    target = Path(exc.filename) if exc.filename else path
    if exc.errno in (errno.EACCES, errno.EPERM):
        if target != path and not target.exists():
            parent = _folder(target)
            return (f"cannot create the folder {target}: permission denied in {parent}. Choose a workspace in a folder "
                    f"you can write to (File ▸ New workspace, or --workspace), or create {target} yourself.")
        return f"permission denied for {target}. Check that you may read and write it, or use another workspace."
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((a for a in (target, *target.parents) if a.exists()), target)
        if blocker.exists() and not blocker.is_dir():
            return (f"{blocker} is a file, not a folder, so the workspace cannot go inside it. Choose another "
                    f"workspace location (File ▸ New workspace, or --workspace).")
    if exc.errno == errno.EROFS:
        return _read_only_folder(path, action)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return _no_space(path, io_error=False) or ""
    return f"cannot {action} the workspace: {exc.strerror or exc} ({target})."


def storage_error(path: Path, exc: BaseException, action: str) -> WorkspaceError:
    """A :class:`WorkspaceError` that says what went wrong with the workspace's storage and what to do.

    Args:
        path: The workspace file.
        exc: The ``sqlite3.Error`` or ``OSError`` raised.
        action: ``"open"`` or ``"save"`` (the message says which failed).

    Returns:
        The error to raise (chain it ``from exc``).
    """
    if isinstance(exc, WorkspaceError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return WorkspaceError(_from_sqlite(path, exc, action), path)
    if isinstance(exc, OSError):
        return WorkspaceError(_from_os(path, exc, action), path)
    return WorkspaceError(f"cannot {action} the workspace ({type(exc).__name__}: {exc}).", path)
