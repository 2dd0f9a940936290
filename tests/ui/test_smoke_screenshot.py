"""End to end: `trajscope open sample_traces --screenshot` offscreen, and the smoke-test screenshot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def test_cli_screenshot_offscreen(tmp_path):
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "open", "sample_traces", "--screenshot", str(out), "--tab", "compare"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    img = QImage(str(out))
    assert img.width() >= 1200 and img.height() >= 800
    bad = subprocess.run([sys.executable, "-m", "ui.cli", "open", "sample_traces", "--screenshot", str(tmp_path / "x.png"),
                          "--tab", "nonsense"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "no tab" in bad.stderr


def test_smoke_open_analyse_select_and_save_screenshot(analysed, failed_id, qtbot):
    w = analysed
    w.resize(1600, 1000)
    w.session.select(trace_ids=(failed_id,), trace_id=failed_id)
    w.act_decisive.trigger()
    w.bridge.flush()
    assert w.session.selection.step is not None
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "ui_smoke_main_window.png"
    assert w.grab().save(str(path))
    assert QImage(str(path)).width() == 1600
    w.show_tab("compare")
    w.bridge.flush()
    assert w.grab().save(str(ARTIFACTS / "ui_smoke_compare.png"))
