"""Analysing a corpus in place: results stream into a resume store, then into the corpus.

``trajscope corpus analyze DIR [--engine local|ray]`` lands here. Either engine analyses the runs
not yet in the store (``DIR/.trajscope-results/<configuration>``, see
:mod:`analyzer.engines.resume`), writing each finished batch as it comes, so an interrupted run
resumes where it stopped. :func:`finalize` then writes the ``results`` (RUN_COLUMNS) and
``findings`` and ``step_values`` tables of the corpus, one partition per source file, reading the
store one part at a time (the app then opens a run with its value curve).

The local engine works one source partition at a time: memory stays bounded by the largest
partition, whatever the corpus size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, RunAnalysis
from analyzer.corpus.store import Corpus, part_path, write_manifest, write_table
from analyzer.engines.resume import ResultStore, decode_run, encode_run
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import FINDING_COLUMNS
from analyzer.jobs import Progress, no_progress

STORE_DIR = ".trajscope-results"
FLUSH_EVERY = 16
"""Runs the local engine keeps in memory before writing them to the store."""


def store_for(root: Path, key: str) -> ResultStore:
    """The resume store of one analysis configuration of a corpus."""
    return ResultStore(root / STORE_DIR / key)


def partitions(corpus: Corpus) -> list[str]:
    """Source partitions of a corpus, sorted."""
    return sorted(p.name.split("=", 1)[1] for p in (corpus.root / "runs").glob("source=*"))


def analyze_local(corpus: Corpus, store: ResultStore, analyze_kwargs: dict[str, Any],
                  progress: Progress = no_progress) -> int:
    """Analyse, partition by partition in this process, the runs not in ``store``; returns how many.

    Args:
        corpus: The corpus.
        store: Finished runs (skipped; new ones are added every :data:`FLUSH_EVERY` runs).
        analyze_kwargs: Passed to :func:`analyzer.pipeline.analyze` (judge, embedder, ranker, options).
        progress: Called with runs done out of all runs of the corpus.
    """
    from analyzer.pipeline import analyze

    done = store.ids()
    total = corpus.count()
    finished = len(done)
    analysed = 0
    progress(finished, total, "")
    for src in partitions(corpus):
        runs = pl.read_parquet(part_path(corpus.root, "runs", src))
        todo = runs.filter(~pl.col("trace_id").is_in(pl.Series(list(done), dtype=pl.Utf8).implode()))
        if not todo.height:
            continue
        ids = todo["trace_id"].implode()
        steps = pl.scan_parquet(part_path(corpus.root, "steps", src)).filter(pl.col("trace_id").is_in(ids)).collect()
        buffer: list[RunAnalysis] = []

        def keep(ra: RunAnalysis, buffer: list[RunAnalysis] = buffer) -> None:
            buffer.append(ra)
            if len(buffer) >= FLUSH_EVERY:
                store.add((str(r.run["trace_id"]), encode_run(r)) for r in buffer)
                buffer.clear()

        analyze(todo, steps, on_run=keep, progress=_Offset(progress, finished, total), **analyze_kwargs)
        store.add((str(r.run["trace_id"]), encode_run(r)) for r in buffer)
        finished += todo.height
        analysed += todo.height
    progress(total, total, "done")
    return analysed


class _Offset:
    """Progress of one partition reported as progress over the whole corpus."""

    def __init__(self, progress: Progress, base: int, total: int) -> None:
        self.progress, self.base, self.total = progress, base, total

    def __call__(self, done: int, total: int, message: str = "") -> None:
        self.progress(self.base + done, self.total, message)


def finalize(corpus: Corpus, store: ResultStore, on_error: Callable[[str], None] | None = None) -> dict[str, int]:
    """Write the corpus's ``results``, ``findings`` and ``step_values`` tables from the store.

    Each table gets one partition per source.

    Returns:
        Counts: ``runs`` with a result, ``findings``, ``errors`` (runs whose analysis reported problems).
    """
    source_of = dict(corpus.runs().select("trace_id", "source").collect().iter_rows())
    runs: dict[str, list[dict[str, object]]] = {}
    findings: dict[str, list[dict[str, object]]] = {}
    values: dict[str, list[dict[str, object]]] = {}
    errors = 0
    seen: set[str] = set()
    for part in store.iter_parts():
        for tid, payload in part:
            src = source_of.get(tid)
            if src is None or tid in seen:
                continue
            seen.add(tid)
            ra = decode_run(payload)
            runs.setdefault(src, []).append(ra.run)
            findings.setdefault(src, []).extend(f.model_dump() for f in ra.findings)
            values.setdefault(src, []).extend(ra.steps)
            if ra.errors:
                errors += 1
                if on_error is not None:
                    for e in ra.errors:
                        on_error(e)
    n_findings = 0
    for src, rows in runs.items():
        write_table(frame_from_rows(rows, RUN_COLUMNS), part_path(corpus.root, "results", src))
        f = frame_from_rows(findings.get(src, []), FINDING_COLUMNS)
        n_findings += f.height
        write_table(f, part_path(corpus.root, "findings", src))
        write_table(frame_from_rows(values.get(src, []), STEP_VALUE_COLUMNS), part_path(corpus.root, "step_values", src))
    write_manifest(corpus.root)
    return {"runs": len(seen), "findings": n_findings, "errors": errors}
