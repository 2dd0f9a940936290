"""Analysis results kept in the workspace, so reopening it shows them at once.

One row per (run, analysis version) in the ``analysis_results`` table (workspace schema 3):
the run's attribution row (RUN_COLUMNS), its per-step values (STEP_VALUE_COLUMNS, stored by
column), its findings (FINDING_COLUMNS) and its analysis problems, as JSON. Runs are keyed by
``trace_id``; the analysis version (:mod:`analyzer.analysis.version`) says what produced the
row. A row whose version differs from the current one is *stale*: it is still returned (and
shown, marked), and a refresh re-analyses just those runs.

Each run is written in its own transaction as soon as its result arrives, so a crash loses at
most the run being analysed. These rows are derived data: they are not undoable actions and
deleting them costs only a re-analysis.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, AnalysisResult, RunAnalysis
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import FINDING_COLUMNS, schema_of
from analyzer.workspace.faults import storage_error
from analyzer.workspace.store import Workspace

KEEP_VERSIONS = 3
"""Versions kept per run (older ones are deleted when a new version is written)."""

_STEP_NAMES = [c.name for c in STEP_VALUE_COLUMNS]
_RUN_NAMES = [c.name for c in RUN_COLUMNS]


@dataclass
class StoredAnalysis:
    """Analysis results read from a workspace.

    Attributes:
        result: Frames of every stored run (the current version where there is one, else the newest).
        versions: Run id -> analysis version of the row returned.
        stale: Runs whose returned row was made by another analysis version.
    """

    result: AnalysisResult = field(default_factory=AnalysisResult)
    versions: dict[str, str] = field(default_factory=dict)
    stale: set[str] = field(default_factory=set)


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY, default=str)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _encode(ra: RunAnalysis) -> tuple[bytes, bytes, bytes, bytes]:
    run = {k: ra.run.get(k) for k in _RUN_NAMES}
    steps = {k: [row.get(k) for row in ra.steps] for k in _STEP_NAMES}
    findings = [f.model_dump() for f in ra.findings]
    return _dumps(run), _dumps(steps), _dumps(findings), _dumps(list(ra.errors))


def save_run(ws: Workspace, ra: RunAnalysis, version: str) -> None:
    """Store one run's analysis under ``version`` (one transaction; replaces the same version).

    Args:
        ws: Writable workspace.
        ra: The run's analysis (``ra.run["trace_id"]`` names the run).
        version: Analysis version (:func:`analyzer.analysis.version.analysis_version`).

    Raises:
        WorkspaceError: The workspace cannot be written (the row is not stored).
    """
    tid = str(ra.run["trace_id"])
    run, steps, findings, errors = _encode(ra)
    with ws._lock, ws._transaction() as db:
        db.execute("INSERT OR REPLACE INTO analysis_results (trace_id, version, run, steps, findings, errors, created)"
                   " VALUES (?,?,?,?,?,?,?)", (tid, version, run, steps, findings, errors, _now()))
        db.execute("DELETE FROM analysis_results WHERE trace_id=? AND version NOT IN ("
                   "SELECT version FROM analysis_results WHERE trace_id=? ORDER BY created DESC LIMIT ?)",
                   (tid, tid, KEEP_VERSIONS))


def save_result(ws: Workspace, result: AnalysisResult, version: str) -> int:
    """Store every run of a combined result (one transaction per run); returns the runs stored."""
    n = 0
    for ra in split_result(result):
        save_run(ws, ra, version)
        n += 1
    return n


def split_result(result: AnalysisResult) -> list[RunAnalysis]:
    """The per-run pieces of a combined result (the inverse of ``AnalysisResult.from_runs``)."""
    from analyzer.schema.findings import Finding

    def by_run(df: pl.DataFrame) -> dict[str, pl.DataFrame]:
        if df.height == 0:
            return {}
        return {str(k[0]): v for k, v in df.partition_by("trace_id", as_dict=True).items()}

    steps, findings = by_run(result.step_values), by_run(result.findings)
    out: list[RunAnalysis] = []
    for run in result.runs.unique("trace_id", keep="last", maintain_order=True).iter_rows(named=True):
        tid = str(run["trace_id"])
        f = findings.get(tid)
        fl = [] if f is None else [Finding.model_validate({k: v for k, v in r.items() if v is not None})
                                   for r in f.iter_rows(named=True)]
        st = steps.get(tid)
        err = run.get("error")
        out.append(RunAnalysis(run=dict(run), steps=[] if st is None else st.to_dicts(), findings=fl,
                               errors=[f"{tid}: {e}" for e in str(err).split("; ")] if err else []))
    return out


def load_results(ws: Workspace, current_version: str | None, trace_ids: Iterable[str] | None = None,
                 n_steps: Mapping[str, int | None] | None = None) -> StoredAnalysis:
    """Read stored analysis results.

    Per run, the row of ``current_version`` is taken when there is one, else the newest row
    (then the run is stale). A row whose per-step values cover another number of steps than
    the run now has is stale too: the file was parsed differently since (a changed importer).

    Args:
        ws: Workspace (read-only is fine; a workspace older than schema 3 has no results).
        current_version: The version now in use (None: every row counts as stale).
        trace_ids: Only these runs (default: every stored run).
        n_steps: Run id -> its current step count (the traces' ``n_steps``), or None.

    Returns:
        The results, the version of each run's row and the stale runs.

    Raises:
        WorkspaceError: The workspace cannot be read.
    """
    wanted = None if trace_ids is None else set(trace_ids)
    sql = ("SELECT trace_id, version, run, steps, findings, errors FROM ("
           " SELECT *, ROW_NUMBER() OVER (PARTITION BY trace_id ORDER BY (version = ?) DESC, created DESC) AS rn"
           " FROM analysis_results) WHERE rn = 1 ORDER BY trace_id")
    with ws._lock:
        try:
            rows = ws._db.execute(sql, (current_version or "",)).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return StoredAnalysis()
            raise storage_error(ws.path, exc, "read") from exc
        except sqlite3.Error as exc:
            raise storage_error(ws.path, exc, "read") from exc
    runs: list[dict[str, Any]] = []
    step_cols: dict[str, list[Any]] = {k: [] for k in _STEP_NAMES}
    findings: list[dict[str, Any]] = []
    errors: list[str] = []
    out = StoredAnalysis()
    for tid, version, run_b, steps_b, findings_b, errors_b in rows:
        if wanted is not None and tid not in wanted:
            continue
        try:
            run = orjson.loads(run_b)
            steps = orjson.loads(steps_b)
            fl = orjson.loads(findings_b)
            el = orjson.loads(errors_b)
        except orjson.JSONDecodeError as exc:
            errors.append(f"{tid}: stored analysis unreadable ({exc}); analyse the run again")
            continue
        n = max((len(v) for v in steps.values()), default=0) if isinstance(steps, dict) else 0
        for k in _STEP_NAMES:
            col = steps.get(k) if isinstance(steps, dict) else None
            step_cols[k].extend(col if isinstance(col, list) and len(col) == n else [None] * n)
        runs.append(run)
        findings.extend(fl)
        errors.extend(str(e) for e in el)
        out.versions[tid] = version
        now = n_steps.get(tid) if n_steps is not None else None
        if version != current_version or (n and now is not None and n != now):
            out.stale.add(tid)
    out.result = AnalysisResult(
        runs=frame_from_rows(runs, RUN_COLUMNS),
        step_values=pl.DataFrame(step_cols, schema=schema_of(STEP_VALUE_COLUMNS), strict=False),
        findings=frame_from_rows(findings, FINDING_COLUMNS),
        errors=errors,
    )
    return out


def step_counts(traces: pl.DataFrame) -> dict[str, int | None]:
    """Run id -> ``n_steps`` of a traces frame (what :func:`load_results` checks stored rows against)."""
    if "n_steps" not in traces.columns:
        return {}
    return dict(zip(traces["trace_id"].cast(pl.Utf8).to_list(), traces["n_steps"].to_list(), strict=True))


def stored_versions(ws: Workspace) -> dict[str, list[str]]:
    """Run id -> stored analysis versions, newest first (for diagnostics and tests)."""
    with ws._lock:
        try:
            rows = ws._db.execute("SELECT trace_id, version FROM analysis_results ORDER BY trace_id, created DESC")
            out: dict[str, list[str]] = {}
            for tid, version in rows.fetchall():
                out.setdefault(tid, []).append(version)
            return out
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return {}
            raise storage_error(ws.path, exc, "read") from exc


def analyze_with_workspace(traces: pl.DataFrame, steps: pl.DataFrame, ws: Workspace, version: str,
                           analyze: Callable[..., AnalysisResult], *, refresh_stale: bool = True,
                           **kwargs: Any) -> tuple[AnalysisResult, int]:
    """Stored results where current, a fresh analysis (stored per run as it arrives) for the rest.

    Args:
        traces: Traces frame of the runs wanted.
        steps: Their steps.
        ws: Workspace to read from and write to (read-only: nothing is written).
        version: Current analysis version.
        analyze: The pipeline's ``analyze`` (called with ``on_run`` and ``kwargs``).
        refresh_stale: Re-analyse runs whose stored result is from another version (else keep them).
        **kwargs: Passed to ``analyze`` (judge, embedder, progress, ...).

    Returns:
        (the combined result, how many runs were analysed now).
    """
    ids = traces["trace_id"].to_list()
    stored = load_results(ws, version, ids, step_counts(traces))
    have = set(stored.versions) - (stored.stale if refresh_stale else set())
    todo = [t for t in ids if t not in have]
    result = stored.result
    if not todo:
        return result, 0
    sub = pl.Series(todo).implode()

    def store(ra: RunAnalysis) -> None:
        if not ws.read_only:
            save_run(ws, ra, version)

    fresh = analyze(traces.filter(pl.col("trace_id").is_in(sub)), steps.filter(pl.col("trace_id").is_in(sub)),
                    on_run=store, **kwargs)
    return result.merge(fresh), len(todo)
