"""Tagging desk on the real main window: keyboard tagging, undo/redo, review queue, workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QToolButton
from tagging_helpers import clear_messages, judge_result, make_window, write_runs

from analyzer.session import RunFilter
from analyzer.workspace import Workspace
from ui.models.runs_table import COLUMNS
from ui.views.message_bar import Message

N_RUNS = 50
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "traces", N_RUNS)


@pytest.fixture
def tag_window(qtbot: Any, app: Any, tmp_path: Path, traces: Path) -> Iterator[Any]:
    w = make_window(qtbot, tmp_path / "desk.trajscope", traces)
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


def _focus(qtbot: Any, widget: Any) -> None:
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=3000)


def _run_level(ws: Workspace) -> dict[str, str | None]:
    return {a.trace_id: a.category for a in ws.annotations() if a.step is None}


def test_bulk_tag_50_runs_with_keyboard_then_undo_redo(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    ctrl = w.tagging
    ws = ctrl.workspace
    table = w.runs_panel.table
    assert w.runs_panel.model.rowCount() == N_RUNS
    _focus(qtbot, table)
    qtbot.keyClick(table, Qt.Key.Key_A, CTRL)  # select every row
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == N_RUNS, timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_3)
    tags = _run_level(ws)
    assert len(tags) == N_RUNS and set(tags.values()) == {"evidence_action_gap"}
    assert "Saved" in ctrl.save_label.text()
    assert "Tag evidence_action_gap" in ctrl.act_undo.text()
    # the runs table shows the tag and the status bar counts tagged runs
    qtbot.waitUntil(lambda: f"{N_RUNS} tagged" in w.count_tagged.text(), timeout=3000)
    col = [c.key for c in COLUMNS].index("tags")
    assert "Evidence-to-action gap" in w.runs_panel.model.index(0, col).data()  # a taxonomy id shows as its title

    # a smaller selection: click the first row, then Shift+Down four times
    rect = table.visualRect(w.runs_panel.model.index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == 1, timeout=3000)
    for _ in range(4):
        qtbot.keyClick(table, Qt.Key.Key_Down, SHIFT)
    qtbot.waitUntil(lambda: len(w.session.selection.trace_ids) == 5, timeout=3000)
    first5 = set(w.session.selection.trace_ids)
    qtbot.keyClick(table, Qt.Key.Key_5)
    tags = _run_level(ws)
    assert {t for t, c in tags.items() if c == "repeated_action"} == first5
    assert sum(c == "evidence_action_gap" for c in tags.values()) == N_RUNS - 5

    # undo twice (Ctrl+Z), redo twice (Ctrl+Shift+Z): each is one transaction
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL)
    assert set(_run_level(ws).values()) == {"evidence_action_gap"}
    assert "Tag evidence_action_gap" in ctrl.act_undo.text()
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL)
    assert _run_level(ws) == {}
    assert not ctrl.act_undo.isEnabled()
    qtbot.waitUntil(lambda: "0 tagged" in w.count_tagged.text(), timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL | SHIFT)
    assert len(_run_level(ws)) == N_RUNS
    qtbot.keyClick(table, Qt.Key.Key_Z, CTRL | SHIFT)
    tags = _run_level(ws)
    assert {t for t, c in tags.items() if c == "repeated_action"} == first5
    assert not ctrl.act_redo.isEnabled()
    # the Edit menu names the action Undo would revert
    assert ctrl.edit_menu.actions()[0] is ctrl.act_undo and "repeated_action" in ctrl.act_undo.text()


def test_typing_in_a_text_field_does_not_tag(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    w.runs_panel.select_row(0)
    search = w.runs_panel.filter_bar.search
    _focus(qtbot, search)
    qtbot.keyClicks(search, "12 dar")
    assert search.text() == "12 dar"
    assert w.tagging.workspace.annotations() == []


def test_step_keys_decisive_and_accept_reject_in_transcript(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    ctrl = w.tagging
    ws = ctrl.workspace
    w.session.merge_analysis(judge_result(w.session.traces))
    w.bridge.flush()
    row = w.session.runs_view().filter(pl.col("outcome") == "failure").row(0, named=True)
    tid, judge_step, judge_cat = row["trace_id"], row["decisive_step"], row["category"]
    w.session.select(trace_ids=(tid,), trace_id=tid)
    qtbot.waitUntil(lambda: w.transcript.trace_id == tid, timeout=3000)
    lst = w.transcript.list
    _focus(qtbot, lst)
    assert ctrl.focus_mode == "steps"
    # J/K (the main window's) move between steps; 8 tags the selected step
    qtbot.keyClick(lst, Qt.Key.Key_J)
    qtbot.keyClick(lst, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: w.session.selection.step is not None, timeout=3000)
    step = w.session.selection.step
    qtbot.keyClick(lst, Qt.Key.Key_8)
    a = ws.get(tid, step)
    assert a is not None and a.category == "hallucination" and a.status == "accepted"
    assert ws.get(tid, None) is None  # the run itself was not tagged
    # D: the analyst's decisive step overrides the suggestion
    qtbot.keyClick(lst, Qt.Key.Key_D)
    assert ws.decisive_step(tid) == step
    # A at the judge's decisive step accepts its category; R at step 0 rejects the finding there
    w.session.select(step=judge_step, steps=(judge_step,), finding=None)
    qtbot.keyClick(lst, Qt.Key.Key_A)
    assert ws.get(tid, judge_step).category == judge_cat
    w.session.select(step=0, steps=(0,), finding=None)
    qtbot.keyClick(lst, Qt.Key.Key_R)
    assert ws.get(tid, 0).status == "rejected"
    # several selected steps at once (Shift+Down extends the transcript selection)
    w.session.select(step=1, steps=(1,), finding=None)
    qtbot.waitUntil(lambda: w.transcript.list.currentIndex().row() == w.transcript.model.row_of(1), timeout=3000)
    qtbot.keyClick(lst, Qt.Key.Key_Down, SHIFT)
    qtbot.waitUntil(lambda: len(w.session.selection.steps) == 2, timeout=3000)
    qtbot.keyClick(lst, Qt.Key.Key_0)
    assert ws.get(tid, 1).category == "other" and ws.get(tid, 2).category == "other"
    qtbot.keyClick(lst, Qt.Key.Key_Z, CTRL)
    assert ws.get(tid, 1) is None or ws.get(tid, 1).category != "other"


def test_accept_and_reject_suggested_decisive_steps_of_selected_runs(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    ws = w.tagging.workspace
    w.session.merge_analysis(judge_result(w.session.traces))
    w.bridge.flush()
    failed = w.session.runs_view().filter(pl.col("outcome") == "failure")
    ids = tuple(failed["trace_id"].head(3).to_list())
    table = w.runs_panel.table
    _focus(qtbot, table)
    w.session.select(trace_ids=ids, trace_id=ids[0])
    qtbot.keyClick(table, Qt.Key.Key_A)
    for r in failed.head(3).iter_rows(named=True):
        a = ws.get(r["trace_id"], r["decisive_step"])
        assert a is not None and a.category == r["category"] and a.status == "accepted"
    other = str(failed["trace_id"][3])
    w.session.select(trace_ids=(other,), trace_id=other)
    qtbot.keyClick(table, Qt.Key.Key_R)
    assert ws.get(other, int(failed["decisive_step"][3])).status == "rejected"
    # a successful run has no suggestion: nothing is written, the analyst is told why
    ok = str(w.session.runs_view().filter(pl.col("outcome") == "success")["trace_id"][0])
    w.session.select(trace_ids=(ok,), trace_id=ok)
    n = len(ws.annotations())
    qtbot.keyClick(table, Qt.Key.Key_A)
    assert len(ws.annotations()) == n
    assert any("no judge suggestion" in t for t in w.message_bar.texts())
    # the Review column shows what the analyst did
    w.bridge.flush()
    col = [c.key for c in COLUMNS].index("analyst_status")
    row = w.runs_panel.model.rows_of([ids[0]])[0]
    assert w.runs_panel.model.index(row, col).data() == "accepted"


def test_review_queue_accept_reject_relabel_and_agreement(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    ctrl = w.tagging
    ws = ctrl.workspace
    w.session.merge_analysis(judge_result(w.session.traces))
    w.bridge.flush()
    desk = ctrl.desk
    n_failed = w.session.traces.filter(pl.col("outcome") == "failure").height
    assert len(desk.queue) == 2 * n_failed  # decisive suggestion + one extra finding per failed run
    # default order: every run's suggested decisive step first, then the findings
    assert all(s.finding is None for s in desk.queue[:n_failed])
    assert all(s.finding is not None for s in desk.queue[n_failed:])
    desk.order_box.setCurrentIndex(desk.order_box.findData("decisive_only"))
    desk.order_box.activated.emit(desk.order_box.currentIndex())
    assert len(desk.queue) == n_failed
    desk.order_box.setCurrentIndex(desk.order_box.findData("by_run"))  # run by run
    desk.order_box.activated.emit(desk.order_box.currentIndex())
    assert len(desk.queue) == 2 * n_failed
    assert desk.progress_text() == f"1 / {len(desk.queue)}"
    assert "1 / " in desk.progress_label.text()
    ctrl.act_review.trigger()
    assert w.tabs.currentWidget() is desk
    _focus(qtbot, desk)
    assert ctrl.focus_mode == "desk"

    first = desk.current
    assert first is not None and first.finding is None  # the run's suggested decisive step comes first
    qtbot.keyClick(desk, Qt.Key.Key_A)  # accept
    assert ws.get(first.trace_id, first.step).category == first.category
    assert desk.progress_text() == f"2 / {len(desk.queue)}"
    second = desk.current
    assert second is not None and second.finding is not None and second.trace_id == first.trace_id
    assert w.session.selection.step == second.step and w.session.selection.finding == second.finding
    qtbot.keyClick(desk, Qt.Key.Key_R)  # reject the finding
    assert ws.get(second.trace_id, second.step).status == "rejected"
    third = desk.current
    assert third is not None
    relabel = "planning_error" if third.category != "planning_error" else "goal_drift"
    key = {"planning_error": Qt.Key.Key_1, "goal_drift": Qt.Key.Key_2}[relabel]
    qtbot.keyClick(desk, key)  # the failure is real but of another category
    assert ws.get(third.trace_id, third.step).category == relabel
    fourth = desk.current
    qtbot.keyClick(desk, Qt.Key.Key_S)  # skip
    assert ws.get(fourth.trace_id, fourth.step) is None
    fifth = desk.current
    qtbot.keyClick(desk, Qt.Key.Key_D)  # decisive
    assert ws.decisive_step(fifth.trace_id) == fifth.step
    assert desk.progress_text() == f"6 / {len(desk.queue)}"
    assert desk.reviewed_count() == 4
    qtbot.keyClick(desk, Qt.Key.Key_Left)
    assert desk.current == fifth
    # the buttons do the same as the keys
    desk.go_to(6)
    item = desk.current
    qtbot.mouseClick(desk.reject_btn, Qt.MouseButton.LeftButton)
    assert ws.get(item.trace_id, item.step).status == "rejected"

    # agreement: run 1 accepted (agree), run 2 relabelled at its decisive step (disagree), run 3 decisive (agree);
    # run 4's rejected suggestion gives no analyst category
    w.bridge.flush()
    ag = desk.agreement
    assert ag.n == 3
    assert ag.observed == pytest.approx(2 / 3)
    assert ag.confusion[(third.category, relabel)] == 1
    assert ag.step_agreement == pytest.approx(1.0)
    assert "3 runs compared" in desk.summary.text()
    assert desk.kappa_table.rowCount() >= 2 and desk.confusion.rowCount() == desk.confusion.columnCount()
    cats = [desk.confusion.verticalHeaderItem(i).toolTip() for i in range(desk.confusion.rowCount())]
    assert any("judge:" in c for c in cats)
    # undo of a queue decision works like any other
    qtbot.keyClick(desk, Qt.Key.Key_Z, CTRL)
    assert ws.get(item.trace_id, item.step) is None

    # "skip reviewed" jumps over decided items; the filter narrows the queue
    desk.hide_reviewed.setChecked(True)
    desk.go_to(0)
    desk.skip()
    assert desk.position == 3  # items 1 and 2 were decided
    w.session.set_filter(RunFilter(models=("model-a",)))
    w.bridge.flush()
    assert all(w.session.run_row(s.trace_id)["model"] == "model-a" for s in desk.queue)


def test_tag_all_runs_matching_the_filter(tag_window: Any, qtbot: Any) -> None:
    w = tag_window
    ctrl = w.tagging
    w.session.set_filter(RunFilter(outcomes=("failure",)))
    w.bridge.flush()
    failed = set(w.session.filtered_runs()["trace_id"].to_list())
    assert 0 < len(failed) < N_RUNS
    ctrl.filter_actions["environment_failure"].trigger()
    tags = _run_level(ctrl.workspace)
    assert set(tags) == failed and set(tags.values()) == {"environment_failure"}
    texts = [m.text for m in w.message_bar.findChildren(Message)]
    assert any(t.startswith(f"Tagged {len(failed)} runs matching the filter") for t in texts)
    ctrl.undo()
    assert _run_level(ctrl.workspace) == {}


def test_annotation_editor_tags_notes_and_reopen_finds_every_tag(tag_window: Any, qtbot: Any, app: Any,
                                                                tmp_path: Path, traces: Path) -> None:
    w = tag_window
    ctrl = w.tagging
    editor = w.inspector.annotation_editor
    assert editor is not None and editor.controller is ctrl
    tids = w.session.traces["trace_id"].to_list()
    # a step: custom tag, note, category through the editor's widgets
    w.session.select(trace_ids=(tids[1],), trace_id=tids[1], step=2, steps=(2,))
    w.bridge.flush()
    assert editor.target == (tids[1], 2)
    qtbot.keyClicks(editor.tag_edit, "needs-rerun")
    qtbot.keyClick(editor.tag_edit, Qt.Key.Key_Return)
    assert ctrl.workspace.get(tids[1], 2).tags == ("needs-rerun",)
    w.bridge.flush()
    assert editor.tags_box.findChild(QToolButton, "tagChip_needs-rerun") is not None
    editor.note.setFocus()
    qtbot.keyClicks(editor.note, "agent ignored the failing test output")
    editor.save_note()
    assert ctrl.workspace.get(tids[1], 2).note == "agent ignored the failing test output"
    editor.category.setCurrentIndex(editor.category.findData("failed_recovery"))
    editor.category.activated.emit(editor.category.currentIndex())
    assert ctrl.workspace.get(tids[1], 2).category == "failed_recovery"
    # the whole run: switch scope, tag + note; the note is saved when the selection moves on
    editor.scope.setCurrentIndex(editor.scope.findData("run"))
    editor.scope.activated.emit(editor.scope.currentIndex())
    assert editor.target == (tids[1], None)
    editor.note.setPlainText("run-level note")
    w.session.select(trace_ids=(tids[4],), trace_id=tids[4])
    w.bridge.flush()
    assert ctrl.workspace.get(tids[1], None).note == "run-level note"
    # removing a tag via its chip
    w.session.select(trace_ids=(tids[1],), trace_id=tids[1], step=2, steps=(2,))
    w.bridge.flush()
    chip = editor.tags_box.findChild(QToolButton, "tagChip_needs-rerun")
    assert chip is not None
    chip.click()
    assert ctrl.workspace.get(tids[1], 2).tags == ()
    qtbot.keyClick(w.runs_panel.table, Qt.Key.Key_Z, CTRL)  # undo the removal
    assert ctrl.workspace.get(tids[1], 2).tags == ("needs-rerun",)
    # keyboard tags on many runs
    _focus(qtbot, w.runs_panel.table)
    expected: dict[str, str] = {}
    for i, key in enumerate((Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_9, Qt.Key.Key_0, Qt.Key.Key_7)):
        w.runs_panel.select_row(10 + i)
        qtbot.keyClick(w.runs_panel.table, key)
        expected[w.runs_panel.model.trace_id(10 + i)] = ["planning_error", "goal_drift", "environment_failure",
                                                         "other", "false_success"][i]
    before = {(a.trace_id, a.step): a for a in ctrl.workspace.annotations()}
    ws_path = ctrl.workspace.path
    w.close()
    ctrl.workspace.close()

    # reopen in a brand-new window with a new session: every tag, note and step label is back
    w2 = make_window(qtbot, ws_path, traces)
    after = {(a.trace_id, a.step): a for a in w2.tagging.workspace.annotations()}
    assert after == before
    for tid, cat in expected.items():
        assert after[(tid, None)].category == cat
    assert after[(tids[1], 2)].note == "agent ignored the failing test output"
    view = w2.session.runs_view()
    assert view.filter(pl.col("trace_id") == tids[10])["tags"][0] == "planning_error"
    w2.session.select(trace_ids=(tids[1],), trace_id=tids[1], step=2, steps=(2,))
    w2.bridge.flush()
    ed2 = w2.inspector.annotation_editor
    assert ed2.note.toPlainText() == "agent ignored the failing test output"
    assert ed2.category.currentData() == "failed_recovery"


def test_workspace_from_command_line_hook(qtbot: Any, app: Any, tmp_path: Path) -> None:
    """``trajscope open --workspace FILE`` sets ``window.workspace_path`` after building the window."""
    from ui.app import AppController

    target = tmp_path / "cli.trajscope"
    seed = Workspace(target, author="someone")
    seed.set_category([("r1", None)], "goal_drift")
    seed.close()
    controller = AppController(persist=False)
    window = controller.build_window()
    qtbot.addWidget(window, before_close_func=clear_messages)
    window.workspace_path = target  # what run_app does
    qtbot.waitUntil(lambda: window.tagging.workspace is not None
                    and window.tagging.workspace.path == target, timeout=3000)
    assert window.session.annotations.height == 1
    assert "cli.trajscope" in window.tagging.workspace_label.text()


def test_default_workspace_author_and_rebuild_keep_history(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from analyzer.settings import data_dir
    from ui.actions.tagging import analyst_name, set_analyst_name
    from ui.app import AppController

    set_analyst_name("ana")
    assert analyst_name() == "ana"
    controller = AppController(persist=False)
    window = controller.build_window()
    qtbot.addWidget(window, before_close_func=clear_messages)
    qtbot.waitUntil(lambda: window.tagging.workspace is not None, timeout=3000)
    ws = window.tagging.workspace
    assert ws.path == data_dir() / "workspace.trajscope" and ws.author == "ana"
    window.tagging.set_category([("x1", None)], "hallucination")
    # a language/theme change rebuilds the window: same workspace, same undo history
    window2 = controller.build_window()
    qtbot.addWidget(window2, before_close_func=clear_messages)
    assert window2.tagging.workspace is ws
    assert window2.tagging.act_undo.isEnabled()
    window2.tagging.undo()
    assert ws.annotations() == []


def test_import_annotations_reports_conflicts_and_adopts_theirs(tag_window: Any, qtbot: Any, tmp_path: Path) -> None:
    from ui.dialogs.annotations_import import ImportReportDialog

    w = tag_window
    ctrl = w.tagging
    tids = w.session.traces["trace_id"].to_list()
    ctrl.set_category([(tids[0], 3), (tids[1], None)], "goal_drift")
    bob = Workspace(tmp_path / "bob.trajscope", author="bob")
    bob.set_category([(tids[0], 3)], "planning_error")
    bob.set_category([(tids[2], None)], "hallucination")
    bob.set_note((tids[0], 3), "the plan skipped the tests")
    shared = tmp_path / "bob.jsonl"
    bob.export_jsonl(shared)
    with shared.open("a", encoding="utf-8") as fh:
        fh.write("{broken line\n")
    report = ctrl.import_annotations(shared)
    assert report.added == 2 and len(report.conflicts) == 1 and len(report.errors) == 1
    assert w.session.annotations.filter(pl.col("author") == "bob").height == 2
    dlg = ImportReportDialog(report, ctrl, w)
    qtbot.addWidget(dlg)
    assert dlg.table.rowCount() == 1 and "Planning error" in dlg.table.item(0, 3).text()
    assert "1 conflicts, 1 lines skipped" in dlg.findChild(QLabel, "importSummary").text()
    dlg.table.selectRow(0)
    dlg.adopt_selected()
    me = ctrl.workspace.get(tids[0], 3)
    assert me.category == "planning_error" and me.author == ctrl.author
    assert ctrl.workspace.get(tids[0], 3, "bob").category == "planning_error"
    dlg.show_conflict(0)
    assert w.session.selection.trace_id == tids[0] and w.session.selection.step == 3
    # export ours for another analyst
    out = tmp_path / "mine.jsonl"
    assert ctrl.export_annotations(out) == len(ctrl.workspace.annotations())
    assert out.read_text(encoding="utf-8").count("\n") == len(ctrl.workspace.annotations())


def test_tagging_desk_screenshot_on_the_sample_traces(app: Any, tmp_path: Path) -> None:
    """What ``make screenshots`` renders: the desk after a short review of the real sample analysis."""
    from ui.screenshot_tags_jobs import screenshot_tagging_desk

    out = screenshot_tagging_desk(tmp_path / "tagging_desk.png", [str(Path(__file__).resolve().parents[2] / "sample_traces")])
    assert out.stat().st_size > 50_000
    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert (img.width(), img.height()) == (1600, 1000)
