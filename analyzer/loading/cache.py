"""Parsed-data cache: a corpus of every parsed file, keyed by file content hash (safe to delete)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
from functools import cache as _memo
from pathlib import Path

import orjson
import polars as pl
from platformdirs import user_cache_dir

from analyzer.corpus.store import STEP_ROW_GROUP, part_path, write_manifest, write_table
from analyzer.errors import LoadError
from analyzer.messages import Message
from analyzer.schema.models import SCHEMA_VERSION

CACHE_FORMAT = "4"
"""4: the cache is a corpus (one partition per parsed file); 3 was one folder per file."""


def default_cache_dir() -> Path:
    """Cache folder: ``$TRAJSCOPE_CACHE_DIR`` or the per-user cache dir."""
    env = os.environ.get("TRAJSCOPE_CACHE_DIR")
    return Path(env) if env else Path(user_cache_dir("trajscope")) / "parsed"


_CORE_PACKAGES = ("analyzer.loading", "analyzer.schema", "analyzer.frames")
"""Core code every importer's output passes through (parsing helpers, the schema, the frames)."""


def importer_stamp(callable_ref: str) -> str:
    """A short hash of the code that turns a file into frames, for cache keys.

    It covers every ``.py`` file beside the importer's module (its package's shared helpers
    included) and the core loading, schema and frame code. Any change there gives new keys, so
    a file parsed by an older importer is parsed again rather than served stale. The module is
    located, not imported. A top-level module (a single file) stamps only
    itself. When the module cannot be found, the stamp covers the core code only.

    Args:
        callable_ref: The importer's ``module:Class`` reference from its manifest.
    """
    return _stamp(callable_ref.partition(":")[0])


@_memo
def _stamp(module: str) -> str:
    files: list[Path] = []
    for name in (module, *_CORE_PACKAGES):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        origin = Path(spec.origin)
        top_level_module = "." not in name and spec.submodule_search_locations is None
        files.extend([origin] if top_level_module else sorted(origin.parent.glob("*.py")))
    h = hashlib.blake2b(digest_size=6)
    for f in dict.fromkeys(files):
        try:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
        except OSError:
            continue
    return h.hexdigest()


def file_digest(path: Path) -> str:
    """Content hash of a file, streamed."""
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


class ParsedCache:
    """Parsed files as a corpus: one partition per (file content, importer, schema version).

    The cache folder is laid out as a corpus (:mod:`analyzer.corpus.store`), so ``Corpus(root)``
    and the app open it like any corpus folder, lazily::

        <root>/corpus.json
        <root>/runs/source=<key>/part-0.parquet      the file's runs (TRACE_COLUMNS)
        <root>/steps/source=<key>/part-0.parquet     its steps (STEP_COLUMNS)
        <root>/loads/source=<key>/errors.json        its load problems (and notes.json: repairs)

    ``<key>`` is ``<content digest>-<importer>-s<schema version>-c<cache format>``, where
    ``<importer>`` is the importer id plus its code stamp (:func:`importer_stamp`), so that a
    changed importer parses the file again. An entry is complete when its ``runs`` file exists:
    that file is written last, each file atomically.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_dir()

    def key(self, digest: str, importer_id: str) -> str:
        """Partition key of one parsed file."""
        return f"{digest}-{importer_id}-s{SCHEMA_VERSION}-c{CACHE_FORMAT}"

    def _loads(self, key: str) -> Path:
        return self.root / "loads" / f"source={key}"

    def get(self, digest: str, importer_id: str, path: Path) -> tuple[pl.DataFrame, pl.DataFrame, list[LoadError]] | None:
        """Cached frames for a file, with ``source_file`` set to its current path."""
        key = self.key(digest, importer_id)
        try:
            traces = pl.read_parquet(part_path(self.root, "runs", key))
            steps = pl.read_parquet(part_path(self.root, "steps", key))
            errs = orjson.loads((self._loads(key) / "errors.json").read_bytes())
        except Exception:
            return None
        traces = traces.with_columns(pl.lit(str(path)).alias("source_file"))
        errors = [LoadError(file=str(path), record=e["record"], importer=e["importer"], reason=e["reason"],
                            message=_message(e.get("message"))) for e in errs]
        return traces, steps, errors

    def get_notes(self, digest: str, importer_id: str) -> list[str]:
        """Notes stored with a file's frames (repairs made while reading)."""
        try:
            notes = orjson.loads((self._loads(self.key(digest, importer_id)) / "notes.json").read_bytes())
        except Exception:
            return []
        return [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []

    def put(self, digest: str, importer_id: str, traces: pl.DataFrame, steps: pl.DataFrame,
            errors: list[LoadError], notes: list[str] | None = None) -> None:
        """Store a file's frames as one corpus partition (each file atomically, ``runs`` last).

        ``notes`` are the loader's notes about the file (repairs made while reading). A cache
        that cannot be written is skipped silently: it is only a cache.
        """
        key = self.key(digest, importer_id)
        loads = self._loads(key)
        try:
            write_table(steps, part_path(self.root, "steps", key), STEP_ROW_GROUP)
            loads.mkdir(parents=True, exist_ok=True)
            _write_atomic(loads / "errors.json", orjson.dumps(
                [e.to_dict() | ({"message": e.message.to_dict()} if e.message else {}) for e in errors]))
            if notes:
                _write_atomic(loads / "notes.json", orjson.dumps(notes))
            else:
                (loads / "notes.json").unlink(missing_ok=True)
            write_table(traces, part_path(self.root, "runs", key))
            write_manifest(self.root)
        except (OSError, pl.exceptions.PolarsError):
            return


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _message(data: object) -> Message | None:
    """The stored message of a cached load problem (None if absent or unreadable)."""
    if not isinstance(data, dict):
        return None
    try:
        return Message.from_dict(data)
    except ValueError:
        return None
