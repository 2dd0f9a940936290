"""Shared test fixtures. Keep this minimal; append new fixtures at the end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# pytest puts tests/ on sys.path for this conftest, where tests/plugins/ would shadow the real
# `plugins` package (a namespace package found first); keep the repository root ahead of it.
ROOT = Path(__file__).resolve().parents[1]
if sys.path[0] != str(ROOT):
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the parsed-data cache and the data dir into temporary folders for every test."""
    root = Path(tmp_path_factory.mktemp("trajscope_dirs"))
    monkeypatch.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))
