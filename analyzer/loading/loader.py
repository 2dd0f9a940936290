"""Partial-success loading: ``load(paths) -> LoadResult(traces, steps, errors)``.

Each file is claimed by the highest-priority importer whose patterns match and whose
``sniff_structure`` accepts the file's parsed JSON shape (or whose ``sniff`` accepts its first
bytes). One bad file (or record) becomes a :class:`LoadError`;
every good file still loads.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

from analyzer import guard
from analyzer.errors import ImportFailure, LoadError, PluginError
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.import_messages import imsg
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress
from analyzer.loading.cache import ParsedCache, file_digest, importer_stamp
from analyzer.loading.compressed import inflate_to, inner_name
from analyzer.loading.diagnose import diagnose_unclaimed, not_a_trace
from analyzer.loading.isolate import IsolatedReader, acquire_worker, needs_isolation, release_worker
from analyzer.loading.jsonio import first_json_char, head_bytes
from analyzer.loading.outcomes import settle_outcomes
from analyzer.loading.read import FileRead, identity_column, read_file, salted_id
from analyzer.loading.records import RecordView, record_views, viewing
from analyzer.loading.structure import JsonShape, json_shape
from analyzer.loading.task_key import fill_task_keys
from analyzer.messages import Message
from analyzer.plugin_host.registry import ImporterSpec, PluginHost, default_host
from analyzer.reasons import reason
from analyzer.settings import LoadLimits, load_settings


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
        notes: Informational messages (e.g. duplicate runs skipped, one line per file).
        duplicates: One grouped entry per file whose runs were skipped because the same record
            of the same source was already loaded (listed in the load-problems panel; not errors).
        cancelled: True when loading stopped early on request.
    """

    traces: pl.DataFrame = field(default_factory=lambda: empty_frame(TRACE_COLUMNS))
    steps: pl.DataFrame = field(default_factory=lambda: empty_frame(STEP_COLUMNS))
    errors: list[LoadError] = field(default_factory=list)
    formats: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    duplicates: list[LoadError] = field(default_factory=list)
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


def claim(path: Path, host: PluginHost, candidates: list[ImporterSpec] | None = None,
          ) -> tuple[ImporterSpec | None, list[ImporterSpec], Message | None]:
    """Pick the importer for a file.

    Importers that define ``sniff_structure(shape, path)`` judge a JSON/JSONL file by its
    parsed structure (:func:`analyzer.loading.structure.json_shape`, computed once per file);
    the others, and every non-JSON file, by ``sniff(head, path)`` on its first bytes.

    Args:
        path: The file.
        host: Plugin host.
        candidates: The importers to ask (by priority); default every importer whose patterns match.

    Returns:
        ``(winner, candidates, problem)``: the winning spec (or None), the specs whose
        patterns matched, and the problem (a load-problem message) when the file could not be sniffed.
    """
    if candidates is None:
        candidates = [s for s in host.importers() if s.matches(path)]
    if not candidates:
        return None, [], None
    try:
        head = head_bytes(path)
    except OSError as exc:
        return None, candidates, reason("cannot_read", error=str(exc.strerror or exc))
    shape = _LazyShape(path, head)
    for i, spec in enumerate(candidates):  # sorted by priority, highest first
        if _claims(host, spec, path, head, shape.get):
            if i and path.suffix.lower() in (".jsonl", ".ndjson"):
                return _line_majority(path, head, candidates[:i], host) or spec, candidates, None
            return spec, candidates, None
    if shape.json or path.suffix.lower() in (".jsonl", ".ndjson"):
        return _claim_by_majority(path, head, candidates, host), candidates, None
    return None, candidates, None


def _claims(host: PluginHost, spec: ImporterSpec, path: Path, head: bytes,
            shape: Callable[[], JsonShape | None]) -> bool:
    """Whether ``spec``'s importer claims the file (by its JSON shape or its head bytes)."""
    try:
        importer = host.load_importer(spec.id)
        by_shape = getattr(importer, "sniff_structure", None)
        if callable(by_shape) and shape() is not None:
            return bool(by_shape(shape(), path))
        return bool(importer.sniff(head, path))
    except PluginError:
        return False
    except Exception:  # a sniff that raises simply does not claim
        return False


def _fixed(shape: JsonShape | None) -> Callable[[], JsonShape | None]:
    return lambda: shape


def _line_majority(path: Path, head: bytes, higher: list[ImporterSpec], host: PluginHost) -> ImporterSpec | None:
    """A higher-priority importer that claims every line of a JSONL file's first ones but line 1.

    A damaged first line (a span that lost its ``name``) can let a more general importer
    claim the file; the format of all the other lines wins back. Cheap: a few lines parsed.
    """
    try:
        views = record_views(path, head)
    except Exception:  # a file that cannot be looked at line by line keeps its first claim
        return None
    if len(views) < 3:
        return None
    for spec in higher:
        votes = [_view_claims(host, spec, path, v) for v in views]
        if not votes[0] and all(votes[1:]):
            return spec
    return None


