"""Insights view: bulk-tag a whole insight with one key and undo it; split, merge, rename kept after a restart."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tagging_helpers import clear_messages

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyzer"))
from planted_insights import planted_corpus

from analyzer.analysis.result import AnalysisResult
from analyzer.embedding import HashingEmbedder
from analyzer.loading.loader import LoadResult
from analyzer.session import Session


def _window(qtbot: Any, ws_path: Path, n: int = 60) -> Any:
    from ui.main_window import MainWindow

    c = planted_corpus(n, seed=2)
    session = Session()
    session.add_load_result(LoadResult(traces=c.traces, steps=c.steps))
    session.merge_analysis(AnalysisResult(runs=c.runs))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1500, 950)
    assert w.tagging.open_workspace(ws_path)
    panel = w.tagging.insights
    panel.embedder = HashingEmbedder()
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.show_tab("insights")
    qtbot.waitUntil(lambda: panel.iset is not None and len(panel.iset) > 0, timeout=20000)
    return w


def _focus(qtbot: Any, widget: Any) -> None:
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=3000)


def test_bulk_tag_an_insight_with_one_key_and_undo(qtbot: Any, app: Any, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path / "ins.trajscope")
    panel = w.tagging.insights
    ws = w.tagging.workspace
    panel.table.selectRow(0)
    ins = panel.current()
    assert ins is not None and ins.size > 5
    assert panel.runs_model.rowCount() == ins.size
    assert panel.runs_model.rows[0]["representative"]
    _focus(qtbot, panel.table)
    qtbot.keyClick(panel.table, Qt.Key.Key_1)  # planning_error
    tagged = {(a.trace_id, a.step): a.category for a in ws.annotations()}
    assert tagged == {t: "planning_error" for t in panel.iset.decisive_targets(ins.id)}
    assert ws.undo_label() and w.tagging.act_undo.isEnabled()
    # the runs list shows the new category
    w.bridge.flush()
    assert {r["category"] for r in panel.runs_model.rows} == {"planning_error"}
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert ws.annotations() == []
    # reject then accept the judge's categories of the whole insight, each one action
    qtbot.keyClick(panel.table, Qt.Key.Key_R)
    assert {a.status for a in ws.annotations()} == {"rejected"} and len(ws.annotations()) == ins.size
    qtbot.keyClick(panel.table, Qt.Key.Key_A)
    assert {a.category for a in ws.annotations()} == {ins.category}
    w.tagging.undo()
    w.tagging.undo()
    assert ws.annotations() == []
    # selecting a run of the insight selects it (at its decisive step) everywhere
    panel.runs.selectRow(1)
    row = panel.runs_model.rows[1]
    assert w.session.selection.trace_id == row["trace_id"] and w.session.selection.step == row["decisive_step"]


def test_split_merge_rename_kept_after_restart(qtbot: Any, app: Any, tmp_path: Path) -> None:
    path = tmp_path / "ins.trajscope"
    w = _window(qtbot, path)
    panel = w.tagging.insights
    before = len(panel.iset)
    panel.table.selectRow(0)
    big = panel.current()
    assert panel.split_selected()
    assert len(panel.iset) == before + 1
    assert big.id not in {i.id for i in panel.iset.insights}
    # merge the two largest
    panel.table.clearSelection()
    panel.table.selectRow(0)
    panel.table.selectionModel().select(panel.model.index(1, 0), panel.table.selectionModel().SelectionFlag.Select
                                        | panel.table.selectionModel().SelectionFlag.Rows)
    a, b = panel.selected()
    assert panel.btn_merge.isEnabled() and panel.merge_selected()
    merged_id = panel.iset.of_run(a.members[0])
    assert panel.iset.of_run(b.members[0]) == merged_id
    assert panel.rename(merged_id, "Merged by hand")
    assert panel.set_recommendation(merged_id, "Add a checkpoint before submitting")
    assert "Add a checkpoint before submitting" in panel.detail.text()
    state = (panel.iset.assignment(), [(i.id, i.name, i.size) for i in panel.iset.insights])
    assert len(panel.iset) == before
    w.close()

    w2 = _window(qtbot, path)
    p2 = w2.tagging.insights
    assert (p2.iset.assignment(), [(i.id, i.name, i.size) for i in p2.iset.insights]) == state
    assert p2.iset.get(merged_id).named_by == "analyst"
    rec = p2.iset.get(merged_id).recommendation
    assert rec.by == "analyst" and rec.text == "Add a checkpoint before submitting"


def test_export_from_the_app_writes_insights(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from ui.dialogs.export_dialog import ExportRequest, run_export

    w = _window(qtbot, tmp_path / "ins.trajscope", n=30)
    panel = w.tagging.insights
    out_dir = tmp_path / "export"
    out_dir.mkdir()
    s = w.session
    out = run_export(ExportRequest(out_dir=out_dir, tables=("csv",), reports=("md",)), s.traces, s.steps, s.analysis,
                     s.annotations, insights=panel.iset)
    assert not out.errors and (out_dir / "insights.csv").exists()
    assert "## Insights" in next(p for p in out.written if p.suffix == ".md").read_text(encoding="utf-8")


def test_insights_group_models_by_the_workspace_aliases(qtbot: Any, app: Any, tmp_path: Path) -> None:
    """Merging models (as the Compare tab does) regroups the Insights view's per-model figures."""
    from analyzer.workspace.aliases import merge_models, split_models

    w = _window(qtbot, tmp_path / "alias.trajscope")
    panel = w.tagging.insights
    before = {i.id: i.share_by_model for i in panel.iset.insights}
    assert {m for s in before.values() for m in s} == {"gpt-4o", "claude-3.5", "llama-3-70b"}
    merge_models(w.tagging.workspace, ["gpt-4o", "claude-3.5"], "frontier")
    w.show_tab("compare")
    w.show_tab("insights")  # shown again after the alias change: regrouped, the insights unchanged
    qtbot.waitUntil(lambda: any("frontier" in i.share_by_model for i in panel.iset.insights), timeout=5000)
    after = {i.id: i.share_by_model for i in panel.iset.insights}
    assert set(after) == set(before)
    assert {m for s in after.values() for m in s} <= {"frontier", "llama-3-70b"}
    assert after != before
    shown = {panel.model.data(panel.model.index(r, 4)) for r in range(panel.model.rowCount())}
    assert all(t.startswith(("frontier", "llama-3-70b")) for t in shown)
    # the export dialog's insight set carries the groups into insights.csv
    table = panel.iset.table()
    assert not table["share_by_model"].str.contains("gpt-4o").any()
    split_models(w.tagging.workspace, ["gpt-4o", "claude-3.5"])
    panel.apply_aliases()
    assert {m for i in panel.iset.insights for m in i.share_by_model} == {"gpt-4o", "claude-3.5", "llama-3-70b"}


