"""Each built-in detector fires on a small crafted run and stays quiet on a clean one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analyzer.plugin_host import DetectionContext, default_host
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

USER, SYSTEM, THOUGHT, MESSAGE, CALL, OBS = (StepKind.USER, StepKind.SYSTEM, StepKind.THOUGHT,
                                             StepKind.MESSAGE, StepKind.TOOL_CALL, StepKind.OBSERVATION)


def run(task: str, steps: list[dict[str, Any]], outcome: Outcome = Outcome.FAILURE,
        final_answer: str | None = None) -> Trajectory:
    """A trajectory from short step specs (kind, text, tool, args, error)."""
    out = []
    for i, sp in enumerate(steps):
        kind = sp.get("kind", MESSAGE)
        role = {USER: Role.USER, SYSTEM: Role.SYSTEM, OBS: Role.TOOL}.get(kind, Role.ASSISTANT)
        args = sp.get("args")
        out.append(Step(index=i, agent=sp.get("agent", str(role)), role=role, kind=kind, text=sp.get("text", ""),
                        tool_name=sp.get("tool"), tool_args=json.dumps(args) if args is not None else None,
                        is_error=sp.get("error", False), error_text=sp.get("error_text")))
    return Trajectory(id="t1", task=task, outcome=outcome, final_answer=final_answer, steps=out)


def detect(detector_id: str, traj: Trajectory, **settings: Any) -> list[Finding]:
    det = default_host().load_detector(detector_id)
    found = det(traj, DetectionContext(settings=settings))
    assert all(isinstance(f, Finding) and f.source == detector_id for f in found)
    assert all(0 <= f.step < len(traj.steps) and 0.0 <= f.score <= 1.0 for f in found)
    return list(found)


def steps_of(found: list[Finding]) -> list[int]:
    return sorted(f.step for f in found)


TASK = "List the open bug issues of the widgets repository and count them per component."


def test_all_builtin_detectors_are_declared() -> None:
    ids = {d.id for d in default_host().detectors()}
    assert {"goal_drift", "evidence_action_gap", "repeated_action", "failed_recovery", "error_accumulation",
            "false_success", "hallucination", "environment_failure", "planning_error", "judge_category"} <= ids
    for d in default_host().detectors():
        default_host().load_detector(d.id)  # a failing built-in plugin is a test failure


# ---- environment failure ---------------------------------------------------------------
def test_environment_failure_fires_on_rate_limit() -> None:
    t = run(TASK, [{"kind": USER, "text": TASK},
                   {"kind": CALL, "tool": "http_get", "args": {"url": "https://api.example/issues"}},
                   {"kind": OBS, "text": "HTTP/1.1 429 Too Many Requests\nretry-after: 60", "error": True},
                   {"kind": MESSAGE, "text": "The API is rate limited."}])
    found = detect("environment_failure", t)
    assert steps_of(found) == [2]
    assert found[0].category == "environment_failure" and found[0].score >= 0.8


def test_environment_failure_quiet_on_clean_output_with_rate_limit_headers() -> None:
    t = run(TASK, [{"kind": USER, "text": TASK},
                   {"kind": CALL, "tool": "http_get", "args": {"url": "https://api.example/issues"}},
                   {"kind": OBS, "text": "HTTP/1.1 200 OK\nx-ratelimit-limit: 60\nx-ratelimit-remaining: 59\n[]"}],
            outcome=Outcome.SUCCESS)
    assert detect("environment_failure", t) == []


@pytest.mark.parametrize("text", [
    "-rw-r--r-- 1 root root 503 Jul 17 01:31 pyproject.toml",  # a file size, not HTTP 503
    "Recovery Room, Lighthouse Inn, Caffe NV",  # 'oom' inside a word
    "Seeking a highly motivated and skilled biologist",  # 'killed' inside a word
    "def fetch(url):\n    return requests.get(url, timeout=10)",  # a timeout parameter
    "Total: 429 rows, 404 of them unique",
])
def test_environment_failure_quiet_on_numbers_and_words_that_only_look_like_errors(text: str) -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "ls -l"}}, {"kind": OBS, "text": text, "error": True}])
    assert detect("environment_failure", t) == []


@pytest.mark.parametrize("text", [
    "HTTP Error 503: Service Unavailable", "requests.exceptions.HTTPError: 502", "status code: 429",
    "504 Server Error: Gateway Time-out for url", "Killed", "asyncio.TimeoutError", "OOM-killed",
    "404 Client Error: Not Found for url: https://api.example/x",
])
def test_environment_failure_fires_on_http_and_process_errors(text: str) -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "curl"}}, {"kind": OBS, "text": text, "error": True}])
    assert steps_of(detect("environment_failure", t)) == [1]


# ---- repeated action -------------------------------------------------------------------
def test_repeated_action_fires_on_identical_calls_without_progress() -> None:
    t = run(TASK, [{"kind": USER, "text": TASK},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "pip install widgets-sdk"}},
                   {"kind": OBS, "text": "ERROR: No matching distribution found for widgets-sdk", "error": True},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "pip install widgets-sdk"}},
                   {"kind": OBS, "text": "ERROR: No matching distribution found for widgets-sdk", "error": True}])
    found = detect("repeated_action", t)
    assert steps_of(found) == [3]
    assert found[0].evidence_start == 1 and found[0].score >= 0.85


def test_repeated_action_fires_on_a_guessing_loop() -> None:
    t = run("Find the 4-digit PIN of the vault program.",
            [{"kind": CALL, "tool": "bash", "args": {"cmd": "echo 1234 | ./vault"}},
             {"kind": OBS, "text": "Wrong PIN."},
             {"kind": CALL, "tool": "bash", "args": {"cmd": "echo 0000 | ./vault"}},
             {"kind": OBS, "text": "Wrong PIN."}])
    assert steps_of(detect("repeated_action", t)) == [2]


def test_repeated_action_quiet_on_different_actions() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "ls -la"}},
                   {"kind": OBS, "text": "README.md src tests"},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "grep -rn component src"}},
                   {"kind": OBS, "text": "src/app.py:3: component = 'table'"},
                   {"kind": CALL, "tool": "fetch_url", "args": {"url": "https://orion.example/pricing"}},
                   {"kind": OBS, "text": "prices"},
                   {"kind": CALL, "tool": "fetch_url", "args": {"url": "https://vega.example/pricing"}},
                   {"kind": MESSAGE, "text": "TERMINATE"}, {"kind": MESSAGE, "text": "TERMINATE"}])
    assert detect("repeated_action", t) == []


_PROMPT_ECHO = ("Engineer thinking: \n# Current Plan\nNo Plan\n\n# Your commands in a json array\n"
                "Output should adhere to the following format.\n```json\n[\n    {\n"
                '        "command_name": "ClassName.method_name" or "function_name",\n'
                '        "args": {"arg_name": arg_value, ...}\n    },\n    ...\n]\n```\n')


def test_repeated_action_skips_a_logged_prompt_that_is_re_sent() -> None:
    """MetaGPT logs each role's whole prompt (with its output-format template) as the agent's
    message; the prompt re-sent between the agent's real decisions is not the agent repeating."""
    t = run(TASK, [{"kind": MESSAGE, "text": _PROMPT_ECHO},
                   {"kind": MESSAGE, "text": "I will write the PRD.\n```json\n[{\"command_name\": \"Editor.write\"}]\n```"},
                   {"kind": MESSAGE, "text": _PROMPT_ECHO},
                   {"kind": MESSAGE, "text": "The PRD is done.\n```json\n[{\"command_name\": \"Plan.finish\"}]\n```"},
                   {"kind": MESSAGE, "text": _PROMPT_ECHO}])
    assert detect("repeated_action", t) == []


