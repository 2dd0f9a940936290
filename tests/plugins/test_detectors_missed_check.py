"""Missed checks: planted divergences get the earliest check step and its kind; clean runs get none."""

from __future__ import annotations

from analyzer.schema.models import Outcome
from tests.plugins._signal_cases import THOUGHT, analyse, bash, out, run, say

TASK = "Export the orders table to out/orders.csv: it must have 1,000 rows. Do not modify schema.sql."


def kinds(res: object) -> dict[str, int]:
    return {f.rationale.split(" check after")[0].removeprefix("a ").replace(" ", "_"): f.step
            for f in res.findings}  # type: ignore[attr-defined]


def test_count_against_the_plan() -> None:
    t = run(TASK, [bash("python export.py --out out/orders.csv"), out("Exported 900 rows to out/orders.csv"),
                   bash("wc -l out/orders.csv"), out("900 out/orders.csv"), say("The export is done.")])
    res = analyse("missed_check", t)
    assert kinds(res) == {"count_vs_plan": 2}
    assert res.run_values == {"check_step": 2, "check_kind": "count_vs_plan", "check_lead": 3}
    assert res.step_values["check_point"][2] == "count_vs_plan"
    assert "1,000 rows" in res.findings[0].rationale and "900" in res.findings[0].rationale


def test_untested_change_and_violated_constraint() -> None:
    t = run(TASK, [bash("pytest -q"), out("1 failed"), bash("sed -i 's/int/bigint/' schema.sql"), out(""),
                   bash("python export.py --out out/orders.csv"), out("Exported 1,000 rows"), say("Done.")])
    res = analyse("missed_check", t)
    assert kinds(res) == {"test_run": 3, "reread_constraints": 3}
    assert res.run_values["check_kind"] == "test_run"  # same step: the cheaper kind listed first
    assert res.run_values["check_lead"] == 4


def test_claimed_result_that_no_output_shows() -> None:
    t = run(TASK, [bash("python export.py"), out("Exported 1,000 rows to out/orders.csv"),
                   say("I saved the final file to out/orders_final.csv.")])
    assert kinds(analyse("missed_check", t)) == {"result_exists": 3}


def test_success_claim_right_after_an_error() -> None:
    t = run(TASK, [bash("python export.py"), out("Traceback (most recent call last):\nKeyError: 'DSN'", error=True),
                   say("The export works now, the task is complete.")])
    assert kinds(analyse("missed_check", t)) == {"result_exists": 3}


def test_clean_failed_run_and_successful_runs_give_nothing() -> None:
    clean = [say("Plan: export, then count the rows.", THOUGHT),
             bash("python export.py --out out/orders.csv"), out("Exported 1,000 rows to out/orders.csv"),
             bash("pytest -q tests/test_export.py"), out("3 passed"),
             say("Wrote out/orders.csv with 1,000 rows.")]
    res = analyse("missed_check", run(TASK, clean))  # failed for a reason no cheap check sees
    assert res.findings == [] and res.run_values == {}
    assert set(res.step_values["check_point"]) == {None}
    diverging = [bash("python export.py"), out("Exported 900 rows"), say("Done.")]
    for outcome in (Outcome.SUCCESS, Outcome.UNKNOWN):
        res = analyse("missed_check", run(TASK, diverging, outcome))
        assert res.findings == [] and res.run_values == {}


def test_reading_a_forbidden_file_is_not_changing_it() -> None:
    t = run(TASK, [bash("cat schema.sql"), out("CREATE TABLE orders (id int);"),
                   bash("python export.py"), out("Exported 1,000 rows"), bash("pytest"), out("ok"), say("Done.")])
    assert analyse("missed_check", t).findings == []
