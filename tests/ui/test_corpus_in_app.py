"""A corpus folder opened in the app: the runs table at once, each run's steps when it is opened."""

from __future__ import annotations

from html import escape as html_escape
from pathlib import Path

import polars as pl
import pytest

from analyzer.corpus import write_corpus

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def corpus_dir(sample_load, sample_analysis, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    a = sample_analysis
    return write_corpus(tmp_path / "corpus", sample_load.traces, sample_load.steps, a.runs,
                        findings=a.findings, step_values=a.step_values)


def test_open_corpus_folder_shows_every_run_and_reads_steps_per_run(window, corpus_dir, sample_load,
                                                                   sample_analysis, qtbot):  # type: ignore[no-untyped-def]
    w = window
    assert w.open_paths([corpus_dir]) is None  # no load job: the runs are read at once
    w.bridge.flush()
    assert w.runs_panel.model.rowCount() == sample_load.traces.height
    assert any("Opened the corpus" in t for t in w.message_bar.texts())
    tid = w.session.selection.trace_id  # the first failed run is selected, as after loading files
    assert tid is not None
    qtbot.waitUntil(lambda: w.transcript.trace_id == tid, timeout=5000)
    want = sample_load.steps.filter(pl.col("trace_id") == tid)
    assert w.transcript.model.rowCount() == want.height
    assert set(w.session.steps["trace_id"].to_list()) == {tid}  # only the opened run's steps were read
    # the analysis came with the corpus: decisive step and value curve of the run
    row = w.session.run_row(tid) or {}
    analysed = sample_analysis.runs.filter(pl.col("trace_id") == tid).row(0, named=True)
    assert row.get("decisive_step") == analysed["decisive_step"]
    assert w.session.run_step_values(tid).height == want.height
    # another run from the table
    other = next(t for t in w.session.traces["trace_id"].to_list() if t != tid)
    w.session.select(trace_ids=(other,), trace_id=other)
    qtbot.waitUntil(lambda: w.transcript.trace_id == other, timeout=5000)
    assert w.transcript.model.rowCount() == sample_load.steps.filter(pl.col("trace_id") == other).height


def test_corpus_runs_filter_sort_and_compare_without_reading_every_step(window, corpus_dir, sample_load,
                                                                        qtbot):  # type: ignore[no-untyped-def]
    w = window
    w.open_paths([corpus_dir])
    w.bridge.flush()
    panel = w.runs_panel
    panel.sort_by("n_steps", descending=True)
    w.bridge.flush()
    steps = panel.model.frame["n_steps"].to_list()
    assert steps == sorted(steps, reverse=True)
    # the text search reaches step text of runs still on disk
    tasks = " ".join(t or "" for t in sample_load.traces["task"].to_list()).lower()
    word = next(wd for t in sample_load.steps["text"].to_list() if t for wd in t.split()
                if len(wd) > 8 and wd.isalpha() and wd.lower() not in tasks)
    panel.filter_bar.search.setText(word)
    qtbot.waitUntil(lambda: w.session.filter.text == word, timeout=3000)
    w.bridge.flush()
    hits = set(sample_load.steps.filter(pl.col("text").str.contains("(?i)" + word))["trace_id"].to_list())
    assert hits and set(panel.model.frame["trace_id"].to_list()) == hits
    panel.filter_bar.clear()
    w.bridge.flush()
    read = w.session.steps.height
    assert w.show_tab("compare")
    qtbot.waitUntil(lambda: w.compare.metrics is not None, timeout=10000)
    assert w.compare.metrics["runs"].sum() == sample_load.traces.height
    assert w.compare.self_cond is not None and int(w.compare.self_cond["steps"].sum()) == sample_load.steps.height
    assert w.session.steps.height == read  # Compare aggregated on disk


def test_a_broken_corpus_is_a_clear_error_and_loses_nothing(loaded, corpus_dir, qtbot):  # type: ignore[no-untyped-def]
    w = loaded
    before = w.session.traces.height
    (corpus_dir / "corpus.json").write_text("{not json")
    w.open_corpus(corpus_dir)
    assert w.session.traces.height == before
    assert any("Cannot open the corpus" in t for t in w.message_bar.texts())


def test_export_of_a_corpus_writes_every_run_without_reading_the_steps_into_the_app(
        window, corpus_dir, sample_load, sample_analysis, qtbot, tmp_path):  # type: ignore[no-untyped-def]
    from ui.dialogs.export_dialog import ExportDialog

    w = window
    w.open_paths([corpus_dir])
    w.bridge.flush()
    opened = set(w.session.steps["trace_id"].to_list())  # the run the app selected on opening
    dlg = ExportDialog(w.session, w)
    qtbot.addWidget(dlg)
    out = tmp_path / "out"
    dlg.folder.setText(str(out))
    for fmt, box in dlg.checks.items():
        box.setChecked(fmt in ("csv", "html"))
    job = dlg.start()
    assert job is not None
    # the dialog's own slot records the outcome (a waitSignal set up after start() can miss a fast job)
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=120_000)
    assert dlg.outcome.errors == [], dlg.outcome.errors
    assert set(w.session.steps["trace_id"].to_list()) == opened  # nothing else was read into the session
    steps = pl.read_csv(out / "steps.csv", infer_schema_length=0)
    assert steps.height == sample_load.steps.height
    valued = steps.filter(pl.col("value").is_not_null())
    assert valued.height == sample_analysis.step_values.filter(pl.col("value").is_not_null()).height
    findings = pl.read_csv(out / "findings.csv", infer_schema_length=0)
    assert findings.height == sample_analysis.findings.height
    traces = pl.read_csv(out / "traces.csv", infer_schema_length=0)
    assert traces.height == sample_load.traces.height
    # the report's run cards quote the step texts, read from disk for the runs the report shows
    html = (out / "report.html").read_text(encoding="utf-8")
    shown = w.session.traces.filter(pl.col("outcome") == "failure")["trace_id"].to_list()
    decisive = sample_analysis.runs.filter(pl.col("trace_id").is_in(shown)).select("trace_id", "decisive_step")
    quoted = [t for t, s in decisive.iter_rows() if s is not None
              and (text := sample_load.steps.filter((pl.col("trace_id") == t) & (pl.col("step") == s))["text"][0])
              and html_escape(text.split("\n")[0][:40]) in html]
    assert quoted


