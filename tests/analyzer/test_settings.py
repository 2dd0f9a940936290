"""Settings and folders: env overrides, atomic JSON, unreadable files give defaults."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from analyzer.settings import (
    Settings,
    cache_dir,
    data_dir,
    load_settings,
    model_dir,
    save_settings,
    set_judge_model,
    settings_path,
)


def test_dirs_follow_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAJSCOPE_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("TRAJSCOPE_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.delenv("TRAJSCOPE_MODEL_DIR", raising=False)
    assert cache_dir() == tmp_path / "c" and cache_dir().is_dir()
    assert data_dir() == tmp_path / "d"
    assert model_dir() == tmp_path / "c" / "models"
    monkeypatch.setenv("TRAJSCOPE_MODEL_DIR", str(tmp_path / "m"))
    assert model_dir() == tmp_path / "m"
    assert settings_path() == tmp_path / "d" / "settings.json"


def test_roundtrip_keeps_unknown_keys() -> None:
    settings_path().write_bytes(orjson.dumps({"ui_language": "zh_CN", "judge_model": "gemma3-270m"}))
    s = load_settings()
    assert s.judge_model == "gemma3-270m" and s.extra == {"ui_language": "zh_CN"}
    set_judge_model("/models/big.gguf")
    data = orjson.loads(settings_path().read_bytes())
    assert data == {"ui_language": "zh_CN", "judge_model": "/models/big.gguf", "embedder": None}


@pytest.mark.parametrize("content", [b"", b"{not json", b"[1, 2]", b'{"judge_model": 7}'])
def test_bad_settings_file_gives_defaults(content: bytes) -> None:
    settings_path().write_bytes(content)
    assert load_settings().judge_model is None


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "s.json"
    save_settings(Settings(judge_model="smollm2-135m"), target)
    assert load_settings(target).judge_model == "smollm2-135m"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]