def test_repeated_action_still_fires_on_a_repeated_code_action_beside_a_template() -> None:
    """Only the template block is ignored: the same real command twice is still a repeat."""
    act = "Running it again.\n```bash\npip install widgets-sdk\n```"
    t = run(TASK, [{"kind": MESSAGE, "text": act},
                   {"kind": OBS, "text": "ERROR: No matching distribution found for widgets-sdk", "error": True},
                   {"kind": MESSAGE, "text": act},
                   {"kind": OBS, "text": "ERROR: No matching distribution found for widgets-sdk", "error": True}])
    assert steps_of(detect("repeated_action", t)) == [2]


# ---- failed recovery -------------------------------------------------------------------
def test_failed_recovery_fires_on_unchanged_retry() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "python migrate.py"}},
                   {"kind": OBS, "text": "OperationalError: database is locked", "error": True},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "python migrate.py"},
                    "text": "Retrying."}])
    found = detect("failed_recovery", t)
    assert steps_of(found) == [2]
    assert found[0].score >= 0.8 and found[0].evidence_start == 1


def test_failed_recovery_quiet_when_strategy_changes() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "python migrate.py"}},
                   {"kind": OBS, "text": "OperationalError: database is locked", "error": True},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "fuser db.sqlite && kill 4242"},
                    "text": "The error says the database is locked; find and stop the process holding it."},
                   {"kind": OBS, "text": "killed 4242"}], outcome=Outcome.SUCCESS)
    assert detect("failed_recovery", t) == []


