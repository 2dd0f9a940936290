"""On-disk cache of judge answers (value curves, candidate scores, classifications).

A small SQLite key/value table in the cache folder. Keys are content hashes of everything
that determines an answer (model id, prompt version, the exact tokens), so the cache never
needs invalidating and is safe to delete. Cache problems never stop the analysis: a failing
cache is logged once and then bypassed.
"""

from __future__ import annotations

import hashlib
import sqlite3
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from analyzer.settings import cache_dir
from analyzer.sqlite_cache import SqliteCache

CACHE_FILE = "judge_cache.sqlite"


def content_key(*parts: str | bytes | int | Sequence[int]) -> str:
    """Hex key of the given parts (strings, bytes, ints or token lists), order-sensitive."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        if isinstance(part, bytes):
            data = part
        elif isinstance(part, str):
            data = part.encode("utf-8", "surrogatepass")
        elif isinstance(part, int):
            data = str(part).encode()
        else:
            data = array("q", part).tobytes()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def token_lists_key(lists: Iterable[Sequence[int]]) -> str:
    """Hex key of a sequence of token lists (boundaries included)."""
    h = hashlib.blake2b(digest_size=20)
    for tokens in lists:
        data = array("q", tokens).tobytes()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class ScoreCache(SqliteCache):
    """SQLite key -> JSON value store.

    Args:
        path: Database file; defaults to ``<cache dir>/judge_cache.sqlite``.
    """

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or cache_dir() / CACHE_FILE,
                         "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value BLOB NOT NULL)",
                         "judge cache")

    def get(self, key: str) -> Any | None:
        """Cached value for ``key``, or None."""

        def read(conn: sqlite3.Connection) -> Any | None:
            row = conn.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
            return orjson.loads(row[0]) if row else None

        return self._use(read, None, (orjson.JSONDecodeError,))

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``."""

        def write(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)", (key, orjson.dumps(value)))

        self._use(write, None, (TypeError,))
