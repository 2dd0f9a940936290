"""Fixtures shared by the plugin tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.plugin_host.registry import PluginHost

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def host() -> PluginHost:
    """A plugin host with only the built-in manifest (no third-party entry points)."""
    h = PluginHost()
    h.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return h
