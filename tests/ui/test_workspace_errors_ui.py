"""A workspace storage fault while tagging shows in the message bar; the app keeps running, nothing is lost.

The faults are real, and real as root too: another connection holds the write lock (the
workspace's busy timeout is cut to 0.2 s), and a workspace path whose "folder" is a file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tagging_helpers import clear_messages, write_runs

import analyzer.workspace.store as store
from analyzer.session import Session
from analyzer.workspace import Workspace


@pytest.fixture
def window(qtbot: Any, app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from ui.main_window import MainWindow

    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.2)
    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1200, 800)
    assert w.tagging.open_workspace(tmp_path / "desk.trajscope")
    w.open_paths([str(write_runs(tmp_path / "traces", 4))], synchronous=True)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_workspace_error_while_tagging_shows_a_message_and_the_app_keeps_running(window: Any, qtbot: Any,
                                                                                  tmp_path: Path) -> None:
    w = window
    ctrl = w.tagging
    path = tmp_path / "desk.trajscope"
    assert ctrl.set_category([("run-001", None)], "goal_drift") == 1
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        assert ctrl.add_tag([("run-001", 2), ("run-002", None)], "flaky") is None
        qtbot.waitUntil(lambda: any("Not saved" in t and "busy" in t for t in w.message_bar.texts()), timeout=3000)
        assert "Not saved" in ctrl.save_label.text()
        assert ctrl.workspace.undo_label() == "Tag goal_drift"
        qtbot.wait(300)
        w.grab().save(str(tmp_path / "workspace_error.png"))
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    # the app is still alive and the same workspace saves again
    assert w.isVisible()
    assert ctrl.add_tag([("run-001", 2), ("run-002", None)], "flaky") == 2
    assert "Saved" in ctrl.save_label.text()
    ws = Workspace(path)
    rows = {(a.trace_id, a.step): a for a in ws.annotations()}
    ws.close()
    assert rows[("run-001", None)].category == "goal_drift"
    assert rows[("run-001", 2)].tags == ("flaky",) and rows[("run-002", None)].tags == ("flaky",)


def test_unusable_workspace_path_is_a_message_and_the_open_workspace_stays(window: Any, qtbot: Any,
                                                                           tmp_path: Path) -> None:
    w = window
    ctrl = w.tagging
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the workspace folder should be")
    bad = blocker / "ws.trajscope"
    assert not ctrl.open_workspace(bad)
    texts = w.message_bar.texts()
    assert any(f"Cannot open the workspace {bad}" in t and f"{blocker} is a file, not a folder" in t
               for t in texts), texts
    assert ctrl.workspace is not None and ctrl.workspace.path == tmp_path / "desk.trajscope"
    assert ctrl.set_category([("run-000", None)], "planning_error") == 1
