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
from dataclasses import dataclass, field, fields, replace
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


_MB = 1024 * 1024


@dataclass(frozen=True)
class LoadLimits:
    """Per-file caps checked before (or while) a trace file is read.

    Each cap is refused with an error naming it and its setting (``load_limits.<name>`` in
    ``settings.json``); every one has a safe default. Sizes are in bytes.

    Attributes:
        max_file_bytes: Largest file read at all.
        max_document_bytes: Largest JSON document parsed whole (bigger ones must be JSONL).
        max_line_bytes: Longest JSONL line parsed; longer lines are reported and skipped.
        max_depth: Deepest nesting kept: values nested deeper are cut when serialised and
            replaced by the marker ``"[nesting cut at depth N]"`` (the frames' JSON writer
            cannot go past 254 levels; 200 leaves room for the wrapping objects).
        max_members: Most members read from one zip archive (an Inspect ``.eval``).
        max_member_bytes: Largest inflated size of one compressed member, checked against
            the archive's directory before inflating and again while inflating.
        max_inflate_ratio: Largest inflated/compressed ratio of a member, checked while
            inflating once ``ratio_floor_bytes`` have come out (a zip bomb is refused as soon
            as it crosses the ratio, before it fills memory).
        ratio_floor_bytes: Inflated size below which the ratio is not checked (small members
            of repetitive JSON legitimately compress far better than 1:250).
        isolate_min_bytes: Files at least this large are read in a worker process bounded
            by ``max_worker_seconds`` and ``max_worker_memory_bytes``; smaller files are read
            in-process (a worker costs a process start). 0 isolates every file; a negative
            value isolates none.
        isolate_compressed_min_bytes: The same threshold for compressed files (``.eval``,
            ``.zip``, ``.gz``), whose content can inflate far beyond their size.
        max_worker_seconds: Longest time one file may take in a worker before it is stopped.
        max_worker_memory_bytes: Address-space cap of the worker process (``RLIMIT_AS``).
        max_sniff_seconds: Longest time spent streaming one file's structure while claiming
            it; a sniff that runs out keeps the keys seen so far (as when it reaches its byte
            bound), so a folder of hostile files cannot stall an import.
        worker_idle_seconds: How long the worker process is kept after a load for the next one
            (its start, an interpreter importing the readers, costs about as much as reading
            100 MB); 0 stops it when each load ends.
    """

    max_file_bytes: int = 8 * 1024 * _MB
    max_document_bytes: int = 512 * _MB
    max_line_bytes: int = 64 * _MB
    max_depth: int = 200
    max_members: int = 200_000
    max_member_bytes: int = 256 * _MB
    max_inflate_ratio: float = 250.0
    ratio_floor_bytes: int = 8 * _MB
    isolate_min_bytes: int = 16 * _MB
    isolate_compressed_min_bytes: int = 256 * 1024
    max_worker_seconds: float = 600.0
    max_worker_memory_bytes: int = 8 * 1024 * _MB
    max_sniff_seconds: float = 2.0
    worker_idle_seconds: float = 300.0

    @staticmethod
    def setting(name: str) -> str:
        """Where a cap is set, for error messages (``settings.json: load_limits.max_depth``)."""
        return f"settings.json: load_limits.{name}"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object of the caps."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, obj: Any) -> LoadLimits:
        """Caps from a parsed JSON object; unknown keys and wrong types keep the defaults."""
        if not isinstance(obj, dict):
            return cls()
        out = cls()
        for f in fields(cls):
            value = obj.get(f.name)
            default = getattr(out, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if isinstance(default, int) and not float(value).is_integer():
                continue
            out = replace(out, **{f.name: type(default)(value)})
        return out


def format_bytes(n: float) -> str:
    """Human size of a byte count (``512 MB``, ``1 GB``, ``300 KB``, ``2000 bytes``)."""
    for unit, size in (("GB", 1024 * _MB), ("MB", _MB), ("KB", 1024)):
        if abs(n) >= 10 * size or (abs(n) >= size and (n / size).is_integer()):
            value = n / size
            return f"{value:.0f} {unit}" if value >= 10 or value.is_integer() else f"{value:.1f} {unit}"
    return f"{n:.0f} bytes"


@dataclass
class Settings:
    """Persistent user choices.

    Attributes:
        judge_model: Packaged judge model name (``"gemma3-270m"``, ``"smollm2-135m"``) or a
            path to any ``.gguf`` file; None means the built-in default.
        embedder: Embedder name or model folder; None means the built-in default.
        load_limits: Per-file caps of the loader (``load_limits`` object in the file).
        extra: Keys written by other parts of the app, kept as they are.
    """

    judge_model: str | None = None
    embedder: str | None = None
    load_limits: LoadLimits = field(default_factory=LoadLimits)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object of the settings."""
        out: dict[str, Any] = dict(self.extra)
        out["judge_model"] = self.judge_model
        out["embedder"] = self.embedder
        if self.load_limits != LoadLimits():
            out["load_limits"] = self.load_limits.to_json()
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Settings:
        """Settings from a parsed JSON value; wrong types fall back to defaults."""
        if not isinstance(obj, dict):
            return cls()
        judge = obj.get("judge_model")
        embedder = obj.get("embedder")
        extra = {k: v for k, v in obj.items() if k not in {"judge_model", "embedder", "load_limits"}}
        return cls(
            judge_model=judge if isinstance(judge, str) and judge else None,
            embedder=embedder if isinstance(embedder, str) and embedder else None,
            load_limits=LoadLimits.from_json(obj.get("load_limits")),
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
