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
"""

from __future__ import annotations

import multiprocessing
import time
import weakref
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path
from typing import Any

from analyzer.errors import LoadError
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelToken, NeverCancel
from analyzer.loading.read import FileRead, read_file
from analyzer.plugin_host.registry import ImporterSpec, PluginHost
from analyzer.settings import LoadLimits, format_bytes

COMPRESSED_SUFFIXES = (".eval", ".zip", ".gz")
"""File endings whose content inflates: isolated from a lower size."""

_POLL_S = 0.05


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


def _child_read(path: str, spec: ImporterSpec, limits: LoadLimits) -> FileRead:
    """Worker side: read one file with a host holding just this importer."""
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
            fut: Future[FileRead] = self._ensure().submit(_child_read, str(path), spec, self.limits)
        except (BrokenProcessPool, RuntimeError, OSError) as exc:
            self._kill()
            return failed(f"cannot start the worker process that reads large files ({exc})")
        deadline = time.monotonic() + self.limits.max_worker_seconds
        while True:
            try:
                return fut.result(timeout=_POLL_S)
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
