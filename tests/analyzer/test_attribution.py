"""Features, the fitted ranker, judge combination, cheap value curve and the fit itself."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analyzer.attribution import (
    FEATURE_NAMES,
    PARAMS_VERSION,
    Ranker,
    RankerParams,
    attribute,
    choose_category,
    combine_with_judge,
    step_evidence,
    step_features,
    value_curve,
)
from analyzer.attribution.attribute import actor_share, agent_mass, first_runner
from analyzer.attribution.ranker import (
    evidence_weight_for,
)
from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.evaluation.fit import (
    AGENT_TEMPERATURES,
    TrainingRun,
    choose_agent_temperature,
    choose_judge_weight,
    cv_scores,
    fit_clogit,
    nested_cv,
    to_params,
)
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

COL = {n: k for k, n in enumerate(FEATURE_NAMES)}


def _run(n_pairs: int = 3, gold: dict[str, object] | None = None) -> Trajectory:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="Count open bugs per component.")]
    for k in range(n_pairs):
        steps.append(Step(index=len(steps), agent=f"agent{k % 2}", kind=StepKind.TOOL_CALL, tool_name="bash",
                          tool_args=json.dumps({"cmd": f"python step{k}.py"}),
                          text="Let's assume the sample data has 42 rows." if k == 1 else ""))
        steps.append(Step(index=len(steps), agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION,
                          text="Traceback: boom" if k == 1 else "ok", is_error=k == 1))
    return Trajectory(id="r1", task="Count open bugs per component.", outcome=Outcome.FAILURE, steps=steps,
                      **(gold or {}))


def test_features_shape_and_meaning() -> None:
    t = _run()
    f = Finding(trace_id="r1", step=3, category="hallucination", score=0.8)
    x = step_features(t, [f])
    assert x.shape == (len(t.steps), len(FEATURE_NAMES))
    assert x[0, COL["input"]] == 1 and x[1, COL["decision"]] == 1 and x[2, COL["observation"]] == 1
    assert x[3, COL["next_obs_error"]] == 1 and x[3, COL["assume"]] == 1
    assert x[3, COL["first_error_source"]] == 1
    assert x[3, COL["finding_max"]] == pytest.approx(0.8) and x[3, COL["evidence"]] == pytest.approx(0.8)
    assert x[2, COL["finding_near"]] == pytest.approx(0.8)
    assert np.isfinite(x).all()


def test_features_never_read_gold_labels() -> None:
    a = step_features(_run())
    b = step_features(_run(gold={"gold_decisive_step": 3, "gold_decisive_agent": "agent1",
                                 "gold_reason": "assumed data", "ground_truth": "42"}))
    assert np.array_equal(a, b)


def test_shipped_params_load_and_rank() -> None:
    r = Ranker.load()
    assert r.params.version == PARAMS_VERSION
    assert set(r.params.features) == set(FEATURE_NAMES)
    assert r.params.meta["trained_sets"] == sorted(["who-and-when", "tracertraj-code", "agenterrorbench-gaia",
                                                    "trail-gaia", "trail-swe"])
    assert r.params.meta["n_runs"] == 126 + 127 + 48 + 110 + 25
    # only the columns of the feature set the selection chose carry weight in the shipped params
    from analyzer.evaluation.selection import FEATURE_SETS

    chosen = r.params.meta["selection"]["step"]["features"]
    used = {f for f, w in zip(r.params.features, r.params.weights, strict=True) if w}
    assert used and used <= set(FEATURE_SETS[chosen])
    x = step_features(_run())
    logits = r.logits(x)
    assert logits.shape == (x.shape[0],) and np.isfinite(logits).all()


def test_ranker_clips_to_the_training_range() -> None:
    r = Ranker.load()
    x = step_features(_run(40))
    far = x.copy()
    far[:, COL["log_pos"]] += 50.0
    far[:, COL["decision_ordinal_log"]] += 50.0
    assert np.isfinite(r.logits(far)).all()
    assert np.abs(r.logits(far)).max() < 100


def test_params_round_trip_and_bad_file(tmp_path: object) -> None:
    p = Ranker.load().params
    again = RankerParams.from_json(json.loads(json.dumps(p.to_json())))
    assert again.weights == p.weights and again.evidence_weight == p.evidence_weight
    assert again == p
    # every tunable is the one the fit command's selection chose, recorded with it
    chosen = p.meta["selection"]
    assert (p.actor_weight, p.first_runner_weight) == (chosen["agent"]["actor_weight"],
                                                       chosen["agent"]["first_runner_weight"])
    assert p.calibration_temperature == chosen["calibration_temperature"]
    assert p.evidence_classes == {k: chosen["step"][k] for k in ("repeat", "off_kind", "symptom")}
    assert (p.evidence_weight, p.evidence_weight_grounded) == (chosen["step"]["evidence_weight"],
                                                               chosen["step"]["evidence_grounded"])
    older = {k: v for k, v in p.to_json().items() if k != "first_runner_weight"}  # params written before it
    assert RankerParams.from_json(older).first_runner_weight == 0.0
    with pytest.raises(ValueError, match="bad ranker params"):
        RankerParams.from_json({"version": "x", "features": ["a"], "mean": [], "scale": [1], "weights": [1]})
    with pytest.raises(ValueError, match="bad ranker params"):
        RankerParams.from_json({"features": []})


def test_evidence_weight_grows_beyond_training_lengths() -> None:
    assert evidence_weight_for(5, 1.0, 3.0, 10) == 1.0
    assert evidence_weight_for(10, 1.0, 3.0, 10) == 1.0
    assert 1.0 < evidence_weight_for(17, 1.0, 3.0, 10) < 3.0
    assert evidence_weight_for(300, 1.0, 3.0, 10) == 3.0


def test_reported_probabilities_use_the_fitted_calibration_temperature() -> None:
    from dataclasses import replace

    ranker = Ranker.load()
    x = step_features(_run())
    assert ranker.confidence_temperature(x) == ranker.params.calibration_temperature > 0
    warm = Ranker(replace(ranker.params, calibration_temperature=3.0))
    assert warm.confidence_temperature(x, warm.logits(x)) == 3.0
    assert Ranker(replace(ranker.params, calibration_temperature=0.0)).confidence_temperature(x) == 1.0


def test_the_temperature_changes_the_probabilities_not_the_answer() -> None:
    t = _run()
    logits = np.array([0.0, 1.0, -1.0, 6.0, -2.0, 0.5, -1.0])
    plain = attribute(t, logits, features=step_features(t))
    cooled = attribute(t, logits, features=step_features(t), temperature=8.0)
    assert [c.step for c in cooled.candidates] == [c.step for c in plain.candidates]
    assert (cooled.decisive_step, cooled.decisive_agent, cooled.category) == (
        plain.decisive_step, plain.decisive_agent, plain.category)
    assert plain.confidence is not None and cooled.confidence is not None
    assert cooled.confidence < plain.confidence
    assert cooled.probs.sum() == pytest.approx(1.0)
    assert f"p={cooled.confidence:.2f}" in cooled.rationale


def test_attribute_returns_a_ranked_list_for_a_failed_run() -> None:
    t = _run()
    logits = np.array([0.0, 1.0, -1.0, 3.0, -2.0, 0.5, -1.0])
    att = attribute(t, logits, features=step_features(t))
    assert [c.step for c in att.candidates][:3] == [3, 1, 5]
    assert sorted(c.step for c in att.candidates) == list(range(len(t.steps)))
    assert att.decisive_step == 3 and att.decisive_agent == "agent1"
    assert att.probs.sum() == pytest.approx(1.0)
    assert att.confidence == pytest.approx(att.candidates[0].probability, abs=1e-4)
    assert att.category == "hallucination"  # assumed data at the step
    assert "step 3" in att.rationale


def test_judge_reranks_only_its_candidates() -> None:
    logits = np.array([2.0, 1.9, 0.0, -1.0])
    out = combine_with_judge(logits, {0: 0.1, 1: 0.9}, weight=1.0)
    assert out[1] > out[0]
    assert out[2] == 0.0 and out[3] == -1.0
    assert np.array_equal(combine_with_judge(logits, {0: 0.1, 1: 0.9}, weight=0.0), logits)


def test_category_from_findings_and_judge() -> None:
    t = _run()
    fs = [Finding(trace_id="r1", step=3, category="failed_recovery", score=0.5),
          Finding(trace_id="r1", step=4, category="environment_failure", score=0.9)]
    assert choose_category(t, 3, fs)[0] == "environment_failure"  # 0.6 * 0.9 beats 0.5
    assert choose_category(t, 3, fs[:1])[0] == "failed_recovery"
    assert choose_category(t, 3, fs[:1], judge_dist={"goal_drift": 0.9})[0] == "goal_drift"
    assert choose_category(t, 5, [], features=step_features(t))[0] in {"other", "planning_error", "false_success"}


def test_value_curve_falls_at_the_error_not_at_the_ranker_top() -> None:
    from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, CurveParams

    # weights that give an error output evidence (the shipped, fitted ones may not: docs/value_curve.md)
    hand = CurveParams.packaged(HANDSET_PARAMS_FILE)
    t = _run()  # the error output is step 4; the ranker is never consulted
    c = value_curve(step_evidence(t, params=hand), prior=0.9, outcome="failure", params=hand)
    assert len(c.values) == len(t.steps) and c.prior == 0.9
    assert c.largest_drop_step == 4 and c.values[:4] == [0.9] * 4
    assert c.values[-1] < 0.1
    unknown = value_curve(step_evidence(t, params=hand), prior=0.9, params=hand)
    assert unknown.largest_drop_step == 4 and unknown.values[-1] > c.values[-1]


def test_value_curve_of_a_clean_run_is_flat() -> None:
    t = _run().model_copy(update={"outcome": Outcome.SUCCESS})
    for s in t.steps:
        s.is_error, s.text = False, ("ok" if s.kind == StepKind.OBSERVATION else s.text)
    c = value_curve(step_evidence(t), prior=0.9)
    assert c.values == [0.9] * len(t.steps) and c.largest_drop_step is None


def _synthetic_runs(n: int, seed: int = 0) -> list[TrainingRun]:
    """Runs whose gold step is the one with the 'assume' cue (plus noise in other features)."""
    rng = np.random.default_rng(seed)
    runs = []
    for i in range(n):
        k = int(rng.integers(4, 9))
        x = rng.normal(0, 0.3, size=(k, len(FEATURE_NAMES)))
        x[:, COL["evidence"]] = 0.0
        g = int(rng.integers(0, k))
        x[:, COL["assume"]] = 0.0
        x[g, COL["assume"]] = 1.0
        runs.append(TrainingRun(f"t{i}", f"{i}.json", x, [f"a{j % 3}" for j in range(k)], g, f"a{g % 3}"))
    return runs


def test_fit_recovers_a_planted_signal_with_cross_validation() -> None:
    runs = _synthetic_runs(40)
    fitted = fit_clogit(runs, l2=1.0)
    assert fitted.weights[COL["assume"]] == max(fitted.weights)
    assert fitted.weights[COL["evidence"]] == 0.0  # prior features are never fitted
    cv = nested_cv(runs, folds=4)
    assert len(cv.l2) == 4 and len(cv.temperature) == len(runs)
    s = cv_scores(runs, cv.logits, cv.temperature)
    assert s.metrics["step@1"].p > 0.9 and s.metrics["agent@1"].p > 0.9
    params = to_params(fitted, meta={"x": 1})
    r = Ranker(params)
    assert int(np.argmax(r.logits(runs[0].features))) == runs[0].gold_step


def test_judge_weight_zero_when_the_judge_is_noise() -> None:
    runs = _synthetic_runs(30, seed=1)
    fitted = fit_clogit(runs, l2=1.0)
    held = [fitted.logits(r.features) for r in runs]
    noise = [{int(k): 0.9 if k != r.gold_step else 0.1 for k in np.argsort(-s)[:3]} for r, s in zip(runs, held, strict=True)]
    w, combined = choose_judge_weight(runs, held, noise, folds=3)
    assert w == 0.0
    assert len(combined) == len(runs)


def test_agent_mass_sums_each_agents_probability() -> None:
    logits = np.log(np.array([0.4, 0.35, 0.25]))
    mass = agent_mass(["a", "b", "b"], logits, 1.0)
    assert list(mass) == ["b", "a"]
    assert mass["b"] == pytest.approx(0.6) and mass["a"] == pytest.approx(0.4)
    assert agent_mass(["a", "b", "b"], logits, 0.0) == {"a": 1.0}  # temperature 0: agent of the top step
    assert agent_mass([], np.zeros(0), 1.0) == {}


def test_attribution_names_the_agent_holding_most_of_the_mass() -> None:
    t = Trajectory(id="m", task="t", steps=[
        Step(index=0, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Planner", text="plan"),
        Step(index=1, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Coder", text="code"),
        Step(index=2, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Coder", text="more code"),
    ])
    logits = np.log(np.array([0.4, 0.35, 0.25]))
    plain = attribute(t, logits)
    assert plain.decisive_step == 0 and plain.decisive_agent == "Planner"
    spread = attribute(t, logits, agent_temperature=1.0)
    assert spread.decisive_step == 0 and spread.decisive_agent == "Coder"
    assert "responsible agent Coder" in spread.rationale
    assert spread.agent_share["Coder"] == pytest.approx(0.6)


def test_actor_weight_names_the_agent_that_made_most_of_the_actions() -> None:
    code = "```python\nprint(1)\n```"
    t = Trajectory(id="m", task="t", steps=[
        Step(index=0, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Planner", text="plan: check the data"),
        Step(index=1, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Coder", text=f"run {code}"),
        Step(index=2, kind=StepKind.OBSERVATION, role=Role.TOOL, agent="terminal", text="1"),
        Step(index=3, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Coder", text=f"again {code}"),
        Step(index=4, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Planner", text=f"one {code}"),
    ])
    assert actor_share(t.steps) == pytest.approx({"Coder": 2 / 3, "Planner": 1 / 3})  # tool output never acts
    logits = np.log(np.array([0.5, 0.2, 0.1, 0.1, 0.1]))
    assert attribute(t, logits).decisive_agent == "Planner"  # weight 0: the agent of the top step
    # the gap in action share is 1/3: a weight of 3 or less keeps the top step's agent, more names the actor
    assert attribute(t, logits, actor_weight=2.0).decisive_agent == "Planner"
    named = attribute(t, logits, actor_weight=8.0)
    assert named.decisive_step == 0 and named.decisive_agent == "Coder"
    assert "responsible agent Coder, which made 67% of the run's actions" in named.rationale
    no_actions = Trajectory(id="n", task="t", steps=[
        Step(index=0, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="A", text="hello"),
        Step(index=1, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="B", text="hi")])
    assert actor_share(no_actions.steps) == {}
    assert attribute(no_actions, np.array([0.0, 1.0]), actor_weight=8.0).decisive_agent == "B"
    # a tie in the mass goes to the top step's agent, and without an actor weight that is never "its actions"
    tied = Trajectory(id="t", task="t", steps=[
        Step(index=0, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="A", text="a"),
        Step(index=1, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="B", text=f"b {code}"),
        Step(index=2, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="A", text="a")])
    att = attribute(tied, np.log(np.array([0.25, 0.5, 0.25])), agent_temperature=1.0)
    assert att.agent_share["A"] == pytest.approx(att.agent_share["B"])
    assert att.decisive_agent == "B" and "actions" not in att.rationale


def test_first_runner_weight_names_the_agent_that_first_runs_code() -> None:
    code = "```python\nprint(1)\n```"
    lead = ('Route it:\n```json\n[{"command_name": "Plan.append_task", "args": {"assignee": "Coder"}}]\n```\n'
            "Terminal output: [command]: pwd")
    t = Trajectory(id="f", task="t", steps=[
        Step(index=0, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Lead", text=lead),
        Step(index=1, kind=StepKind.TOOL_CALL, role=Role.ASSISTANT, agent="Lead", tool_name="transfer_to_coder"),
        Step(index=2, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Coder", text=f"my script {code}"),
        Step(index=3, kind=StepKind.OBSERVATION, role=Role.TOOL, agent="terminal", text="1"),
        Step(index=4, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Checker", text=f"check {code}"),
        Step(index=5, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent="Checker", text="looks right"),
    ])
    # a JSON command block and a handoff route the work; the Coder's script is the first run
    assert first_runner(t.steps) == ("Coder", 2)
    logits = np.log(np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5]))
    assert attribute(t, logits).decisive_agent == "Checker"  # weight 0: the agent of the top step
    named = attribute(t, logits, first_runner_weight=2.0)
    assert named.decisive_step == 5 and named.decisive_agent == "Coder"
    assert "responsible agent Coder, the first to run code (step 2)" in named.rationale
    assert 2 in named.explanation.steps()  # the step reference is a link like the others
    # with the actor weight, an agent that made clearly more of the actions (> 1/8) still wins
    t2 = Trajectory(id="g", task="t", steps=[*t.steps[:5], Step(index=5, kind=StepKind.MESSAGE, role=Role.ASSISTANT,
                                                               agent="Checker", text=f"again {code}")])
    assert attribute(t2, logits, actor_weight=8.0, first_runner_weight=2.0).decisive_agent == "Checker"
    assert first_runner([Step(index=0, kind=StepKind.MESSAGE, agent="A", text="no code")]) is None


def test_agent_temperature_is_chosen_by_cross_validation() -> None:
    runs = _synthetic_runs(40)
    t = choose_agent_temperature(runs, l2=1.0, folds=4)
    assert t in AGENT_TEMPERATURES


def test_top_actor_first_turn_is_set_only_when_several_agents_decide() -> None:
    from analyzer.attribution.features import role_features

    def run(agents: list[str]) -> Trajectory:
        steps = [Step(index=i, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent=a,
                      text=f"step {i}\n```python\nprint({i})\n```" if a == "Coder" else f"I will check item {i}.")
                 for i, a in enumerate(agents)]
        return Trajectory(id="r", task="Fix the parser.", outcome=Outcome.FAILURE, steps=steps)

    several = role_features(run(["Planner", "Coder", "Planner", "Coder"]))
    assert list(several["top_actor_first_turn"]) == [0.0, 1.0, 0.0, 0.0]  # the acting agent's first decision
    assert list(several["top_actor_second_turn"]) == [0.0, 0.0, 0.0, 1.0]
    alone = role_features(run(["Coder", "Coder", "Coder"]))
    assert not alone["top_actor_first_turn"].any()  # one agent: its first turn is just the first decision
    assert list(alone["top_actor_second_turn"]) == [0.0, 1.0, 0.0]


def test_one_agents_channels_are_one_agent_in_role_inference() -> None:
    from analyzer.attribution.features import role_features

    code = "```python\nprint(1)\n```"
    names = ["Orchestrator (thought)", "Orchestrator (-> Coder)", "Coder", "Orchestrator (thought)",
             "Orchestrator (-> Coder)", "Coder (2)"]
    steps = [Step(index=i, kind=StepKind.MESSAGE, role=Role.ASSISTANT, agent=a,
                  text=f"try {code}" if a.startswith("Orchestrator") else "I ran it.")
             for i, a in enumerate(names)]
    t = Trajectory(id="m1", task="Find the population of Paris.", outcome=Outcome.FAILURE, steps=steps)
    x = step_features(t)
    # one agent: only the first Orchestrator message is a first turn; "Coder (2)" is another agent
    assert list(x[:, COL["agent_first_turn"]]) == [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    roles = role_features(t)
    assert list(roles["top_actor_first_turn"]) == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert list(roles["top_actor_second_turn"]) == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert actor_share(t.steps) == {"Orchestrator": 1.0}
    att = attribute(t, np.log(np.array([0.1, 0.1, 0.5, 0.1, 0.1, 0.1])), actor_weight=8.0)
    assert att.decisive_step == 2 and att.decisive_agent == "Orchestrator"
    assert "responsible agent Orchestrator, which made 100% of the run's actions" in att.rationale
    # the step's own agent is shown as written
    assert att.candidates[0].agent == "Coder"
    same = attribute(t, np.log(np.array([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])), actor_weight=8.0)
    assert same.decisive_agent == "Orchestrator" and "responsible agent" not in same.rationale


RULE = SymptomRule(causes=frozenset({"hallucination", "error_accumulation"}), late=frozenset({"goal_drift"}),
                   grounded_only=frozenset({"false_success"}))


def test_a_symptom_after_a_cause_finding_takes_the_params_symptom_weight() -> None:
    weights = {"symptom": 0.25, "repeat": 1.0, "off_kind": 1.0}
    t = _run(4)
    def finding(step: int, category: str) -> Finding:
        return Finding(trace_id=t.id, step=step, category=category, score=0.8, source="t", rationale="r")
    ev = COL["evidence"]
    decisions = [s.index for s in t.steps if s.kind != StepKind.OBSERVATION][1:]
    cause, later, plan = decisions[0], decisions[2], decisions[1]
    alone = step_features(t, [finding(later, "repeated_action")], evidence_weights=weights, symptom_rule=RULE)
    assert alone[later, ev] == pytest.approx(0.8)  # a symptom alone still points at its step
    both = step_features(t, [finding(cause, "hallucination"), finding(later, "repeated_action"),
                             finding(plan, "planning_error")], evidence_weights=weights, symptom_rule=RULE)
    assert both[cause, ev] == pytest.approx(0.8)
    assert both[later, ev] == pytest.approx(0.8 * 0.25)  # most likely the cause's consequence
    assert both[plan, ev] == pytest.approx(0.8 * 0.25)
    plain = step_features(t, [finding(cause, "hallucination"), finding(later, "repeated_action")])
    assert plain[later, ev] == pytest.approx(0.8)  # no weights: no distinction
    no_rule = step_features(t, [finding(cause, "hallucination"), finding(later, "repeated_action")],
                            evidence_weights=weights)
    assert no_rule[later, ev] == pytest.approx(0.8)  # no rule: no finding is a symptom
    causes_only = SymptomRule(causes=RULE.causes)
    drift_alone = step_features(t, [finding(later, "goal_drift")], evidence_weights=weights, symptom_rule=causes_only)
    assert drift_alone[later, ev] == pytest.approx(0.8)  # goal drift is a symptom only where the rule says
    before = step_features(t, [finding(later, "hallucination"), finding(cause, "repeated_action")],
                           evidence_weights=weights, symptom_rule=RULE)
    assert before[cause, ev] == pytest.approx(0.8)  # a symptom before the cause is not its consequence
    drift = step_features(t, [finding(later, "goal_drift")], evidence_weights=weights, symptom_rule=RULE)
    assert drift[later, ev] == pytest.approx(0.8 * 0.25)  # found where the fall is under way


def test_the_pipeline_weighs_evidence_as_the_ranker_params_say() -> None:
    from dataclasses import replace

    from analyzer.attribution.features import evidence_column, evidence_parts

    t = _run(4)
    decisions = [s.index for s in t.steps if s.kind != StepKind.OBSERVATION][1:]
    fs = [Finding(trace_id=t.id, step=decisions[0], category="hallucination", score=0.8, source="t", rationale="r"),
          Finding(trace_id=t.id, step=decisions[2], category="repeated_action", score=0.6, source="t", rationale="r"),
          Finding(trace_id=t.id, step=decisions[2], category="repeated_action", score=0.9, source="t",
                  rationale="r2")]
    parts = evidence_parts(t, fs, rule=RULE)
    for w in ({"symptom": 0.5, "repeat": 0.5, "off_kind": 1.0}, Ranker.load().params.evidence_classes):
        x = step_features(t, fs, evidence_weights=w, symptom_rule=RULE)
        assert np.allclose(x[:, COL["evidence"]], evidence_column(parts, len(t.steps), w))
    p = replace(Ranker.load().params, evidence_classes={"symptom": 0.5})
    assert evidence_column(parts, len(t.steps), p.evidence_classes)[decisions[2]] == pytest.approx(0.9 * 0.5)


def test_the_symptom_rule_travels_in_the_params_file_and_reaches_the_features() -> None:
    from dataclasses import replace

    from analyzer.pipeline import prepare_run
    from analyzer.plugin_host import default_host

    p = replace(Ranker.load().params, symptom_rule=RULE, evidence_classes={"symptom": 0.5})
    back = RankerParams.from_json(json.loads(json.dumps(p.to_json())))
    assert back.symptom_rule == RULE and back.to_json() == p.to_json()
    bare = p.to_json()
    del bare["symptom_rule"]
    assert RankerParams.from_json(bare).symptom_rule == SymptomRule()  # an older file: no symptoms
    for bad in ({"causes": ["no_such_category"]}, {"late": "goal_drift"}, ["causes"]):
        with pytest.raises(ValueError, match="symptom rule"):
            RankerParams.from_json({**bare, "symptom_rule": bad})
    t = _run(4)
    with_rule = prepare_run(t, default_host(), evidence_weights=p.evidence_classes, symptom_rule=RULE)
    x = step_features(t, with_rule.findings, evidence_weights=p.evidence_classes, symptom_rule=RULE,
                      table=with_rule.table)
    assert np.array_equal(with_rule.features, x)


def test_a_success_claim_counts_fully_only_after_an_error_the_run_never_resolved() -> None:
    from analyzer.detection.text import unresolved_error

    symptom = 0.25

    t = _run(4)  # step 4 is the error output of `python step1.py` (step 3); no later run of it
    ev = COL["evidence"]

    def claim(run: Trajectory, step: int) -> float:
        f = Finding(trace_id=run.id, step=step, category="false_success", score=0.8, source="t", rationale="r")
        return float(step_features(run, [f], evidence_weights={"symptom": symptom}, symptom_rule=RULE)[step, ev])

    assert unresolved_error(t.steps, 3) is None and unresolved_error(t.steps, 5) == 4
    assert claim(t, 1) == pytest.approx(0.8 * symptom)  # false only by the run's outcome
    assert claim(t, 5) == pytest.approx(0.8)  # the trace shows the failure it claims away
    # running the failed command again, successfully, resolves the error
    rerun = [Step(index=9, agent="agent0", kind=StepKind.TOOL_CALL, tool_name="bash",
                  tool_args=json.dumps({"cmd": "python step1.py"})),
             Step(index=10, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text="ok"),
             Step(index=11, agent="agent0", kind=StepKind.MESSAGE, text="All done and verified.")]
    fixed = t.model_copy(update={"steps": [*t.steps, *rerun]})
    assert unresolved_error(fixed.steps, 11) is None
    assert claim(fixed, 11) == pytest.approx(0.8 * symptom)
