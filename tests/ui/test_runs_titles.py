"""Runs you can recognise: the runs table leads with a readable title and shows the source file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from analyzer.loading import load
from analyzer.session import Session

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
ARTIFACTS = ROOT / "test-artifacts"


def test_titles_and_source_files_in_the_runs_table(qtbot, app) -> None:  # type: ignore[no-untyped-def]
    from ui.bridge import SessionBridge
    from ui.models.runs_table import COLUMNS
    from ui.views.runs_panel import RunsPanel

    session = Session()
    session.add_load_result(load([SAMPLES / "harbor_job", SAMPLES / "claude_code", SAMPLES / "mini_swe_agent"],
                                 cache=None))
    panel = RunsPanel(session, SessionBridge(session), persist=False)
    qtbot.addWidget(panel)
    panel.resize(1100, 360)
    panel.show()
    panel.refresh()
    keys = [c.key for c in COLUMNS]
    model = panel.model
    titles = {model.data(model.index(r, keys.index("title"))) for r in range(model.rowCount())}
    assert "create TODO app by Next.js" in titles
    assert "db-migrate" in titles  # the trial without a trajectory: its task name
    assert any(t.startswith("Merge /data/a.json and /data/b.json") for t in titles)
    sources = {model.data(model.index(r, keys.index("source_name"))) for r in range(model.rowCount())}
    assert "harbor_job/2026-04-14__09-02-11/db-migrate__Tk8pQ1z/result.json" in sources
    assert "claude_code/todo_next_session.jsonl" in sources
    row = next(r for r in range(model.rowCount())
               if model.data(model.index(r, keys.index("title"))) == "create TODO app by Next.js")
    tip = model.data(model.index(row, keys.index("source_name")), Qt.ItemDataRole.ToolTipRole)
    assert tip == str(SAMPLES / "claude_code" / "todo_next_session.jsonl")
    for key in ("task", "trace_id", "decisive_step", "category", "tags", "analyst_status", "confidence",
                "analysis_stale"):
        panel.set_column_visible(key, False)
    panel.fit_columns()
    ARTIFACTS.mkdir(exist_ok=True)
    panel.grab().save(str(ARTIFACTS / "runs_titles_sources.png"))
