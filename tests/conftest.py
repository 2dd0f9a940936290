"""Shared test fixtures. Keep this minimal; append new fixtures at the end."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest puts tests/ on sys.path for this conftest, where tests/plugins/ would shadow the real
# `plugins` package (a namespace package found first); keep the repository root ahead of it.
ROOT = Path(__file__).resolve().parents[1]
if sys.path[0] != str(ROOT):
    sys.path.insert(0, str(ROOT))

from home_guard import HomeGuard, redirect  # noqa: E402  (tests/ is on sys.path for this conftest)

# Before any test module (and so any project module, platformdirs user or Qt) is imported: the
# whole session, subprocesses and session-scoped fixtures included, lives in a temporary home.
HOME_GUARD = redirect()


@pytest.fixture(scope="session", autouse=True)
def temporary_home() -> Iterator[HomeGuard]:
    """The session's temporary home; fails the session if the real TrajScope folders were written."""
    yield HOME_GUARD
    problems = HOME_GUARD.problems()
    if problems:
        pytest.fail(HOME_GUARD.report(problems), pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    HOME_GUARD.current = f"{item.nodeid} (setup)"
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    HOME_GUARD.current = f"{item.nodeid} (call)"
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    HOME_GUARD.current = f"{item.nodeid} (teardown)"
    yield
    HOME_GUARD.current = f"after {item.nodeid} (Qt events between tests)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    external = HOME_GUARD.external()
    if external:
        terminalreporter.section("your real TrajScope folders changed during the run", yellow=True)
        terminalreporter.line("Not by this test session (every process it started had the temporary home): "
                              "another program, such as TrajScope itself, wrote them meanwhile.")
        for line in external:
            terminalreporter.line(line)
    stray = list(dict.fromkeys(HOME_GUARD.stray))
    if stray:
        terminalreporter.section("files written outside a test's own folders (temporary home)")
        for who, event, path in stray:
            terminalreporter.line(f"{who}: {event} {path}")


def pytest_unconfigure(config: pytest.Config) -> None:
    HOME_GUARD.close()


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the parsed-data cache and the data dir into temporary folders for every test."""
    root = Path(tmp_path_factory.mktemp("trajscope_dirs"))
    monkeypatch.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))


@pytest.fixture(autouse=True)
def automatic_gc_outside_the_ui(request: pytest.FixtureRequest) -> None:
    """Tests outside ``tests/ui`` run with Python's automatic garbage collection.

    The app (and ``tests/ui/conftest.py``) turn it off and collect on the GUI thread instead
    (``ui/gui_gc.py``); a core test that runs after a UI test in the same process gets it back.
    """
    import gc

    if "ui" not in Path(request.node.path).relative_to(ROOT).parts[1:2] and not gc.isenabled():
        gc.enable()