def test_failed_recovery_reads_a_reply_that_takes_up_a_short_error_s_subject() -> None:
    def after(reply: str) -> list[int]:
        t = run(TASK, [{"kind": MESSAGE, "text": "```python\nprint(df['Price'].median())\n```"},
                       {"kind": OBS, "text": "KeyError: 'Price'", "error": True},
                       {"kind": MESSAGE, "text": reply}])
        return steps_of(detect("failed_recovery", t))

    # no word about "error", but it asks for the right name of the price column: it addresses it
    assert after("Please open the data dictionary and tell me the exact name of the price column.") == []
    assert after("Now let us plot the monthly bookings per neighbourhood.") == [2]


def test_failed_recovery_reads_another_action_as_a_change_of_strategy() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "http_get", "args": {"url": "https://api.example/issues?page=3"}},
                   {"kind": OBS, "text": "HTTP/1.1 504 Gateway Timeout", "error": True},
                   {"kind": CALL, "tool": "wait", "args": {"seconds": 300}},
                   {"kind": OBS, "text": "Waited 300 s."}])
    assert detect("failed_recovery", t) == []


def test_failed_recovery_allows_one_unchanged_retry_after_an_infrastructure_failure() -> None:
    call = {"kind": CALL, "tool": "http_get", "args": {"url": "https://api.example/search?q=bug"}}
    timeout = {"kind": OBS, "text": "ReadTimeout: Read timed out. (read timeout=30)", "error": True}
    t = run(TASK, [call, timeout, call, {"kind": OBS, "text": "HTTP/1.1 504 Gateway Timeout", "error": True},
                   call, {"kind": OBS, "text": "[]"}])
    found = detect("failed_recovery", t)
    assert steps_of(found) == [4]  # the second unchanged retry, not the first
    assert "unchanged" in found[0].rationale
    # after an error of the agent's own code, even the first unchanged retry is flagged
    code = {"kind": CALL, "tool": "bash", "args": {"cmd": "python count.py"}}
    t = run(TASK, [code, {"kind": OBS, "text": "TypeError: bad value", "error": True}, code,
                   {"kind": OBS, "text": "ok"}])
    assert steps_of(detect("failed_recovery", t)) == [2]


# ---- error accumulation ----------------------------------------------------------------
def test_error_accumulation_fires_when_errors_pile_up() -> None:
    steps: list[dict[str, Any]] = [{"kind": USER, "text": TASK},
                                   {"kind": CALL, "tool": "bash", "args": {"cmd": "python count.py"}},
                                   {"kind": OBS, "text": "ok 3 components"}]
    for k in range(4):
        steps += [{"kind": CALL, "tool": "bash", "args": {"cmd": f"python fix_{k}.py"}},
                  {"kind": OBS, "text": f"TypeError: bad value {k}", "error": True}]
    found = detect("error_accumulation", run(TASK, steps))
    assert 3 in steps_of(found)  # the decision that produced the first error
    assert all(f.category == "error_accumulation" for f in found)


