"""Simplified Chinese in the generated text: insight names, recommendations and counts, and tags.

The Insights view composes its names and recommendations from translated message ids
(:mod:`analyzer.insights.messages`); the Tags column and the tag chips show a taxonomy id as its
translated title. In zh_CN nothing generated may be English: no run of three or more ASCII
letters remains once the trace's own words (tool and model names, shared terms, run ids) are
taken out.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton
from tagging_helpers import clear_messages

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyzer"))
from planted_insights import planted_corpus

from analyzer.analysis.result import AnalysisResult
from analyzer.embedding import HashingEmbedder
from analyzer.insights.messages import INSIGHT_MESSAGES
from analyzer.insights.recommend import recommend
from analyzer.insights.text import evidence_text, message_text, recommendation_text
from analyzer.loading.loader import LoadResult
from analyzer.locales import zh_CN
from analyzer.session import Session
from analyzer.taxonomy import CATEGORY_IDS

WORD = re.compile(r"[A-Za-z]{3,}")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def english_words(text: str, allowed: set[str]) -> list[str]:
    """Runs of 3+ ASCII letters in ``text`` that are not an allowed identifier (or part of one)."""
    for ident in sorted(allowed, key=len, reverse=True):
        if ident:
            text = text.replace(ident, " ")
    return WORD.findall(text)


def test_every_insight_message_has_chinese_with_the_same_placeholders():
    assert set(zh_CN.INSIGHT) == set(INSIGHT_MESSAGES)
    for mid, template in INSIGHT_MESSAGES.items():
        assert set(PLACEHOLDER.findall(zh_CN.INSIGHT[mid])) == set(PLACEHOLDER.findall(template)), mid
        assert not english_words(PLACEHOLDER.sub("", zh_CN.INSIGHT[mid]), set()), mid


def test_every_rule_speaks_chinese():
    cases = []
    for cat in CATEGORY_IDS:
        for step in (None, 7.0):
            cases += [
                recommend(cat, 5, {"gpt-x": 5}, {"gpt-x": 1.0}, 1, [("run_shell", 5)], ["data"], step),
                recommend(cat, 5, {"gpt-x": 4, "m2": 1}, {"gpt-x": 0.8, "m2": 0.1}, 2, [], [], step),
                recommend(cat, 5, {"unknown": 5}, {"unknown": 1.0}, 2, [], [], step),
                recommend(cat, 2, {"a1": 2}, {"a1": 0.5}, 1, [("run_shell", 1)], ["timeout", "missing"], step),
                recommend(cat, 2, {"a1": 2}, {"a1": 0.5}, 1, [("run_shell", 2)], ["schema"], step),
                recommend(cat, 2, {"a1": 2}, {"a1": 0.5}, 1, [], [], step),
            ]
    allowed = {"gpt-x", "run_shell", "timeout", "missing", "schema", "data"}
    kinds = set()
    for rec in cases:
        kinds.add(rec.kind)
        assert rec.message is not None and rec.evidence_message is not None
        for m in (rec.message, rec.evidence_message):
            zh = message_text(m, "zh_CN")
            assert not english_words(zh, allowed), (m, zh)
            assert message_text(m, "en") == m.render(INSIGHT_MESSAGES) or m.id.startswith("ev_")
    assert kinds == {"model", "infrastructure", "tool_description", "verification", "system_prompt"}


def _window(qtbot: Any, ws_path: Path) -> Any:
    from ui.main_window import MainWindow

    c = planted_corpus(60, seed=2)
    session = Session()
    session.add_load_result(LoadResult(traces=c.traces, steps=c.steps))
    session.merge_analysis(AnalysisResult(runs=c.runs))
    w = MainWindow(session, persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1500, 950)
    assert w.tagging.open_workspace(ws_path)
    w.tagging.insights.embedder = HashingEmbedder()
    w.show()
    qtbot.waitExposed(w)
    return w


def test_insights_view_tags_column_and_chips_speak_chinese(qtbot, app, tmp_path):
    from ui.i18n import install_language
    from ui.models.runs_table import COLUMNS
    from ui.models.steps_list import TagChip

    try:
        assert install_language("zh_CN")
        w = _window(qtbot, tmp_path / "zh.trajscope")
        panel = w.tagging.insights
        w.show_tab("insights")
        qtbot.waitUntil(lambda: panel.iset is not None and len(panel.iset) > 0, timeout=20000)
        iset = panel.iset
        allowed = {str(t) for t in iset.failures["trace_id"].to_list()}
        allowed |= {str(m) for m in iset.failures["model"].to_list() if m} | {i.id for i in iset.insights}
        for ins in iset.insights:
            allowed |= set(ins.terms) | {t for t, _ in ins.tools if t}
        shown: list[str] = []
        model = panel.model
        assert model.items
        for row in range(len(model.items)):
            for col in range(model.columnCount()):
                text = model.data(model.index(row, col))
                if isinstance(text, str):
                    shown.append(text)
            shown.append(str(model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)))
            panel.table.selectRow(row)
            shown.append(panel.detail.text())
            rec = model.items[row].recommendation
            assert recommendation_text(rec, "zh_CN") in shown[-1] and evidence_text(rec, "zh_CN") in shown[-1]
        names = [model.data(model.index(r, 0)) for r in range(len(model.items))]
        assert all(re.search(r"[\u4e00-\u9fff]", n) for n in names), names
        bad = {t: english_words(t, allowed) for t in shown if english_words(t, allowed)}
        assert not bad, f"English in the zh_CN Insights view: {bad}"

        # the Tags column and the chips: a taxonomy id shows as its title, a custom tag as typed
        tid = str(iset.failures["trace_id"][0])
        step = int(iset.failures["decisive_step"][0])
        assert w.tagging.add_tag([(tid, step)], "goal_drift")
        assert w.tagging.add_tag([(tid, step)], "flaky-env")
        w.bridge.flush()
        runs = w.runs_panel.model
        col = [c.key for c in COLUMNS].index("tags")
        row = runs.frame["trace_id"].to_list().index(tid)
        cell = runs.data(runs.index(row, col))
        assert "目标漂移" in cell and "flaky-env" in cell and "goal_drift" not in cell, cell
        d = w.transcript.delegate
        assert d.chip_text(TagChip("tag", "goal_drift")) == "目标漂移"
        assert d.chip_text(TagChip("tag", "flaky-env")) == "#flaky-env"
        w.session.select(trace_id=tid, step=step)
        w.bridge.flush()
        editor = w.tagging.editor
        editor.refresh()
        chips = [b.text() for b in editor.tags_box.findChildren(QToolButton) if b.objectName().startswith("tagChip_")]
        assert any("目标漂移" in c for c in chips) and not any("goal_drift" in c for c in chips), chips
        card = next(c for c in (w.transcript.model.card(r) for r in range(w.transcript.model.rowCount()))
                    if any(ch.value == "goal_drift" for ch in c.chips))
        texts = [d.chip_text(ch) for ch in card.chips] + [d.chips_tooltip(card)]
        assert "目标漂移" in texts
        assert not [t for t in texts if english_words(t, {"flaky-env"})], texts
        w.close()
    finally:
        install_language("en")


def test_tags_show_taxonomy_titles_in_english_too(app):
    from ui.i18n.labels import tags_text

    assert tags_text("goal_drift,flaky-env") == "Goal drift, flaky-env"
