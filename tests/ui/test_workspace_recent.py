"""The recent-workspace list: what is remembered, and a vanished workspace is not re-created."""

from __future__ import annotations

from pathlib import Path

from ui.actions.tagging import default_workspace_path, recent_workspaces, remember_workspace


def _window(qtbot, persist: bool):  # type: ignore[no-untyped-def]
    from analyzer.session import Session
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=persist)
    qtbot.addWidget(w)
    return w


def test_only_a_persistent_window_remembers_its_workspace(qtbot, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scratch = _window(qtbot, persist=False)  # screenshots, scripts
    assert scratch.tagging.open_workspace(tmp_path / "scratch.trajscope")
    assert tmp_path / "scratch.trajscope" not in recent_workspaces()
    real = _window(qtbot, persist=True)
    assert real.tagging.open_workspace(tmp_path / "mine.trajscope")
    assert recent_workspaces()[0] == (tmp_path / "mine.trajscope").resolve()


def test_a_vanished_last_workspace_is_not_recreated(qtbot, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from analyzer.workspace import Workspace

    kept = tmp_path / "kept.trajscope"
    Workspace(kept, author="ana").close()
    remember_workspace(kept)
    gone = tmp_path / "gone" / "temp.trajscope"
    remember_workspace(gone)  # e.g. a temporary folder since deleted
    w = _window(qtbot, persist=False)
    w.tagging.open_initial_workspace()
    assert w.tagging.workspace is not None and w.tagging.workspace.path == kept
    assert not gone.exists()
    assert any("no longer exists" in t for t in w.message_bar.texts())


def test_with_no_recent_workspace_left_the_default_opens(qtbot, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    remember_workspace(tmp_path / "gone.trajscope")
    w = _window(qtbot, persist=False)
    w.tagging.open_initial_workspace()
    assert w.tagging.workspace is not None and w.tagging.workspace.path == default_workspace_path()
    assert not (tmp_path / "gone.trajscope").exists()
