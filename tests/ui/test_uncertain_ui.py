"""A run the ranker is uncertain of reads "uncertain: steps a, b, c" everywhere, and the review
queue offers the most uncertain runs first (active learning)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from PySide6.QtCore import Qt
from tagging_helpers import clear_messages, write_runs

from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.attribution.active import label_priority
from analyzer.attribution.rationale import Rationale, ranking_tail
from analyzer.messages import Message
from analyzer.schema.findings import Finding
from analyzer.session import Session
from ui.models.runs_table import ANALYST_MARK, COLUMNS

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
STEPS = 6
UNSURE = (2, 4, 1)
"""The likeliest steps of the uncertain run, best first."""

DISTRIBUTIONS: dict[str, list[float]] = {  # native run id -> the ranker's step distribution
    "run-001": [0.02, 0.02, 0.02, 0.9, 0.02, 0.02],  # sure of step 3
    "run-002": [0.15, 0.17, 0.19, 0.15, 0.18, 0.16],  # flat: uncertain of 2, 4, 1
    "run-004": [0.05, 0.05, 0.45, 0.35, 0.05, 0.05],  # between the two
    "run-005": [0.02, 0.02, 0.02, 0.02, 0.9, 0.02],  # as sure as run-001
}


def _result(traces: pl.DataFrame) -> AnalysisResult:
    runs = []
    for row in traces.iter_rows(named=True):
        tid, native = str(row["trace_id"]), str(row["native_id"])
        probs = DISTRIBUTIONS.get(native)
        if probs is None:
            runs.append(RunAnalysis(run={"trace_id": tid, "value_estimator": "cheap", "n_findings": 0}))
            continue
        order = [int(k) for k in np.argsort(-np.asarray(probs), kind="stable")]
        unsure = list(UNSURE) if native == "run-002" else []
        best = order[0]
        why = Rationale("planning_error", (Message("what.planning_error", {"step": best}),),
                        ranking_tail(probs[best], order[1], probs[order[1]], uncertain_steps=unsure))
        runs.append(RunAnalysis(
            run={"trace_id": tid, "decisive_step": best, "category": "planning_error", "confidence": probs[best],
                 "top_steps": ",".join(str(k) for k in order[:3]),
                 "top_scores": ",".join(f"{probs[k]:.3f}" for k in order[:3]),
                 "decisive_uncertain": ";".join(str(k) for k in unsure) or None,
                 "label_priority": label_priority(probs),
                 "rationale": why.render(), "rationale_json": why.to_json(), "value_estimator": "cheap",
                 "n_findings": 1},
            steps=[{"trace_id": tid, "step": s, "value": 1.0 - 0.1 * s, "drop": 0.1 if s else 0.0,
                    "candidate_score": probs[s], "value_estimator": "cheap"} for s in range(STEPS)],
            findings=[Finding(trace_id=tid, step=best, category="planning_error", score=0.5, source="test-detector",
                              rationale="first committed approach")]))
    return AnalysisResult.from_runs(runs)


@pytest.fixture
def window(qtbot: Any, app: Any, tmp_path: Path) -> Any:
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1500, 950)
    assert w.tagging.open_workspace(tmp_path / "uncertain.trajscope")
    w.open_paths([str(write_runs(tmp_path / "traces", 6, steps=STEPS))], synchronous=True)
    w.session.merge_analysis(_result(w.session.traces))
    w.show()
    qtbot.waitExposed(w)
    w.bridge.flush()
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


def _id(w: Any, native: str) -> str:
    return str(w.session.traces.filter(pl.col("native_id") == native)["trace_id"][0])


def _show(w: Any, qtbot: Any, tid: str) -> None:
    w.session.select(trace_ids=(tid,), trace_id=tid)
    w.bridge.flush()
    qtbot.waitUntil(lambda: w.transcript.model.trace_id == tid, timeout=3000)
    w.inspector.refresh()


def test_an_uncertain_run_shows_its_likeliest_steps_instead_of_one_decisive_step(window: Any, qtbot: Any) -> None:
    w = window
    unsure, sure = _id(w, "run-002"), _id(w, "run-001")
    _show(w, qtbot, unsure)
    assert "uncertain: steps 2, 4, 1" in w.transcript.title.text()
    assert "decisive step" not in w.transcript.title.text()
    text = w.inspector.browser.toPlainText()
    assert "uncertain: steps 2, 4, 1" in text
    assert "the likeliest are steps 2, 4, 1" in text  # the rationale says it too
    # each likely step gets a lighter candidate mark; no step the DECISIVE badge
    cards = {c.step: c for c in w.transcript.model.cards}
    assert [s for s in sorted(cards) if cards[s].uncertain] == sorted(UNSURE)
    assert [cards[s].rank for s in UNSURE] == [1, 2, 3]
    badges = {s: w.transcript.delegate._badges(cards[s]) for s in cards}
    assert not any(b[0] == "DECISIVE" for bs in badges.values() for b in bs)
    assert badges[2][0][0] == "CANDIDATE 1" and badges[2][0][2] is False  # outlined, not filled
    assert badges[1][0][0] == "CANDIDATE 3"
    # the runs table says it in the decisive column
    col = [c.key for c in COLUMNS].index("decisive_step")
    model = w.runs_panel.model
    row = model.rows_of([unsure])[0]
    assert model.index(row, col).data() == "? 2, 4, 1"
    assert model.index(row, col).data(Qt.ItemDataRole.ToolTipRole) == (
        "Uncertain: no step stands out; the likeliest are steps 2, 4, 1, best first")
    assert model.index(model.rows_of([sure])[0], col).data() == "3"
    ARTIFACTS.mkdir(exist_ok=True)
    w.grab().save(str(ARTIFACTS / "uncertain_run.png"))
    # a certain run keeps its one DECISIVE badge
    _show(w, qtbot, sure)
    assert "decisive step 3" in w.transcript.title.text() and "uncertain" not in w.transcript.title.text()
    card = next(c for c in w.transcript.model.cards if c.step == 3)
    assert not card.uncertain and w.transcript.delegate._badges(card)[0][0] == "DECISIVE"


def test_once_the_analyst_sets_the_decisive_step_the_run_is_no_longer_uncertain(window: Any, qtbot: Any) -> None:
    w = window
    unsure = _id(w, "run-002")
    _show(w, qtbot, unsure)
    assert w.tagging.mark_decisive(unsure, 4) is not None
    w.bridge.flush()
    qtbot.waitUntil(lambda: "analyst:&nbsp;step&nbsp;4" in w.transcript.title.text(), timeout=3000)
    assert "uncertain" not in w.transcript.title.text() and "decisive step 2" in w.transcript.title.text()
    w.inspector.refresh()
    assert "uncertain: steps" not in w.inspector.browser.toPlainText()
    assert not any(c.uncertain for c in w.transcript.model.cards)
    col = [c.key for c in COLUMNS].index("decisive_step")
    # the runs table shows the analyst's step, marked as theirs (issue 31 item 7)
    assert w.runs_panel.model.index(w.runs_panel.model.rows_of([unsure])[0], col).data() == f"4 {ANALYST_MARK}"


def test_the_uncertain_run_reads_in_chinese(window: Any, qtbot: Any) -> None:
    from ui.i18n import install_language

    w = window
    tid = _id(w, "run-002")
    _show(w, qtbot, tid)
    try:
        assert install_language("zh_CN")
        w.transcript.show_run(tid)
        w.inspector.refresh()
        assert "不确定：步骤 2、4、1" in w.transcript.title.text()
        assert "不确定：步骤 2、4、1" in w.inspector.browser.toPlainText()
    finally:
        install_language("en")


def test_each_likely_step_of_the_uncertain_rationale_is_a_link(app: Any) -> None:
    from ui.views.rationale_html import rationale_html, rationale_text

    r = Rationale("planning_error", (Message("what.planning_error", {"step": 2}),),
                  ranking_tail(0.19, 4, 0.18, uncertain_steps=list(UNSURE)))
    assert rationale_text(r.to_json(), None) == r.render()  # English: the same text as the CSV
    assert r.render().endswith("(uncertain: no step stands out (p=0.19); the likeliest are steps 2, 4, 1)")
    h = rationale_html(r.to_json(), r.render())
    assert ("the likeliest are steps <a href='step:2'>2</a>, <a href='step:4'>4</a>, <a href='step:1'>1</a>") in h


def test_the_review_queue_offers_the_most_uncertain_run_first(window: Any, qtbot: Any) -> None:
    w = window
    desk = w.tagging.desk
    desk.rebuild()
    assert desk.informative.isChecked()  # on by default, and it says why
    assert "least sure" in desk.informative.toolTip() and desk.informative.text() == "Most informative first"
    natives = dict(zip(w.session.traces["trace_id"].to_list(), w.session.traces["native_id"].to_list(), strict=True))
    decisive = [natives[s.trace_id] for s in desk.queue if s.finding is None]
    # flattest first; run-001 and run-005 are equally sure: they keep the table's order
    table = [natives[t] for t in w.session.filtered_runs()["trace_id"].to_list() if natives[t] in DISTRIBUTIONS]
    sure_pair = [n for n in table if n in ("run-001", "run-005")]
    assert decisive == ["run-002", "run-004", *sure_pair]
    assert desk.current is not None and natives[desk.current.trace_id] == "run-002"
    w.tagging.show_desk()
    qtbot.waitUntil(lambda: "uncertain: steps 2, 4, 1" in desk.card.toPlainText(), timeout=5000)
    ARTIFACTS.mkdir(exist_ok=True)
    w.grab().save(str(ARTIFACTS / "uncertain_review_queue.png"))
    desk.informative.setChecked(False)  # the runs table's order again
    assert [natives[s.trace_id] for s in desk.queue if s.finding is None] == table
