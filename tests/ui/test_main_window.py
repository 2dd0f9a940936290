"""Main window on the real sample traces: loading, linked selection, plots, panels."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from analyzer.session import Session

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


def test_open_folder_in_background_fills_table(window, qtbot):
    job = window.open_paths([SAMPLES])
    assert job is not None
    qtbot.waitUntil(lambda: not window.jobs.running(), timeout=60000)
    qtbot.waitUntil(lambda: window.runs_panel.model.rowCount() == window.session.traces.height, timeout=5000)
    assert window.session.traces.height > 0
    # after loading, the first failed run is selected and shown
    qtbot.waitUntil(lambda: window.transcript.trace_id is not None, timeout=5000)
    tid = window.session.selection.trace_id
    assert window.transcript.trace_id == tid
    assert window.session.run_row(tid)["outcome"] == "failure"
    assert f"{window.session.traces.height} runs" in window.count_runs.text()
    assert window.progress.isHidden()


def test_select_run_in_table_updates_every_view(loaded, qtbot):
    w = loaded
    panel = w.runs_panel
    assert panel.model.rowCount() == w.session.traces.height
    panel.select_row(2)
    tid = panel.model.trace_id(2)
    qtbot.waitUntil(lambda: w.transcript.trace_id == tid, timeout=3000)
    assert w.session.selection.trace_id == tid
    assert w.plots.trace_id == tid
    n_steps = w.session.run_row(tid)["n_steps"]
    assert w.transcript.model.rowCount() == n_steps
    assert tid[:16] in w.inspector.browser.toPlainText()


def test_multi_select_runs(loaded, qtbot):
    w = loaded
    table = w.runs_panel.table
    table.selectRow(0)
    idx = w.runs_panel.model.index(3, 0)
    rect = table.visualRect(idx)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, rect.center())
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == 4, timeout=3000)
    assert w.session.selection.trace_id in w.session.selection.trace_ids


def test_click_on_value_plot_selects_step_everywhere(analysed, failed_id, qtbot):
    w = analysed
    w.session.select(trace_ids=(failed_id,), trace_id=failed_id)
    w.bridge.flush()
    qtbot.waitUntil(lambda: w.plots.trace_id == failed_id and w.plots.values is not None, timeout=3000)
    n = w.session.run_row(failed_id)["n_steps"]
    target = min(n - 1, 4)
    w.plots.value_plot.getViewBox().setXRange(-0.5, n - 0.5, padding=0)
    QApplication.processEvents()
    pos = w.plots.point_in_view(target)
    qtbot.mouseClick(w.plots.glw.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: w.session.selection.step == target, timeout=3000)
    w.bridge.flush()
    # transcript follows: the current card is that step
    cur = w.transcript.list.currentIndex()
    assert cur.isValid() and w.transcript.model.card(cur.row()).step == target
    # inspector follows: it shows the step
    assert f"Step {target}" in w.inspector.browser.toPlainText()
    # the plot cursor moved there
    assert w.plots.cursor_lines[0].isVisible() and w.plots.cursor_lines[0].value() == target
    # hover text summarises the step
    assert w.plots.hover_text(target).startswith(f"#{target}")


def test_transcript_and_inspector_show_analysis(analysed, failed_id, qtbot):
    w = analysed
    w.session.select(trace_ids=(failed_id,), trace_id=failed_id)
    w.bridge.flush()
    row = w.session.run_row(failed_id)
    decisive = int(row["decisive_step"])
    cards = {c.step: c for c in w.transcript.model.cards}
    assert cards[decisive].rank == 1
    ranked = [c for c in cards.values() if c.rank in (2, 3)]
    assert len(ranked) <= 2
    text = w.inspector.browser.toPlainText()
    assert "Decisive step" in text and "Category" in text
    assert w.plots.values is not None and len(w.plots.values) == row["n_steps"]
    # G jumps to the decisive step
    w.act_decisive.trigger()
    w.bridge.flush()
    assert w.session.selection.step == decisive


def test_inspector_says_why_the_largest_drop_is_not_at_the_decisive_step(analysed, qtbot):
    w = analysed
    noted = w.session.runs_view().filter(pl.col("drop_note").is_not_null())
    assert noted.height > 0, "some sample run's value falls most away from its decisive step"
    row = noted.row(0, named=True)
    w.session.select(trace_ids=(row["trace_id"],), trace_id=row["trace_id"])
    w.bridge.flush()
    text = w.inspector.browser.toPlainText()
    assert "Curve vs. decisive step" in text and row["drop_note"] in text
    assert f"href='step:{row['largest_drop_step']}'" in w.inspector._run_html(w.session.run_row(row["trace_id"]))
    w.inspector.browser.anchorClicked.emit(QUrl(f"step:{row['largest_drop_step']}"))  # the step references are links
    w.bridge.flush()
    assert w.session.selection.step == row["largest_drop_step"]


def test_keyboard_navigation(analysed, failed_id, qtbot):
    w = analysed
    w.session.select(trace_ids=(failed_id,), trace_id=failed_id, step=0, steps=(0,))
    w.bridge.flush()
    w.transcript.list.setFocus()
    qtbot.keyClick(w.transcript.list, Qt.Key.Key_J)
    w.bridge.flush()
    assert w.session.selection.step == 1
    qtbot.keyClick(w.transcript.list, Qt.Key.Key_K)
    w.bridge.flush()
    assert w.session.selection.step == 0
    findings = w.session.run_findings(failed_id)
    if findings.height:
        qtbot.keyClick(w.transcript.list, Qt.Key.Key_N)
        w.bridge.flush()
        sel = w.session.selection
        assert sel.finding is not None
        assert sel.step == int(findings.filter(pl.col("finding") == sel.finding)["step"][0])
        assert "Findings" in w.inspector.browser.toPlainText()
        qtbot.keyClick(w.transcript.list, Qt.Key.Key_P)
        w.bridge.flush()
        assert w.session.selection.finding is not None


def test_transcript_search_and_show_more(loaded, qtbot):
    w = loaded
    steps = w.session.steps
    long_step = steps.filter(pl.col("text").str.len_chars() > 1200)
    tid = str((long_step if long_step.height else steps)["trace_id"][0])
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    word = next(t for t in w.session.run_steps(tid)["text"].to_list() if t and len(t.split()) > 3).split()[2]
    w.transcript.search.setText(word)
    w.transcript.next_match(1)
    w.bridge.flush()
    assert w.transcript._matches and w.session.selection.step in w.transcript._matches
    # folding: a long card grows when unfolded
    if long_step.height:
        step = int(long_step.filter(pl.col("trace_id") == tid)["step"][0])
        row = w.transcript.model.row_of(step)
        width = w.transcript.list.viewport().width()
        card = w.transcript.model.card(row)
        folded = w.transcript.delegate.card_height(card, width)
        w.transcript.toggle_row(row)
        assert card.expanded
        assert w.transcript.delegate.card_height(card, width) > folded


def test_filter_and_sort_runs_table(loaded, qtbot):
    w = loaded
    panel = w.runs_panel
    bar = panel.filter_bar
    bar.more.setChecked(True)
    bar.outcome.setCurrentIndex(bar.outcome.findData("failure"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == w.session.counts().failed, timeout=3000)
    assert set(panel.model.frame["outcome"].to_list()) == {"failure", "error"}  # an errored run did not succeed either
    # sort by steps, descending, in polars
    panel.sort_by("n_steps", descending=True)
    w.bridge.flush()
    steps = panel.model.frame["n_steps"].to_list()
    assert steps == sorted(steps, reverse=True)
    # text search reaches step text that is not in any task
    bar.outcome.setCurrentIndex(0)
    all_steps = w.session.steps
    tasks = " ".join(t or "" for t in w.session.traces["task"].to_list()).lower()
    word = next(wd for t in all_steps["text"].to_list() if t for wd in t.split()
                if len(wd) > 8 and wd.isalpha() and wd.lower() not in tasks)
    bar.search.setText(word)
    qtbot.waitUntil(lambda: w.session.filter.text == word, timeout=3000)
    w.bridge.flush()
    hits = set(all_steps.filter(pl.col("text").str.contains("(?i)" + word))["trace_id"].to_list())
    assert set(panel.model.frame["trace_id"].to_list()) == hits
    assert f"{len(hits)} of" in panel.count_label.text()
    # saved filters round-trip through QSettings
    bar.save_filter("needle")
    bar.clear()
    w.bridge.flush()
    assert panel.model.rowCount() == w.session.traces.height
    bar.apply_saved("needle")
    w.bridge.flush()
    assert set(panel.model.frame["trace_id"].to_list()) == hits
    assert "needle" in bar.saved_filters()


def test_confidence_and_category_filters(analysed, qtbot):
    w = analysed
    bar = w.runs_panel.filter_bar
    bar.more.setChecked(True)
    bar.min_conf.setValue(0.5)
    w.bridge.flush()
    conf = w.runs_panel.model.frame["confidence"].to_list()
    assert all(c is not None and c >= 0.5 for c in conf)
    bar.min_conf.setValue(0.0)
    cats = w.session.runs_view()["category"].drop_nulls().unique().to_list()
    assert cats
    bar.category.setCurrentIndex(bar.category.findData(cats[0]))
    w.bridge.flush()
    assert set(w.runs_panel.model.frame["category"].to_list()) == {cats[0]}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_drag_and_drop_opens_files(window, qtbot):
    files = sorted(p for p in SAMPLES.rglob("*.json*") if p.is_file())[:2]
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in files])
    pos = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    qtbot.waitUntil(lambda: not window.jobs.running() and window.session.traces.height > 0, timeout=30000)
    sources = set(window.session.traces["source_file"].to_list())
    assert sources <= {str(p) for p in files}


def test_load_problems_panel_lists_bad_file(window, qtbot, tmp_path):
    good = next(p for p in sorted(SAMPLES.rglob("*.json")) if p.is_file())
    folder = tmp_path / "traces"
    folder.mkdir()
    shutil.copy(good, folder / good.name)
    (folder / "broken.json").write_text('{"messages": [ {"role": "user", "content": "hi"', encoding="utf-8")
    window.open_paths([folder])
    qtbot.waitUntil(lambda: not window.jobs.running(), timeout=30000)
    qtbot.waitUntil(lambda: window.problems_dock.isVisible(), timeout=3000)
    tree = window.load_problems.tree
    files = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert any(f.endswith("broken.json") for f in files)
    reasons = [tree.topLevelItem(i).text(3) for i in range(tree.topLevelItemCount())]
    assert all(r for r in reasons)
    assert window.session.traces.height >= 1  # the good file still loaded
    assert "1 load problems" in window.count_problems.text()
    window.load_problems.copy_all()
    assert "broken.json" in QApplication.clipboard().text()
    assert any("could not be read" in t for t in window.message_bar.texts())


def test_compare_tab_draws_model_metrics(analysed, qtbot):
    w = analysed
    assert w.show_tab("compare")
    qtbot.waitUntil(lambda: w.compare.metrics is not None, timeout=5000)
    from analyzer.metrics import normalise_model

    models = {normalise_model(m) if m else "(unknown)" for m in w.session.traces["model"].to_list()}
    w.compare.top_box.setValue(30)
    assert w.compare.table.rowCount() == len(models) == w.compare.metrics.height
    assert w.compare.metrics["runs"].sum() == w.session.traces.height
    assert w.compare.pass_plot.items and w.compare.horizon_plot.items and w.compare.sc_plot.items
    assert w.compare.self_cond is not None and w.compare.self_cond.height > 0
    assert "analysed" in w.compare.note.text()
    # nothing is pooled: the table keeps every group with its n, the plots draw the first few
    w.compare.top_box.setValue(3)
    assert w.compare.table.rowCount() == len(models) and len(w.compare.groups) == min(3, len(models))
    assert "other" not in w.compare.all_groups
    assert w.compare.metrics["runs"].sum() == w.session.traces.height
    # groups below the minimum n are marked and ranked after every larger group; "(unknown)" comes last
    few = w.compare.metrics["too_few_runs"].to_list()
    if "(unknown)" in w.compare.all_groups:
        assert w.compare.all_groups[-1] == "(unknown)" and "(unknown)" not in w.compare.groups
        few = few[:-1]
    assert few == sorted(few) and any(few)
    assert "too few runs" in w.compare.note.text()
    # compare by framework
    w.compare.group_box.setCurrentIndex(w.compare.group_box.findData("framework"))
    assert "framework" in w.compare.metrics.columns
    # the comparison follows the runs filter
    w.runs_panel.filter_bar.more.setChecked(True)
    bar = w.runs_panel.filter_bar
    bar.outcome.setCurrentIndex(bar.outcome.findData("failure"))
    w.bridge.flush()
    assert w.compare.metrics["runs"].sum() == w.session.counts().failed


def test_export_runs_csv(loaded, tmp_path):
    out = loaded.export_runs_to(str(tmp_path / "runs.csv"), "csv")
    assert out is not None
    frame = pl.read_csv(out)
    assert frame.height == loaded.session.traces.height


def test_message_bar_copy_details_and_excepthook(window, qtbot):
    from ui.app import AppController

    controller = AppController(Session(), persist=False)
    controller.window = window
    try:
        raise ValueError("boom")
    except ValueError as exc:
        controller.excepthook(type(exc), exc, exc.__traceback__)
    msg = window.message_bar.messages[-1]
    assert msg.level == "error" and "boom" in msg.text
    msg.buttons["Copy details"].click()
    assert "Traceback" in QApplication.clipboard().text()
    msg.dismiss()
    assert msg not in window.message_bar.messages


def test_layout_and_recent_files_are_remembered(qtbot, app, isolated_settings):
    from ui import settings as ui_settings
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=True)
    qtbot.addWidget(w)
    w.resize(1234, 777)
    w.show()
    w.plots_dock.hide()
    w.open_paths([SAMPLES], synchronous=True)
    w.close()
    assert ui_settings.recent_paths()[0] == str(SAMPLES.resolve())
    saved = ui_settings.ui_settings().value("window/geometry")
    assert saved is not None and len(bytes(saved)) > 0
    w2 = MainWindow(Session(), persist=True)
    qtbot.addWidget(w2)
    w2.show()
    assert not w2.plots_dock.isVisible()
    assert w2.runs_dock.isVisible()
    w2._fill_recent()
    assert str(SAMPLES.resolve()) in [a.text() for a in w2.recent_menu.actions()]
    assert any(Path(p).exists() for p in isolated_settings.rglob("*.ini"))


def test_shortcuts_are_listed_in_help(window):
    rows = dict((what, keys) for keys, what in window.shortcut_rows())
    assert rows["Next step"] == "J" and rows["Previous finding"] == "P"
    assert "Analyze selected runs" in rows and "Cancel" in rows
    for a in (window.act_open, window.act_analyze_sel, window.act_cancel, window.act_judge):
        assert a.toolTip()


def test_empty_state_placeholders(window):
    assert window.transcript.stack.currentWidget() is window.transcript.placeholder
    assert "Select a run" in window.inspector.browser.toPlainText()
    assert not window.act_analyze_all.isEnabled()
    window.analyze_selected()
    assert window.message_bar.texts()


