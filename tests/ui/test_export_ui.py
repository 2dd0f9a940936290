"""Exports from the UI: tables (CSV, Parquet) and the annotated report (HTML, PDF, Markdown)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tagging_helpers import clear_messages, judge_result, write_runs

from analyzer.session import Session

NOTE = "Agent trusted a stale cache"


def _window(qtbot: Any, tmp_path: Path) -> Any:
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1400, 900)
    assert w.tagging.open_workspace(tmp_path / "export.trajscope")
    w.open_paths([str(write_runs(tmp_path / "traces", 12, hostile=True))], synchronous=True)
    w.session.merge_analysis(judge_result(w.session.traces))
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.bridge.flush()
    return w


def _press(qtbot: Any, widget: Any, key: Qt.Key) -> None:
    widget.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=3000)
    qtbot.keyClick(widget, key)


def test_export_every_format_from_the_ui_carries_the_analysts_labels(qtbot: Any, app: Any, tmp_path: Path) -> None:
    w = _window(qtbot, tmp_path)
    ctrl = w.tagging
    failed = w.session.runs_view().filter(pl.col("outcome") == "failure")
    tagged = str(failed["trace_id"][0])
    judged = failed.row(1, named=True)
    moved = str(judged["trace_id"])
    judge_step = int(judged["decisive_step"])
    new_step = 0 if judge_step != 0 else 1
    # run-level category with the keyboard in the runs table
    w.session.select(trace_ids=(tagged,), trace_id=tagged)
    _press(qtbot, w.runs_panel.table, Qt.Key.Key_8)
    # the analyst's decisive step (D in the transcript) with a note
    w.session.select(trace_ids=(moved,), trace_id=moved, step=new_step, steps=(new_step,))
    qtbot.waitUntil(lambda: w.transcript.trace_id == moved, timeout=3000)
    _press(qtbot, w.transcript.list, Qt.Key.Key_D)
    _press(qtbot, w.transcript.list, Qt.Key.Key_6)
    ctrl.set_note((moved, new_step), NOTE)
    assert ctrl.workspace.decisive_step(moved) == new_step

    from ui.dialogs.export_dialog import ExportDialog

    assert ctrl.act_export in w.export_menu.actions()
    dlg = ExportDialog(w.session, w)
    qtbot.addWidget(dlg)
    out = tmp_path / "out"
    dlg.folder.setText(str(out))
    for box in dlg.checks.values():
        box.setChecked(True)
    job = dlg.start()
    assert job is not None
    # the dialog's own slot records the outcome (a waitSignal set up after start() can miss a fast job)
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=180_000)
    assert dlg.outcome.errors == [], dlg.outcome.errors
    names = {p.name for p in dlg.outcome.written}
    tables = ("traces", "steps", "findings", "models", "annotations")
    assert names == {f"{t}.{e}" for t in tables for e in ("csv", "parquet")} | {"report.html", "report.pdf", "report.md"}
    assert "Wrote 13 files" in dlg.result_box.toPlainText()

    # traces: the analyst's category and decisive step win, and say so
    runs = pl.read_csv(out / "traces.csv", infer_schema=False)
    assert runs.height == w.session.traces.height
    r1 = runs.filter(pl.col("trace_id") == tagged).row(0, named=True)
    assert r1["category"] == "hallucination" and r1["label_source"] == "analyst"
    r2 = runs.filter(pl.col("trace_id") == moved).row(0, named=True)
    assert int(r2["decisive_step"]) == new_step and r2["decisive_source"] == "analyst"
    assert int(r2["judge_decisive_step"]) == judge_step and r2["category"] == "failed_recovery"
    assert NOTE in r2["notes"]
    # no live formula: every task cell that began with "=" is neutralised
    assert all(not t.startswith("=") for t in runs["task"].to_list())
    assert any(t.startswith("'=HYPERLINK") for t in runs["task"].to_list())
    pq = pl.read_parquet(out / "traces.parquet")
    assert pq.filter(pl.col("trace_id") == moved)["decisive_step"][0] == new_step
    ann = pl.read_csv(out / "annotations.csv", infer_schema=False)
    assert ann.height == len(ctrl.workspace.annotations())
    assert set(ann["author"].to_list()) == {ctrl.author}
    models = pl.read_csv(out / "models.csv", infer_schema=False)
    assert sum(int(x) for x in models["analyst_labelled"].to_list()) == 2
    assert pl.read_csv(out / "findings.csv").height == w.session.analysis.findings.height
    assert pl.read_parquet(out / "steps.parquet").height == w.session.steps.height

    # the report: escaped trace text, the analyst's labels and notes, in all three formats
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert NOTE in html and moved[:8] in html
    md = (out / "report.md").read_text(encoding="utf-8")
    assert NOTE in md
    prose = re.sub(r"(?ms)^(`{3,}).*?^\1", "", md)  # trace text is quoted verbatim only inside code fences
    assert "<script" not in prose and "<img src=x" not in prose
    pdf = (out / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    assert shutil.which("pdftotext"), "install poppler-utils"
    text = subprocess.run(["pdftotext", "-layout", str(out / "report.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert NOTE in text.replace("\n", " ")


def test_export_only_the_runs_the_table_shows(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from analyzer.session import RunFilter
    from ui.dialogs.export_dialog import ExportDialog

    w = _window(qtbot, tmp_path)
    w.session.set_filter(RunFilter(models=("model-b",)))
    w.bridge.flush()
    shown = set(w.session.filtered_runs()["trace_id"].to_list())
    dlg = ExportDialog(w.session, w)
    qtbot.addWidget(dlg)
    dlg.folder.setText(str(tmp_path / "subset"))
    dlg.shown_runs.setChecked(True)
    for fmt, box in dlg.checks.items():
        box.setChecked(fmt in ("csv", "md"))
    job = dlg.start()
    assert job is not None
    # the dialog's own slot records the outcome (a waitSignal set up after start() can miss a fast job)
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=60_000)
    assert dlg.outcome.errors == []
    runs = pl.read_csv(tmp_path / "subset" / "traces.csv", infer_schema=False)
    assert set(runs["trace_id"].to_list()) == shown
    assert (tmp_path / "subset" / "report.md").exists() and not (tmp_path / "subset" / "report.html").exists()


def test_export_problems_are_reported_in_the_dialog(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from ui.dialogs.export_dialog import ExportDialog

    w = _window(qtbot, tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    dlg = ExportDialog(w.session, w)
    qtbot.addWidget(dlg)
    dlg.folder.setText(str(blocker))
    job = dlg.start()
    assert job is not None
    # the dialog's own slot records the outcome (a waitSignal set up after start() can miss a fast job)
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=60_000)
    assert dlg.outcome.written == [] and dlg.outcome.errors
    assert "not-a-folder" in dlg.result_box.toPlainText()
    assert dlg.export_btn.isEnabled()


def test_tables_and_report_share_one_run_table(app: Any, tmp_path: Path, monkeypatch: Any) -> None:
    """An export of tables and reports builds the run table and the model metrics once, not per output."""
    import analyzer.export.report_model as report_model
    import analyzer.export.write as write
    from analyzer.loading import load
    from ui.dialogs.export_dialog import ExportRequest, run_export

    s = Session()
    s.add_load_result(load([write_runs(tmp_path / "traces", 8)], cache=None))
    s.merge_analysis(judge_result(s.traces))
    calls = {"run_table": 0, "model_metrics": 0}

    def counting(name: str, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapped

    for mod in (write, report_model):
        monkeypatch.setattr(mod, "run_table", counting("run_table", mod.run_table))
        monkeypatch.setattr(mod, "model_metrics", counting("model_metrics", mod.model_metrics))
    out_dir = tmp_path / "out"
    out = run_export(ExportRequest(out_dir=out_dir, tables=("csv",), reports=("html", "md")), s.traces, s.steps,
                     s.analysis, s.annotations)
    assert not out.errors
    assert calls == {"run_table": 1, "model_metrics": 1}
    md = (out_dir / "report.md").read_text(encoding="utf-8")
    failed = pl.read_csv(out_dir / "traces.csv").filter(pl.col("outcome") == "failure")
    assert failed.height and all(str(t) in md for t in failed["native_id"].head(3).to_list() if t)
    # a report alone still builds its own
    calls.update(run_table=0, model_metrics=0)
    out = run_export(ExportRequest(out_dir=tmp_path / "only", tables=(), reports=("md",)), s.traces, s.steps,
                     s.analysis, s.annotations)
    assert not out.errors and calls == {"run_table": 1, "model_metrics": 1}
