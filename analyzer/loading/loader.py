"""Partial-success loading: ``load(paths) -> LoadResult(traces, steps, errors)``.

Each file is claimed by the highest-priority importer whose patterns match and whose
``sniff`` accepts the first bytes. One bad file (or record) becomes a :class:`LoadError`;
every good file still loads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from analyzer import guard
from analyzer.errors import ImportFailure, LoadError, PluginError
from analyzer.frames.build import empty_frame, frame_from_rows, step_rows, trace_row
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress
from analyzer.loading.cache import ParsedCache, file_digest
from analyzer.loading.diagnose import diagnose_unclaimed
from analyzer.loading.isolate import IsolatedReader, needs_isolation
from analyzer.loading.jsonio import head_bytes
from analyzer.plugin_host.protocols import ImportContext
from analyzer.plugin_host.registry import ImporterSpec, PluginHost, default_host
from analyzer.schema.models import Trajectory
from analyzer.settings import LoadLimits, format_bytes, load_settings

_BATCH = 2000  # trajectories per frame batch while reading one file


@dataclass
class LoadResult:
    """What a load produced.

    Attributes:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        errors: One entry per bad file or record.
        formats: Importer id -> number of runs it read.
        files: Files that were read (claimed by an importer).
        skipped: Files no importer pattern matches (README, licences ...), not errors.
        notes: Informational messages (e.g. duplicate runs skipped).
        cancelled: True when loading stopped early on request.
    """

    traces: pl.DataFrame = field(default_factory=lambda: empty_frame(TRACE_COLUMNS))
    steps: pl.DataFrame = field(default_factory=lambda: empty_frame(STEP_COLUMNS))
    errors: list[LoadError] = field(default_factory=list)
    formats: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cancelled: bool = False


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Expand files and folders (recursively, sorted, hidden entries skipped)."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    if not f.startswith("."):
                        yield Path(root) / f
        else:
            yield path


def claim(path: Path, host: PluginHost) -> tuple[ImporterSpec | None, list[ImporterSpec], str | None]:
    """Pick the importer for a file.

    Returns:
        ``(winner, candidates, problem)``: the winning spec (or None), the specs whose
        patterns matched, and a plain-words problem when the file could not be sniffed.
    """
    candidates = [s for s in host.importers() if s.matches(path)]
    if not candidates:
        return None, [], None
    try:
        head = head_bytes(path)
    except OSError as exc:
        return None, candidates, f"cannot read file: {exc.strerror or exc}"
    for spec in candidates:  # sorted by priority, highest first
        try:
            importer = host.load_importer(spec.id)
            if importer.sniff(head, path):
                return spec, candidates, None
        except PluginError:
            continue
        except Exception:  # a sniff that raises simply does not claim
            continue
    return None, candidates, None


def _normalise(t: Trajectory, path: Path, importer_id: str) -> Trajectory:
    t.source_file = str(path)
    t.source_format = t.source_format or importer_id
    return t.with_id()


class FileRead(NamedTuple):
    """What reading one file gave: frames, errors, and notes (repairs, without the file name)."""

    traces: pl.DataFrame
    steps: pl.DataFrame
    errors: list[LoadError]
    notes: list[str]


def _record_of(t: Any) -> str | None:
    record = getattr(t, "record", None)
    return record if isinstance(record, str) and record else None


class _RunFrames:
    """Turns yielded trajectories into frames run by run: a run that fails costs only itself.

    Normalising (content id), row building and frame building each run under a guard; a
    batch whose frames cannot be built is rebuilt run by run so the bad run is named.
    """

    def __init__(self, path: Path, importer_id: str, errors: list[LoadError]) -> None:
        self.path, self.importer_id, self.errors = path, importer_id, errors
        self.trace_frames: list[pl.DataFrame] = []
        self.step_frames: list[pl.DataFrame] = []
        self._batch: list[tuple[str | None, dict[str, Any], list[dict[str, Any]]]] = []

    def _bad(self, record: str | None, what: str, exc: BaseException) -> None:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"
        self.errors.append(LoadError(str(self.path), record or "run", self.importer_id,
                                     f"run could not be {what} ({_clip(detail)}); run skipped"))

    def add(self, t: Any) -> None:
        """Add one yielded run (never raises for a bad run)."""
        record = _record_of(t)
        if not isinstance(t, Trajectory):
            self.errors.append(LoadError(str(self.path), record, self.importer_id,
                                         f"importer yielded a {type(t).__name__}, not a trajectory; skipped"))
            return
        try:
            t = _normalise(t, self.path, self.importer_id)
            rows = (trace_row(t), step_rows(t))
        except Exception as exc:
            self._bad(record, "converted", exc)
            return
        self._batch.append((record, *rows))
        if len(self._batch) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Build the frames of the runs added since the last flush."""
        batch, self._batch = self._batch, []
        if not batch:
            return
        try:
            self._frames(batch)
        except Exception:  # find the run that the frames refuse; keep the others
            for one in batch:
                try:
                    self._frames([one])
                except Exception as exc:
                    self._bad(one[0], "stored in the frames", exc)

    def _frames(self, batch: list[tuple[str | None, dict[str, Any], list[dict[str, Any]]]]) -> None:
        traces = frame_from_rows([b[1] for b in batch], TRACE_COLUMNS)
        steps = frame_from_rows([r for b in batch for r in b[2]], STEP_COLUMNS)
        self.trace_frames.append(traces)
        self.step_frames.append(steps)


