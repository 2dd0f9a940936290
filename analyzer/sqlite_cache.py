"""Base of the on-disk caches: one lazily opened SQLite file that degrades to "no cache".

Caches hold derived data (embeddings, judge answers), so a cache that cannot be opened,
read or written must never stop an analysis: the first problem is logged and the cache is
bypassed from then on.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class SqliteCache:
    """A thread-safe SQLite connection (WAL) that disables itself on the first error.

    Args:
        path: Database file (its folder is created on first use).
        schema: ``CREATE TABLE IF NOT EXISTS ...`` statement run when the file is opened.
        label: Name of the cache in log messages (``"embedding cache"``).
    """

    def __init__(self, path: Path, schema: str, label: str) -> None:
        self.path = path
        self._schema = schema
        self._label = label
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
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(self._schema)
                conn.commit()
                self._conn = conn
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
                return None
        return self._conn

    def _fail(self, exc: BaseException) -> None:
        if not self._broken:
            log.warning("%s %s disabled: %s", self._label, self.path, exc)
        self._broken = True

    def _use(self, work: Callable[[sqlite3.Connection], T], default: T,
             errors: tuple[type[BaseException], ...] = ()) -> T:
        """Run ``work`` on the connection under the lock; on a cache error, disable the cache and return ``default``."""
        caught: tuple[type[BaseException], ...] = (sqlite3.Error, *errors)
        with self._lock:
            conn = self._connection()
            if conn is None:
                return default
            try:
                return work(conn)
            except caught as exc:
                self._fail(exc)
                return default

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