def test_error_accumulation_blames_the_code_not_a_request_to_run_it() -> None:
    # A team's coordinator asks to run the code between the code and its output (Magentic-One's
    # "Please run the script"): the first error comes from the code.
    steps: list[dict[str, Any]] = [{"kind": USER, "text": TASK},
                                   {"kind": CALL, "tool": "bash", "args": {"cmd": "python count.py"}},
                                   {"kind": MESSAGE, "text": "Please run the script the coder wrote."},
                                   {"kind": OBS, "text": "TypeError: bad value", "error": True}]
    for k in range(3):
        steps += [{"kind": CALL, "tool": "bash", "args": {"cmd": f"python fix_{k}.py"}},
                  {"kind": OBS, "text": f"TypeError: bad value {k}", "error": True}]
    found = [f for f in detect("error_accumulation", run(TASK, steps)) if "first error" in f.rationale]
    assert steps_of(found) == [1]


def test_error_accumulation_quiet_on_clean_run() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "python count.py"}},
                   {"kind": OBS, "text": "table: 4, forms: 2"},
                   {"kind": MESSAGE, "text": "There are 4 table bugs and 2 forms bugs."}], outcome=Outcome.SUCCESS)
    assert detect("error_accumulation", t) == []


def test_error_accumulation_scores_a_reused_value_by_the_values_reused() -> None:
    def reused(values: str, last: str) -> Finding:
        steps = [{"kind": USER, "text": TASK}, {"kind": MESSAGE, "text": f"The counts are {values}."},
                 {"kind": MESSAGE, "text": f"Using {values} we go on."}, {"kind": MESSAGE, "text": f"So: {values}."},
                 {"kind": MESSAGE, "text": last}]
        found = [f for f in detect("error_accumulation", run(TASK, steps)) if "reused" in f.rationale]
        assert steps_of(found) == [1]
        return found[0]

    one = reused("417", "Done.")
    assert one.score == pytest.approx(0.5)
    # more values reused score higher; the numbers of an unrelated later step do not count
    assert reused("417, 238 and 96", "Done.").score == pytest.approx(0.7)
    assert reused("417", "Totals 11, 12, 13, 14, 15, 16.").score == pytest.approx(one.score)


def _assumption_run(outcome: Outcome, revise: bool = False) -> Trajectory:
    steps: list[dict[str, Any]] = [
        {"kind": USER, "text": "Compute the p95 of the rt= field in access.log and compare it with the 800 ms SLO."},
        {"kind": CALL, "tool": "bash", "args": {"cmd": "head -2 access.log"}},
        {"kind": OBS, "text": "POST /api 200 rt=0.412\nPOST /api 200 rt=0.388"},
        {"kind": THOUGHT, "text": "The rt values look like milliseconds, so I'll take them as ms directly."},
        {"kind": CALL, "tool": "bash", "args": {"cmd": "p95 access.log"}},
        {"kind": OBS, "text": "p95 0.934"},
    ]
    if revise:
        steps.append({"kind": THOUGHT, "text": "That was wrong: nginx rt is in seconds, reconsider the units."})
    steps.append({"kind": MESSAGE, "text": "p95 is 0.934 ms, far below the 800 ms SLO."})
    return run(steps[0]["text"], steps, outcome=outcome)


def test_error_accumulation_fires_on_an_assumption_carried_to_the_final_answer() -> None:
    found = [f for f in detect("error_accumulation", _assumption_run(Outcome.FAILURE)) if "assumption" in f.rationale]
    assert steps_of(found) == [3]
    assert "0.934" in found[0].rationale and found[0].evidence_quote


def test_error_accumulation_ignores_assumptions_on_success_or_when_revised() -> None:
    assert not [f for f in detect("error_accumulation", _assumption_run(Outcome.SUCCESS)) if "assumption" in f.rationale]
    assert not [f for f in detect("error_accumulation", _assumption_run(Outcome.FAILURE, revise=True))
                if "assumption" in f.rationale]


# ---- false success ---------------------------------------------------------------------
def _claiming_run(outcome: Outcome) -> Trajectory:
    return run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "pytest -q tests/test_count.py"}},
                      {"kind": OBS, "text": "1 failed, 3 passed", "error": True},
                      {"kind": MESSAGE, "text": "The fix is complete and all tests pass."},
                      {"kind": MESSAGE, "text": "TERMINATE"}], outcome=outcome)


