"""On-disk cache of judge answers (value curves, candidate scores, classifications).

A small SQLite key/value table in the cache folder. Keys are content hashes of everything
that determines an answer (model id, prompt version, the exact tokens), so the cache never
needs invalidating and is safe to delete. Cache problems never stop the analysis: a failing
cache is logged once and then bypassed.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from analyzer.settings import cache_dir

log = logging.getLogger(__name__)

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


class ScoreCache:
    """SQLite key -> JSON value store.

    Args:
        path: Database file; defaults to ``<cache dir>/judge_cache.sqlite``.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / CACHE_FILE
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken:
            return None
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
                conn.commit()
                self._conn = conn
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
                return None
        return self._conn

    def _fail(self, exc: BaseException) -> None:
        if not self._broken:
            log.warning("judge cache %s disabled: %s", self.path, exc)
        self._broken = True

    def get(self, key: str) -> Any | None:
        """Cached value for ``key``, or None."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
                return orjson.loads(row[0]) if row else None
            except (sqlite3.Error, orjson.JSONDecodeError) as exc:
                self._fail(exc)
                return None

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    conn.execute("INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)",
                                 (key, orjson.dumps(value)))
            except (sqlite3.Error, TypeError) as exc:
                self._fail(exc)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
