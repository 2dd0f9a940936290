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


def test_the_guard_names_writes_by_this_process_and_by_subprocesses(tmp_path: Path) -> None:
    watched = tmp_path / "real" / "trajscope"
    (watched / "old").mkdir(parents=True)
    (watched / "old" / "settings.json").write_text("{}")
    guard = HomeGuard(home=tmp_path / "home", real_env={}, guarded=[watched], before=snapshot([watched]),
                      _prefixes=(str(watched) + os.sep,))
    assert guard.problems() == []
    guard.current = "tests/x.py::test_y (call)"
    guard.audit("open", (str(watched / "workspace.trajscope"), "w", 0))  # what sys.addaudithook passes
    guard.audit("open", (str(watched / "old" / "settings.json"), "r", 0))  # reading is fine
    (watched / "workspace.trajscope").write_text("x")
    subprocess.run([sys.executable, "-c", f"open({str(watched / 'old' / 'settings.json')!r}, 'a').write(' ')"],
                   check=True)
    problems = guard.problems()
    assert f"tests/x.py::test_y (call): open {watched / 'workspace.trajscope'}" in problems
    assert f"created: {watched / 'workspace.trajscope'}" in problems
    assert f"modified: {watched / 'old' / 'settings.json'}" in problems
    assert not any("old/settings.json" in p and "(call)" in p for p in problems)
