"""Reading big or compressed files in a worker process bounded in time and memory.

A folder import must not be stalled or killed by one hostile file. Small plain files are
read in-process (their caps are checked as they are read, and a worker costs a process
start); files of at least ``LoadLimits.isolate_min_bytes`` and compressed files (``.eval``,
``.zip``, ``.gz``) of at least ``LoadLimits.isolate_compressed_min_bytes`` are read by one
worker process with an address-space cap (``RLIMIT_AS`` = ``max_worker_memory_bytes``), and
given at most ``max_worker_seconds``. A worker that runs out of time is killed and the file
reported; one that dies (out of memory in native code) is reported and replaced. The worker
lives for one :func:`analyzer.loading.load` call, so its start is paid once per load, and
only when a file needs it.

The worker is started with ``spawn`` (a fresh interpreter; ``fork`` is unsafe in a process
with Qt or polars threads). It rebuilds the importer from the spec's ``module:callable``.

The worker hands its frames back as uncompressed Arrow IPC files in a private folder (in the
memory-backed ``/dev/shm`` when it has room, else the temporary folder: :func:`handoff_dirs`),
which the parent memory-maps into its frames (:func:`_take`; Arrow's layout is polars' own: no
copy, no conversion; a column null on every row is not written, the parent makes it again) instead
of receiving them pickled through a pipe (a serialisation on each
side and the pipe in between cost more than the read itself for a 100 MB file). One
worker is kept warm between loads for ``LoadLimits.worker_idle_seconds`` (:func:`acquire_worker`,
:func:`release_worker`): its start, an interpreter importing the readers, costs about as much as
reading 100 MB. A load that finds it busy (another thread is loading) gets a worker of its own.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time
import weakref
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from analyzer.errors import LoadError
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelToken, NeverCancel
from analyzer.loading.read import FileRead, read_file
from analyzer.loading.task_key import fill_task_keys
from analyzer.plugin_host.registry import ImporterSpec, PluginHost
from analyzer.settings import LoadLimits, format_bytes

COMPRESSED_SUFFIXES = (".eval", ".zip", ".gz")
"""File endings whose content inflates: isolated from a lower size."""

_POLL_S = 0.05

HANDOFF_PREFIX = "trajscope-worker-"
"""Name prefix of the worker's private hand-off folders."""

SHARED_MEMORY_DIR = "/dev/shm"
"""A memory-backed folder (tmpfs) on Linux: hand-off files there skip the disk file system."""


def needs_isolation(path: Path, size: int, limits: LoadLimits) -> bool:
    """True when a file is read in the worker process (rule in the module docstring)."""
    if limits.isolate_min_bytes < 0:
        return False
    if size >= limits.isolate_min_bytes:
        return True
    compressed = path.name.lower().endswith(COMPRESSED_SUFFIXES)
    return compressed and 0 <= limits.isolate_compressed_min_bytes <= size


def _child_init(memory_bytes: int) -> None:
    """Worker start: cap the address space so a runaway parse fails with MemoryError."""
    if memory_bytes > 0:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


_HOSTS: dict[tuple[str, str], PluginHost] = {}


class _Handoff(NamedTuple):
    """What the worker sends back: where its frames are (Arrow IPC files), and the small rest.

    ``schemas`` holds each frame's full schema: a column that is null on every row is not
    written (nothing to copy), the parent makes it again (:func:`_restore`).
    """

    folder: str
    errors: list[LoadError]
    notes: list[str]
    schemas: dict[str, list[tuple[str, Any]]]


