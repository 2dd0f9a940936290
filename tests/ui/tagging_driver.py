"""Drives the real main window offscreen and tags runs with key presses until it is killed.

Usage: ``python tests/ui/tagging_driver.py TRACES WORKSPACE``. For each run of the runs
table (top to bottom, moving with the Down key) it presses the category key ``1``-``9``,
``0`` in turn and prints ``ACK <run id> <category>`` once the tagging controller reports the
action saved (after the SQLite COMMIT). Used by ``test_kill_restart.py``, which SIGKILLs it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
STUCK_AFTER_S = 120.0
"""How long the driver waits for the loaded runs to fill the table before it reports ``STUCK``."""


def main(argv: list[str]) -> int:
    """Run the driver (never returns normally before every run is tagged)."""
    traces, workspace = argv[0], Path(argv[1])
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtTest import QTest

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(workspace.parent / "qsettings"))
    from analyzer.taxonomy import CATEGORIES
    from ui.app import AppController, create_application

    app = create_application()
    controller = AppController(persist=False)
    window = controller.build_window()
    window.workspace_path = workspace  # what `trajscope open --workspace FILE` does
    window.open_paths([traces], synchronous=True)
    problems = [f"{e.file}: {e.reason}" for e in window.session.load_errors]
    print(f"LOADED {window.session.traces.height} problems={problems}", flush=True)
    started = time.monotonic()
    window.show()
    window.activateWindow()
    ctrl = window.tagging
    table = window.runs_panel.table
    keys = [Qt.Key(Qt.Key.Key_0.value + int(c.key)) for c in CATEGORIES]
    cats = [c.id.value for c in CATEGORIES]
    state = {"row": 0, "pending": None}

    def on_saved(_label: str, n: int) -> None:
        pending = state["pending"]
        if pending is not None and n:
            print(f"ACK {pending[0]} {pending[1]}", flush=True)
            state["pending"] = None

    ctrl.saved.connect(on_saved)

    def step() -> None:
        if ctrl.workspace is None or ctrl.workspace.path != workspace:
            QTimer.singleShot(10, step)  # the --workspace hook opens it on the first event-loop turn
            return
        rows, runs = window.runs_panel.model.rowCount(), window.session.traces.height
        if rows < runs or not runs:
            if time.monotonic() - started > STUCK_AFTER_S:  # say what the window holds instead of hanging the test
                print(f"STUCK rows={rows} runs={runs} problems={[e.reason for e in window.session.load_errors]}",
                      flush=True)
                app.exit(3)
                return
            QTimer.singleShot(10, step)  # the table fills on the next coalesced refresh
            return
        row = state["row"]
        if row >= window.runs_panel.model.rowCount():
            print(f"DONE rows={window.runs_panel.model.rowCount()} runs={window.session.traces.height}", flush=True)
            app.quit()
            return
        table.setFocus()
        if row == 0 and table.currentIndex().row() != 0:
            window.runs_panel.select_row(0)
        elif table.currentIndex().row() < row:
            QTest.keyClick(table, Qt.Key.Key_Down)
        tid = window.session.selection.trace_id
        if tid != window.runs_panel.model.trace_id(row) or window.session.selection.trace_ids != (tid,):
            QTimer.singleShot(5, step)  # selection not there yet: try again
            return
        i = row % len(keys)
        state["pending"] = (tid, cats[i])
        QTest.keyClick(table, keys[i])
        if state["pending"] is not None:
            print(f"NOACK {tid}", flush=True)
            return
        state["row"] = row + 1
        QTimer.singleShot(0, step)

    QTimer.singleShot(0, step)
    print("READY", flush=True)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