def test_runs_alone_show_as_one_not_grouped_entry(qtbot: Any, app: Any, tmp_path: Path) -> None:
    """Runs that joined no group are one "Not grouped (n)" row, never groups of one; each is still reachable."""
    w = _window(qtbot, tmp_path / "alone.trajscope")
    panel = w.tagging.insights
    ids = panel.iset.failures["trace_id"].to_list()
    solo = (ids[1], ids[4], ids[9])
    assignment = {**panel.iset.assignment(), **{t: f"ins-solo-{i}" for i, t in enumerate(solo)}}
    w.tagging.workspace.save_insights(assignment, {})  # as a split down to one run would leave them
    panel._apply_saved()
    qtbot.waitUntil(lambda: panel.iset is not None and panel.iset.ungrouped == solo, timeout=5000)

    model = panel.model
    names = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    sizes = [int(model.data(model.index(r, 2))) for r in range(model.rowCount())]
    assert names[-1] == "Not grouped (3)" and sizes[-1] == 3
    assert all(n >= 2 for n in sizes[:-1])  # no group of one
    assert sum(sizes) == 60 and model.rowCount() == len(panel.iset.groups) + 1
    assert "3 runs joined no group" in panel.summary.text()

    panel.table.selectRow(model.rowCount() - 1)  # the ungrouped runs are listed and open like any run
    assert panel.ungrouped_selected() and panel.current() is None
    assert {r["trace_id"] for r in panel.runs_model.rows} == set(solo)
    assert not panel.btn_split.isEnabled() and not panel.btn_rename.isEnabled()
    panel.runs.selectRow(0)
    assert w.session.selection.trace_id == panel.runs_model.rows[0]["trace_id"]
    art = Path(__file__).resolve().parents[2] / "test-artifacts"
    art.mkdir(exist_ok=True)
    assert w.grab().save(str(art / "insights_not_grouped.png"))
