"""The embedder contract: texts in, unit-norm float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""A ``(n, dim)`` float32 array whose rows have unit L2 norm."""


class Embedder(Protocol):
    """Turns texts into unit-norm vectors whose dot product is their cosine similarity."""

    model_id: str
    """Stable id of the model (cache keys use it)."""

    @property
    def dim(self) -> int:
        """Vector dimension."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` (empty list gives a ``(0, dim)`` array)."""


def normalize_rows(vectors: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.ndim != 2:
        out = out.reshape(len(out), -1)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)
