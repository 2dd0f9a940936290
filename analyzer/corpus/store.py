"""A corpus as a Parquet dataset: partitioned by source file, keyed by content hash.

Layout (hive-style partitions, one per source file)::

    <root>/corpus.json                              format version and counts
    <root>/runs/source=<key>/part-0.parquet         TRACE_COLUMNS, one row per run
    <root>/steps/source=<key>/part-0.parquet        STEP_COLUMNS, sorted by (trace_id, step)
    <root>/results/source=<key>/part-0.parquet      RUN_COLUMNS (analysis of each run), if analysed
    <root>/findings/source=<key>/part-0.parquet     FINDING_COLUMNS, if analysed
    <root>/step_values/source=<key>/part-0.parquet  STEP_VALUE_COLUMNS (value curves), if analysed

``<key>`` is :func:`source_key` of the source file's path; a run is keyed by its ``trace_id``
(the content hash the loader gives it, unique in the corpus). :class:`Corpus` opens the dataset
with polars lazy scans: the runs table, its filters and its sorting never read a step, and
:meth:`Corpus.steps_of` reads one partition's steps file, and in it only the row groups whose
``trace_id`` statistics can hold the run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer.frames.build import empty_frame, trajectories_from_frames
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.schema.models import Trajectory

CORPUS_FORMAT = "1"
MANIFEST = "corpus.json"
TABLES = ("runs", "steps", "results", "findings", "step_values")
STEP_ROW_GROUP = 50_000
"""Rows per Parquet row group of a steps file (the unit :meth:`Corpus.steps_of` reads)."""


class CorpusError(Exception):
    """A folder that is not a corpus, or a corpus that cannot be written."""


def source_key(source_file: str | None) -> str:
    """Partition name of a source file: a short, stable hash of its path."""
    return hashlib.blake2b((source_file or "").encode("utf-8", "replace"), digest_size=8).hexdigest()


def part_path(root: Path, table: str, key: str) -> Path:
    """The Parquet file of one table's partition."""
    return root / table / f"source={key}" / "part-0.parquet"


