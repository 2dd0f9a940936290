"""The load-problems panel is honest: duplicates are one grey note, one count everywhere, it can be
enlarged and it follows new entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from analyzer.session import skipped_runs

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _folder(root: Path, good: int, broken: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(good):
        rows = [{"schema_version": "1.0", "trace_id": f"g{i}", "step": s, "role": "assistant", "kind": "message",
                 "text": f"run {i} step {s}", **({"task": f"task {i}", "outcome": "failure"} if s == 0 else {})}
                for s in range(3)]
        (root / f"good_{i}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    for i in range(broken):
        (root / f"broken_{i:02d}.json").write_text('{"messages": [ {"role": "user", "content": "hi"', encoding="utf-8")
    return root


def _problem_count_everywhere(w: Any) -> tuple[int, str, str]:
    return (w.session.counts().load_problems, w.count_problems.text(), w.load_problems.summary.text())


def test_duplicates_are_one_note_and_one_count_everywhere(window: Any, qtbot: Any, tmp_path: Path) -> None:
    w = window
    folder = _folder(tmp_path / "traces", good=3, broken=2)
    w.open_paths([folder], synchronous=True)
    w.bridge.flush()
    assert w.session.traces.height == 3 and w.session.counts().load_problems == 2
    # opening the same folder again: its runs are skipped as one grouped note, not as problems
    w.open_paths([folder], synchronous=True)
    w.bridge.flush()
    assert w.session.traces.height == 3
    n, status, summary = _problem_count_everywhere(w)
    assert n == 2  # the two broken files, read twice, are still two problems; never the duplicates
    assert status == "2 load problems" and summary.startswith("2 problems in 2 files")
    assert "3 duplicate runs skipped" in summary
    last = w.message_bar.texts()[-1]  # the banner agrees
    assert "2 files or records could not be read" in last and "Loaded 0 runs" in last
    assert "3 runs were already loaded and were skipped" in last
    tree = w.load_problems.tree
    tops = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    assert len(tops) == n + 1
    note = tops[-1]
    assert note.text(0) == "Already loaded" and note.childCount() == 3  # one child per file
    assert "not a problem" in note.text(3)
    assert note.foreground(0).color().name() != tops[0].foreground(0).color().name()
    assert skipped_runs(w.session.load_notices) == 3
    # the details of a note's file
    tree.setCurrentItem(note.child(0))
    assert "good_" in w.load_problems.details.toPlainText()
    w.load_problems.copy_all()
    assert "note:" in QApplication.clipboard().text()


def test_panel_can_be_enlarged_and_follows_new_entries(window: Any, qtbot: Any, tmp_path: Path) -> None:
    w = window
    w.open_paths([_folder(tmp_path / "a", good=1, broken=3)], synchronous=True)
    w.bridge.flush()
    qtbot.waitUntil(w.problems_dock.isVisible, timeout=3000)
    tree = w.load_problems.tree
    row_h = tree.visualItemRect(tree.topLevelItem(0)).height()
    assert row_h > 0
    from ui.views.load_problems import MIN_VISIBLE_ROWS

    assert tree.minimumHeight() >= MIN_VISIBLE_ROWS * tree.fontMetrics().height()  # never squeezed to a row and a half
    small = w.problems_dock.height()
    w.load_problems.enlarge.click()
    qtbot.waitUntil(lambda: w.problems_dock.height() > 1.3 * small, timeout=3000)
    assert tree.viewport().height() >= 2 * row_h  # several wrapped rows at once
    # many new problems: the list scrolls to the newest one
    w.open_paths([_folder(tmp_path / "b", good=0, broken=40)], synchronous=True)
    w.bridge.flush()
    last = tree.topLevelItem(tree.topLevelItemCount() - 1)
    assert "broken_39" in last.text(0)
    qtbot.waitUntil(lambda: tree.viewport().rect().intersects(tree.visualItemRect(last)), timeout=3000)
    n, status, summary = _problem_count_everywhere(w)
    assert n == 43 and status == "43 load problems" and summary.startswith("43 problems in 43 files")
    last = w.message_bar.texts()[-1]  # this load's problems, and the total the status bar and the panel show
    assert "40 files or records could not be read" in last and "43 load problems in all" in last
    w.load_problems.enlarge.click()  # back to its size
    ARTIFACTS.mkdir(exist_ok=True)
    w.grab().save(str(ARTIFACTS / "load_problems_panel.png"))
