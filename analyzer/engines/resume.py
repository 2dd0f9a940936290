"""Finished per-run analyses kept on disk, so an interrupted analysis resumes where it stopped.

A store is a folder of Parquet parts (``trace_id``, ``payload``), one part per batch of runs that
came back from the workers, each written to a temporary name and then renamed: a killed driver
loses only the batches it had not written yet. Runs are keyed by their content hash (the run id)
inside a folder named after everything that shapes the result (:func:`store_key`), so a re-run
with other settings never reuses a stale result.

The payload is the run's :class:`~analyzer.analysis.result.RunAnalysis` as JSON (no pickle: a
store is data, never code).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from analyzer.analysis.result import RunAnalysis
from analyzer.schema.findings import Finding

STORE_FORMAT = "1"
_OPTS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def encode_run(ra: RunAnalysis) -> bytes:
    """A run's analysis as JSON bytes (exact round trip through :func:`decode_run`)."""
    return orjson.dumps({"run": ra.run, "steps": ra.steps, "findings": [f.model_dump() for f in ra.findings],
                         "errors": ra.errors}, option=_OPTS)


def decode_run(data: bytes) -> RunAnalysis:
    """The run analysis :func:`encode_run` wrote."""
    d = orjson.loads(data)
    return RunAnalysis(run=d["run"], steps=d["steps"], findings=[Finding.model_validate(f) for f in d["findings"]],
                       errors=[str(e) for e in d["errors"]])


def store_key(parts: Sequence[object]) -> str:
    """Folder name for the results of one analysis configuration (a short hash of ``parts``)."""
    text = orjson.dumps([STORE_FORMAT, *[str(p) for p in parts]])
    return hashlib.sha256(text).hexdigest()[:16]


class ResultStore:
    """Finished runs of one analysis configuration, in ``root``.

    Args:
        root: The store folder (created on the first write).
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def load(self) -> dict[str, bytes]:
        """Run id -> payload of every finished run (unreadable parts are ignored: they are redone)."""
        out: dict[str, bytes] = {}
        if not self.root.is_dir():
            return out
        for part in sorted(self.root.glob("part-*.parquet")):
            try:
                table = pq.read_table(part)
                ids = table.column("trace_id").to_pylist()
                payloads = table.column("payload").to_pylist()
            except Exception:  # a torn or foreign file: its runs are analysed again
                continue
            for tid, payload in zip(ids, payloads, strict=True):
                if isinstance(tid, str) and isinstance(payload, bytes):
                    out[tid] = payload
        return out

    def ids(self) -> set[str]:
        """Ids of the finished runs (reads only the id column of each part)."""
        out: set[str] = set()
        for part in sorted(self.root.glob("part-*.parquet")) if self.root.is_dir() else []:
            try:
                out.update(t for t in pq.read_table(part, columns=["trace_id"]).column("trace_id").to_pylist()
                           if isinstance(t, str))
            except Exception:  # a torn or foreign file: its runs are analysed again
                continue
        return out

    def iter_parts(self) -> Iterator[list[tuple[str, bytes]]]:
        """The stored runs, one part at a time (bounded memory)."""
        for part in sorted(self.root.glob("part-*.parquet")) if self.root.is_dir() else []:
            try:
                table = pq.read_table(part)
                rows = list(zip(table.column("trace_id").to_pylist(), table.column("payload").to_pylist(),
                                strict=True))
            except Exception:
                continue
            yield [(t, p) for t, p in rows if isinstance(t, str) and isinstance(p, bytes)]

    def add(self, items: Iterable[tuple[str, bytes]]) -> int:
        """Write one part with these runs (atomically); returns how many were written."""
        rows: list[tuple[str, bytes]] = list(items)
        if not rows:
            return 0
        self.root.mkdir(parents=True, exist_ok=True)
        table = pa.table({"trace_id": pa.array([r[0] for r in rows], pa.string()),
                          "payload": pa.array([r[1] for r in rows], pa.binary())})
        name = f"part-{uuid.uuid4().hex}.parquet"
        tmp = self.root / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.root / name)
        return len(rows)

