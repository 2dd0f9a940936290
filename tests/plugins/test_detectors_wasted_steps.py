"""Wasted steps (per run) and efficiency against the shortest success (corpus level)."""

from __future__ import annotations

import polars as pl

from analyzer.metrics.efficiency import efficiency_table
from analyzer.schema.models import Outcome
from tests.plugins._signal_cases import analyse, bash, out, run, say

TASK = "Report how many orders in data/orders.csv are from November."
SRC = "id,month\n1,11\n2,10\n3,11\n"


def test_repeated_read_and_unchanged_rerun_are_wasted() -> None:
    t = run(TASK, [bash("cat data/orders.csv"), out(SRC), bash("cat data/orders.csv"), out(SRC),
                   bash("python count.py"), out("2"), bash("python count.py"), out("2"), say("There are 2.")])
    res = analyse("wasted_steps", t, )
    assert res.step_values["wasted"][3] == "repeated_read"
    assert res.step_values["wasted"][7] == "rerun_unchanged"
    assert [f.step for f in res.findings] == [3, 7]
    assert res.run_values["wasted_steps"] == 2
    assert res.run_values["wasted_share"] == round(2 / 5, 4)


def test_output_never_used_is_flagged_in_the_column_only() -> None:
    t = run(TASK, [bash("ls -la data"), out("Alpha-Team Q3-Report.pdf Budget-FINAL 2024-03-11 \"quarterly summary\" 48213"),
                   bash("python count.py"), out("2"), say("There are 2 November orders.")])
    res = analyse("wasted_steps", t)
    assert res.step_values["wasted"][1] == "unused_output"
    assert res.findings == []


def test_reads_and_reruns_after_a_change_are_not_wasted() -> None:
    t = run(TASK, [bash("cat count.py"), out("print(1)"), bash("sed -i 's/1/2/' count.py"), out(""),
                   bash("cat count.py"), out("print(2)"), bash("python count.py"), out("1"),
                   bash("python count.py --month 11"), out("2"), say("There are 2 (count.py printed 2).")],
            Outcome.SUCCESS)
    res = analyse("wasted_steps", t)
    assert set(res.step_values["wasted"]) == {None}
    assert res.findings == [] and res.run_values["wasted_steps"] == 0


def test_same_call_with_changed_output_is_not_wasted() -> None:
    t = run(TASK, [bash("python poll.py"), out("pending"), bash("python poll.py"), out("done: 2"),
                   say("It says done: 2.")], Outcome.SUCCESS)
    assert analyse("wasted_steps", t).run_values["wasted_steps"] == 0


def _traces(rows: list[tuple[str, str, str, int, int | None]]) -> pl.DataFrame:
    return pl.DataFrame({"trace_id": [r[0] for r in rows], "task": [r[1] for r in rows],
                         "outcome": [r[2] for r in rows], "n_steps": [r[3] for r in rows],
                         "tokens_total": [r[4] for r in rows], "task_family": ["f"] * len(rows)})


def test_efficiency_against_the_shortest_success() -> None:
    traces = _traces([("a", "Fix  the bug", "success", 10, 1000), ("b", "fix the bug", "success", 14, 900),
                      ("c", "Fix the bug", "failure", 25, 3000), ("d", "Other task", "failure", 5, None)])
    steps = pl.DataFrame({"trace_id": ["a", "a", "c", "c"], "timestamp": ["2025-01-01T00:00:00Z",
                          "2025-01-01T00:01:00Z", "2025-01-01T00:00:00Z", "2025-01-01T00:05:00Z"],
                          "duration_s": [None, 0.0, None, 0.0]})
    eff = {r["trace_id"]: r for r in efficiency_table(traces, steps).to_dicts()}
    assert eff["a"]["extra_steps"] == 0 and eff["a"]["shortest_success_steps"] == 10
    assert eff["b"]["extra_steps"] == 4 and eff["b"]["extra_tokens"] == -100
    assert eff["c"]["extra_steps"] == 15 and eff["c"]["step_overhead"] == 1.5
    assert eff["c"]["extra_tokens"] == 2000 and eff["c"]["extra_wall_s"] == 240.0
    assert eff["b"]["extra_wall_s"] is None  # no wall time for b
    assert eff["d"]["shortest_success_steps"] is None and eff["d"]["extra_steps"] is None  # no success: no baseline


def test_tasks_without_a_success_get_no_baseline() -> None:
    traces = _traces([("x", "t", "failure", 3, None), ("y", "t", "unknown", 2, None)])
    assert efficiency_table(traces)["extra_steps"].null_count() == 2
