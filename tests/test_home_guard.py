"""The test session lives in a temporary home, and a write into the real one is named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
from home_guard import HomeGuard, snapshot


def test_home_xdg_and_trajscope_folders_point_into_the_temporary_home(temporary_home: HomeGuard) -> None:
    home = temporary_home.home
    assert Path(os.environ["HOME"]) == home and Path(os.path.expanduser("~")) == home
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert Path(os.environ[var]).is_relative_to(home), var
    for path in (platformdirs.user_data_dir("trajscope"), platformdirs.user_config_dir("trajscope"),
                 platformdirs.user_cache_dir("trajscope")):
        assert Path(path).is_relative_to(home), path
    from analyzer.settings import cache_dir, data_dir

    assert not any(Path(p).is_relative_to(g) for p in (data_dir(), cache_dir()) for g in temporary_home.guarded)
    child = subprocess.run([sys.executable, "-c", "import os; print(os.path.expanduser('~'))"],
                           capture_output=True, text=True, check=True)
    assert Path(child.stdout.strip()) == home  # subprocesses inherit it


def _guard(tmp_path: Path) -> tuple[HomeGuard, Path]:
    watched = tmp_path / "real" / "trajscope"
    (watched / "old").mkdir(parents=True)
    (watched / "old" / "settings.json").write_text("{}")
    guard = HomeGuard(home=tmp_path / "home", real_env={}, guarded=[watched], before=snapshot([watched]),
                      _prefixes=(str(watched) + os.sep,))
    return guard, watched


def _append(path: Path) -> None:
    """Append to a file from a subprocess (which inherits the session's temporary home)."""
    subprocess.run([sys.executable, "-c", f"open({str(path)!r}, 'a').write(' ')"], check=True)


def test_the_guard_names_a_write_of_this_process_with_its_test(tmp_path: Path) -> None:
    guard, watched = _guard(tmp_path)
    assert guard.problems() == [] and guard.external() == []
    guard.current = "tests/x.py::test_y (call)"
    guard.audit("open", (str(watched / "workspace.trajscope"), "w", 0))  # what sys.addaudithook passes
    guard.audit("open", (str(watched / "old" / "settings.json"), "r", 0))  # reading is fine
    (watched / "workspace.trajscope").write_text("x")
    _append(watched / "old" / "settings.json")
    problems = guard.problems()
    assert problems[0] == f"tests/x.py::test_y (call): open {watched / 'workspace.trajscope'}"
    assert f"created: {watched / 'workspace.trajscope'}" in problems
    assert f"modified: {watched / 'old' / 'settings.json'}" in problems  # the snapshot sees the rest
    assert not any("settings.json" in p and "(call)" in p for p in problems)


def test_a_change_by_a_process_started_without_the_temporary_home_is_a_problem(tmp_path: Path) -> None:
    guard, watched = _guard(tmp_path)
    guard.current = "tests/x.py::test_z (call)"
    env = {"PATH": os.environ["PATH"]}  # no HOME: the child would find the real one
    guard.audit("subprocess.Popen", (sys.executable, [sys.executable], None, env))
    guard.audit("subprocess.Popen", (sys.executable, [sys.executable], None, None))  # inherits: fine
    guard.audit("subprocess.Popen", (sys.executable, [sys.executable], None, {**env, "HOME": str(guard.home)}))
    guard.audit("subprocess.Popen", ("/sbin/ldconfig", ["/sbin/ldconfig", "-p"], None, {"LC_ALL": "C"}))  # ctypes.util
    assert len(guard.launches) == 1  # only Python without a HOME: ldconfig never runs TrajScope
    assert guard.problems() == []  # nothing changed (yet)
    (watched / "old" / "settings.json").write_text("{ }")  # as that process might have (this guard sees no write)
    problems = guard.problems()
    assert problems[0].startswith(f"tests/x.py::test_z (call): started {sys.executable} without the temporary home")
    assert problems[-1] == f"modified: {watched / 'old' / 'settings.json'}"


def test_a_change_no_process_of_the_session_can_have_made_is_a_warning(tmp_path: Path) -> None:
    # every process of the session had the temporary home: another program wrote (the user's own
    # `trajscope eval` filling the embedding cache while the tests run)
    guard, watched = _guard(tmp_path)
    _append(watched / "old" / "settings.json")
    assert guard.problems() == []
    assert guard.external() == [f"modified: {watched / 'old' / 'settings.json'}"]
