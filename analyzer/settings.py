"""Where TrajScope keeps its files, and the few choices that persist between sessions.

Paths follow the platform conventions (``platformdirs``) and can be redirected with
environment variables, which tests use to point everything into a temporary folder:

- ``TRAJSCOPE_CACHE_DIR``: derived data that is safe to delete (parsed frames, embeddings,
  judge scores, the reassembled packaged judge model).
- ``TRAJSCOPE_DATA_DIR``: user data (``settings.json``).
- ``TRAJSCOPE_MODEL_DIR``: where packaged models are reassembled (default ``<cache>/models``).

Settings are a small JSON file written atomically; an unreadable file gives the defaults
(and is left in place) rather than an error.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import platformdirs

APP_NAME = "trajscope"
SETTINGS_FILE = "settings.json"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """Folder for derived, deletable data (created if missing)."""
    path = _env_path("TRAJSCOPE_CACHE_DIR") or Path(platformdirs.user_cache_dir(APP_NAME))
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    """Folder for user data such as ``settings.json`` (created if missing)."""
    path = _env_path("TRAJSCOPE_DATA_DIR") or Path(platformdirs.user_data_dir(APP_NAME))
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_dir() -> Path:
    """Folder where packaged models are reassembled (created if missing)."""
    path = _env_path("TRAJSCOPE_MODEL_DIR") or cache_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def settings_path() -> Path:
    """Path of the settings file."""
    return data_dir() / SETTINGS_FILE


@dataclass
class Settings:
    """Persistent user choices.

    Attributes:
        judge_model: Packaged judge model name (``"gemma3-270m"``, ``"smollm2-135m"``) or a
            path to any ``.gguf`` file; None means the built-in default.
        embedder: Embedder name or model folder; None means the built-in default.
        extra: Keys written by other parts of the app, kept as they are.
    """

    judge_model: str | None = None
    embedder: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object of the settings."""
        out: dict[str, Any] = dict(self.extra)
        out["judge_model"] = self.judge_model
        out["embedder"] = self.embedder
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Settings:
        """Settings from a parsed JSON value; wrong types fall back to defaults."""
        if not isinstance(obj, dict):
            return cls()
        judge = obj.get("judge_model")
        embedder = obj.get("embedder")
        extra = {k: v for k, v in obj.items() if k not in {"judge_model", "embedder"}}
        return cls(
            judge_model=judge if isinstance(judge, str) and judge else None,
            embedder=embedder if isinstance(embedder, str) and embedder else None,
            extra=extra,
        )


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings file; a missing or unreadable file gives the defaults.

    Args:
        path: Settings file; defaults to :func:`settings_path`.

    Returns:
        The settings.
    """
    target = path or settings_path()
    try:
        return Settings.from_json(orjson.loads(target.read_bytes()))
    except (OSError, orjson.JSONDecodeError):
        return Settings()


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (temporary file + rename).

    Args:
        settings: What to write.
        path: Settings file; defaults to :func:`settings_path`.

    Returns:
        The path written.
    """
    target = path or settings_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    data = orjson.dumps(settings.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def set_judge_model(name_or_path: str | None, path: Path | None = None) -> Settings:
    """Persist the judge model choice (None restores the default).

    Args:
        name_or_path: Packaged model name or ``.gguf`` path, or None.
        path: Settings file; defaults to :func:`settings_path`.

    Returns:
        The updated settings.
    """
    settings = load_settings(path)
    settings.judge_model = name_or_path or None
    save_settings(settings, path)
    return settings
