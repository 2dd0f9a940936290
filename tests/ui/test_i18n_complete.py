"""Simplified Chinese is complete: every string of ui/ is translated, in the context Qt looks it up in.

Fails on an unfinished or missing translation, on a translation call ``pyside6-lupdate`` cannot
see (inside an f-string, through an alias) and on a user-visible literal that bypasses the
translation functions; then the zh_CN window is walked and nothing it shows may be English prose.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QDockWidget,
    QGroupBox,
    QHeaderView,
    QLineEdit,
    QMenu,
    QTabBar,
)

from analyzer.session import Session

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "ui" / "i18n" / "trajscope_zh_CN.ts"
CJK = re.compile(r"[\u4e00-\u9fff]")
NON_TEXT_LITERALS = {
    ("ui/actions/tagging.py", "annotations-"),  # default file name of the annotations export
    ("ui/main_window.py", "runs."),  # default file name of the runs export
}


def _finished() -> set[tuple[str, str]]:
    root = ET.parse(TS).getroot()
    out = set()
    for ctx in root.iter("context"):
        for m in ctx.iter("message"):
            tr = m.find("translation")
            if tr is not None and tr.get("type") != "unfinished" and (tr.text or "").strip():
                out.add((ctx.findtext("name") or "", m.findtext("source") or ""))
    return out


def test_every_translation_call_has_a_finished_translation_in_its_runtime_context():
    from ui.i18n import audit

    calls = audit.translation_calls()
    assert len(calls) > 700  # the scan sees the whole of ui/
    missing = [f"{c.file}:{c.line} [{c.context}] {c.source!r}" for c in audit.untranslated_calls(_finished())]
    assert not missing, ("untranslated (add to ui/i18n/zh_CN*.py, run `python -m ui.i18n.update`; a call inside "
                         "an f-string is invisible to lupdate): " + "; ".join(missing[:15]))


def test_no_tr_aliases_and_no_bare_visible_literals():
    from ui.i18n import audit

    assert not audit.tr_aliases(), "`tr = self.tr` files the strings under no context: call self.tr() directly"
    bare = [f"{f}:{line} {lit!r}" for f, line, lit in audit.bare_literals() if (f, lit) not in NON_TEXT_LITERALS]
    assert not bare, "user-visible text without tr(): " + "; ".join(bare[:15])


def test_audit_catches_the_mistakes_it_is_for(tmp_path, monkeypatch):
    from ui.i18n import audit

    bad = tmp_path / "ui" / "views" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "class Bad:\n"
        "    def f(self, label):\n"
        "        tr = self.tr\n"
        "        label.setText('Plain English')\n"
        "        label.setText(f\"<b>{self.tr('Hidden in an f-string')}</b>\")\n"
        "        label.setToolTip('▲')\n", encoding="utf-8")
    monkeypatch.setattr(audit, "UI", tmp_path / "ui")
    assert audit.tr_aliases() == [("ui/views/bad.py", 3)]
    assert [b[2] for b in audit.bare_literals()] == ["Plain English"]
    assert [c.source for c in audit.untranslated_calls(set())] == ["Hidden in an f-string"]
    assert audit.is_text("Show more") and not audit.is_text("<b>{n}</b> · %d") and not audit.is_text("CSV")


def _english(text: str) -> bool:
    """Prose with no Chinese character (brand, format names and markup do not count)."""
    from ui.i18n.audit import is_text

    text = text.replace("&", "")
    return bool(text.strip()) and not CJK.search(text) and is_text(text)


def test_chinese_window_shows_no_english_prose(qtbot, app, tmp_path):
    from ui.i18n import install_language
    from ui.main_window import MainWindow

    try:
        assert install_language("zh_CN")
        session = Session()
        w = MainWindow(session, persist=False)
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        w.open_paths([ROOT / "sample_traces"], synchronous=True)
        w.bridge.flush()
        english: list[str] = []

        def menu(m: QMenu, path: str) -> None:
            if _english(m.title()):
                english.append(f"menu {path}{m.title()!r}")
            for a in m.actions():
                sub = a.menu()
                if isinstance(sub, QMenu):
                    menu(sub, f"{path}{m.title()} ▸ ")
                elif a.text() and _english(a.text()) and "/" not in a.text():  # recent files are paths
                    english.append(f"action {path}{m.title()} ▸ {a.text()!r}")

        for a in w.menuBar().actions():
            if isinstance(a.menu(), QMenu):
                menu(a.menu(), "")
        for bar in w.findChildren(QTabBar):
            english += [f"tab {bar.tabText(i)!r}" for i in range(bar.count()) if _english(bar.tabText(i))]
        for b in w.findChildren(QAbstractButton):
            if _english(b.text()) and b.text() not in ("▲", "▼"):
                english.append(f"button {b.objectName()} {b.text()!r}")
        for g in w.findChildren(QGroupBox):
            if _english(g.title()):
                english.append(f"group {g.title()!r}")
        for d in w.findChildren(QDockWidget):
            if _english(d.windowTitle()):
                english.append(f"dock {d.windowTitle()!r}")
        for e in w.findChildren(QLineEdit):
            if _english(e.placeholderText()):
                english.append(f"placeholder {e.objectName()} {e.placeholderText()!r}")
        for h in w.findChildren(QHeaderView):
            model = h.model()
            if model is None:
                continue
            for i in range(model.columnCount() if h.orientation() == Qt.Orientation.Horizontal else 0):
                label = model.headerData(i, Qt.Orientation.Horizontal)
                if isinstance(label, str) and _english(label):
                    english.append(f"header {label!r}")
        assert not english, "English in the zh_CN window: " + "; ".join(english[:20])
        assert "标注" in w.tagging.editor.title.text()
        w.close()
    finally:
        install_language("en")


def test_load_reason_templates_are_the_cores():
    from analyzer.reasons import LOAD_MESSAGES
    from ui.i18n.messages import TEMPLATES

    assert TEMPLATES == LOAD_MESSAGES


def test_chinese_load_problems_and_review_desk_rationale(qtbot, app, tmp_path, sample_load, sample_analysis):
    from ui.i18n import install_language
    from ui.main_window import MainWindow

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1,,}\n', encoding="utf-8")
    (tmp_path / "empty.json").write_bytes(b"")
    try:
        assert install_language("zh_CN")
        w = MainWindow(Session(), persist=False)
        qtbot.addWidget(w)
        w.session.add_load_result(sample_load)
        w.session.merge_analysis(sample_analysis)
        w.open_paths([bad, tmp_path / "empty.json"], synchronous=True)
        w.bridge.flush()
        panel = w.load_problems
        reasons = [panel.tree.topLevelItem(i).text(3) for i in range(panel.tree.topLevelItemCount())]
        assert "文件为空" in reasons
        assert any(r.startswith("第 1 行不是有效的 JSON（") for r in reasons), reasons
        panel.tree.setCurrentItem(panel.tree.topLevelItem(0))
        assert panel.details.toPlainText().startswith("文件：")
        # the review desk's "Why:" shows the rationale rendered from its message ids
        w.tagging.show_desk()
        desk = w.tagging.desk
        qtbot.waitUntil(lambda: bool(desk.queue), timeout=5000)
        first = next(s for s in desk.queue if s.finding is None)
        card = desk._card_html(first)
        assert "依据：" in card and "决定性步骤" in card
        why = card.split("依据：", 1)[1]
        assert re.search(r"[\u4e00-\u9fff]", why.split("</p>")[0].split("</b>", 1)[1][:20])
        # a detector's finding description too (recovered from its English text, rendered in Chinese)
        finding = next(s for s in desk.queue if s.finding is not None)
        why = desk._card_html(finding).split("依据：", 1)[1].split("</p>")[0].split("</b>", 1)[1]
        assert re.search(r"[\u4e00-\u9fff]", why) and "step" not in why, why
        row = w.session.analysis.findings.row(finding.finding, named=True)
        assert re.search(r"[\u4e00-\u9fff]", w.inspector._finding_html(row).split("<p>")[2])
        w.close()
    finally:
        install_language("en")


def test_file_dialog_speaks_chinese(qtbot, app, tmp_path):
    from PySide6.QtWidgets import QFileDialog, QFileSystemModel, QLabel

    from ui.dialogs.file_dialogs import FileDialog
    from ui.i18n import install_language

    root = tmp_path / "dialog"
    (root / "traces").mkdir(parents=True)
    (root / "run.jsonl").write_text("{}\n", encoding="utf-8")
    try:
        assert install_language("zh_CN")
        d = FileDialog.build(None, "打开轨迹文件", str(root), "Traces (*.json *.jsonl);;All files (*)",
                             QFileDialog.FileMode.ExistingFiles)
        qtbot.addWidget(d)
        assert d.testOption(QFileDialog.Option.DontUseNativeDialog)
        d.show()
        model = d.findChild(QFileSystemModel)
        d.resize(800, 500)
        qtbot.wait(300)
        qtbot.waitUntil(lambda: model.rowCount(model.index(str(root))) == 2, timeout=5000)
        visible = [lab.text() for lab in d.findChildren(QLabel) if lab.isVisible() and lab.text()]
        visible += [b.text() for b in d.findChildren(QAbstractButton) if b.isVisible() and b.text()]
        assert not [t for t in visible if _english(t)], visible
        assert "查找范围：" in visible and "文件类型：" in visible and "打开(&O)" in visible and "取消" in visible
        folder = model.index(str(root / "traces"))
        assert model.data(folder.siblingAtColumn(2)) == "文件夹"  # the type column (Qt's catalogue lacks it)
        assert [model.headerData(i, Qt.Orientation.Horizontal) for i in range(4)] == ["名称", "体积", "类型", "修改日期"]
        d.close()
    finally:
        install_language("en")
    # English keeps Qt's own (native where there is one) dialog: FileDialog defers to QFileDialog
    assert FileDialog._native()