def _without_null_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` without the columns that are null on every row (all of them kept if it has no rows).

    The first column is always kept, so the written file still has the frame's height.
    """
    if frame.height == 0:
        return frame
    keep = [s for i, s in enumerate(frame.get_columns()) if i == 0 or s.null_count() < frame.height]
    return frame if len(keep) == frame.width else pl.DataFrame(keep)


def _restore(frame: pl.DataFrame, schema: list[tuple[str, Any]]) -> pl.DataFrame:
    """The frame with the all-null columns :func:`_without_null_columns` left out, in schema order."""
    if frame.width == len(schema):
        return frame
    have = set(frame.columns)
    return pl.DataFrame([frame.get_column(name) if name in have
                         else pl.repeat(None, frame.height, dtype=dtype, eager=True).alias(name)
                         for name, dtype in schema])


def _child_read(path: str, spec: ImporterSpec, limits: LoadLimits, sys_path: list[str]) -> _Handoff | FileRead:
    """Worker side: read one file with a host holding just this importer; frames go to IPC files."""
    for entry in sys_path:  # a kept worker learns the parent's later import paths (plugins added since)
        if entry not in sys.path:
            sys.path.append(entry)
    read = _read_in_child(path, spec, limits)
    need = int(read.traces.estimated_size() + read.steps.estimated_size())
    keyed = False
    for base in handoff_dirs(need):
        try:
            folder = tempfile.mkdtemp(prefix=HANDOFF_PREFIX, dir=base)
        except OSError:
            continue
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:  # the steps file is written meanwhile
                steps_job = pool.submit(_write_frame, read.steps, folder, "steps")
                if not keyed:
                    read, keyed = read._replace(traces=_with_task_keys(read.traces)), True
                _write_frame(read.traces, folder, "traces")
                steps_job.result()
        except Exception:  # no room after all (another load filled it; polars may not say OSError): next folder
            shutil.rmtree(folder, ignore_errors=True)
            continue
        schemas = {"traces": list(read.traces.schema.items()), "steps": list(read.steps.schema.items())}
        return _Handoff(folder, read.errors, read.notes, schemas)
    return read  # no folder had room for the files: send the frames through the pipe


def _write_frame(frame: pl.DataFrame, folder: str, name: str) -> None:
    _without_null_columns(frame).write_ipc(os.path.join(folder, f"{name}.arrow"), compression="uncompressed")


def _with_task_keys(traces: pl.DataFrame) -> pl.DataFrame:
    """The worker's traces with their text task keys filled, while the steps file is written.

    The loader fills them again (:func:`analyzer.loading.task_key.fill_task_keys` keeps keys that
    are set, so the result is the same) and then finds little left to do; should this fill fail,
    the keys are left to the loader's, which sees the same frame.
    """
    try:
        return fill_task_keys(traces)
    except Exception:  # left to the loader's fill
        return traces


def handoff_dirs(need: int) -> list[str | None]:
    """Where the worker writes its IPC files, in order of preference (None: the temporary folder).

    The memory-backed :data:`SHARED_MEMORY_DIR` comes first when it exists, is writable and has
    room for twice ``need`` bytes: writing there and removing the files afterwards costs a
    memory copy, where the temporary folder's disk file system also allocates blocks and tears
    down the pages of the removed file (together about a quarter of a second for a 100 MB
    file). The frames take the same memory either way once the parent maps them.

    Args:
        need: Estimated size in bytes of the frames to hand over.
    """
    dirs: list[str | None] = []
    try:
        if (os.path.isdir(SHARED_MEMORY_DIR) and os.access(SHARED_MEMORY_DIR, os.W_OK)
                and shutil.disk_usage(SHARED_MEMORY_DIR).free > 2 * need + (64 << 20)):
            dirs.append(SHARED_MEMORY_DIR)
    except OSError:
        pass
    dirs.append(None)
    return dirs


def _take(got: _Handoff | FileRead) -> FileRead:
    """Parent side: the worker's frames, memory-mapped from its IPC files (which are then removed).

    The frames share the mapped pages (Arrow's layout is polars' own: no copy, no conversion);
    an unlinked file stays mapped until the frames let go of it. Where an open file cannot be
    removed (Windows), the frames are read into memory first.
    """
    if isinstance(got, FileRead):
        return got
    try:
        traces, steps = (_restore(_mapped(os.path.join(got.folder, f"{name}.arrow")), got.schemas[name])
                         for name in ("traces", "steps"))
    finally:
        shutil.rmtree(got.folder, ignore_errors=True)
    return FileRead(traces, steps, got.errors, got.notes)


def _mapped(path: str) -> pl.DataFrame:
    if os.name == "nt":
        return pl.read_ipc(path)
    import pyarrow as pa

    with pa.memory_map(path) as source:
        table = pa.ipc.open_file(source).read_all()
    frame = pl.from_arrow(table, rechunk=False)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _read_in_child(path: str, spec: ImporterSpec, limits: LoadLimits) -> FileRead:
    key = (spec.id, spec.callable)
    host = _HOSTS.get(key)
    if host is None:
        entry = {k: v for k, v in asdict(spec).items() if k != "plugin"}
        entry["patterns"], entry["sidecars"] = list(spec.patterns), list(spec.sidecars)
        host = PluginHost()
        host.register_manifest({"plugin": {"name": spec.plugin}, "importers": [entry]})
        _HOSTS[key] = host
    return read_file(Path(path), spec, host, NeverCancel(), limits)


class IsolatedReader:
    """One worker process reading files one at a time (started on first use).

    Args:
        limits: Caps (time, memory) of each file.
    """

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        self._pool: ProcessPoolExecutor | None = None
        self._finalizer: Any = None  # weakref.finalize shutting the pool down if never closed

    def _ensure(self) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_child_init,
                                             initargs=(self.limits.max_worker_memory_bytes,))
            self._finalizer = weakref.finalize(self, _shutdown, self._pool)
        return self._pool

    def _kill(self) -> None:
        """Stop the worker at once (a timeout or a cancel); the next file gets a new one."""
        pool, self._pool = self._pool, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if pool is None:
            return
        for proc in list(getattr(pool, "_processes", {}).values()):
            if proc.is_alive():
                proc.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """Shut the worker down (waits for it to exit)."""
        pool, self._pool = self._pool, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def read(self, path: Path, spec: ImporterSpec, cancel: CancelToken) -> FileRead:
        """Read one file in the worker (what :func:`analyzer.loading.read.read_file` gives).

        A timeout, a dead worker or a cancel never raises: they give an error for the file
        (a cancel gives an empty result, and the loader sees the cancel token).
        """

        def failed(reason: str) -> FileRead:
            return FileRead(empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS),
                            [LoadError(str(path), None, spec.id, reason)], [])

        try:
            fut: Future[_Handoff | FileRead] = self._ensure().submit(_child_read, str(path), spec, self.limits,
                                                                     list(sys.path))
        except (BrokenProcessPool, RuntimeError, OSError) as exc:
            self._kill()
            return failed(f"cannot start the worker process that reads large files ({exc})")
        deadline = time.monotonic() + self.limits.max_worker_seconds
        while True:
            try:
                return _take(fut.result(timeout=_POLL_S))
            except FutureTimeout:
                if cancel.cancelled:
                    self._kill()
                    return FileRead(empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS), [], [])
                if time.monotonic() > deadline:
                    self._kill()
                    return failed(f"reading took longer than {self.limits.max_worker_seconds:g} s, the cap "
                                  f"({LoadLimits.setting('max_worker_seconds')}); stopped and skipped")
            except BrokenProcessPool:
                self._kill()
                return failed("the worker process reading this file died (out of memory: its cap is "
                              f"{format_bytes(self.limits.max_worker_memory_bytes)}, "
                              f"{LoadLimits.setting('max_worker_memory_bytes')}; or a crash in a parser); "
                              "file skipped")
            except Exception as exc:  # e.g. the result could not be sent back
                self._kill()
                return failed(f"the worker process failed ({type(exc).__name__}: {exc}); file skipped")


def _shutdown(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)


# ---- the worker kept warm between loads ---------------------------------------------------------

_LOCK = threading.Lock()
_KEPT: IsolatedReader | None = None
_KEPT_BUSY = False
_IDLE_TIMER: threading.Timer | None = None


def acquire_worker(limits: LoadLimits) -> IsolatedReader:
    """The kept worker when it is idle and was made for these limits, else a new one.

    Give it back with :func:`release_worker` when the load ends.
    """
    global _KEPT, _KEPT_BUSY, _IDLE_TIMER
    with _LOCK:
        if _IDLE_TIMER is not None:
            _IDLE_TIMER.cancel()
            _IDLE_TIMER = None
        if _KEPT is not None and not _KEPT_BUSY and _KEPT.limits == limits:
            _KEPT_BUSY = True
            return _KEPT
        return IsolatedReader(limits)


def release_worker(worker: IsolatedReader) -> None:
    """Keep a worker for the next load for ``worker_idle_seconds`` (or stop it now)."""
    global _KEPT, _KEPT_BUSY, _IDLE_TIMER
    idle = worker.limits.worker_idle_seconds
    stop: list[IsolatedReader] = []
    with _LOCK:
        if worker is _KEPT:
            _KEPT_BUSY = False
        elif idle > 0 and (_KEPT is None or (not _KEPT_BUSY and _KEPT.limits != worker.limits)):
            if _KEPT is not None:  # kept for other limits: the newer choice wins
                stop.append(_KEPT)
            _KEPT, _KEPT_BUSY = worker, False
        else:  # one is kept already
            stop.append(worker)
        if _KEPT is worker and not _KEPT_BUSY:
            if idle > 0:
                _IDLE_TIMER = threading.Timer(idle, _stop_kept)
                _IDLE_TIMER.daemon = True
                _IDLE_TIMER.start()
            else:
                stop.append(worker)
                _KEPT = None
    for w in stop:
        w.close()


def stop_kept_worker() -> None:
    """Stop the kept worker now (when it is idle): the next load starts a new one."""
    with _LOCK:
        if _IDLE_TIMER is not None:
            _IDLE_TIMER.cancel()
    _stop_kept()


def _stop_kept() -> None:
    global _KEPT, _IDLE_TIMER
    with _LOCK:
        kept = _KEPT if not _KEPT_BUSY else None
        if kept is not None:
            _KEPT = None
        _IDLE_TIMER = None
    if kept is not None:
        kept.close()