def test_false_success_fires_on_a_failed_run() -> None:
    found = detect("false_success", _claiming_run(Outcome.FAILURE))
    assert steps_of(found) == [2]
    assert found[0].category == "false_success"
    # the failing test run is never repeated: the claim is made over an error the run saw
    assert found[0].rationale.endswith("the run failed; the error at step 1 was never resolved")
    assert (found[0].evidence_start, found[0].evidence_end) == (1, 2)


def test_false_success_without_an_unresolved_error_rests_on_the_outcome_alone() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "pytest -q tests/test_count.py"}},
                   {"kind": OBS, "text": "1 failed, 3 passed", "error": True},
                   {"kind": CALL, "tool": "bash", "args": {"cmd": "pytest -q tests/test_count.py"}},
                   {"kind": OBS, "text": "4 passed"},
                   {"kind": MESSAGE, "text": "The fix is complete and all tests pass."}])
    found = detect("false_success", t)
    assert steps_of(found) == [4]
    assert found[0].rationale == "claims the work is verified or complete, but the run failed"


def test_false_success_without_a_recorded_outcome_does_not_say_the_run_failed() -> None:
    """Without an outcome it fires only after an error output, and says that, not "the run failed"."""
    from analyzer.detection.messages import parse_finding

    found = detect("false_success", _claiming_run(Outcome.UNKNOWN))
    assert steps_of(found) == [2]
    assert "the run failed" not in found[0].rationale and "outcome not recorded" in found[0].rationale
    assert parse_finding(found[0].rationale) is not None
    assert "the run failed" in detect("false_success", _claiming_run(Outcome.FAILURE))[0].rationale


def test_false_success_quiet_on_a_successful_run() -> None:
    assert detect("false_success", _claiming_run(Outcome.SUCCESS)) == []


def test_false_success_ignores_a_heading_and_work_in_progress() -> None:
    # Magentic-One's fact sheet heads every plan with "1. GIVEN OR VERIFIED FACTS": a heading, not a claim
    # and opens it with "We are working to address the following user request": progress, not a claim
    plan = "Initial plan:\n\nWe are working to address the following user request: count the open bugs.\n\n" \
           "1. GIVEN OR VERIFIED FACTS\n- The repository is widgets\n\n2. FACTS TO LOOK UP\n- The issues"
    steps = [{"kind": MESSAGE, "text": plan}, {"kind": CALL, "tool": "bash", "args": {"cmd": "gh issue list"}},
             {"kind": OBS, "text": "12 issues"}, {"kind": MESSAGE, "text": "There are 12 open bugs."}]
    assert detect("false_success", run(TASK, steps)) == []
    for said in ("Once we have verified the count, we can proceed to conclude the task.",
                 "If so, I will validate this as our final answer.",
                 "Please say what tasks have been completed and what is next.",
                 "- Ensure that all calculations are accurate and verified."):
        steps[3]["text"] = said
        assert detect("false_success", run(TASK, steps)) == [], said
    steps[3]["text"] = "The counter is working now."
    assert steps_of(detect("false_success", run(TASK, steps))) == [3]
    steps[3]["text"] = "## RESULT\nI verified the count: 12 open bugs."
    found = detect("false_success", run(TASK, steps))
    assert steps_of(found) == [3] and "verified" in (found[0].evidence_quote or "")


# ---- hallucination ---------------------------------------------------------------------
POP_TASK = "What was the 2020 population difference between Seattle and Colville?"


def test_hallucination_fires_on_numbers_no_observation_supports() -> None:
    t = run(POP_TASK, [{"kind": USER, "text": POP_TASK},
                       {"kind": MESSAGE, "text": "The figures retrieved from the census: Seattle 737,015 and "
                                                 "Colville 4,965, so the difference is 732,050."}])
    found = detect("hallucination", t)
    assert steps_of(found) == [1]


def test_hallucination_fires_on_an_unsupported_test_result() -> None:
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "curl -s localhost:8080/health"}},
                   {"kind": OBS, "text": "curl: (7) Failed to connect", "error": True},
                   {"kind": MESSAGE, "text": "Service fixed: 14 tests passed."}])
    assert steps_of(detect("hallucination", t)) == [2]