def write_table(df: pl.DataFrame, path: Path, row_group_size: int | None = None) -> None:
    """Write a partition file atomically (temporary name, then rename), with row-group statistics."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    df.write_parquet(tmp, statistics=True, row_group_size=row_group_size)
    os.replace(tmp, path)


def write_corpus(root: str | Path, traces: pl.DataFrame, steps: pl.DataFrame, results: pl.DataFrame | None = None,
                 *, replace: bool = False, findings: pl.DataFrame | None = None,
                 step_values: pl.DataFrame | None = None) -> Path:
    """Write (or add to) a corpus: one partition per source file, each file written atomically.

    A source file already in the corpus has its partition replaced (its runs, steps and results).

    Args:
        root: Corpus folder (created if missing).
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        results: Analysis of the runs (RUN_COLUMNS, e.g. ``AnalysisResult.runs``), or None.
        replace: Start from an empty corpus (the folder's old dataset is removed first).
        findings: Detector findings of the runs (FINDING_COLUMNS), or None.
        step_values: Per-step analysis values (STEP_VALUE_COLUMNS: the value curves), or None.

    Returns:
        The corpus folder.

    Raises:
        CorpusError: The folder exists and is not a corpus, or a file cannot be written.
    """
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise CorpusError(f"{root}: exists and is not a folder")
    if root.is_dir() and any(root.iterdir()) and not (root / MANIFEST).is_file():
        raise CorpusError(f"{root}: not empty and not a corpus (no {MANIFEST}); choose another folder")
    if replace:
        for t in TABLES:
            shutil.rmtree(root / t, ignore_errors=True)
    files = traces["source_file"].unique().to_list()
    key_of = pl.DataFrame({"source_file": files, "_src": [source_key(f) for f in files]},
                          schema={"source_file": pl.Utf8, "_src": pl.Utf8})
    keyed = traces.join(key_of, on="source_file", how="left", nulls_equal=True)
    keys = keyed.select("trace_id", "_src")

    def split(df: pl.DataFrame | None) -> dict[str, pl.DataFrame]:
        if df is None:
            return {}
        parts = df.join(keys, on="trace_id", how="inner").partition_by("_src", as_dict=True, include_key=False)
        return {str(k[0]): v for k, v in parts.items()}

    step_parts, result_parts = split(steps), split(results)
    extra = {name: (df, split(df)) for name, df in (("findings", findings), ("step_values", step_values))
             if df is not None}
    try:
        for (src,), part in keyed.partition_by("_src", as_dict=True, include_key=False).items():
            write_table(part, part_path(root, "runs", str(src)))
            st = step_parts.get(str(src), steps.clear())
            write_table(st.sort("trace_id", "step"), part_path(root, "steps", str(src)), STEP_ROW_GROUP)
            if results is not None:
                write_table(result_parts.get(str(src), results.clear()), part_path(root, "results", str(src)))
            for name, (whole, parts) in extra.items():
                write_table(parts.get(str(src), whole.clear()), part_path(root, name, str(src)))
        write_manifest(root)
    except OSError as exc:
        raise CorpusError(f"cannot write the corpus in {root}: {exc}") from exc
    return root


def write_manifest(root: Path) -> None:
    """Write ``corpus.json`` (format version, number of source partitions)."""
    root.mkdir(parents=True, exist_ok=True)
    parts = len(list((root / "runs").glob("source=*"))) if (root / "runs").is_dir() else 0
    tmp = root / f".{MANIFEST}.tmp{os.getpid()}"
    tmp.write_bytes(orjson.dumps({"format": CORPUS_FORMAT, "sources": parts}))
    os.replace(tmp, root / MANIFEST)


class Corpus:
    """A corpus folder opened lazily (nothing is read until a query is collected).

    Args:
        root: The folder :func:`write_corpus` wrote.

    Raises:
        CorpusError: The folder is not a corpus (or of a newer format).
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        try:
            meta = orjson.loads((self.root / MANIFEST).read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            raise CorpusError(f"{self.root}: not a corpus ({MANIFEST} missing or unreadable)") from exc
        if not isinstance(meta, dict) or str(meta.get("format")) != CORPUS_FORMAT:
            raise CorpusError(f"{self.root}: corpus format {meta.get('format') if isinstance(meta, dict) else '?'} "
                              f"is not {CORPUS_FORMAT}")

    def _scan(self, table: str, hive: bool = True) -> pl.LazyFrame | None:
        if not any((self.root / table).glob("source=*/part-0.parquet")):
            return None
        if not hive:
            return pl.scan_parquet(self.root / table / "source=*" / "part-0.parquet", hive_partitioning=False)
        return pl.scan_parquet(self.root / table / "source=*" / "part-0.parquet", hive_partitioning=True,
                               hive_schema={"source": pl.Utf8})

    def runs(self) -> pl.LazyFrame:
        """The runs (TRACE_COLUMNS plus ``source``, the partition) as a lazy frame; no step is read."""
        lf = self._scan("runs")
        return lf if lf is not None else empty_frame(TRACE_COLUMNS).lazy().with_columns(pl.lit("").alias("source"))

    def results(self) -> pl.LazyFrame | None:
        """The analysis results (RUN_COLUMNS plus ``source``), or None when the corpus holds none."""
        return self._scan("results")

    def findings(self) -> pl.LazyFrame | None:
        """The detector findings (FINDING_COLUMNS), or None when the corpus holds none.

        Their ``source`` column is the finding's own (which detector or judge made it), not the
        partition: the partition is not added to this table.
        """
        return self._scan("findings", hive=False)

    def step_values(self) -> pl.LazyFrame | None:
        """The per-step analysis values (STEP_VALUE_COLUMNS plus ``source``), or None."""
        return self._scan("step_values")

    def steps(self) -> pl.LazyFrame:
        """Every step (STEP_COLUMNS plus ``source``) as a lazy frame.

        Select columns and filter before collecting, so that a query reads only what it needs
        (text search, error counts).
        """
        lf = self._scan("steps")
        return lf if lf is not None else empty_frame(STEP_COLUMNS).lazy().with_columns(pl.lit("").alias("source"))

    def runs_table(self, columns: Sequence[str] | None = None, *, where: pl.Expr | None = None,
                   sort: str | None = None, descending: bool = False, limit: int | None = None,
                   offset: int = 0) -> pl.DataFrame:
        """One page of the runs table (runs joined with their results), filtered and sorted lazily.

        Args:
            columns: Columns to return (default: every run and result column, ``source`` last).
            where: A polars filter on those columns.
            sort: Column to sort by (nulls last).
            descending: Sort order.
            limit: Rows to return (None: all).
            offset: Rows to skip first.
        """
        lf = self.runs()
        res = self.results()
        if res is not None:
            lf = lf.join(res.drop("source"), on="trace_id", how="left", suffix="_result")
        if where is not None:
            lf = lf.filter(where)
        if sort is not None:
            lf = lf.sort(sort, descending=descending, nulls_last=True, maintain_order=True)
        if columns is not None:
            lf = lf.select(list(columns))
        if offset or limit is not None:
            lf = lf.slice(offset, limit)
        return lf.collect()

    def count(self) -> int:
        """Number of runs."""
        return int(self.runs().select(pl.len()).collect().item())

    def source_of(self, trace_id: str) -> str | None:
        """Partition holding a run, or None when the run is not in the corpus."""
        hit = self.runs().filter(pl.col("trace_id") == trace_id).select("source").head(1).collect()
        return str(hit.item()) if hit.height else None

    def steps_of(self, trace_id: str) -> pl.DataFrame:
        """The steps of one run (STEP_COLUMNS), read from its partition only.

        Raises:
            KeyError: No such run.
        """
        src = self.source_of(trace_id)
        if src is None:
            raise KeyError(trace_id)
        path = part_path(self.root, "steps", src)
        if not path.is_file():
            return empty_frame(STEP_COLUMNS)
        return pl.scan_parquet(path).filter(pl.col("trace_id") == trace_id).sort("step").collect()

    def of_runs(self, table: str, trace_ids: Sequence[str], sources: Sequence[str]) -> pl.DataFrame | None:
        """Rows of one table (``steps``, ``findings``, ``step_values`` ...) for some runs.

        Reads only the partitions in ``sources`` (the runs' ``source`` values), and in them only
        the row groups whose ``trace_id`` statistics can hold the runs.

        Returns:
            The rows (without ``source``), or None when none of those partitions has the table.
        """
        paths = [p for p in (part_path(self.root, table, s) for s in sorted(set(sources))) if p.is_file()]
        if not paths:
            return None
        ids = pl.Series(list(trace_ids), dtype=pl.Utf8).implode()
        return pl.scan_parquet(paths).filter(pl.col("trace_id").is_in(ids)).collect()

    def trajectory(self, trace_id: str) -> Trajectory:
        """One run with its steps (reads only that run's partition).

        Raises:
            KeyError: No such run.
        """
        run = self.runs().filter(pl.col("trace_id") == trace_id).drop("source").head(1).collect()
        if not run.height:
            raise KeyError(trace_id)
        return trajectories_from_frames(run, self.steps_of(trace_id))[0]

    def stats(self) -> dict[str, Any]:
        """Runs, steps (from the runs' ``n_steps``, no step read) and partitions."""
        row = self.runs().select(pl.len().alias("runs"), pl.col("n_steps").sum().alias("steps"),
                                 pl.col("source").n_unique().alias("sources")).collect().row(0, named=True)
        return {k: int(v or 0) for k, v in row.items()}