def _clip(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _unexpected(exc: BaseException, last: str | None) -> tuple[str | None, str]:
    """Record and reason for an exception that escaped an importer."""
    if isinstance(exc, RecursionError):
        what = "data is nested too deeply to read safely"
    elif isinstance(exc, MemoryError):
        what = "file is too large to read into memory"
    else:
        what = f"unexpected content ({type(exc).__name__}: {_clip(str(exc))})"
    if last is None:
        return None, what
    return f"after {last}", f"{what}; the runs before it are kept, later ones were not read"


def read_file(path: Path, spec: ImporterSpec, host: PluginHost, cancel: CancelToken,
              limits: LoadLimits | None = None) -> FileRead:
    """Read one file with one importer, in this process; never raises for bad input.

    Every run is converted on its own: a run that cannot be normalised or stored is
    reported with its record and the file's other runs are kept. An exception that escapes
    the importer ends the file there (the runs already read are kept). Caps come from
    ``limits`` (default :class:`analyzer.settings.LoadLimits`).
    """
    limits = limits or LoadLimits()
    errors: list[LoadError] = []
    notes: list[str] = []
    try:
        size = path.stat().st_size
    except OSError as exc:
        size = 0
        errors.append(LoadError(str(path), None, spec.id, f"cannot read file: {exc.strerror or exc}"))
    if size > limits.max_file_bytes:
        errors.append(LoadError(str(path), None, spec.id,
                                f"file is {format_bytes(size)}, over the {format_bytes(limits.max_file_bytes)} "
                                f"cap ({LoadLimits.setting('max_file_bytes')}); not read"))
    if errors:
        return FileRead(empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS), errors, notes)
    ctx = ImportContext(path=path, importer_id=spec.id, cancel=cancel)
    runs = _RunFrames(path, spec.id, errors)
    last: str | None = None
    with guard.guarding(limits) as g:
        try:
            importer = host.load_importer(spec.id)
            fast = getattr(importer, "read_frames", None)
            if callable(fast):
                for tr, st in fast(path, ctx):
                    runs.trace_frames.append(tr.with_columns(pl.lit(str(path)).alias("source_file")))
                    runs.step_frames.append(st)
            else:
                for t in importer.read(path, ctx):
                    runs.add(t)
                    last = _record_of(t) or last
        except ImportFailure as exc:
            errors.append(LoadError(str(path), exc.record, spec.id, exc.reason))
        except PluginError as exc:
            errors.append(LoadError(str(path), None, spec.id, f"importer plugin failed to load: {exc}"))
        except Exception as exc:  # importer bug or unexpected shape: report, keep what was read
            record, reason = _unexpected(exc, last)
            errors.append(LoadError(str(path), record, spec.id, reason))
        finally:
            runs.flush()
        notes.extend(g.notes())
    for record, reason in ctx.errors:
        errors.append(LoadError(str(path), record, spec.id, reason))
    frames = [f for f in runs.trace_frames if f.height]
    traces = pl.concat(frames, how="vertical_relaxed") if frames else empty_frame(TRACE_COLUMNS)
    sframes = [f for f in runs.step_frames if f.height]
    steps = pl.concat(sframes, how="vertical_relaxed") if sframes else empty_frame(STEP_COLUMNS)
    if traces.height == 0 and not errors:
        errors.append(LoadError(str(path), None, spec.id, "file holds no runs"))
    return FileRead(traces, steps, errors, notes)


