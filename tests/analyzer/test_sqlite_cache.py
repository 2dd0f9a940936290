"""The shared SQLite cache base: round trips, and a broken cache degrades to no cache."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from analyzer.embedding import EmbeddingCache
from analyzer.judge.cache import ScoreCache


def test_score_cache_round_trip_and_reopen(tmp_path: Path) -> None:
    c = ScoreCache(tmp_path / "j.sqlite")
    c.put("k", {"p": 0.25, "steps": [1, 2]})
    assert c.get("k") == {"p": 0.25, "steps": [1, 2]}
    assert c.get("missing") is None
    c.close()
    assert ScoreCache(tmp_path / "j.sqlite").get("k") == {"p": 0.25, "steps": [1, 2]}


@pytest.mark.parametrize("make", [ScoreCache, EmbeddingCache])
def test_unopenable_cache_is_bypassed_and_logged_once(tmp_path: Path, make: type, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cache = make(blocker / "c.sqlite")
    with caplog.at_level(logging.WARNING):
        if isinstance(cache, ScoreCache):
            cache.put("k", 1)
            assert cache.get("k") is None
        else:
            cache.put_many("m", [(b"k", np.ones(3, dtype=np.float32))])
            assert cache.get_many("m", [b"k"], 3) == {}
    assert sum("disabled" in r.getMessage() for r in caplog.records) == 1


def test_a_bad_value_disables_the_judge_cache_without_raising(tmp_path: Path) -> None:
    c = ScoreCache(tmp_path / "j.sqlite")
    c.put("bad", object())  # not JSON-serialisable
    assert c.get("bad") is None
    c.put("good", 1)
    assert c.get("good") is None  # disabled after the first problem: bypassed, never raised
