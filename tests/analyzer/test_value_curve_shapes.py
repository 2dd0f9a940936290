"""The evidence value curve on planted shapes: the bare filter and ``analyze_run`` end to end.

Shapes (issue 9, item 4): a sudden failure at step k, a slow decline, a recovery after an error,
a run without evidence of failure, and a 5,000-step run whose errors start at step 2,500.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from analyzer.attribution import Ranker
from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, CurveParams
from analyzer.attribution.hazards import StepEvidence, step_evidence
from analyzer.attribution.value_curve import (
    EVIDENCE_ESTIMATOR,
    ValueCurve,
    drop_note,
    filter_on_track,
    stationary,
    value_curve,
)
from analyzer.pipeline import analyze_run
from analyzer.plugin_host.registry import PluginHost, default_host
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

PRIOR = 0.9
HAND = CurveParams.packaged(HANDSET_PARAMS_FILE)
"""The shapes are planted for the hand-set weights (issue 9): these tests pin the filter's behaviour
with them, whatever the fit ships (``docs/value_curve.md``)."""
ERROR_OUTPUT = HAND.weights["error_output"]
FAILED_END = HAND.failed_end


@pytest.fixture(autouse=True)
def _hand_set_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    for mod in ("analyzer.attribution.hazards", "analyzer.attribution.value_curve"):
        monkeypatch.setattr(importlib.import_module(mod), "shipped_curve_params", lambda: HAND)
TASK = "Fix the failing parser test in the csv module and make the parser tests pass."


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return default_host()


@pytest.fixture(scope="module")
def ranker() -> Ranker:
    return Ranker.load()


# --- building planted runs -------------------------------------------------------------------

class _Run:
    """Appends agent steps (tool call + observation pairs) to a run under construction."""

    def __init__(self, task: str = TASK) -> None:
        self.task = task
        self.steps: list[Step] = [Step(index=0, role=Role.USER, kind=StepKind.USER, text=task)]

    def call(self, cmd: str, text: str = "", tool: str = "bash") -> int:
        self.steps.append(Step(index=len(self.steps), agent="coder", kind=StepKind.TOOL_CALL, tool_name=tool,
                               tool_args=json.dumps({"cmd": cmd}), text=text))
        return len(self.steps) - 1

    def obs(self, text: str, error: bool = False) -> int:
        self.steps.append(Step(index=len(self.steps), agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                               text=text, is_error=error))
        return len(self.steps) - 1

    def say(self, text: str) -> int:
        self.steps.append(Step(index=len(self.steps), agent="coder", kind=StepKind.MESSAGE, text=text))
        return len(self.steps) - 1

    def work(self, k: int) -> None:
        """One healthy exploration pair: a distinct command and a clean, task-related output."""
        self.call(f"sed -n {k * 10},{k * 10 + 9}p csv/parser_{k}.py",
                  f"Reading part {k} of the csv parser module to find the failing parser test.")
        self.obs(f"csv parser module part {k}: def parse_row_{k}(line): return line.split(',') # parser test helper {k}")

    def run(self, outcome: Outcome, rid: str = "planted") -> Trajectory:
        return Trajectory(id=rid, task=self.task, outcome=outcome, steps=self.steps)


def _e2e(t: Trajectory, host: PluginHost, ranker: Ranker) -> tuple[dict[str, object], list[float], list[float]]:
    ra = analyze_run(t, host=host, ranker=ranker)
    assert ra.run["value_estimator"] == EVIDENCE_ESTIMATOR
    values = [float(r["value"]) for r in ra.steps]  # type: ignore[arg-type]
    drops = [float(r["drop"]) for r in ra.steps]  # type: ignore[arg-type]
    assert all(0.0 <= v <= 1.0 for v in values) and all(d >= 0.0 for d in drops)
    return ra.run, values, drops


def _ev(llr: list[float]) -> StepEvidence:
    return StepEvidence(np.asarray(llr, dtype=np.float64), {}, [""] * len(llr))


def _sudden(k_pairs: int = 6, after: int = 5) -> tuple[Trajectory, int]:
    r = _Run()
    for k in range(k_pairs):
        r.work(k)
    r.call("pytest tests/test_parser.py -q", "Running the parser tests.")
    k = r.obs("Traceback (most recent call last):\n  File \"csv/parser.py\", line 41\nKeyError: 'header'", error=True)
    for j in range(after):
        r.say(f"The header handling is broken; I will rewrite the reader loop, attempt {j}.")
    r.say("I could not get it working.")
    return r.run(Outcome.FAILURE, "sudden"), k


# --- (a) a sudden failure at step k ----------------------------------------------------------

def test_sudden_failure_bare_filter() -> None:
    llr = [0.0] * 40
    llr[17] = ERROR_OUTPUT
    for outcome in (None, "failure"):
        c = value_curve(_ev(llr), PRIOR, outcome=outcome)
        assert c.largest_drop_step == 17
        assert c.values[:17] == [PRIOR] * 17  # flat before the evidence
        assert c.values[-1] < PRIOR - 0.2
    assert value_curve(_ev(llr), PRIOR, outcome="failure").values[-1] <= PRIOR * FAILED_END / stationary() + 1e-6


def test_sudden_failure_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    t, k = _sudden()
    run, values, _drops = _e2e(t, host, ranker)
    assert run["largest_drop_step"] is not None and abs(int(run["largest_drop_step"]) - k) <= 1  # type: ignore[call-overload]
    assert max(values[:k]) - min(values[:k]) < 0.1  # no earlier cliff
    assert values[-1] < 0.1  # the run failed
    ds = run["decisive_step"]
    assert (run["drop_note"] is None) == (abs(int(run["largest_drop_step"]) - int(ds)) <= 1)  # type: ignore[call-overload]


# --- (b) a slow decline ----------------------------------------------------------------------

def _assert_slow(values: list[float], drops: list[float], start: int) -> None:
    fall = values[start] - values[-1]
    assert fall > 0.4, fall
    assert max(drops) < 0.25 * fall, (max(drops), fall)  # no single cliff
    rises = sum(max(0.0, b - a) for a, b in zip(values[start:], values[start + 1:], strict=False))
    assert rises < 0.05 * fall  # monotone-ish


def test_slow_decline_bare_filter() -> None:
    llr = [0.0] * 10 + [0.02 * k for k in range(60)]  # evidence growing gradually
    c = value_curve(_ev(llr), PRIOR)
    _assert_slow(c.values, c.drops, 0)


def test_slow_decline_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    # healthy work, then the decisions drift away from the task word by word
    r = _Run()
    for k in range(6):
        r.work(k)
    side = ["weather", "forecast", "holiday", "travel", "museum", "recipes", "football", "poetry"]
    for k in range(36):
        keep = max(0, 6 - k // 3)
        words = ["csv", "parser", "test", "module", "failing", "pass"][:keep] + side[: min(len(side), 2 + k // 3)]
        r.say(f"Thinking about {' '.join(words)} now, option {k}.")
    _run, values, drops = _e2e(r.run(Outcome.UNKNOWN, "slow"), host, ranker)
    _assert_slow(values, drops, 12)


# --- (c) a recovery after an error -----------------------------------------------------------

def test_recovery_bare_filter() -> None:
    llr = [0.0] * 30
    llr[10] = ERROR_OUTPUT
    llr[12] = -2.0  # the retried action succeeds
    c = value_curve(_ev(llr), PRIOR)
    assert c.largest_drop_step == 10
    assert c.values[12] > c.values[10] + 0.15
    assert c.values[-1] > 0.8 * PRIOR


def _recovering() -> tuple[Trajectory, int, int]:
    r = _Run()
    for k in range(5):
        r.work(k)
    r.call("pytest tests/test_parser.py -q", "Running the parser tests.")
    err = r.obs("Traceback (most recent call last):\n  File \"csv/parser.py\", line 41\nKeyError: 'header'", error=True)
    r.call("sed -i 's/row\\[\"header\"\\]/row.get(\"header\")/' csv/parser.py",
           "The KeyError comes from the missing header key; use .get for the header in the csv parser.")
    r.obs("")
    r.call("pytest tests/test_parser.py -q", "Re-running the parser tests after the fix.")
    ok = r.obs("============ 14 passed in 0.31s ============")
    for k in range(5, 8):
        r.work(k)
    return r.run(Outcome.SUCCESS, "recovery"), err, ok


def test_recovery_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    t, err, ok = _recovering()
    run, values, _ = _e2e(t, host, ranker)
    assert run["largest_drop_step"] == err
    assert values[err] < PRIOR - 0.15
    assert values[ok] > values[err] + 0.15  # the curve comes back up
    assert values[-1] > 0.8 * PRIOR
    assert run["decisive_step"] is None and run["drop_note"] is None  # a successful run has no decisive step


def test_recovery_in_a_failed_run_still_comes_back_up(host: PluginHost, ranker: Ranker) -> None:
    t, err, ok = _recovering()
    t = t.model_copy(update={"id": "recovery-failed", "outcome": Outcome.FAILURE})
    _run, values, _ = _e2e(t, host, ranker)
    assert values[ok] > values[err]
    assert values[-1] < 0.1


# --- (d) no evidence of failure: a flat curve ------------------------------------------------

def test_flat_bare_filter() -> None:
    c = value_curve(_ev([0.0] * 25), PRIOR)
    assert c.values == [PRIOR] * 25 and c.largest_drop_step is None and max(c.drops) == 0.0


def test_flat_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    r = _Run()
    for k in range(12):
        r.work(k)
    r.call("pytest tests/test_parser.py -q", "Running the parser tests.")
    r.obs("============ 14 passed in 0.31s ============")
    run, values, drops = _e2e(r.run(Outcome.SUCCESS, "flat"), host, ranker)
    assert values == pytest.approx([PRIOR] * len(values), abs=1e-6)
    assert max(drops) == 0.0 and run["largest_drop_step"] is None and run["drop_note"] is None


# --- (e) 5,000 steps, errors from step 2,500 ---------------------------------------------------

def _long(n: int = 5000, start: int = 2500) -> Trajectory:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text=TASK)]
    while len(steps) < n:
        i = len(steps)
        if i % 2 == 1:
            steps.append(Step(index=i, agent="coder", kind=StepKind.TOOL_CALL, tool_name="bash",
                              tool_args=json.dumps({"cmd": f"python csv/check_{i}.py"}),
                              text=f"Checking parser case {i} of the csv module."))
        elif i < start:
            steps.append(Step(index=i, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                              text=f"parser case {i - 1}: ok"))
        else:
            steps.append(Step(index=i, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, is_error=True,
                              text=f"Traceback (most recent call last):\nValueError: bad row {i}"))
    return Trajectory(id="long", task=TASK, outcome=Outcome.FAILURE, steps=steps)


def test_long_run_bare_filter() -> None:
    t = _long()
    c = value_curve(step_evidence(t), PRIOR, outcome="failure")
    at = c.largest_drop_step
    assert at is not None and abs(at - 2500) <= 50
    assert c.values[2400] == pytest.approx(PRIOR, abs=1e-6) and c.values[-1] < 0.1


def test_long_run_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    run, values, _ = _e2e(_long(), host, ranker)
    assert run["largest_drop_step"] is not None and abs(int(run["largest_drop_step"]) - 2500) <= 50  # type: ignore[call-overload]
    assert values[2400] > 0.8 and values[-1] < 0.1


# --- the outcome, the judge, the note --------------------------------------------------------

def test_failed_run_without_evidence_closes_at_the_end_and_says_so() -> None:
    c = value_curve(StepEvidence(np.zeros(12), {}, [""] * 12), PRIOR, outcome="failure")
    assert c.largest_drop_step == 11 and c.outcome_step == 11 and c.values[:11] == [PRIOR] * 11
    note = drop_note(c, 4)
    assert note is not None and "last step 11" in note and "recorded failure" in note
    assert drop_note(c, 10) is None and drop_note(c, None) is None


def test_weak_evidence_of_a_failed_run_is_where_the_value_falls() -> None:
    llr = [0.0] * 30
    llr[8] = 0.6  # one weak finding, then nothing: the outcome sharpens it, not the end
    c = value_curve(_ev(llr), PRIOR, outcome="failure")
    assert c.largest_drop_step == 8 and c.temper > 1 and c.outcome_step is None


def test_drop_note_explains_the_disagreement() -> None:
    llr = [0.0] * 20
    llr[14] = ERROR_OUTPUT
    reasons = [""] * 20
    reasons[14] = "an error output"
    c = value_curve(StepEvidence(np.asarray(llr), {}, reasons), PRIOR, outcome="failure")
    assert drop_note(c, 14) is None and drop_note(c, 13) is None
    note = drop_note(c, 12)
    assert note == ("the value falls most at step 14 (an error output), after the decisive decision at step 12; "
                    "step 12 itself shows no evidence the value curve reads")
    assert "before the decisive decision at step 18" in str(drop_note(c, 18))
    flat = value_curve(_ev([0.0] * 5), PRIOR)
    assert "never falls" in str(drop_note(flat, 2))


def test_judge_values_are_evidence_both_ways() -> None:
    t, _ = _sudden()
    n = len(t.steps)
    judge = [0.8] * 5 + [0.2] * 5 + [0.8] * (n - 10)
    plain = step_evidence(t)
    with_j = step_evidence(t, judge_values=judge)
    diff = with_j.llr - plain.llr
    assert diff[5] > 0 and diff[10] < 0 and diff[:5].tolist() == [0.0] * 5
    assert with_j.reasons[5] == "the judge's value falls"


def test_findings_add_evidence_on_their_step_and_ignore_the_ranker() -> None:
    t, _ = _sudden()
    f = Finding(trace_id=t.id, step=3, category="hallucination", score=0.8)
    ev = step_evidence(t, [f])
    assert ev.llr[3] == pytest.approx(3.0 * 0.8) and ev.reasons[3] == "a finding: hallucination"
    assert ev.llr[2] == 0.0


def test_filter_is_deterministic_and_linear_in_shape() -> None:
    rng = np.random.default_rng(0)
    llr = rng.normal(0, 1, 3000)
    a, b = filter_on_track(llr), filter_on_track(llr.copy())
    assert a.shape == (3000,) and np.array_equal(a, b)
    assert ((a > 0) & (a < 1)).all()
    assert isinstance(value_curve(_ev([]), PRIOR), ValueCurve)


def test_a_successful_run_comes_back_up_at_its_recovery_or_at_the_end() -> None:
    llr = [0.0] * 20
    llr[5] = ERROR_OUTPUT + 2.0
    llr[9] = -1.0  # weak recovery evidence: the outcome sharpens it
    c = value_curve(_ev(llr), PRIOR, outcome="success")
    assert c.largest_drop_step == 5 and c.temper > 1 and c.outcome_step is None
    assert c.values[9] > 0.8 * PRIOR and c.values[-1] == pytest.approx(c.values[9], abs=0.01)
    llr[9] = 0.0  # no recovery evidence: the recorded success lifts the last step
    c = value_curve(_ev(llr), PRIOR, outcome="success")
    assert c.outcome_step == 19 and c.values[18] < 0.5 * PRIOR and c.values[-1] > 0.8 * PRIOR
    assert c.reasons[-1] == "the run's recorded success"
    unknown = value_curve(_ev(llr), PRIOR, outcome="unknown")
    assert unknown.values[-1] < 0.5 * PRIOR and unknown.temper == 1.0 and unknown.outcome_step is None


class _CurveJudge:
    """A judge whose value curve falls at one step; it classifies everything as goal drift."""

    model_id = "curve-judge@1"

    def __init__(self, fall_at: int) -> None:
        self.fall_at = fall_at

    def candidate_scores(self, trajectory: Trajectory, steps: list[int]) -> dict[int, float]:
        return {s: 1.0 / len(steps) for s in steps}

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        return {"goal_drift": 1.0}

    def value_curve(self, trajectory: Trajectory, progress: object = None, cancel: object = None) -> object:
        from analyzer.judge.base import ValueCurve as JudgeCurve

        n = len(trajectory.steps)
        return JudgeCurve(values=[0.85 if i < self.fall_at else 0.1 for i in range(n)], prior=0.85,
                          model_id=self.model_id)


def test_the_judges_curve_is_evidence_end_to_end(host: PluginHost, ranker: Ranker) -> None:
    from analyzer.pipeline import AnalyzeOptions, _JudgeState

    r = _Run()
    for k in range(14):
        r.work(k)
    t = r.run(Outcome.FAILURE, "judged")  # no error, no failure finding: only the judge sees it
    plain, _, _ = _e2e(t, host, ranker)
    ra = analyze_run(t, host=host, ranker=ranker, judge=_JudgeState(_CurveJudge(9)),
                     options=AnalyzeOptions(judge_curve=True, judge_classify="never"))
    assert ra.run["largest_drop_step"] == 9 and ra.run["judge_model"] == "curve-judge@1"
    assert plain["largest_drop_step"] != 9
    assert [row["judge_value"] for row in ra.steps][8:10] == [0.85, 0.1]


def test_nan_evidence_says_nothing() -> None:
    t, k = _sudden()
    align = [float("nan")] * len(t.steps)
    judge = [float("nan")] * len(t.steps)
    ev = step_evidence(t, alignment=align, judge_values=judge)
    assert np.isfinite(ev.llr).all()
    assert value_curve(ev, PRIOR, outcome="failure").largest_drop_step == k
    assert np.isfinite(filter_on_track([float("nan"), 3.0])).all()
