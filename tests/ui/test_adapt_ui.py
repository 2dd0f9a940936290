"""The adapt/revert cycle in the app: label with D, "Adapt to my labels", re-analyse, revert."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tagging_helpers import clear_messages, write_runs

from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.session import Session

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
N_RUNS = 12  # 8 failed runs (every third run succeeds)
LABEL_STEP = 5  # a decision the shipped ranker does not pick (it picks the 2nd decision, step 3)


@pytest.fixture
def adapt_window(qtbot: Any, app: Any, tmp_path: Path) -> Iterator[Any]:
    from ui import settings as ui_settings
    from ui.main_window import MainWindow

    ui_settings.set_str("analysis/use_embedder", "0")  # lexical signals only: keeps the test fast
    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1500, 950)
    assert w.tagging.open_workspace(tmp_path / "adapt.trajscope")
    w.open_paths([str(write_runs(tmp_path / "traces", N_RUNS, steps=6))], synchronous=True)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.bridge.flush()
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(60000)


def _analyse_all(w: Any, qtbot: Any) -> Any:
    w.session.select(trace_ids=tuple(w.session.traces["trace_id"].to_list()))
    job = w.analyze_all()
    assert job is not None
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=300000)
    w.bridge.flush()
    return job


def _mark_with_d(w: Any, qtbot: Any, tid: str, step: int) -> None:
    w.session.select(trace_ids=(tid,), trace_id=tid)
    qtbot.waitUntil(lambda: w.transcript.trace_id == tid, timeout=3000)
    lst = w.transcript.list
    lst.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is lst, timeout=3000)
    w.session.select(step=step, steps=(step,), finding=None)
    qtbot.keyClick(lst, Qt.Key.Key_D)


def test_adapt_to_my_labels_then_revert(adapt_window: Any, qtbot: Any) -> None:
    w = adapt_window
    ctrl = w.adapt
    ws = w.tagging.workspace
    act = ctrl.act_adapt
    assert act in w.analysis_menu.actions() and act.shortcut().toString() == "Ctrl+Shift+A"
    assert ctrl.desk_button is not None and ctrl.desk_button.defaultAction() is act
    assert not act.isEnabled() and "5 more failed runs" in act.toolTip()
    assert ctrl.desk_button.text() == "Adapt to my labels (0/5)"
    assert ctrl.ranker_label.text() == "Ranker: shipped"
    _analyse_all(w, qtbot)
    shipped_runs = w.session.analysis.runs.sort("trace_id")
    failed = w.session.runs_view().filter(pl.col("outcome") == "failure")["trace_id"].to_list()
    assert len(failed) == 8
    # the analyst marks the same step of every failed run with D; the shipped ranker picks another
    assert set(shipped_runs.filter(pl.col("trace_id").is_in(failed))["decisive_step"].to_list()) != {LABEL_STEP}
    for tid in failed[:4]:
        _mark_with_d(w, qtbot, tid, LABEL_STEP)
        assert ws.decisive_step(tid) == LABEL_STEP
        assert not act.isEnabled()
    assert "1 more failed run " in act.toolTip() and "(4 of 5 labelled)" in act.toolTip()
    # a successful run's mark does not count
    ok = w.session.runs_view().filter(pl.col("outcome") == "success")["trace_id"][0]
    _mark_with_d(w, qtbot, ok, 1)
    assert not act.isEnabled()
    for tid in failed[4:]:
        _mark_with_d(w, qtbot, tid, LABEL_STEP)
    assert act.isEnabled() and "your 8 labelled failed runs" in act.toolTip()
    assert ctrl.desk_button.text() == "Adapt to my labels" and ctrl.desk_button.isEnabled()
    # Ctrl+Shift+A adapts in the background, stores a version and shows the result
    seen: list[tuple[str, int, int]] = []
    w.jobs.progress.connect(lambda kind, done, total, _m: seen.append((kind, done, total)))
    qtbot.keyClick(w.transcript.list, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: ctrl.result_dialog is not None and ctrl.result_dialog.isVisible(), timeout=300000)
    assert any(k == "adapt" for k, _d, _t in seen)
    version = ws.active_ranker()
    assert version is not None and version.n_labels == 8 and version.cv_n == 8
    assert version.adapted_step_at_1 > version.shipped_step_at_1
    params = RankerParams.from_json(version.params)
    assert sorted(params.meta["trace_ids"]) == sorted(failed) and params.meta["embeddings"] is False
    assert ctrl.ranker_label.text() == f"Ranker: adapted #{version.id}"
    dlg = ctrl.result_dialog
    assert dlg.table.item(0, 1).text().endswith("/8)") and dlg.table.item(1, 2).text() == "8"
    assert "helped" in dlg.verdict.text()
    ARTIFACTS.mkdir(exist_ok=True)
    assert dlg.grab().save(str(ARTIFACTS / "adapt_result_dialog.png"))
    # re-analysis from the dialog uses the adapted version
    dlg.reanalyse_button.click()
    (job,) = w.jobs.running("analyze")  # started by the click; removed only once its result is delivered
    assert job.ranker is not None and job.ranker.params.to_json() == params.to_json()
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=300000)
    w.bridge.flush()
    adapted_runs = w.session.analysis.runs.sort("trace_id")
    from analyzer.pipeline import analyze

    expected = analyze(w.session.traces, w.session.steps, ranker=Ranker(params)).runs.sort("trace_id")
    assert adapted_runs["decisive_step"].to_list() == expected["decisive_step"].to_list()
    assert adapted_runs.filter(pl.col("trace_id").is_in(failed))["decisive_step"].to_list().count(LABEL_STEP) > \
        shipped_runs.filter(pl.col("trace_id").is_in(failed))["decisive_step"].to_list().count(LABEL_STEP)
    assert any(f"ranker: adapted #{version.id} (8 labels)" in t for t in w.message_bar.texts())
    # revert: the shipped weights are active again, the version is kept
    assert ctrl.act_revert.isEnabled()
    ctrl.act_revert.trigger()
    assert ws.active_ranker() is None and [v.id for v in ws.list_rankers()] == [version.id]
    assert ctrl.ranker_label.text() == "Ranker: shipped" and not ctrl.act_revert.isEnabled()
    assert w.analysis_ranker()[0] is None
    _analyse_all(w, qtbot)
    assert w.session.analysis.runs.sort("trace_id")["decisive_step"].to_list() == \
        shipped_runs["decisive_step"].to_list()
    # an older version can be picked again from the versions dialog
    vd = ctrl.versions_dialog_open()
    assert vd.table.rowCount() == 2 and vd.selected_version() is None
    assert vd.grab().save(str(ARTIFACTS / "ranker_versions_dialog.png"))
    vd.table.selectRow(1)
    vd.use_button.click()
    assert ws.active_ranker().id == version.id and ctrl.ranker_label.text() == f"Ranker: adapted #{version.id}"
    # the choice survives reopening the workspace
    path = ws.path
    assert w.tagging.open_workspace(path)
    assert w.tagging.workspace.active_ranker().id == version.id
    assert w.analysis_ranker()[0].params.to_json() == params.to_json()


def test_cancel_stops_the_adaptation_and_stores_nothing(adapt_window: Any, qtbot: Any) -> None:
    w = adapt_window
    ctrl = w.adapt
    ws = w.tagging.workspace
    failed = w.session.runs_view().filter(pl.col("outcome") == "failure")["trace_id"].to_list()
    for tid in failed:
        ws.mark_decisive(tid, LABEL_STEP)
    w.tagging._after_write("marks", len(failed))
    assert ctrl.act_adapt.isEnabled()
    job = ctrl.adapt()
    assert job is not None
    job.cancel()
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=300000)
    assert ws.list_rankers() == []
    assert any("cancelled" in t for t in w.message_bar.texts())
    assert ctrl.act_adapt.isEnabled()


def test_adapt_dialogs_speak_chinese(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from dataclasses import replace

    from analyzer.workspace import Workspace
    from ui.dialogs.adapt_dialog import AdaptResultDialog, RankerVersionsDialog
    from ui.i18n import install_language

    ws = Workspace(tmp_path / "w.trajscope", author="ana")
    base = Ranker.load().params
    v = ws.save_ranker(replace(base, meta={"kind": "adapted", "n_labels": 9, "strength": 3.0}).to_json(),
                       9, 2 / 9, 5 / 9, 9)
    try:
        assert install_language("zh_CN")
        dlg = AdaptResultDialog(v, lambda: None, lambda: None)
        qtbot.addWidget(dlg)
        assert dlg.windowTitle() == "已按你的标注适配排序器"
        assert dlg.table.item(1, 0).text() == "适配后的权重" and dlg.table.item(1, 1).text() == "56% (5/9)"
        assert "有提升" in dlg.verdict.text()
        ARTIFACTS.mkdir(exist_ok=True)
        assert dlg.grab().save(str(ARTIFACTS / "adapt_result_dialog_zh_CN.png"))
        vd = RankerVersionsDialog(ws.list_rankers(), lambda _i: None, lambda: None)
        qtbot.addWidget(vd)
        assert vd.table.item(0, 0).text() == "内置权重" and vd.table.item(1, 0).text() == f"#{v.id}"
    finally:
        install_language("en")
        ws.close()
