"""Tags you can see: the analyst's categories and tags as chips on step cards, and the
analyst's decisive mark next to the ranker's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView
from tagging_helpers import clear_messages


def _card_image(w: Any, step: int) -> tuple[Any, Any, Any]:
    """The transcript's card of a step: (card, its rect in the viewport, the viewport image)."""
    t = w.transcript
    row = t.model.row_of(step)
    idx = t.model.index(row)
    t.list.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtTop)
    w.bridge.flush()
    t.list.viewport().repaint()
    return t.model.card(row), t.list.visualRect(idx), t.list.viewport().grab().toImage()


def _near(c: QColor, want: QColor, tol: int = 40) -> bool:
    return abs(c.red() - want.red()) + abs(c.green() - want.green()) + abs(c.blue() - want.blue()) <= tol


def test_tag_chips_and_analyst_decisive_mark(analysed, failed_id, qtbot, tmp_path: Path):
    from ui.theme import category_color
    from ui.views.step_delegate import ANALYST_MARK, GAP, GUTTER, PAD

    w = analysed
    qtbot.addWidget(w, before_close_func=clear_messages)
    assert w.tagging.open_workspace(tmp_path / "chips.trajscope")
    tid = failed_id
    row = w.session.run_row(tid) or {}
    decisive = int(row["decisive_step"])
    other = 0 if decisive != 0 else 1
    w.session.select(trace_ids=(tid,), trace_id=tid, step=decisive, steps=(decisive,))
    w.bridge.flush()
    t = w.transcript
    untagged_h = t.delegate.card_height(t.model.card(t.model.row_of(decisive)), t.list.viewport().width())
    ctrl = w.tagging
    assert ctrl.set_category([(tid, decisive)], "failed_recovery")
    assert ctrl.add_tag([(tid, decisive)], "flaky-env")
    assert ctrl.mark_decisive(tid, decisive)
    assert ctrl.set_category([(tid, other)], "goal_drift")
    w.bridge.flush()
    qtbot.waitUntil(lambda: bool(t.model.card(t.model.row_of(decisive)).chips), timeout=3000)

    assert f"analyst: step {decisive}" in t.title.text().replace("&nbsp;", " ")  # the header names it too
    card, rect, img = _card_image(w, decisive)
    assert [(c.kind, c.value) for c in card.chips] == [("category", "failed_recovery"), ("tag", "flaky-env")]
    assert card.analyst_decisive and card.rank == 1
    # the analyst's mark sits right next to the ranker's
    badges = [b[0] for b in t.delegate._badges(card)]
    assert badges[badges.index("DECISIVE") + 1] == "ANALYST: DECISIVE"
    # the chips row takes room on the card and is painted: the category's dot shows in its colour
    width = t.list.viewport().width()
    lay = t.delegate.exact_layout(card, width)
    assert lay["chips"] > 0 and t.delegate.card_height(card, width) > untagged_h
    x = rect.left() + GUTTER + PAD + 4
    y = rect.top() + 3 + PAD + lay["header"] + GAP
    placed = t.delegate.chip_rects(card, x, y, lay["w"])
    assert [c for c, _r in placed] == card.chips  # both chips fit
    first = placed[0][1]
    dot = img.pixelColor(first.left() + 8 + 4, first.center().y())
    assert _near(dot, category_color("failed_recovery")), dot.name()
    tag_text = t.delegate.chip_text(placed[1][0])
    assert tag_text == "#flaky-env"
    # the analyst's violet bar in the gutter, next to the ranker's red one
    bar = img.pixelColor(rect.left() + 9, rect.top() + 3 + lay["height"] // 2)
    assert _near(bar, QColor(ANALYST_MARK)), bar.name()
    tip = t.delegate.chips_tooltip(card)
    assert "Analyst category: " in tip and "Tag: flaky-env" in tip

    # another step: a category chip, no analyst mark; the ranker's step keeps its own mark
    card2, _r, _i = _card_image(w, other)
    assert [(c.kind, c.value) for c in card2.chips] == [("category", "goal_drift")] and not card2.analyst_decisive
    # rejecting the suggestion at a step says so on the card; removing a tag removes its chip
    assert ctrl.reject([(tid, other)])
    w.bridge.flush()
    qtbot.waitUntil(lambda: [(c.kind, c.value) for c in t.model.card(t.model.row_of(other)).chips]
                    == [("rejected", "")], timeout=3000)
    assert t.delegate.chip_text(t.model.card(t.model.row_of(other)).chips[0]) == "suggestion rejected"
    assert ctrl.remove_tag([(tid, decisive)], "flaky-env")
    w.bridge.flush()
    qtbot.waitUntil(lambda: [c.value for c in t.model.card(t.model.row_of(decisive)).chips] == ["failed_recovery"],
                    timeout=3000)


def test_step_tags_merges_authors_and_orders_chips():
    import polars as pl

    from analyzer.frames.build import frame_from_rows
    from analyzer.frames.columns import ANNOTATION_COLUMNS
    from ui.models.steps_list import step_tags

    rows = [
        {"trace_id": "r", "step": 3, "category": "goal_drift", "tags": "b,a", "status": "accepted", "author": "x"},
        {"trace_id": "r", "step": 3, "category": "goal_drift", "tags": "a", "status": "decisive", "author": "y",
         "note": "looks wrong"},
        {"trace_id": "r", "step": 5, "category": "hallucination", "status": "rejected", "author": "x"},
        {"trace_id": "r", "step": 6, "category": None, "status": "rejected", "author": "x"},
    ]
    ann = frame_from_rows(rows, ANNOTATION_COLUMNS)
    assert isinstance(ann, pl.DataFrame)
    out = step_tags(ann)
    chips, decisive, note = out[3]
    assert [(c.kind, c.value) for c in chips] == [("category", "goal_drift"), ("tag", "a"), ("tag", "b")]
    assert decisive and note == "looks wrong"
    assert [(c.kind, c.value) for c in out[5][0]] == [("rejected", "hallucination")] and not out[5][1]
    assert [(c.kind, c.value) for c in out[6][0]] == [("rejected", "")]
