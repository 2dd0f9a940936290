"""Judge model chooser and keyboard-shortcut help."""

from __future__ import annotations

from pathlib import Path


def test_judge_dialog_reports_missing_and_invalid_files(qtbot, app, tmp_path: Path):
    from ui.dialogs.judge_dialog import JudgeDialog, current_choice

    d = JudgeDialog()
    qtbot.addWidget(d)
    d.file_btn.setChecked(True)
    d.path.setText(str(tmp_path / "missing.gguf"))
    d.accept()
    assert "not found" in d.error.text() and d.result() == 0
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 64)
    d.path.setText(str(bad))
    d.accept()
    assert "GGUF" in d.error.text() and d.result() == 0
    good = tmp_path / "tiny.gguf"
    good.write_bytes(b"GGUF" + b"\0" * 64)
    d.path.setText(str(good))
    d.accept()
    assert d.result() == 1
    assert current_choice() == (True, str(good))


def test_judge_dialog_no_judge_and_bundled(qtbot, app):
    from ui.dialogs.judge_dialog import JudgeDialog, current_choice, packaged_models

    d = JudgeDialog()
    qtbot.addWidget(d)
    d.none_btn.setChecked(True)
    d.accept()
    assert current_choice() == (False, None)
    if packaged_models():
        d2 = JudgeDialog()
        qtbot.addWidget(d2)
        d2.bundled_btn.setChecked(True)
        d2.accept()
        assert current_choice()[0] is True


def test_shortcuts_dialog_lists_navigation_keys(qtbot, window):
    from ui.dialogs.shortcuts_dialog import ShortcutsDialog

    d = ShortcutsDialog(window.shortcut_rows(), window)
    qtbot.addWidget(d)
    keys = {d.table.item(r, 0).text() for r in range(d.table.rowCount())}
    assert {"J", "K", "N", "P"} <= keys
