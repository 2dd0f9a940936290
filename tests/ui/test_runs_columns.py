"""Runs table columns: important ones first and sized to content; a column chooser kept in the settings."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMenu
from tagging_helpers import clear_messages

from analyzer.session import Session


def _new_window(qtbot: Any, session: Session) -> Any:
    from ui.main_window import MainWindow

    w = MainWindow(session, persist=True)  # persist: the column choice is read and written
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.show()
    w.bridge.flush()
    return w


def _section_right(panel: Any, key: str) -> int:
    from ui.models.runs_table import COLUMNS

    i = [c.key for c in COLUMNS].index(key)
    hh = panel.table.horizontalHeader()
    return hh.sectionViewportPosition(i) + hh.sectionSize(i)


def test_important_columns_first_and_visible_at_the_default_width(analysed):
    w = analysed
    panel = w.runs_panel
    assert panel.column_keys()[:5] == ["title", "outcome", "decisive_step", "category", "tags"]
    assert panel.column_keys()[-2:] == ["trace_id", "source_name"]
    w.resize(1560, 960)  # the window's default size, and the default dock width
    w.reset_layout()
    w.bridge.flush()
    QApplication.processEvents()
    width = panel.table.viewport().width()
    assert width <= 560
    for key in ("decisive_step", "category", "tags"):
        assert _section_right(panel, key) <= width, (key, _section_right(panel, key), width)
    # sized to content: the widest category title fits its column
    from ui.i18n.labels import category_title
    from ui.models.runs_table import COLUMNS

    view = panel.model.frame
    cats = [category_title(c) for c in view["category"].drop_nulls().unique().to_list()]
    fm = panel.table.fontMetrics()
    i = [c.key for c in COLUMNS].index("category")
    assert panel.table.horizontalHeader().sectionSize(i) >= max(fm.horizontalAdvance(c) for c in cats)


def test_column_chooser_is_saved_and_restored(qtbot, app, sample_load):
    from ui import settings as ui_settings
    from ui.views.runs_panel import COLUMNS_KEY

    s1 = Session()
    s1.add_load_result(sample_load)
    w = _new_window(qtbot, s1)
    panel = w.runs_panel
    # the chooser lives in the header's context menu and in View ▸ Runs table columns
    assert panel.columns_menu in [a.menu() for a in w.view_menu.actions() if a.menu()]
    hh = panel.table.horizontalHeader()
    seen: list[list[str]] = []

    def pick() -> None:  # the header's context menu is open: untick Task, then close it
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        seen.append([a.text() for a in menu.actions() if a.text()])
        next(a for a in menu.actions() if a.objectName() == "column_task").trigger()
        menu.close()

    QTimer.singleShot(200, pick)
    hh.customContextMenuRequested.emit(hh.rect().center())
    assert seen and "Task" in seen[0] and "Reset columns" in seen[0]
    assert "task" not in panel.column_keys() and "task" in panel.hidden_columns()
    panel.set_column_visible("model", False)
    hh.moveSection(hh.visualIndex(3), 1)  # drag Category before Outcome
    order = panel.column_keys()
    assert order[:3] == ["title", "category", "outcome"]
    saved = ui_settings.get_json(COLUMNS_KEY, {})
    assert set(saved["hidden"]) == {"task", "model"} and saved["order"][:3] == order[:3]
    w.close()

    s2 = Session()
    s2.add_load_result(sample_load)
    w2 = _new_window(qtbot, s2)
    p2 = w2.runs_panel
    assert p2.column_keys() == order and set(p2.hidden_columns()) == {"task", "model"}
    # the last column cannot be hidden; Reset brings every column back in the default order
    p2.reset_columns()
    from ui.models.runs_table import COLUMNS

    assert p2.column_keys() == [c.key for c in COLUMNS]
    assert ui_settings.get_json(COLUMNS_KEY, {})["hidden"] == []
    for key in [c.key for c in COLUMNS][1:]:
        p2.set_column_visible(key, False)
    assert p2.column_keys() == ["title"]
    p2.set_column_visible("title", False)
    assert p2.column_keys() == ["title"]
    w2.close()


def test_a_column_the_analyst_resized_keeps_its_width(analysed):
    from ui.models.runs_table import COLUMNS

    panel = analysed.runs_panel
    i = [c.key for c in COLUMNS].index("category")
    hh = panel.table.horizontalHeader()
    hh.resizeSection(i, 60)
    panel.refresh()
    assert hh.sectionSize(i) == 60
    panel.reset_columns()
    assert hh.sectionSize(i) > 60
