"""Translations: the Simplified Chinese .qm loads and the window speaks Chinese."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt

from analyzer.session import Session
from analyzer.taxonomy import CATEGORIES

I18N = Path(__file__).resolve().parents[2] / "ui" / "i18n"

# Every string of ui/ must be translated: add new ones to ui/i18n/zh_CN*.py, then run
# `python -m ui.i18n.update` (it lists the untranslated ones).


def test_qm_and_ts_are_shipped_and_complete():
    ts = I18N / "trajscope_zh_CN.ts"
    assert (I18N / "trajscope_zh_CN.qm").stat().st_size > 1000
    root = ET.parse(ts).getroot()
    seen = set()
    for ctx in root.iter("context"):
        name = ctx.findtext("name")
        seen.add(name)
        for msg in ctx.iter("message"):
            tr = msg.find("translation")
            src = msg.findtext("source")
            assert tr is not None and tr.get("type") != "unfinished" and (tr.text or "").strip(), (name, src)
            for brace in ("{n}", "{runs}", "{err}", "{total}"):
                if brace in (src or ""):
                    assert brace in tr.text, (src, tr.text)
    assert {"MainWindow", "RunsTable", "Taxonomy", "InspectorPane"} <= seen


def test_taxonomy_titles_are_marked_for_translation():
    from ui.i18n import labels

    assert [c.title for c in CATEGORIES] == list(labels._CATEGORY_TITLES)
    assert [c.description for c in CATEGORIES] == list(labels._CATEGORY_DESCRIPTIONS)


def test_chinese_translation_loads_and_window_speaks_it(qtbot, app):
    from ui.i18n import current_language, install_language
    from ui.i18n.labels import category_title, outcome_label
    from ui.main_window import MainWindow

    try:
        assert install_language("zh_CN")
        assert current_language() == "zh_CN"
        assert QCoreApplication.translate("RunsTable", "Model") == "模型"
        assert category_title("goal_drift") == "目标漂移"
        assert outcome_label("failure") == "失败"
        w = MainWindow(Session(), persist=False)
        qtbot.addWidget(w)
        assert w.file_menu.title() == "文件(&F)"
        assert w.act_analyze_sel.text() == "分析所选运行(&S)"
        assert w.tabs.tabText(w.tabs.indexOf(w.compare)) == "模型比较"
        from ui.models.runs_table import COLUMNS

        header = w.runs_panel.model.headerData([c.key for c in COLUMNS].index("model"), Qt.Orientation.Horizontal)
        assert header == "模型"
        assert "个运行" in w.count_runs.text()
        w.close()
    finally:
        install_language("en")
    assert QCoreApplication.translate("RunsTable", "Model") == "Model"


def test_language_follows_system_unless_chosen(monkeypatch):
    from PySide6.QtCore import QLocale

    from ui.i18n import resolve_language

    assert resolve_language("zh_CN") == "zh_CN"
    assert resolve_language("en") == "en"
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("zh_CN")))
    assert resolve_language("system") == "zh_CN"
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("de_DE")))
    assert resolve_language("system") == "en"


def test_settings_dialog_switches_language_and_rebuilds_window(qtbot, app, monkeypatch):
    from ui.app import AppController
    from ui.dialogs.settings_dialog import SettingsDialog
    from ui.i18n import install_language

    controller = AppController(Session(), persist=False)
    first = controller.build_window()
    first.show()
    first.open_paths([Path(__file__).resolve().parents[2] / "sample_traces"], synchronous=True)
    first.bridge.flush()
    assert controller.session.selection.trace_id is not None
    try:
        def accept_chinese(dialog: SettingsDialog) -> int:
            dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
            dialog.accept()
            return 1

        monkeypatch.setattr(SettingsDialog, "exec", accept_chinese)
        first.open_settings()
        qtbot.waitUntil(lambda: controller.window is not first, timeout=5000)
        second = controller.window
        qtbot.addWidget(second)
        assert second.file_menu.title() == "文件(&F)"
        assert second.session is controller.session
        # the rebuilt window shows the run the old one showed
        assert second.transcript.trace_id == controller.session.selection.trace_id
    finally:
        install_language("en")
        controller.window.close()


def test_ts_file_holds_every_string_of_the_code(tmp_path):
    import subprocess

    from ui.i18n import update

    fresh = tmp_path / "fresh.ts"
    subprocess.run([update._tool("pyside6-lupdate"), *update.sources(), "-ts", str(fresh), "-locations", "none"],
                   cwd=update.UI.parent, check=True, capture_output=True)

    def pairs(path: Path) -> set[tuple[str, str]]:
        root = ET.parse(path).getroot()
        return {(c.findtext("name") or "", m.findtext("source") or "") for c in root.iter("context") for m in c.iter("message")}

    missing = pairs(fresh) - pairs(I18N / "trajscope_zh_CN.ts")
    assert not missing, f"run `python -m ui.i18n.update` and translate: {sorted(missing)[:10]}"
