"""Context waste: re-sent duplicate content and fixed tracebacks count; distinct content does not."""

from __future__ import annotations

from analyzer.schema.models import Outcome
from plugins.detectors._signals import est_tokens
from tests.plugins._signal_cases import analyse, bash, out, run, say

TASK = "Fix the crash in app/report.py."
FILE = "\n".join(f"line {i}: value = compute({i}) + offset  # keep" for i in range(40))
TB = "Traceback (most recent call last):\n" + "\n".join(f'  File "app/m{i}.py", line {i}' for i in range(20)) + \
     "\nKeyError: 'total'"


def test_same_file_read_twice_is_saveable_from_the_second_read_on() -> None:
    t = run(TASK, [bash("cat app/report.py"), out(FILE), say("Let me look again."), bash("cat app/report.py"),
                   out(FILE), say("I see it now."), say("Done.")])
    res = analyse("context_waste", t)
    tok = est_tokens(FILE)
    # the first copy (step 2) is droppable from step 5 on: re-sent at the calls of steps 6 and 7
    assert res.step_values["droppable_tokens"][2] == 2 * tok
    assert res.run_values["context_saveable_tokens"] == 2 * tok
    cum = res.step_values["context_waste_cum"]
    assert cum[5] == 0 and cum[6] == tok and cum[7] == 2 * tok
    assert 0 < res.run_values["context_saveable_share"] < 1
    assert len(res.findings) == 1 and res.findings[0].step == 2 and res.findings[0].source == "context_waste"


def test_traceback_of_an_error_already_fixed() -> None:
    t = run(TASK, [bash("python -m app.report"), out(TB, error=True), bash("sed -i 's/total/sum/' app/report.py"),
                   out(""), bash("python -m app.report"), out("report written"), say("Fixed."), say("Done.")])
    res = analyse("context_waste", t)
    assert res.step_values["droppable_tokens"][2] == 2 * est_tokens(TB)  # re-sent at steps 7 and 8


def test_a_request_to_run_the_code_does_not_hide_which_action_the_traceback_answers() -> None:
    t = run(TASK, [bash("python -m app.report"), say("Please run the script."), out(TB, error=True),
                   bash("sed -i 's/total/sum/' app/report.py"), out(""), bash("python -m app.report"),
                   say("Please run it again."), out("report written"), say("Fixed."), say("Done.")])
    res = analyse("context_waste", t)
    assert res.step_values["droppable_tokens"][3] == 2 * est_tokens(TB)  # fixed at step 8, re-sent at 9 and 10


def test_reported_input_tokens_are_used_for_the_total() -> None:
    t = run(TASK, [bash("cat app/report.py"), out(FILE), bash("cat app/report.py"), out(FILE), say("Done.")],
            tokens_in=5000)
    res = analyse("context_waste", t)
    assert res.run_values["context_tokens_in"] == 3 * 5000
    assert res.run_values["context_saveable_tokens"] == est_tokens(FILE)


def test_distinct_content_and_unfixed_errors_waste_nothing() -> None:
    t = run(TASK, [bash("cat app/report.py"), out(FILE), bash("cat app/util.py"), out(FILE.replace("keep", "util")),
                   bash("python -m app.report"), out(TB, error=True), say("It still fails.")], Outcome.FAILURE)
    res = analyse("context_waste", t)
    assert res.run_values["context_saveable_tokens"] == 0
    assert set(res.step_values["droppable_tokens"]) == {None}
    assert res.findings == []


def test_short_repeats_are_ignored() -> None:
    t = run(TASK, [bash("ls"), out("a.py"), bash("ls"), out("a.py"), say("Done.")], Outcome.SUCCESS)
    assert analyse("context_waste", t).run_values["context_saveable_tokens"] == 0
