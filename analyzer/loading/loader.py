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

import polars as pl

from analyzer.errors import ImportFailure, LoadError, PluginError
from analyzer.frames.build import empty_frame, steps_frame, traces_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress
from analyzer.loading.cache import ParsedCache, file_digest
from analyzer.loading.diagnose import diagnose_unclaimed
from analyzer.loading.jsonio import head_bytes
from analyzer.plugin_host.protocols import ImportContext
from analyzer.plugin_host.registry import ImporterSpec, PluginHost, default_host
from analyzer.schema.models import Trajectory

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


def read_file(path: Path, spec: ImporterSpec, host: PluginHost, cancel: CancelToken) -> tuple[pl.DataFrame, pl.DataFrame, list[LoadError]]:
    """Read one file with one importer; never raises for bad input."""
    errors: list[LoadError] = []
    ctx = ImportContext(path=path, importer_id=spec.id, cancel=cancel)
    trace_frames: list[pl.DataFrame] = []
    step_frames: list[pl.DataFrame] = []
    try:
        importer = host.load_importer(spec.id)
        fast = getattr(importer, "read_frames", None)
        if callable(fast):
            for tr, st in fast(path, ctx):
                trace_frames.append(tr.with_columns(pl.lit(str(path)).alias("source_file")))
                step_frames.append(st)
        else:
            batch: list[Trajectory] = []
            for t in importer.read(path, ctx):
                batch.append(_normalise(t, path, spec.id))
                if len(batch) >= _BATCH:
                    trace_frames.append(traces_frame(batch))
                    step_frames.append(steps_frame(batch))
                    batch = []
            if batch:
                trace_frames.append(traces_frame(batch))
                step_frames.append(steps_frame(batch))
    except ImportFailure as exc:
        errors.append(LoadError(str(path), exc.record, spec.id, exc.reason))
    except PluginError as exc:
        errors.append(LoadError(str(path), None, spec.id, f"importer plugin failed to load: {exc}"))
    except RecursionError:
        errors.append(LoadError(str(path), None, spec.id, "data is nested too deeply to read safely"))
    except MemoryError:
        errors.append(LoadError(str(path), None, spec.id, "file is too large to read into memory"))
    except Exception as exc:  # importer bug or unexpected shape: report, keep going
        errors.append(LoadError(str(path), None, spec.id, f"unexpected content ({type(exc).__name__}: {exc})"))
    for record, reason in ctx.errors:
        errors.append(LoadError(str(path), record, spec.id, reason))
    traces = pl.concat(trace_frames, how="vertical_relaxed") if trace_frames else empty_frame(TRACE_COLUMNS)
    steps = pl.concat(step_frames, how="vertical_relaxed") if step_frames else empty_frame(STEP_COLUMNS)
    if traces.height == 0 and not errors:
        errors.append(LoadError(str(path), None, spec.id, "file holds no runs"))
    return traces, steps, errors


def load(
    paths: Sequence[str | Path],
    *,
    host: PluginHost | None = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
    cache: ParsedCache | None = None,
    importer: str | None = None,
    on_file: Callable[[LoadResult], None] | None = None,
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

    Returns:
        The combined result; ``errors`` names file, record, importer and reason.
    """
    host = host or default_host()
    cancel = cancel or NeverCancel()
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
            _read_into(part, path, spec, host, cancel, cache)
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
                _read_into(part, path, spec_or_none, host, cancel, cache)
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


def _read_into(part: LoadResult, path: Path, spec: ImporterSpec, host: PluginHost,
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
    else:
        traces, steps, errors = read_file(path, spec, host, cancel)
        if cache is not None and digest is not None and not cancel.cancelled:
            cache.put(digest, spec.id, traces, steps, errors)
    part.traces, part.steps = traces, steps
    part.errors.extend(errors)
    part.files.append(str(path))
    if traces.height:
        part.formats[spec.id] = traces.height