def _view_claims(host: PluginHost, spec: ImporterSpec, path: Path, view: RecordView) -> bool:
    if view.shape is None:
        return False
    with viewing(view.index):
        return _claims(host, spec, path, view.head, _fixed(view.shape))


def _claim_by_majority(path: Path, head: bytes, candidates: list[ImporterSpec],
                       host: PluginHost) -> ImporterSpec | None:
    """The importer that claims at least half of the file's first records (record by record).

    Asked only when no importer claims the file by its first record: a JSON list or JSONL
    file whose first record is damaged, or lacks a key, is still claimed by the format of
    the others (:mod:`analyzer.loading.records`); that record is then one error.
    """
    try:
        views = record_views(path, head)
    except Exception:  # a file that cannot be looked at record by record is not claimed so
        return None
    if not views:
        return None
    for spec in candidates:
        votes = sum(_view_claims(host, spec, path, v) for v in views)  # a damaged record votes for none
        if votes and 2 * votes >= len(views):
            return spec
    return None


class _LazyShape:
    """The JSON shape of a file, computed on first use (only JSON-looking files have one)."""

    def __init__(self, path: Path, head: bytes) -> None:
        self.path = path
        self.json = first_json_char(head) in ("{", "[")
        self.done = False
        self.value: JsonShape | None = None

    def get(self) -> JsonShape | None:
        if not self.done:
            self.done = True
            self.value = json_shape(self.path) if self.json else None
        return self.value


def near_miss(path: Path, candidates: list[ImporterSpec], host: PluginHost) -> str | None:
    """What the closest importer found missing in a file nobody claimed, or None.

    Asks each candidate importer that defines ``near_miss(shape, path) -> (closeness, reason)``.
    """
    try:
        shape = _LazyShape(path, head_bytes(path, 4096)).get()
    except OSError:
        return None
    if shape is None:
        return None
    best: tuple[float, str] | None = None
    for spec in candidates:
        try:
            fn = getattr(host.load_importer(spec.id), "near_miss", None)
            got = fn(shape, path) if callable(fn) else None
        except Exception:  # a broken hint is no hint
            continue
        if got is not None and (best is None or got[0] > best[0]):
            best = (float(got[0]), got[1] if isinstance(got[1], str) else str(got[1]))  # keeps a MessageText
    return best[1] if best else None


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
    opened = {Path(p) for p in paths if not Path(p).is_dir()}
    result = LoadResult()
    trace_frames: list[pl.DataFrame] = []
    step_frames: list[pl.DataFrame] = []
    seen = RunRegistry()
    for i, path in enumerate(files):
        if cancel.cancelled:
            result.cancelled = True
            break
        progress(i, len(files), path.name)
        part = LoadResult()
        if not path.exists():
            part.errors.append(LoadError.of(str(path), None, None, reason("file_not_found")))
        elif not path.is_file():  # a pipe or device would block or never end
            part.errors.append(LoadError.of(str(path), None, None, reason("not_regular_file")))
        elif inner_name(path) is not None:
            _read_compressed(part, path, path in opened, host, reader, cancel, cache, importer)
        else:
            _read_plain(part, path, path in opened, host, reader, cancel, cache, importer)
        seen.admit(part, path)
        trace_frames.append(part.traces)
        step_frames.append(part.steps)
        result.errors.extend(part.errors)
        result.files.extend(part.files)
        result.skipped.extend(part.skipped)
        result.notes.extend(part.notes)
        result.duplicates.extend(part.duplicates)
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


def _read_plain(part: LoadResult, path: Path, opened: bool, host: PluginHost, reader: _Reader,
                cancel: CancelToken, cache: ParsedCache | None, importer: str | None) -> None:
    """Claim and read one (uncompressed) file into ``part``; sidecars and non-trace files are skipped or named."""
    if importer:
        _read_into(part, path, host.importer_spec(importer), reader, cancel, cache)
    elif any(s.is_sidecar(path) for s in host.importers()):
        with guard.guarding(reader.limits):  # load_limits.max_sniff_seconds
            sidecar_spec = claim(path, host, [s for s in host.importers() if s.names(path)])[0]
        if sidecar_spec is None:
            part.skipped.append(str(path))
        else:
            _read_into(part, path, sidecar_spec, reader, cancel, cache)
    else:
        with guard.guarding(reader.limits):  # load_limits.max_sniff_seconds
            spec_or_none, candidates, problem = claim(path, host)
        if problem:
            part.errors.append(LoadError.of(str(path), None, None, problem))
        elif spec_or_none is None and not candidates:
            what = _what_it_is(path, opened)
            if what is None:
                part.skipped.append(str(path))
            else:
                part.errors.append(LoadError.of(str(path), None, None, what))
        elif spec_or_none is None:
            part.errors.append(_as_error(str(path), _unclaimed_reason(path, candidates, host)))
        else:
            _read_into(part, path, spec_or_none, reader, cancel, cache)


