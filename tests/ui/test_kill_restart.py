"""SIGKILL a process that tags runs in the real main window; every acknowledged tag survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tagging_helpers import write_runs

from analyzer.workspace import Workspace

DRIVER = Path(__file__).with_name("tagging_driver.py")
ROOT = Path(__file__).resolve().parents[2]
KILL_AFTER = 25


def test_sigkill_mid_tagging_keeps_every_acknowledged_tag(tmp_path: Path) -> None:
    traces = write_runs(tmp_path / "traces", 60, steps=4)
    ws_path = tmp_path / "killed.trajscope"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TRAJSCOPE_DATA_DIR=str(tmp_path / "data"),
               TRAJSCOPE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, str(DRIVER), str(traces), str(ws_path)], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked: dict[str, str] = {}
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            parts = line.split()
            if parts and parts[0] == "ACK":
                acked[parts[1]] = parts[2]
                if len(acked) >= KILL_AFTER:
                    os.kill(proc.pid, signal.SIGKILL)  # mid-way: the driver is already tagging the next run
                    break
            elif parts and parts[0] in ("NOACK", "DONE", "STUCK"):
                break
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        _out, err = proc.communicate(timeout=60)
    assert len(acked) >= KILL_AFTER, f"driver stopped early: {lines[-8:]}\n{err[-3000:]}"
    assert proc.returncode == -signal.SIGKILL

    ws = Workspace(ws_path, author="check")  # opens the WAL left by the killed process
    have = {a.trace_id: a.category for a in ws.annotations() if a.step is None}
    for tid, cat in acked.items():
        assert have.get(tid) == cat, f"acknowledged tag lost: {tid} {cat}"
    assert len(have) in (len(acked), len(acked) + 1)  # at most the in-flight action committed without its ACK
    ws.close()
