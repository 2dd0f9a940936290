"""Tool answers: misread outputs score 0 and give a finding; faithful readings do not; use and trends."""

from __future__ import annotations

import pytest

from analyzer.schema.models import Outcome
from tests.plugins._signal_cases import THOUGHT, analyse, bash, out, run, say

TASK = "Find where MAX_RETRIES is defined in the repository and report its value."


@pytest.mark.parametrize(("output", "claim", "error"), [
    ("", "The grep found the definition of MAX_RETRIES in config.py.", False),
    ("grep: no matches", "I found it: the search shows MAX_RETRIES = 5.", False),
    ("Traceback (most recent call last):\nNameError: name 'x' is not defined", "The script ran successfully.", True),
    ("config.py:12:MAX_RETRIES = 5\nclient.py:40:retries = MAX_RETRIES\n" * 3,
     "The search returned nothing, so it is not defined.", False),
])
def test_misread_outputs_score_zero_and_give_a_finding(output: str, claim: str, error: bool) -> None:
    t = run(TASK, [bash("grep -rn MAX_RETRIES ."), out(output, error=error), say(claim, THOUGHT), say("Done.")])
    res = analyse("tool_answer", t)
    assert res.step_values["understood"][3] == 0.0
    assert [f.step for f in res.findings] == [3]
    assert res.findings[0].category == "evidence_action_gap" and res.findings[0].evidence_start == 2


@pytest.mark.parametrize(("output", "reply"), [
    ("", "The grep matched nothing, so MAX_RETRIES is not defined under that name."),
    ("config.py:12:MAX_RETRIES = 5", "It is defined in config.py line 12 with value 5."),
    ("Traceback (most recent call last):\nNameError: x", "The script failed with a NameError; I'll fix x first."),
    ("config.py:12:MAX_RETRIES = 5", "I did not find any other definition besides config.py."),
    # an announced or conditioned check is not a success claim (asserts_at)
    ("Traceback (most recent call last):\nNameError: x",
     "The import failed. Let's modify the script and run it again to ensure it works correctly."),
    ("Traceback (most recent call last):\nNameError: x", "Once the tests pass, we can report the value."),
])
def test_faithful_readings_give_no_finding(output: str, reply: str) -> None:
    t = run(TASK, [bash("grep -rn MAX_RETRIES ."), out(output, error="Traceback" in output),
                   say(reply, THOUGHT)], Outcome.SUCCESS)
    res = analyse("tool_answer", t)
    assert res.findings == []
    assert res.step_values["understood"][3] == 1.0


def test_use_score_and_trends() -> None:
    t = run(TASK, [bash("grep -rn MAX_RETRIES ."), out("config.py:12:MAX_RETRIES = 5 in \"RetryPolicy\" (v2.1)"),
                   say("config.py line 12 sets MAX_RETRIES to 5 inside \"RetryPolicy\".", THOUGHT),
                   bash("grep -rn TIMEOUT ."), out("settings.py:3:TIMEOUT = 30 in \"HttpClient\" (v9.9)"),
                   bash("grep -rn TIMEOUT ."), out("settings.py:3:TIMEOUT = 30 in \"HttpClient\" (v9.9)"),
                   say("Done, the answer is 7.")])
    res = analyse("tool_answer", t)
    used = res.step_values["used"]
    assert used[3] == 1.0  # takes the output's names and numbers up
    assert used[6] == 0.0  # re-runs the very call that produced the output: the same whatever it said
    assert used[8] == 0.0  # ignores the output
    assert res.run_values["used_trend"] < 0  # using less and less
    assert res.run_values["understood_mean"] == 1.0
    assert res.step_values["understood"][0] is None  # no tool output before the first step


def test_runs_without_tool_outputs_have_no_scores() -> None:
    res = analyse("tool_answer", run(TASK, [say("I think it is 5."), say("Done.")]))
    assert res.run_values == {"understood_mean": None, "understood_trend": None, "used_mean": None,
                              "used_trend": None}
