"""Search that finds: highlights in the transcript, Enter/Shift+Enter, the search across all runs,
and the load-problems panel that shows a reason whole."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from analyzer.search import search_runs, snippet
from ui.views.step_delegate import HIGHLIGHT


def _run_with_word(session) -> tuple[str, str, list[int]]:  # type: ignore[no-untyped-def]
    """A run and a word that occurs in at least three of its steps, in the visible text."""
    steps = session.steps.filter(pl.col("text").fill_null("").str.len_chars() > 0)
    for tid in steps["trace_id"].unique(maintain_order=True).to_list():
        texts = steps.filter(pl.col("trace_id") == tid).sort("step")
        counts: dict[str, set[int]] = {}
        for s, t in texts.select("step", "text").iter_rows():
            for word in {w.strip(".,:;!?()\"'").lower() for w in t.split()[:40]}:
                if len(word) >= 5 and word.isalpha():
                    counts.setdefault(word, set()).add(int(s))
        good = sorted((w for w, ss in counts.items() if len(ss) >= 3), key=lambda w: (-len(counts[w]), w))
        if good and texts.height <= 40:
            return str(tid), good[0], sorted(counts[good[0]])
    raise AssertionError("the sample traces need a run with a word repeated over three steps")


def _highlight_pixels(widget) -> int:  # type: ignore[no-untyped-def]
    img = widget.grab().toImage()
    target = QColor(HIGHLIGHT)
    n = 0
    for y in range(0, img.height(), 2):
        for x in range(0, img.width(), 2):
            c = img.pixelColor(x, y)
            if abs(c.red() - target.red()) < 8 and abs(c.green() - target.green()) < 8 and abs(c.blue() - target.blue()) < 8:
                n += 1
    return n


def test_runs_search_highlights_every_match_in_the_open_run_and_enter_steps(loaded, qtbot):
    w = loaded
    tid, word, steps_with_word = _run_with_word(w.session)
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    view = w.transcript
    assert _highlight_pixels(view.list.viewport()) == 0
    box = w.runs_panel.filter_bar.search
    box.setText(word.upper())  # case-insensitive
    assert view.search.text() == word.upper()  # the transcript follows the runs search
    qtbot.waitUntil(lambda: bool(view._matches), timeout=3000)
    assert set(steps_with_word) <= set(view._matches)
    marked = [c.step for c in view.model.cards if c.match]
    assert marked == view._matches
    assert view.model.query == word.upper()
    view.list.scrollToTop()
    qtbot.wait(50)
    assert _highlight_pixels(view.list.viewport()) > 20  # the matching text itself is highlighted
    # Enter in the runs search steps forward through the matches, Shift+Enter back
    w.activateWindow()
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=3000)
    w.session.select(step=None, steps=())
    qtbot.keyClick(box, Qt.Key.Key_Return)
    w.bridge.flush()
    assert w.session.selection.step == view._matches[0]
    qtbot.keyClick(box, Qt.Key.Key_Return)
    w.bridge.flush()
    assert w.session.selection.step == view._matches[1]
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    w.bridge.flush()
    assert w.session.selection.step == view._matches[0]
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    w.bridge.flush()
    assert w.session.selection.step == view._matches[-1]  # wraps round
    assert view.match_label.text() == f"{len(view._matches)} of {len(view._matches)}"
    # the analyst's own find text wins over the runs search
    view.search.setText("zzz-own-text")
    box.setText(word + "x")
    assert view.search.text() == "zzz-own-text"
    # clearing both removes every highlight
    view.search.clear()
    box.clear()
    qtbot.waitUntil(lambda: not view._matches, timeout=3000)
    assert not any(c.match for c in view.model.cards)
    qtbot.wait(50)
    assert _highlight_pixels(view.list.viewport()) == 0


def test_search_runs_lists_every_hit_with_snippets():
    traces = pl.DataFrame({"trace_id": ["b", "a"], "task": ["Refund the order", "Check the weather"]})
    steps = pl.DataFrame({
        "trace_id": ["a", "a", "b", "b", "b"], "step": [0, 1, 0, 1, 2],
        "text": ["no match here", "the REFUND is late", "x" * 100 + " refund " + "y" * 100, "", "done"],
        "tool_name": [None, None, None, "issue_refund", None], "tool_args": [None, None, None, '{"id": 1}', None],
        "error_text": [None, None, None, None, "refund failed; refund again"], "agent": ["bot"] * 5})
    res = search_runs(traces, steps, "refund")
    rows = res.hits.select("trace_id", "step", "field", "count").rows()
    # run order of `traces` (b first), the task hit before the steps, one hit per step
    assert rows == [("b", None, "task", 1), ("b", 0, "text", 1), ("b", 1, "tool_name", 1), ("b", 2, "error_text", 2),
                    ("a", 1, "text", 1)]
    assert res.total == 5 and not res.truncated
    long_hit = res.hits.row(1, named=True)
    assert long_hit["snippet"].startswith("…") and long_hit["snippet"].endswith("…")
    assert long_hit["snippet"][long_hit["start"]:long_hit["start"] + long_hit["length"]] == "refund"
    limited = search_runs(traces, steps, "refund", limit=2)
    assert limited.hits.height == 2 and limited.total == 5 and limited.truncated
    assert search_runs(traces, steps, "   ").total == 0
    assert search_runs(traces, steps, "a.b(").total == 0  # literal text, not a regex
    assert snippet("Short text", "TEXT") == ("Short text", 6, 4)


def test_search_all_runs_dialog_opens_the_run_at_the_step(loaded, qtbot):
    w = loaded
    tid, word, _steps = _run_with_word(w.session)
    dlg = w.search_controller.show_dialog(word)
    qtbot.addWidget(dlg)
    hits = dlg.hits.hits
    assert dlg.list.topLevelItemCount() == hits.height > 0
    assert hits["trace_id"].n_unique() >= 1 and tid in hits["trace_id"].to_list()
    expected = search_runs(w.session.traces, w.session.steps, word)
    assert dlg.hits.total == expected.total
    assert str(expected.total) in dlg.summary.text()
    # columns: run, model, step, where, snippet
    row = next(i for i, r in enumerate(hits.iter_rows(named=True)) if r["trace_id"] == tid and r["step"] is not None)
    item = dlg.list.topLevelItem(row)
    assert item.text(2) == str(hits["step"][row]) and word.lower() in item.text(4).lower()
    w.show_tab("compare")
    dlg.list.itemClicked.emit(item, 0)  # a click opens the hit
    w.bridge.flush()
    assert w.tabs.currentWidget() is w._tabs["run"]
    assert w.session.selection.trace_id == tid and w.session.selection.step == hits["step"][row]
    assert w.transcript.trace_id == tid and hits["step"][row] in w.transcript._matches
    # Navigate menu has the action, with its shortcut
    act = w.search_controller.action
    assert act in w.navigate_menu.actions() and act.shortcut().toString() == "Ctrl+Shift+F"
    dlg.search("no-such-text-anywhere-123")
    assert dlg.list.topLevelItemCount() == 0 and "no-such-text-anywhere-123" in dlg.summary.text()


def test_load_problems_reason_wraps_and_details_show_it_whole(window, qtbot, tmp_path: Path):
    w = window
    bad = tmp_path / "bad.jsonl"
    long_key = "k" * 400
    bad.write_text('{"' + long_key + '": 1,,}\n', encoding="utf-8")
    (tmp_path / "empty.json").write_bytes(b"")
    w.open_paths([bad, tmp_path / "empty.json"], synchronous=True)
    w.bridge.flush()
    w.problems_dock.show()
    panel = w.load_problems
    assert panel.tree.topLevelItemCount() == 2
    assert panel.tree.wordWrap() and not panel.tree.uniformRowHeights()
    qtbot.wait(50)
    rows = {panel.tree.topLevelItem(i).toolTip(0): panel.tree.topLevelItem(i) for i in range(2)}  # column 0 shows the name, the tooltip the path
    long_row = panel.tree.visualItemRect(rows[str(bad)]).height()
    short_row = panel.tree.visualItemRect(rows[str(tmp_path / "empty.json")]).height()
    assert long_row >= 2 * short_row > 0  # the long reason wraps onto several lines
    item = rows[str(bad)]
    error = next(e for e in w.session.load_errors if e.file == str(bad))
    assert item.text(3) == error.reason and len(error.reason) > 40
    panel.tree.setCurrentItem(item)
    details = panel.details.toPlainText()
    assert error.reason in details and error.file in details
    assert panel.details.isReadOnly()
