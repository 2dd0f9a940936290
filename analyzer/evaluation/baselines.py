"""Trivial baselines of the attribution evaluation, computed on the same records.

They use only step order, step kinds and who acts (never agent names as such): always step 0;
always step 1; the first and the second agent decision after step 0; and the first decision of
the most active agent (the agent with the most decision steps; ties: the one that acts first).
Two agent rules name the agent that first runs something (a tool call, an action, runnable
code) and the agent with the most acting decisions. On sets scored by span (TRAIL) two more
rules follow TRAIL's own: the first model call (LLM span) and the last step with an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from analyzer.detection.text import acts, agent_identity, is_decision, is_handoff, runs_code
from analyzer.evaluation.scoring import Prediction
from analyzer.schema.models import Trajectory


def _at(t: Trajectory, step: int | None) -> Prediction:
    name = Path(t.source_file).name
    if step is None or not 0 <= step < len(t.steps):
        return Prediction(name, None, None)
    s = t.steps[step]
    return Prediction(name, step, s.agent or str(s.role), (step,))


def always_step(k: int) -> Callable[[Trajectory], Prediction]:
    """Baseline predicting step ``k`` (and its agent)."""
    return lambda t: _at(t, k)


def first_decision_after_start(t: Trajectory) -> Prediction:
    """The first step after step 0 that is an agent decision (not tool output)."""
    return _at(t, next((s.index for s in t.steps[1:] if is_decision(s)), None))


def second_decision_after_start(t: Trajectory) -> Prediction:
    """The second step after step 0 that is an agent decision."""
    decisions = [s.index for s in t.steps[1:] if is_decision(s)]
    return _at(t, decisions[1] if len(decisions) > 1 else None)


def most_active_agent(t: Trajectory) -> Prediction:
    """The first decision of the agent with the most decision steps (ties: the one acting first)."""
    count: dict[str, int] = {}
    first: dict[str, int] = {}
    for s in t.steps:
        if is_decision(s):
            a = s.agent or str(s.role)
            count[a] = count.get(a, 0) + 1
            first.setdefault(a, s.index)
    if not count:
        return _at(t, None)
    agent = max(count, key=lambda a: (count[a], -first[a]))
    return _at(t, first[agent])


def first_runner_rule(t: Trajectory) -> Prediction:
    """The first step that runs something (tool call, action, runnable code; not a handoff), and its agent."""
    return _at(t, next((s.index for s in t.steps if runs_code(s) and not is_handoff(s)), None))


def top_actor_rule(t: Trajectory) -> Prediction:
    """The first acting decision of the agent with the most acting decisions (ties: the one acting first)."""
    count: dict[str, int] = {}
    first: dict[str, int] = {}
    for s in t.steps:
        if acts(s):
            a = agent_identity(s)
            count[a] = count.get(a, 0) + 1
            first.setdefault(a, s.index)
    if not count:
        return _at(t, None)
    return _at(t, first[max(count, key=lambda a: (count[a], -first[a]))])


def first_llm_step(t: Trajectory) -> Prediction:
    """The first step of the first model call (an LLM span)."""
    return _at(t, next((s.index for s in t.steps if s.metadata.get("span_kind") == "LLM"), None))


def last_error_step(t: Trajectory) -> Prediction:
    """The last step that carries an error (an error status or an error output)."""
    return _at(t, next((s.index for s in reversed(t.steps) if s.is_error), None))


SPAN_BASELINES: dict[str, Callable[[Trajectory], Prediction]] = {
    "first LLM span": first_llm_step,
    "last span with an error": last_error_step,
}
"""TRAIL's fixed rules, for sets scored by span."""


BASELINES: dict[str, Callable[[Trajectory], Prediction]] = {
    "always step 0": always_step(0),
    "always step 1": always_step(1),
    "first agent step after 0": first_decision_after_start,
    "second agent step after 0": second_decision_after_start,
    "most active agent (its first step)": most_active_agent,
    "first agent to run something": first_runner_rule,
    "agent with most actions (its first action)": top_actor_rule,
}


def baseline_predictions(trajectories: Iterable[Trajectory], *,
                         span_rules: bool = False) -> dict[str, dict[str, Prediction]]:
    """Predictions of every baseline (and of :data:`SPAN_BASELINES` with ``span_rules``), by name then file."""
    ts = list(trajectories)
    rules = {**BASELINES, **(SPAN_BASELINES if span_rules else {})}
    return {name: {Path(t.source_file).name: fn(t) for t in ts} for name, fn in rules.items()}
