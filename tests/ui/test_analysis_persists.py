"""Analysis results survive a restart: analyse, close, reopen the workspace -> shown at once; stale; refresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analyzer.analysis import version as version_mod
from analyzer.workspace import Workspace
from analyzer.workspace.results import stored_versions

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "sample_traces" / "who_and_when"
ANALYSIS_COLS = ["trace_id", "decisive_step", "category", "confidence", "top_steps", "min_value", "value_estimator"]


def _open(qtbot: Any, ws_path: Path) -> Any:
    from analyzer.session import Session
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    assert w.tagging.open_workspace(ws_path)
    w.open_paths([RUNS], synchronous=True)
    w.bridge.flush()
    return w


def _close(w: Any) -> None:
    w.jobs.cancel_all()
    w.jobs.wait(30000)
    w.close()


def _analyse(w: Any, qtbot: Any, ids: list[str] | None = None) -> None:
    job = w.analyze_runs(ids) if ids is not None else w.analyze_all()
    assert job is not None
    qtbot.waitUntil(lambda: not w.jobs.running(), timeout=600000)
    w.bridge.flush()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the runs every analysis job is given (the real pipeline still runs)."""
    from analyzer.pipeline import analyze

    calls: list[int] = []

    def counting(traces: pl.DataFrame, steps: pl.DataFrame, **kw: Any) -> Any:
        calls.append(traces.height)
        return analyze(traces, steps, **kw)

    monkeypatch.setattr("ui.workers.resolve_analyze", lambda: counting)
    return calls


def test_analysis_survives_restart_then_stale_and_refresh(app: Any, qtbot: Any, tmp_path: Path,
                                                         counted: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    from ui import settings as ui_settings
    from ui.models.runs_table import COLUMNS

    ui_settings.set_str("analysis/use_embedder", "0")
    ws_path = tmp_path / "day.trajscope"
    w1 = _open(qtbot, ws_path)
    n = w1.session.traces.height
    assert n >= 3
    _analyse(w1, qtbot)
    assert counted == [n]
    before = w1.session.runs_view().select(ANALYSIS_COLS).sort("trace_id")
    n_steps = w1.session.analysis.step_values.height
    n_findings = w1.session.analysis.findings.height
    _close(w1)
    # one row per run was written, under the current version
    ws = Workspace(ws_path, read_only=True)
    current = version_mod.current_analysis_version()
    assert {tid: v for tid, v in stored_versions(ws).items()} == {t: [current] for t in before["trace_id"]}
    ws.close()

    # reopen: everything shows at once, nothing is analysed again
    w2 = _open(qtbot, ws_path)
    assert counted == [n] and not w2.jobs.running()
    after = w2.session.runs_view().select(ANALYSIS_COLS).sort("trace_id")
    assert after.equals(before, null_equal=True)
    assert w2.session.analysis.step_values.height == n_steps and w2.session.analysis.findings.height == n_findings
    assert w2.session.stale == set() and not w2.act_refresh_stale.isEnabled()
    tid = str(before.filter(pl.col("decisive_step").is_not_null())["trace_id"][0])
    w2.session.select(trace_ids=(tid,), trace_id=tid)
    w2.bridge.flush()
    text = w2.inspector.browser.toPlainText()
    assert "Not analysed yet" not in text and "Decisive step" in text
    assert any("stored analysis of" in t for t in w2.message_bar.texts())
    _close(w2)

    # a detector's version changes: the stored results are shown, marked stale
    real = version_mod.detector_versions

    def bumped(host: Any = None, only: Any = None) -> list[str]:
        dets = real(host, only)
        return [dets[0] + "-next", *dets[1:]]

    monkeypatch.setattr(version_mod, "detector_versions", bumped)
    w3 = _open(qtbot, ws_path)
    assert counted == [n]
    assert w3.session.stale == set(before["trace_id"])
    assert w3.session.runs_view().select(ANALYSIS_COLS).sort("trace_id").equals(before, null_equal=True)
    model = w3.runs_panel.model
    col = [c.key for c in COLUMNS].index("analysis_stale")
    assert {model.data(model.index(r, col)) for r in range(model.rowCount())} == {"stale"}
    w3.session.select(trace_ids=(tid,), trace_id=tid)
    w3.bridge.flush()
    assert "older analysis version" in w3.inspector.browser.toPlainText()
    assert w3.act_refresh_stale.isEnabled()
    assert any("are stale" in t for t in w3.message_bar.texts())
    # analysing one run makes it current; the refresh re-analyses only the others
    _analyse(w3, qtbot, [tid])
    assert counted == [n, 1] and tid not in w3.session.stale
    w3.act_refresh_stale.trigger()
    qtbot.waitUntil(lambda: not w3.jobs.running(), timeout=600000)
    w3.bridge.flush()
    assert counted == [n, 1, n - 1]
    assert w3.session.stale == set() and not w3.act_refresh_stale.isEnabled()
    assert {model.data(model.index(r, col)) for r in range(model.rowCount())} == {""}
    new = version_mod.current_analysis_version()
    assert new != current
    _close(w3)
    ws = Workspace(ws_path, read_only=True)
    assert all(v[0] == new and current in v for v in stored_versions(ws).values())
    ws.close()