def load(
    paths: Sequence[str | Path],
    *,
    host: PluginHost | None = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
    cache: ParsedCache | None = None,
    importer: str | None = None,
    on_file: Callable[[LoadResult], None] | None = None,
    limits: LoadLimits | None = None,
) -> LoadResult:
    """Load trace files and folders.

    Args:
        paths: Files and folders.
        host: Plugin host (defaults to every installed plugin).
        progress: Progress sink, called once per file.
        cancel: Cancel token, checked between files and records.
        cache: Parsed-data cache; None disables caching.
        importer: Importer id that overrides sniffing ("Open with...").
        on_file: Called after each file with a LoadResult holding only that file's data
            (lets the UI fill its table as files load).
        limits: Per-file caps; None reads them from the settings (``load_limits``). Big and
            compressed files are read in a worker process bounded in time and memory
            (see :mod:`analyzer.loading.isolate`).

    Returns:
        The combined result; ``errors`` names file, record, importer and reason.
    """
    host = host or default_host()
    cancel = cancel or NeverCancel()
    reader = _Reader(host, limits or load_settings().load_limits)
    files = list(iter_files(paths))
    result = LoadResult()
    trace_frames: list[pl.DataFrame] = []
    step_frames: list[pl.DataFrame] = []
    seen: dict[str, str] = {}
    for i, path in enumerate(files):
        if cancel.cancelled:
            result.cancelled = True
            break
        progress(i, len(files), path.name)
        part = LoadResult()
        if not path.exists():
            part.errors.append(LoadError(str(path), None, None, "file not found"))
        elif not path.is_file():  # a pipe or device would block or never end
            part.errors.append(LoadError(str(path), None, None, "not a regular file (pipe, socket or device)"))
        elif importer:
            spec = host.importer_spec(importer)
            _read_into(part, path, spec, reader, cancel, cache)
        elif any(s.is_sidecar(path) for s in host.importers()):
            part.skipped.append(str(path))
        else:
            spec_or_none, candidates, problem = claim(path, host)
            if problem:
                part.errors.append(LoadError(str(path), None, None, problem))
            elif spec_or_none is None and not candidates:
                part.skipped.append(str(path))
            elif spec_or_none is None:
                part.errors.append(LoadError(str(path), None, None, _unclaimed_reason(path, candidates)))
            else:
                _read_into(part, path, spec_or_none, reader, cancel, cache)
        if part.traces.height:
            _drop_duplicate_runs(part, path, seen)
        trace_frames.append(part.traces)
        step_frames.append(part.steps)
        result.errors.extend(part.errors)
        result.files.extend(part.files)
        result.skipped.extend(part.skipped)
        result.notes.extend(part.notes)
        for k, v in part.formats.items():
            result.formats[k] = result.formats.get(k, 0) + v
        if on_file is not None:
            on_file(part)
    reader.close()
    progress(len(files), len(files), "done")
    if trace_frames:
        result.traces = pl.concat(trace_frames, how="vertical_relaxed")
        result.steps = pl.concat(step_frames, how="vertical_relaxed")
    return result


def _unclaimed_reason(path: Path, candidates: list[ImporterSpec]) -> str:
    tried = [c.id for c in candidates]
    try:
        return diagnose_unclaimed(path, head_bytes(path), tried)
    except OSError as exc:
        return f"cannot read file: {exc.strerror or exc}"


def _drop_duplicate_runs(part: LoadResult, path: Path, seen: dict[str, str]) -> None:
    """Drop runs already loaded (same content => same id), from other files or earlier in this one."""
    ids: list[str] = part.traces["trace_id"].to_list()
    dup: list[str] = []
    here: set[str] = set()
    keep_row: list[bool] = []
    for t in ids:
        if t in seen or t in here:
            where = seen.get(t, "this file")
            part.notes.append(f"{path}: run {t} duplicates one in {where}; skipped")
            dup.append(t)
            keep_row.append(False)
        else:
            here.add(t)
            keep_row.append(True)
    if dup:
        within = set(dup) & here  # repeated inside this file: keep the first copy only
        part.traces = part.traces.filter(pl.Series(keep_row))
        gone = [t for t in set(dup) if t not in within]
        if gone:
            part.steps = part.steps.filter(~pl.col("trace_id").is_in(gone))
        if within:
            first_rows = part.steps.with_row_index("_r").filter(pl.col("trace_id").is_in(list(within)))
            # a repeated run has the same steps twice; keep each (trace, step) once
            dup_rows = first_rows.filter(~pl.struct("trace_id", "step").is_first_distinct())["_r"]
            part.steps = part.steps.with_row_index("_r").filter(~pl.col("_r").is_in(dup_rows.to_list())).drop("_r")
        for k in part.formats:
            part.formats[k] = part.traces.height
    seen.update(dict.fromkeys(part.traces["trace_id"].to_list(), str(path)))


class _Reader:
    """Reads a file in-process or, when it is big or compressed, in the bounded worker."""

    def __init__(self, host: PluginHost, limits: LoadLimits) -> None:
        self.host, self.limits = host, limits
        self._worker: IsolatedReader | None = None

    def read(self, path: Path, spec: ImporterSpec, cancel: CancelToken) -> FileRead:
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size > self.limits.max_file_bytes or not needs_isolation(path, size, self.limits):
            return read_file(path, spec, self.host, cancel, self.limits)
        if self._worker is None:
            self._worker = IsolatedReader(self.limits)
        out = self._worker.read(path, spec, cancel)
        assert isinstance(out, FileRead)
        return out

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None


def _read_into(part: LoadResult, path: Path, spec: ImporterSpec, reader: _Reader,
               cancel: CancelToken, cache: ParsedCache | None) -> None:
    digest = None
    cached = None
    if cache is not None:
        try:
            digest = file_digest(path)
            cached = cache.get(digest, spec.id, path)
        except OSError:
            digest = None
    if cached is not None:
        traces, steps, errors = cached
        notes = cache.get_notes(digest, spec.id) if cache is not None and digest is not None else []
    else:
        traces, steps, errors, notes = reader.read(path, spec, cancel)
        if cache is not None and digest is not None and not cancel.cancelled:
            cache.put(digest, spec.id, traces, steps, errors, notes)
    part.traces, part.steps = traces, steps
    part.errors.extend(errors)
    part.notes.extend(f"{path}: {n}" for n in notes)
    part.files.append(str(path))
    if traces.height:
        part.formats[spec.id] = traces.height
