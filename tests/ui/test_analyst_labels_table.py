"""The runs table shows the analyst's category and decisive step, marked as theirs; undo brings the ranker's back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from tagging_helpers import clear_messages, judge_result, write_runs

from analyzer.session import Session
from ui.i18n.labels import category_title
from ui.models.runs_table import ANALYST_MARK, COLUMNS


@pytest.fixture
def window(qtbot: Any, app: Any, tmp_path: Path) -> Iterator[Any]:
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    assert w.tagging.open_workspace(tmp_path / "desk.trajscope")
    w.open_paths([str(write_runs(tmp_path / "traces", 8))], synchronous=True)
    w.session.merge_analysis(judge_result(w.session.traces))
    w.show()
    qtbot.waitExposed(w)
    w.bridge.flush()
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


def _cell(w: Any, tid: str, key: str, role: int = 0) -> Any:
    model = w.runs_panel.model
    row = model.rows_of([tid])[0]
    return model.index(row, [c.key for c in COLUMNS].index(key)).data(role)


def test_runs_table_shows_the_analyst_category_and_after_undo_the_rankers(window: Any, qtbot: Any) -> None:
    w = window
    row = w.session.runs_view().filter((pl.col("outcome") == "failure") & (pl.col("category") != "goal_drift")
                                       & pl.col("decisive_step").is_not_null()).row(0, named=True)
    tid, ranker_cat, ranker_step = row["trace_id"], row["category"], row["decisive_step"]
    assert _cell(w, tid, "category") == category_title(ranker_cat)

    w.tagging.set_category([(tid, None)], "goal_drift")
    want = f"{category_title('goal_drift')} {ANALYST_MARK}"
    qtbot.waitUntil(lambda: _cell(w, tid, "category") == want, timeout=3000)
    assert category_title(ranker_cat) in _cell(w, tid, "category", 3)  # the tooltip names the ranker's
    assert _cell(w, tid, "decisive_step") == str(ranker_step)  # the step is still the ranker's: no mark

    w.tagging.undo()
    qtbot.waitUntil(lambda: _cell(w, tid, "category") == category_title(ranker_cat), timeout=3000)


def test_runs_table_shows_the_analyst_decisive_step_with_its_category(window: Any, qtbot: Any) -> None:
    w = window
    row = w.session.runs_view().filter((pl.col("outcome") == "failure") & (pl.col("category") != "goal_drift")
                                       & pl.col("decisive_step").is_not_null()).row(0, named=True)
    tid, ranker_step = row["trace_id"], row["decisive_step"]
    mine = 0 if ranker_step != 0 else 1
    w.tagging.mark_decisive(tid, mine, "goal_drift")
    qtbot.waitUntil(lambda: _cell(w, tid, "decisive_step") == f"{mine} {ANALYST_MARK}", timeout=3000)
    assert _cell(w, tid, "category") == f"{category_title('goal_drift')} {ANALYST_MARK}"
    # the filter by category uses the category shown
    view = w.session.runs_view().filter(pl.col("trace_id") == tid)
    assert view["category"][0] == "goal_drift" and view["decisive_source"][0] == "analyst"
    w.tagging.undo()
    qtbot.waitUntil(lambda: _cell(w, tid, "decisive_step") == str(ranker_step), timeout=3000)