def _what_it_is(path: Path, opened: bool) -> Message | None:
    try:
        return not_a_trace(path, head_bytes(path), opened)
    except OSError as exc:
        return reason("cannot_read", error=str(exc.strerror or exc))


def _read_compressed(part: LoadResult, path: Path, opened: bool, host: PluginHost, reader: _Reader,
                     cancel: CancelToken, cache: ParsedCache | None, importer: str | None) -> None:
    """Read ``x.json.gz`` (``.bz2``, ``.xz``, ``.zst``) as ``x.json`` (see :mod:`analyzer.loading.compressed`).

    Only a file whose inner name an importer reads is inflated (a folder's ``access.log.gz`` is
    skipped as ``access.log`` would be, without inflating it).
    """
    inner = path.with_name(inner_name(path) or path.name)
    if not importer and not any(s.matches(inner) or s.is_sidecar(inner) for s in host.importers()):
        if opened:
            part.errors.append(LoadError.of(str(path), None, None,
                                            imsg("not_a_trace_kind", suffix=inner.suffix or inner.name)))
        else:
            part.skipped.append(str(path))
        return
    with tempfile.TemporaryDirectory(prefix="trajscope-inflate-") as tmp:
        try:
            plain = inflate_to(path, Path(tmp), reader.limits, lambda: cancel.cancelled)
        except ImportFailure as exc:
            part.errors.append(LoadError(str(path), exc.record, None, exc.reason, exc.message))
            return
        except OSError as exc:
            part.errors.append(LoadError.of(str(path), None, None, reason("cannot_read", error=str(exc.strerror or exc))))
            return
        _read_plain(part, plain, opened, host, reader, cancel, cache, importer)
    here, there = str(plain), str(path)
    if part.traces.height:
        part.traces = part.traces.with_columns(pl.lit(there).alias("source_file"))
    part.errors = [replace(e, file=there) if e.file == here else e for e in part.errors]
    part.files = [there if f == here else f for f in part.files]
    part.skipped = [there if f == here else f for f in part.skipped]
    part.notes = [n.replace(here, there) for n in part.notes]


def _unclaimed_reason(path: Path, candidates: list[ImporterSpec], host: PluginHost) -> str | Message:
    tried = [c.id for c in candidates]
    try:
        return diagnose_unclaimed(path, head_bytes(path), tried, near_miss(path, candidates, host))
    except OSError as exc:
        return reason("cannot_read", error=str(exc.strerror or exc))


def _as_error(file: str, why: str | Message) -> LoadError:
    """A file-level problem from plain words or a load-problem message."""
    return LoadError.of(file, None, None, why) if isinstance(why, Message) else LoadError(file, None, None, why)


class RunRegistry:
    """Runs admitted so far (in one ``load`` call, or in a session): id -> (file, source identity).

    :meth:`admit` de-duplicates only the same record of the same source and keeps distinct
    records under distinct ids; a session keeps one registry so that a file opened again later
    is recognised the same way as within one load.
    """

    def __init__(self) -> None:
        self.first: dict[str, tuple[str, str]] = {}
        self.evals: dict[str, str] = {}  # eval identity -> file it was loaded from
        self.digests: dict[str, str] = {}

    def digest(self, path: str) -> str:
        """Content digest of a file, computed once and only when two runs must be told apart."""
        if path not in self.digests:
            try:
                self.digests[path] = file_digest(Path(path))
            except OSError:
                self.digests[path] = f"unreadable:{path}"
        return self.digests[path]

    def same_source(self, a: tuple[str, str], b: tuple[str, str]) -> bool:
        """True when two runs are the same record of the same source."""
        (path_a, ident_a), (path_b, ident_b) = a, b
        if ident_a != ident_b:
            return False
        if ident_a.startswith("eval:"):
            return True
        return path_a == path_b or self.digest(path_a) == self.digest(path_b)


    def admit(self, part: LoadResult, path: Path) -> None:
        """Admit one file's runs (see :func:`_drop_duplicate_runs`)."""
        if part.traces.height:
            _drop_duplicate_runs(part, path, self)


