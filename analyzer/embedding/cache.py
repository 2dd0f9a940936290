"""Disk cache of embeddings keyed by (model id, text hash).

An SQLite table in the cache folder holds float32 vectors. It is derived data: safe to
delete, never invalidated (the key is the content). Cache problems are logged and bypassed,
never raised.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analyzer.embedding.base import Embedder, Vectors
from analyzer.settings import cache_dir
from analyzer.sqlite_cache import SqliteCache

CACHE_FILE = "embeddings.sqlite"
_CHUNK = 500


def text_key(text: str) -> bytes:
    """16-byte hash of a text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class EmbeddingCache(SqliteCache):
    """SQLite store of vectors.

    Args:
        path: Database file; defaults to ``<cache dir>/embeddings.sqlite``.
    """

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or cache_dir() / CACHE_FILE,
                         "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL, "
                         "vec BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID", "embedding cache")

    def get_many(self, model_id: str, keys: Sequence[bytes], dim: int) -> dict[bytes, Vectors]:
        """Vectors found for ``keys`` (missing keys are absent from the result)."""
        out: dict[bytes, Vectors] = {}

        def read(conn: sqlite3.Connection) -> None:
            for i in range(0, len(keys), _CHUNK):
                chunk = list(keys[i:i + _CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                                    [model_id, *chunk]).fetchall()
                for key, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == dim:
                        out[bytes(key)] = vec

        self._use(read, None)
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[bytes, Vectors]]) -> None:
        """Store vectors."""

        def write(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO vectors (model, key, vec) VALUES (?, ?, ?)",
                                 [(model_id, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items])

        self._use(write, None)


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
