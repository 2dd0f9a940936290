"""Reading one file with one importer, in this process: ``read_file(...) -> FileRead``.

Every run a file yields is converted on its own, so a bad run costs only itself; run ids of one
file are made distinct (:func:`salted_id`). The loader (:mod:`analyzer.loading.loader`) calls it
for small files and the bounded worker process (:mod:`analyzer.loading.isolate`) for big or
compressed ones.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from analyzer import guard
from analyzer.errors import ImportFailure, LoadError, PluginError
from analyzer.frames.build import empty_frame, frame_from_rows, step_rows, trace_row
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelToken
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.plugin_host.registry import ImporterSpec, PluginHost
from analyzer.reasons import reason
from analyzer.schema.models import Trajectory
from analyzer.settings import LoadLimits, format_bytes

_BATCH = 2000  # trajectories per frame batch while reading one file


def _normalise(t: Trajectory, path: Path, importer_id: str) -> Trajectory:
    t.source_file = str(path)
    t.source_format = t.source_format or importer_id
    return t.with_id()


def identity_column(traces: pl.DataFrame) -> list[str]:
    """Which record of which source each run of a traces frame is (not what it contains).

    An Inspect sample is ``eval:<eval id>:<sample id>:<epoch>`` wherever it is read from (a
    ``.eval`` and its ``.json`` export are the same source; the eval id comes from the run's
    metadata); any other run is its locator in its file, ``record:<locator>`` (the file itself
    is told apart by its content digest).
    """
    eval_id = pl.col("metadata_json").str.json_path_match("$.eval_id")
    expr = (pl.when(eval_id.is_not_null() & (eval_id != "") & pl.col("native_id").is_not_null())
            .then(pl.concat_str(pl.lit("eval:"), eval_id, pl.lit(":"), pl.col("native_id")))
            .otherwise(pl.concat_str(pl.lit("record:"), pl.col("record").fill_null("$"))))
    return [str(v) for v in traces.select(expr.alias("_identity")).to_series().to_list()]


def salted_id(base: str, *parts: str) -> str:
    """Run id for a run whose content id is already taken by a different record.

    Mixes the run's source identity into its content id, so the id stays stable (the same
    file gives the same ids, wherever it lies) and differs between distinct records.
    """
    h = hashlib.blake2b(digest_size=8)
    h.update(base.encode())
    for part in parts:
        h.update(b"\x1f")
        h.update(part.encode("utf-8", "replace"))
    return h.hexdigest()


def _distinct_ids(traces: pl.DataFrame, steps: pl.DataFrame, path: Path, importer_id: str,
                  errors: list[LoadError]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Make the run ids of one file unique: distinct records never share an id.

    The first run with a given content keeps its content id (so ids of runs that were already
    distinct do not change); a later, different record with the same content gets
    :func:`salted_id` of it and its identity (:func:`identity_column`). The same record written twice (e.g.
    one Inspect sample id + epoch) is reported and its later copy dropped. Steps follow their
    run: the rows of a repeated id are split in order by each run's ``n_steps``.
    """
    tids: list[str] = traces["trace_id"].to_list()
    if len(set(tids)) == len(tids):
        return traces, steps
    idents = identity_column(traces)
    records: list[str | None] = traces["record"].to_list()
    n_steps: list[int | None] = traces["n_steps"].to_list()
    owner: dict[str, str] = {}
    new_id: list[str | None] = []
    for tid, ident, rec in zip(tids, idents, records, strict=True):
        cur = tid
        while cur in owner and owner[cur] != ident:
            cur = salted_id(cur, ident)
        if cur in owner:
            errors.append(LoadError.of(str(path), rec, importer_id, reason("record_twice")))
            new_id.append(None)
        else:
            owner[cur] = ident
            new_id.append(cur)
    counts = Counter(tids)
    repeated = {t for t, c in counts.items() if c > 1}
    chunks: dict[str, list[tuple[int, str | None]]] = {}  # old id -> [(n_steps, new id or None)] in order
    for tid, n, nid in zip(tids, n_steps, new_id, strict=True):
        if tid in repeated:
            chunks.setdefault(tid, []).append((int(n or 0), nid))
    rows = steps.with_row_index("_r").filter(pl.col("trace_id").is_in(list(repeated))).select("_r", "trace_id")
    per_tid: dict[str, list[int]] = {}
    for r, tid in rows.iter_rows():
        per_tid.setdefault(tid, []).append(int(r))
    at: list[int] = []
    to: list[str] = []
    gone: list[int] = []
    for tid, idx in per_tid.items():
        parts = chunks[tid]
        if sum(n for n, _ in parts) != len(idx):  # steps cannot be told apart: keep them on the first run
            continue
        pos = 0
        for n, nid in parts:
            if nid is None:
                gone.extend(idx[pos: pos + n])
            elif nid != tid:
                at.extend(idx[pos: pos + n])
                to.extend([nid] * n)
            pos += n
    if at:
        steps = steps.with_columns(steps["trace_id"].scatter(at, to))
    if gone:
        steps = steps.with_row_index("_r").filter(~pl.col("_r").is_in(gone)).drop("_r")
    traces = traces.with_columns(pl.Series("trace_id", [n if n is not None else "" for n in new_id]))
    return traces.filter(pl.col("trace_id") != ""), steps



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
            self.errors.append(LoadError.of(str(self.path), record, self.importer_id,
                                            reason("not_a_trajectory", type=type(t).__name__)))
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


def _unexpected(exc: BaseException, last: str | None) -> tuple[str | None, Message]:
    """Record and reason for an exception that escaped an importer."""
    after = "" if last is None else "_after"
    if isinstance(exc, RecursionError):
        what = reason("too_deep" + after)
    elif isinstance(exc, MemoryError):
        what = reason("too_large" + after)
    else:
        what = reason("unexpected" + after, error=f"{type(exc).__name__}: {_clip(str(exc))}")
    return (None if last is None else f"after {last}"), what


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
        errors.append(LoadError.of(str(path), None, spec.id, reason("cannot_read", error=str(exc.strerror or exc))))
    if size > limits.max_file_bytes:
        errors.append(LoadError.of(str(path), None, spec.id,
                                   reason("file_over_cap", size=format_bytes(size), cap=format_bytes(limits.max_file_bytes),
                                          setting=LoadLimits.setting("max_file_bytes"))))
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
            errors.append(LoadError(str(path), exc.record, spec.id, exc.reason, exc.message))
        except PluginError as exc:
            errors.append(LoadError.of(str(path), None, spec.id, reason("plugin_failed", error=str(exc))))
        except Exception as exc:  # importer bug or unexpected shape: report, keep what was read
            record, why = _unexpected(exc, last)
            errors.append(LoadError.of(str(path), record, spec.id, why))
        finally:
            runs.flush()
        notes.extend(g.notes())
    for i, (record, text) in enumerate(ctx.errors):
        errors.append(LoadError(str(path), record, spec.id, text, ctx.message_of(i)))
    frames = [f for f in runs.trace_frames if f.height]
    traces = pl.concat(frames, how="vertical_relaxed") if frames else empty_frame(TRACE_COLUMNS)
    sframes = [f for f in runs.step_frames if f.height]
    steps = pl.concat(sframes, how="vertical_relaxed") if sframes else empty_frame(STEP_COLUMNS)
    traces, steps = _distinct_ids(traces, steps, path, spec.id, errors)
    if traces.height == 0 and not errors:
        errors.append(LoadError.of(str(path), None, spec.id, reason("no_runs")))
    return FileRead(traces, steps, errors, notes)