def test_a_hidden_tagging_desk_reads_no_run_until_it_is_shown(window, sample_load, sample_analysis, tmp_path,
                                                              qtbot):  # type: ignore[no-untyped-def]
    # the review queue's card quotes a step; while the desk is hidden it must not read (and keep in
    # memory) a corpus run nobody opened. The corpus: a run of unknown outcome, first in path order
    # (the queue's first item), and a failed run from a later file (the run selected on opening).
    runs = sample_load.traces.join(sample_analysis.runs.select("trace_id", "decisive_step"), on="trace_id")
    unknown = runs.filter((pl.col("outcome") == "unknown") & pl.col("decisive_step").is_not_null()).sort(
        "source_file").row(0, named=True)
    failed = runs.filter((pl.col("outcome") == "failure") & (pl.col("source_file") > unknown["source_file"])
                         & pl.col("decisive_step").is_not_null()).row(0, named=True)
    ids = pl.Series([unknown["trace_id"], failed["trace_id"]]).implode()
    pick = pl.col("trace_id").is_in(ids)
    a = sample_analysis
    root = write_corpus(tmp_path / "two", sample_load.traces.filter(pick), sample_load.steps.filter(pick),
                        a.runs.filter(pick), findings=a.findings.filter(pick), step_values=a.step_values.filter(pick))
    w = window
    desk = w.tagging.desk
    desk.informative.setChecked(False)  # the queue in the table's (path) order: the unknown run first
    w.open_paths([root])
    w.bridge.flush()
    assert w.session.selection.trace_id == failed["trace_id"]
    assert desk.current is not None and desk.current.trace_id == unknown["trace_id"]
    assert set(w.session.steps["trace_id"].to_list()) == {failed["trace_id"]}  # the desk read nothing
    w.tagging.show_desk()
    qtbot.waitUntil(lambda: "Step" in desk.card.toPlainText(), timeout=5000)  # shown: the card quotes the step
    assert unknown["trace_id"] in set(w.session.steps["trace_id"].to_list())
