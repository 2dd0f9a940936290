"""A deterministic, dependency-free embedder for fast unit tests (not for real analysis)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from analyzer.embedding.base import Vectors, normalize_rows

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Feature hashing of words and character trigrams into a fixed-size unit vector.

    Texts sharing words get a positive cosine; unrelated texts are near-orthogonal. It knows
    no synonyms: use it where a test needs speed and determinism, not meaning.

    Args:
        dim: Vector dimension.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError("dim must be at least 8")
        self._dim = dim
        self.model_id = f"hashing-{dim}"

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return self._dim

    def _features(self, text: str) -> list[str]:
        words = [w.casefold() for w in _WORD.findall(text)]
        feats = ["\x00bias"] + [f"w:{w}" for w in words]
        for w in words:
            padded = f"#{w}#"
            feats.extend(f"c:{padded[i:i + 3]}" for i in range(len(padded) - 2))
        return feats

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` deterministically."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                digest = hashlib.blake2b(feat.encode("utf-8", "surrogatepass"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                sign = 1.0 if value & 1 else -1.0
                weight = 0.1 if feat == "\x00bias" else 1.0
                out[row, (value >> 1) % self._dim] += sign * weight
        return normalize_rows(out)
