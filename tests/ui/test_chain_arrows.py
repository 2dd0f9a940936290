"""Causal-chain arrows on the value-curve panel and the transcript: one arrow per link, the impact at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyqtgraph as pg
from tagging_helpers import clear_messages

from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.loading.loader import LoadResult
from analyzer.schema.findings import Finding
from analyzer.session import Session

N = 12


def _session() -> Session:
    traces = frame_from_rows([
        {"trace_id": "bad", "native_id": "bad", "model": "m", "outcome": "failure", "n_steps": N, "task": "t"},
        {"trace_id": "ok", "native_id": "ok", "model": "m", "outcome": "success", "n_steps": N, "task": "t"},
    ], TRACE_COLUMNS)
    steps = frame_from_rows([{"trace_id": t, "step": s, "agent": "a", "role": "assistant", "kind": "message",
                              "text": f"{t} {s}", "is_error": False} for t in ("bad", "ok") for s in range(N)],
                            STEP_COLUMNS)
    s = Session()
    s.add_load_result(LoadResult(traces=traces, steps=steps))
    findings = [
        Finding(trace_id="bad", step=3, category="environment_failure", score=0.9, source="t", rationale="timeout",
                evidence_quote="504 gateway timeout"),
        Finding(trace_id="bad", step=5, category="failed_recovery", score=0.8, source="t", rationale="same retry",
                evidence_quote="retrying unchanged"),
        Finding(trace_id="bad", step=7, category="hallucination", score=0.7, source="t", rationale="made up",
                evidence_quote="the value is 42"),
    ]
    values = [{"trace_id": "bad", "step": i, "value": 0.9 - 0.07 * i, "drop": 0.07 if i else 0.0} for i in range(N)]
    s.merge_analysis(AnalysisResult.from_runs([
        RunAnalysis(run={"trace_id": "bad", "decisive_step": 3, "category": "environment_failure",
                         "rationale": "the tool timed out"}, steps=values, findings=findings),
        RunAnalysis(run={"trace_id": "ok"}),
    ]))
    return s


def test_chain_arrows_on_the_value_plot(qtbot: Any, app: Any, tmp_path: Path) -> None:
    from ui.main_window import MainWindow

    w = MainWindow(_session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.show()
    w.session.select(trace_id="bad", trace_ids=("bad",))
    qtbot.waitUntil(lambda: w.plots.trace_id == "bad" and w.plots.chain is not None, timeout=3000)
    chain = w.plots.chain
    assert [(lk.source, lk.target, lk.level) for lk in chain.links] == [(3, 5, "secondary"), (5, 7, "tertiary")]
    assert chain.impact == "degraded"  # the run goes on for 4 steps after step 7
    heads = [i for i in w.plots.chain_items if isinstance(i, pg.ArrowItem)]
    assert [h.pos().x() for h in heads] == [5.0, 7.0]
    assert all(i in w.plots.value_plot.items for i in w.plots.chain_items)
    assert "retrying unchanged" in heads[0].toolTip()
    labels = [i for i in w.plots.chain_items if isinstance(i, pg.TextItem)]
    assert len(labels) == 1 and labels[0].toPlainText() == "degraded" and labels[0].pos().x() > 7
    assert w.plots.grab().save(str(tmp_path / "chain_arrows.png"))
    # the transcript draws the same links as arcs from the cause's card down to the effect's
    overlay = w.transcript.chain_overlay
    qtbot.waitUntil(lambda: overlay.chain is not None and overlay.chain.trace_id == "bad", timeout=3000)
    arcs = overlay.arcs()
    assert len(arcs) == 2 and all(end.y() > start.y() for start, end in arcs)
    assert overlay.geometry() == w.transcript.list.viewport().rect()
    w.transcript.list.verticalScrollBar().setValue(40)
    assert overlay.geometry() == w.transcript.list.viewport().rect()  # it stays over the viewport when scrolled
    assert w.transcript.grab().save(str(tmp_path / "transcript_chain.png"))
    # a successful run has no chain
    w.session.select(trace_id="ok", trace_ids=("ok",))
    qtbot.waitUntil(lambda: w.plots.trace_id == "ok", timeout=3000)
    assert w.plots.chain is None and w.plots.chain_items == []
    qtbot.waitUntil(lambda: w.transcript.chain_overlay.chain is None, timeout=3000)