def test_hallucination_quiet_on_a_check_only_announced() -> None:
    for said in ("Now let's verify that the updated file works correctly for both inputs:",
                 "I will run the test cases to ensure that the function works as expected.",
                 "Despite multiple attempts, I have not yet succeeded in finding the issue."):
        t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "cat app.py"}},
                       {"kind": OBS, "text": "print(1 / 0)"}, {"kind": MESSAGE, "text": said}])
        assert detect("hallucination", t) == [], said
    t = run(TASK, [{"kind": CALL, "tool": "bash", "args": {"cmd": "cat app.py"}},
                   {"kind": OBS, "text": "print(1 / 0)"},
                   {"kind": MESSAGE, "text": "Let me check the file. It works correctly now."}])
    assert steps_of(detect("hallucination", t)) == [2]  # the second sentence asserts it


def test_hallucination_quiet_on_references_to_the_runs_own_steps() -> None:
    """A memory recap ("Step 12: used the extractor", "Steps 1 to 19") points into the run, it claims nothing."""
    recap = ("<memory>\n- Step 12: Used the URL text extractor on the search page, no useful text.\n"
             "- Steps 13 to 19: Multiple attempts with various tools; observation 14 was empty.\n"
             "- Step 20 and step 21: searched again.\n</memory>")
    t = run(POP_TASK, [{"kind": CALL, "tool": "census", "args": {"city": "Seattle"}},
                       {"kind": OBS, "text": "no results"}, {"kind": MESSAGE, "text": recap}])
    assert detect("hallucination", t) == []
    t = run(POP_TASK, [{"kind": CALL, "tool": "census", "args": {"city": "Seattle"}},
                       {"kind": OBS, "text": "no results"},
                       {"kind": MESSAGE, "text": recap + "\nThe census data retrieved: Seattle 737,015, Colville 4,965."}])
    assert steps_of(detect("hallucination", t)) == [2]  # a real claim in the same step still counts


def test_hallucination_quiet_when_observations_support_the_numbers() -> None:
    t = run(POP_TASK, [{"kind": CALL, "tool": "census", "args": {"city": "Seattle"}},
                       {"kind": OBS, "text": "Seattle: 737,015"},
                       {"kind": CALL, "tool": "census", "args": {"city": "Colville"}},
                       {"kind": OBS, "text": "Colville: 4,965"},
                       {"kind": MESSAGE, "text": "Seattle has 737,015 and Colville 4,965 people."}],
            outcome=Outcome.SUCCESS)
    assert detect("hallucination", t) == []


# ---- goal drift ------------------------------------------------------------------------
def test_goal_drift_fires_on_an_unrequested_irreversible_action() -> None:
    t = run("Swap my keyboard for the tactile version.",
            [{"kind": USER, "text": "Swap my keyboard for the tactile version."},
             {"kind": CALL, "tool": "get_order_details", "args": {"order_id": "#W1"}},
             {"kind": OBS, "text": "{\"status\": \"pending\"}"},
             {"kind": CALL, "tool": "cancel_pending_order", "args": {"order_id": "#W2"}}])
    found = detect("goal_drift", t)
    assert steps_of(found) == [3] and found[0].category == "goal_drift"


def test_goal_drift_fires_on_a_sustained_fall_of_alignment() -> None:
    task = "Summarise quarterly revenue per region from sales.csv into revenue.json"
    on = "Load sales.csv and compute the revenue of each region per quarter."
    off = "Now normalise timestamps and clean date formats in the logging module configuration."
    t = run(task, [{"kind": USER, "text": task}, {"kind": THOUGHT, "text": on}, {"kind": THOUGHT, "text": on},
                   {"kind": THOUGHT, "text": off}, {"kind": THOUGHT, "text": off + " again"},
                   {"kind": THOUGHT, "text": "Refactor logging handlers and rotate timestamps."}])
    found = detect("goal_drift", t)
    assert steps_of(found) == [3]


def test_goal_drift_quiet_when_the_user_asked_for_it() -> None:
    t = run("Cancel my pending order #W2 please.",
            [{"kind": USER, "text": "Cancel my pending order #W2 please."},
             {"kind": CALL, "tool": "cancel_pending_order", "args": {"order_id": "#W2"}},
             {"kind": OBS, "text": "{\"status\": \"cancelled\"}"},
             {"kind": MESSAGE, "text": "Your pending order #W2 is cancelled."}], outcome=Outcome.SUCCESS)
    assert detect("goal_drift", t) == []


