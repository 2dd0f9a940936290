"""UI state kept between sessions (QSettings, INI format).

Window geometry, dock layout, recent files, saved filters, language and theme live here.
Analysis choices shared with the command line (the judge model) live in
:mod:`analyzer.settings`. Tests redirect both into a temporary folder.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSettings

ORGANIZATION = "TrajScope"
APPLICATION = "trajscope"
MAX_RECENT = 10


def ui_settings() -> QSettings:
    """The application's QSettings (INI file in the per-user config folder)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def get_json(key: str, default: Any) -> Any:
    """Read a JSON value stored as a string; a missing or broken value gives ``default``."""
    raw = ui_settings().value(key, "")
    if not isinstance(raw, str) or not raw:
        return default
    try:
        return json.loads(raw)
    except ValueError:
        return default


def set_json(key: str, value: Any) -> None:
    """Store a JSON-serialisable value as a string."""
    s = ui_settings()
    s.setValue(key, json.dumps(value))
    s.sync()


def get_str(key: str, default: str = "") -> str:
    """Read a string setting."""
    v = ui_settings().value(key, default)
    return v if isinstance(v, str) else default


def set_str(key: str, value: str) -> None:
    """Store a string setting."""
    s = ui_settings()
    s.setValue(key, value)
    s.sync()


def recent_paths() -> list[str]:
    """Recently opened files and folders, most recent first."""
    v = get_json("recent/paths", [])
    return [str(p) for p in v if isinstance(p, str)] if isinstance(v, list) else []


def add_recent(paths: list[str]) -> list[str]:
    """Put ``paths`` at the top of the recent list (deduplicated, at most MAX_RECENT)."""
    items = [p for p in paths if p]
    for p in recent_paths():
        if p not in items:
            items.append(p)
    items = items[:MAX_RECENT]
    set_json("recent/paths", items)
    return items


def clear_recent() -> None:
    """Forget the recent list."""
    set_json("recent/paths", [])