def _drop_duplicate_runs(part: LoadResult, path: Path, seen: RunRegistry) -> None:
    """Drop runs that are the same record of the same source as one already loaded.

    The same source is the same file (by content, so a file opened twice or copied counts once)
    or, for Inspect samples, the same eval id + sample id + epoch. A run that only has the same
    content as a loaded one is a distinct record: it is kept, under :func:`salted_id` of its
    content id, the file digest and its identity. Skipped runs become one grouped note and one
    grouped :attr:`LoadResult.duplicates` entry for the file.
    """
    ids: list[str] = part.traces["trace_id"].to_list()
    idents = identity_column(part.traces)
    here = str(path)
    drop: set[str] = set()
    keep_row: list[bool] = []
    mine: set[str] = set()  # ids first registered by this file
    repeated: set[str] = set()  # ids this frame holds twice (a frame reader's repeated run)
    rename: dict[str, str] = {}
    where: Counter[str] = Counter()
    for tid, ident in zip(ids, idents, strict=True):
        me = (here, ident)
        cur = tid
        if ident.startswith("eval:"):  # same eval id + sample id + epoch, whatever its id in that file
            if ident in seen.evals and seen.evals[ident] != here:
                drop.add(tid)
                where[seen.evals[ident]] += 1
                keep_row.append(False)
                continue
            seen.evals[ident] = here
        while cur in seen.first:
            first = seen.first[cur]
            if seen.same_source(first, me):
                (repeated if cur in mine else drop).add(tid)
                where[first[0]] += 1
                keep_row.append(False)
                break
            salt = ident if ident.startswith("eval:") else f"{seen.digest(here)}|{ident}"
            cur = salted_id(cur, salt)
        else:
            seen.first[cur] = me
            mine.add(cur)
            keep_row.append(True)
            if cur != tid:
                rename[tid] = cur
    if where:
        part.traces = part.traces.filter(pl.Series(keep_row))
        if drop - mine:
            part.steps = part.steps.filter(~pl.col("trace_id").is_in(list(drop - mine)))
        if repeated:  # the repeated run has its steps twice: keep each (run, step) once
            again = pl.col("trace_id").is_in(list(repeated)) & ~pl.struct("trace_id", "step").is_first_distinct()
            part.steps = part.steps.filter(~again)
        importer = next(iter(part.formats), None)
        part.formats = {k: part.traces.height for k in part.formats} if part.traces.height else {}
        n = sum(where.values())
        others = sorted(where)
        one = "duplicate" if n == 1 else "duplicates"
        if others == [here]:
            why = reason(f"{one}_here", n=f"{n:,}")
        elif len(others) == 1:
            why = reason(f"{one}_from", n=f"{n:,}", source=others[0])
        else:
            why = reason(f"{one}_from_files", n=f"{n:,}", files=len(others))
        dup = LoadError.of(here, f"{n:,} runs" if n != 1 else "1 run", importer, why)
        part.notes.append(f"{path}: {dup.reason}")
        part.duplicates.append(dup)
    if rename:
        part.traces = part.traces.with_columns(pl.col("trace_id").replace(rename))
        part.steps = part.steps.with_columns(pl.col("trace_id").replace(rename))


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
            self._worker = acquire_worker(self.limits)
        return self._worker.read(path, spec, cancel)

    def close(self) -> None:
        if self._worker is not None:
            release_worker(self._worker)  # kept warm for the next load (load_limits.worker_idle_seconds)
            self._worker = None


def _read_into(part: LoadResult, path: Path, spec: ImporterSpec, reader: _Reader,
               cancel: CancelToken, cache: ParsedCache | None) -> None:
    digest = None
    cached = None
    cache_id = f"{spec.id}.{importer_stamp(spec.callable)}" if cache is not None else spec.id
    if cache is not None:
        try:
            digest = file_digest(path)
            cached = cache.get(digest, cache_id, path)
        except OSError:
            digest = None
    if cached is not None:
        traces, steps, errors = cached
        traces = settle_outcomes(fill_task_keys(traces))  # idempotent: settles entries cached before either existed
        notes = cache.get_notes(digest, cache_id) if cache is not None and digest is not None else []
    else:
        traces, steps, errors, notes = reader.read(path, spec, cancel)
        traces = settle_outcomes(fill_task_keys(traces))  # before caching: a cache folder opened as a corpus has both
        if cache is not None and digest is not None and not cancel.cancelled:
            cache.put(digest, cache_id, traces, steps, errors, notes)
    part.traces, part.steps = traces, steps
    part.errors.extend(errors)
    part.notes.extend(f"{path}: {n}" for n in notes)
    part.files.append(str(path))
    if traces.height:
        part.formats[spec.id] = traces.height