# ---- evidence-to-action gap ------------------------------------------------------------
PRICE_TASK = "Compare the current list prices of Orion-2 and Vega-L per 1M input tokens and recommend one."
PAGE = ("Orion Labs API: current list prices per 1M tokens, updated March 2025. Orion-2 input $1.20, output $4.80. "
        "Orion-2 Mini input $0.25. Orion-2 Vision input $2.50, output $10.40. Batch API 50% off.")


def test_evidence_action_gap_fires_when_the_relevant_page_is_ignored() -> None:
    t = run(PRICE_TASK, [{"kind": USER, "text": PRICE_TASK},
                         {"kind": CALL, "tool": "fetch_url", "args": {"url": "https://orion.example/pricing"}},
                         {"kind": OBS, "text": PAGE},
                         {"kind": MESSAGE, "text": "Orion-2 costs $3.00 and Vega-L $2.00 per 1M input tokens; "
                                                   "Vega-L is cheaper."}],
            final_answer="Vega-L is cheaper ($2.00 vs $3.00).")
    found = detect("evidence_action_gap", t)
    assert steps_of(found) == [3]
    assert found[0].evidence_start == 2


def test_evidence_action_gap_quiet_when_the_page_is_used() -> None:
    t = run(PRICE_TASK, [{"kind": USER, "text": PRICE_TASK},
                         {"kind": CALL, "tool": "fetch_url", "args": {"url": "https://orion.example/pricing"}},
                         {"kind": OBS, "text": PAGE},
                         {"kind": MESSAGE, "text": "Orion-2 costs $1.20 (Orion-2 Mini $0.25, Orion-2 Vision $2.50) "
                                                   "and Vega-L $2.00; Orion-2 is cheaper."}],
            outcome=Outcome.SUCCESS, final_answer="Orion-2 at $1.20.")
    assert detect("evidence_action_gap", t) == []


# ---- planning error --------------------------------------------------------------------
def _planning_run(outcome: Outcome) -> Trajectory:
    return run(TASK, [{"kind": USER, "text": TASK},
                      {"kind": THOUGHT, "text": "I will scrape the HTML issue pages with regular expressions."},
                      {"kind": CALL, "tool": "bash", "args": {"cmd": "python scrape.py"}},
                      {"kind": OBS, "text": "AttributeError: 'NoneType' object has no attribute 'text'", "error": True},
                      {"kind": THOUGHT, "text": "Scraping does not work; let's try a different approach instead."}],
               outcome=outcome)


def test_planning_error_fires_on_the_first_committed_approach() -> None:
    found = detect("planning_error", _planning_run(Outcome.FAILURE))
    assert steps_of(found) == [1]


def test_planning_error_blends_the_judge_when_given() -> None:
    class Judge:
        model_id = "fake"

        def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
            return {"planning_error": 1.0}

    plain = detect("planning_error", _planning_run(Outcome.FAILURE))[0].score
    judged = detect("planning_error", _planning_run(Outcome.FAILURE), judge=Judge())[0].score
    assert judged > plain


def test_planning_error_quiet_on_a_successful_run() -> None:
    assert detect("planning_error", _planning_run(Outcome.SUCCESS)) == []


# ---- judge category (decisive phase) ---------------------------------------------------
class CategoryJudge:
    model_id = "fake-judge"

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        return {"hallucination": 0.6, "planning_error": 0.3, "not_a_category": 0.9}


def test_judge_category_classifies_the_decisive_step() -> None:
    t = _planning_run(Outcome.FAILURE)
    det = default_host().load_detector("judge_category")
    assert getattr(det, "phase", None) == "decisive"
    found = detect("judge_category", t, judge=CategoryJudge(), decisive_step=2)
    assert len(found) == 1
    assert found[0].step == 2 and found[0].category == "hallucination" and found[0].score == pytest.approx(0.6)
    assert "fake-judge" in found[0].rationale


def test_judge_category_quiet_without_a_judge() -> None:
    assert detect("judge_category", _planning_run(Outcome.FAILURE), decisive_step=2) == []
