"""Text embeddings: a protocol, the real sentence-transformers backend, a fast fake, a disk cache.

Use :func:`load_embedder` (default: the packaged all-MiniLM-L6-v2, offline, cached on disk).
"""

from analyzer.embedding.base import Embedder, Vectors, normalize_rows
from analyzer.embedding.cache import CachedEmbedder, EmbeddingCache, text_key
from analyzer.embedding.hashing import HashingEmbedder
from analyzer.embedding.loader import DEFAULT_EMBEDDER, load_embedder
from analyzer.embedding.sentence import SentenceTransformerEmbedder, packaged_minilm_path

__all__ = [
    "DEFAULT_EMBEDDER",
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCache",
    "HashingEmbedder",
    "SentenceTransformerEmbedder",
    "Vectors",
    "load_embedder",
    "normalize_rows",
    "packaged_minilm_path",
    "text_key",
]
