"""Parsed-data cache: Parquet frames keyed by file content hash (safe to delete)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import orjson
import polars as pl
from platformdirs import user_cache_dir

from analyzer.errors import LoadError
from analyzer.messages import Message
from analyzer.schema.models import SCHEMA_VERSION

CACHE_FORMAT = "3"


def default_cache_dir() -> Path:
    """Cache folder: ``$TRAJSCOPE_CACHE_DIR`` or the per-user cache dir."""
    env = os.environ.get("TRAJSCOPE_CACHE_DIR")
    return Path(env) if env else Path(user_cache_dir("trajscope")) / "parsed"


def file_digest(path: Path) -> str:
    """Content hash of a file, streamed."""
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


class ParsedCache:
    """Stores (traces, steps, errors) per (file content, importer, schema version)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_dir()

    def _dir(self, digest: str, importer_id: str) -> Path:
        return self.root / f"{digest}-{importer_id}-s{SCHEMA_VERSION}-c{CACHE_FORMAT}"

    def get(self, digest: str, importer_id: str, path: Path) -> tuple[pl.DataFrame, pl.DataFrame, list[LoadError]] | None:
        """Cached frames for a file, with ``source_file`` set to its current path."""
        d = self._dir(digest, importer_id)
        try:
            traces = pl.read_parquet(d / "traces.parquet")
            steps = pl.read_parquet(d / "steps.parquet")
            errs = orjson.loads((d / "errors.json").read_bytes())
        except Exception:
            return None
        traces = traces.with_columns(pl.lit(str(path)).alias("source_file"))
        errors = [LoadError(file=str(path), record=e["record"], importer=e["importer"], reason=e["reason"],
                            message=_message(e.get("message"))) for e in errs]
        return traces, steps, errors

    def get_notes(self, digest: str, importer_id: str) -> list[str]:
        """Notes stored with a file's frames (repairs made while reading)."""
        try:
            notes = orjson.loads((self._dir(digest, importer_id) / "notes.json").read_bytes())
        except Exception:
            return []
        return [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []

    def put(self, digest: str, importer_id: str, traces: pl.DataFrame, steps: pl.DataFrame,
            errors: list[LoadError], notes: list[str] | None = None) -> None:
        """Store frames atomically (write to a temp dir, then rename).

        ``notes`` are the loader's notes about the file (repairs made while reading).
        """
        d = self._dir(digest, importer_id)
        tmp = d.with_name(d.name + f".tmp{os.getpid()}")
        try:
            tmp.mkdir(parents=True, exist_ok=True)
            traces.write_parquet(tmp / "traces.parquet")
            steps.write_parquet(tmp / "steps.parquet")
            (tmp / "errors.json").write_bytes(orjson.dumps(
                [e.to_dict() | ({"message": e.message.to_dict()} if e.message else {}) for e in errors]))
            if notes:
                (tmp / "notes.json").write_bytes(orjson.dumps(notes))
            if d.exists():
                shutil.rmtree(d, ignore_errors=True)
            tmp.rename(d)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)


def _message(data: object) -> Message | None:
    """The stored message of a cached load problem (None if absent or unreadable)."""
    if not isinstance(data, dict):
        return None
    try:
        return Message.from_dict(data)
    except ValueError:
        return None
