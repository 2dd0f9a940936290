"""Disk cache of embeddings keyed by (model id, text hash).

An SQLite table in the cache folder holds float32 vectors. It is derived data: safe to
delete, never invalidated (the key is the content). Cache problems are logged and bypassed,
never raised.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analyzer.embedding.base import Embedder, Vectors
from analyzer.settings import cache_dir

log = logging.getLogger(__name__)

CACHE_FILE = "embeddings.sqlite"
_CHUNK = 500


def text_key(text: str) -> bytes:
    """16-byte hash of a text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class EmbeddingCache:
    """SQLite store of vectors.

    Args:
        path: Database file; defaults to ``<cache dir>/embeddings.sqlite``.
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
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL, "
                             "vec BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID")
                conn.commit()
                self._conn = conn
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
                return None
        return self._conn

    def _fail(self, exc: BaseException) -> None:
        if not self._broken:
            log.warning("embedding cache %s disabled: %s", self.path, exc)
        self._broken = True

    def get_many(self, model_id: str, keys: Sequence[bytes], dim: int) -> dict[bytes, Vectors]:
        """Vectors found for ``keys`` (missing keys are absent from the result)."""
        out: dict[bytes, Vectors] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return out
            try:
                for i in range(0, len(keys), _CHUNK):
                    chunk = list(keys[i:i + _CHUNK])
                    marks = ",".join("?" * len(chunk))
                    rows = conn.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                                        [model_id, *chunk]).fetchall()
                    for key, blob in rows:
                        vec = np.frombuffer(blob, dtype=np.float32)
                        if vec.shape[0] == dim:
                            out[bytes(key)] = vec
            except sqlite3.Error as exc:
                self._fail(exc)
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[bytes, Vectors]]) -> None:
        """Store vectors."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    conn.executemany("INSERT OR REPLACE INTO vectors (model, key, vec) VALUES (?, ?, ?)",
                                     [(model_id, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items])
            except sqlite3.Error as exc:
                self._fail(exc)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class CachedEmbedder:
    """An embedder that looks texts up in an :class:`EmbeddingCache` before computing them.

    Duplicate texts in one call are embedded once.

    Args:
        inner: The embedder that computes missing vectors.
        cache: The store (default: the one in the cache folder).

    Attributes:
        hits: Texts served from the cache so far.
        misses: Texts computed so far.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache | None = None) -> None:
        self.inner = inner
        self.cache = cache or EmbeddingCache()
        self.model_id = inner.model_id
        self.hits = 0
        self.misses = 0

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``, computing only those not cached yet."""
        dim = self.inner.dim
        out = np.zeros((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.model_id, list(dict.fromkeys(keys)), dim)
        todo: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found and key not in todo:
                todo[key] = text
        if todo:
            vecs = self.inner.embed(list(todo.values()))
            fresh = list(zip(todo.keys(), vecs, strict=True))
            self.cache.put_many(self.model_id, fresh)
            found.update(fresh)
        for row, key in enumerate(keys):
            out[row] = found[key]
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        return out
