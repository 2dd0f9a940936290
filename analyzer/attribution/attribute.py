"""Attribution of a failed run: ranked candidate decisive steps, agent, category, confidence.

Ranker scores (structure, text cues, detector findings, alignment) give a distribution over
steps; the responsible agent is the one whose steps hold most of that distribution (sharpened
or flattened by a temperature chosen by cross-validation), plus, in the transfer weights, its
share of the run's actions (the agent that does the work); the judge, when available,
re-ranks only the top candidates from short focused contexts (its log-odds added with a
weight chosen by cross-validation); the category comes from the findings on and around the
decisive step plus the judge's classification. When the best candidate's reported probability
is below the params' fitted threshold, no step stands out: the attribution names the few
likeliest steps instead (``uncertain_steps``) and the rationale says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from analyzer.attribution.category_params import CategoryParams
from analyzer.attribution.features import FEATURE_NAMES
from analyzer.attribution.ranker import softmax
from analyzer.attribution.rationale import Rationale, explain, ranking_tail, simple
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.steps import columns_of, table_for, table_of_steps
from analyzer.taxonomy import CATEGORY_IDS, Category

_EPS = 1e-4


@dataclass
class Candidate:
    """One candidate decisive step.

    Attributes:
        step: Step index.
        agent: Agent of the step.
        probability: Final probability that it is the decisive step.
        ranker_logit: Ranker score before the judge.
        judge_p: Judge's P("this is the decisive mistake"), when asked.
    """

    step: int
    agent: str
    probability: float
    ranker_logit: float
    judge_p: float | None = None


@dataclass
class Attribution:
    """Attribution of one run.

    Attributes:
        candidates: All steps, best first.
        probs: Final per-step probability (step order).
        decisive_step: Best candidate (None for a run without steps or without any agent
            decision: a run of only the task, context and tool output blames no step).
        decisive_agent: Responsible agent: the agent with the largest probability mass (see
            :func:`agent_mass`); the agent of the decisive step unless the mass is spread.
        category: Taxonomy id of the failure.
        confidence: Probability of the best candidate.
        rationale: The explanation rendered in English (see :mod:`analyzer.attribution.rationale`).
        judge_used: True when the judge re-ranked the candidates.
        errors: Problems (e.g. judge failures) that did not stop the attribution.
        agent_share: Share of the candidate mass held by each agent.
        explanation: The rationale as message ids plus parameters.
        uncertain_steps: The likeliest steps, best first, when no step stands out: the
            decisive step's probability (``confidence``) is below the params' threshold (see
            :func:`uncertain_candidates`); empty when the answer is certain. ``decisive_step``
            is still the best candidate.
    """

    candidates: list[Candidate]
    probs: np.ndarray
    decisive_step: int | None
    decisive_agent: str | None
    category: str | None
    confidence: float | None
    rationale: str
    judge_used: bool = False
    errors: list[str] = field(default_factory=list)
    agent_share: dict[str, float] = field(default_factory=dict)
    explanation: Rationale | None = None
    uncertain_steps: list[int] = field(default_factory=list)


def agent_mass(agents: Sequence[str], logits: np.ndarray, temperature: float) -> dict[str, float]:
    """Share of the decisive-step distribution held by each agent, best first.

    ``softmax(logits / temperature)`` summed over each agent's steps. A temperature of 0
    gives all the mass to the agent of the top step (the plain argmax).
    """
    if not len(agents):
        return {}
    if temperature <= 0.0:
        top = agents[int(np.argmax(logits))]
        return {top: 1.0}
    p = softmax(np.asarray(logits, dtype=np.float64) / temperature)
    mass: dict[str, float] = {}
    for a, v in zip(agents, p, strict=True):
        mass[a] = mass.get(a, 0.0) + float(v)
    return dict(sorted(mass.items(), key=lambda kv: -kv[1]))


def actor_share(steps: Sequence[Step], table: pl.DataFrame | None = None) -> dict[str, float]:
    """Each agent's share of the run's acting decisions (tool calls, code blocks, action sections).

    Empty when no decision acts. ``table`` is the run's step-signal table (``acts``, ``agent``;
    computed when None).
    """
    tab = table_of_steps(steps, table)
    counts: dict[str, int] = {}
    t = columns_of(tab)
    for acting, a in zip(t["acts"], t["agent"], strict=True):
        if acting:
            counts[a] = counts.get(a, 0) + 1
    total = sum(counts.values())
    return {a: c / total for a, c in counts.items()} if total else {}


def first_runner(steps: Sequence[Step], table: pl.DataFrame | None = None) -> tuple[str, int] | None:
    """The agent that first runs something, and the step where it does (None when no step does).

    Running is a tool call, an action or a runnable code block (the table's ``runs_code``,
    :func:`~analyzer.detection.text.runs_code`); a JSON command block, a logged prompt or a
    handoff to another agent (``handoff``) is not. ``table`` is the run's step-signal table
    (computed when None).
    """
    tab = table_of_steps(steps, table)
    t = columns_of(tab)
    for i, a, runs, handoff in zip(t["step"], t["agent"], t["runs_code"], t["handoff"], strict=True):
        if runs and not handoff:
            return a, i
    return None


def responsible_agent(agents: Sequence[str], logits: np.ndarray, temperature: float,
                      actors: Mapping[str, float] | None = None, actor_weight: float = 0.0,
                      first: str | None = None, first_weight: float = 0.0) -> str:
    """The agent with the largest score (ties: the agent of the top step).

    The score is the agent's :func:`agent_mass` plus ``actor_weight`` times its share of the
    run's acting decisions (:func:`actor_share`), plus ``first_weight`` for ``first``, the agent
    that first runs something (:func:`first_runner`). With temperature 0 the mass is 1 for the
    agent of the top step, so an actor weight ``w`` names another agent only when its share of
    the actions exceeds the top step's agent's by more than ``1/w``.
    """
    share = agent_mass(agents, logits, temperature)
    top = agents[int(np.argmax(logits))]
    extra = actors if actors and actor_weight else {}
    bonus = {first: first_weight} if first is not None and first_weight else {}
    names = dict.fromkeys([*share, *extra, *bonus])
    score = {a: share.get(a, 0.0) + actor_weight * extra.get(a, 0.0) + bonus.get(a, 0.0) for a in names}
    return max(names, key=lambda a: (round(score[a], 12), a == top))


def _logit(p: float) -> float:
    p = min(1.0 - _EPS, max(_EPS, p))
    return math.log(p / (1.0 - p))


def combine_with_judge(logits: np.ndarray, judge_p: Mapping[int, float], weight: float) -> np.ndarray:
    """Add the judge's centred log-odds (times ``weight``) to the logits of the judged steps.

    Centring keeps the judged candidates on the ranker's scale: the judge only moves them
    relative to each other.
    """
    out = logits.astype(np.float64).copy()
    if not judge_p or weight == 0.0:
        return out
    lo = {k: _logit(v) for k, v in judge_p.items() if 0 <= k < out.size}
    if not lo:
        return out
    mean = sum(lo.values()) / len(lo)
    for k, v in lo.items():
        out[k] += weight * (v - mean)
    return out


def uncertain_candidates(candidates: Sequence[Candidate], confidence: float, below: float, top: int) -> list[int]:
    """The steps to name instead of one decisive step, when the ranker does not know.

    Args:
        candidates: Candidates, best first.
        confidence: The reported probability of the best one (``Attribution.confidence``).
        below: Probability below which the answer is uncertain (the params'
            ``uncertain_below``; 0 never is).
        top: How many candidates an uncertain answer names (the params' ``uncertain_top``).

    Returns:
        The ``top`` best candidates' steps, best first, when ``confidence`` is below
        ``below``; else an empty list.
    """
    if not candidates or confidence >= below:
        return []
    return [c.step for c in candidates[:max(1, top)]]


def choose_category(
    trajectory: Trajectory,
    step: int,
    findings: Sequence[Finding],
    features: np.ndarray | None = None,
    judge_dist: Mapping[str, float] | None = None,
    params: CategoryParams | None = None,
    table: pl.DataFrame | None = None,
) -> tuple[str, str]:
    """Category of the failure at ``step`` and a short reason.

    Findings on the step count fully, findings one step away with the params'
    ``neighbour_weight``; the judge's distribution (if any) is blended in with its
    ``judge_share``. Without any evidence, simple rules apply (an error output at the step ->
    environment failure; unsupported claims -> hallucination; the first committed approach ->
    planning error, etc.), each switched by the params, else ``other``. On a step
    that logs the prompt the model was given (:func:`~analyzer.detection.text.echoes_prompt`) the
    rules read from its words (claims, numbers) do not apply: they are the prompt's. The params
    come from the ranker params file's ``category`` section, chosen by ``trajscope eval fit``
    (:class:`~analyzer.attribution.category_params.CategoryParams`; None: its defaults).
    ``table`` is the run's step-signal table (``echoes_prompt``; computed when None and needed).
    """
    p = params or CategoryParams()
    votes: dict[str, float] = {}
    for f in findings:
        if f.source == "judge_category":
            continue
        w = 1.0 if f.step == step else (p.neighbour_weight if abs(f.step - step) == 1 else 0.0)
        if w:
            votes[str(f.category)] = max(votes.get(str(f.category), 0.0), w * f.score)
    reason = ""
    if judge_dist:
        votes = {k: (1.0 - p.judge_share) * v for k, v in votes.items()}
        for k, v in judge_dist.items():
            if k in CATEGORY_IDS:
                votes[k] = votes.get(k, 0.0) + p.judge_share * float(v)
        reason = "judge + detectors"
    if votes:
        best = max(votes, key=lambda k: votes[k])
        return best, reason or "detector findings on/near the step"
    if features is not None and 0 <= step < features.shape[0]:
        col = {n: k for k, n in enumerate(FEATURE_NAMES)}
        row = features[step]
        if p.error_output_rule and row[col["observation"]] and trajectory.steps[step].is_error:
            return Category.ENVIRONMENT_FAILURE.value, "error output at the step"
        if columns_of(table_for(trajectory, None, table))["echoes_prompt"][step]:
            # the words are the prompt's instructions ("if you finish the task ..."), not the agent's claims
            row = row.copy()
            row[[col["assume"], col["new_numbers_prose_log"], col["verify"], col["done"]]] = 0.0
        if p.claims_threshold is not None and (row[col["assume"]]
                                               or row[col["new_numbers_prose_log"]] > p.claims_threshold):
            return Category.HALLUCINATION.value, "unsupported claims at the step"
        if p.structural_defaults:
            if row[col["first_decision"]] or row[col["briefing"]]:
                return Category.PLANNING_ERROR.value, "first committed approach"
            if row[col["second_decision"]] and row[col["before_first_error"]]:
                return Category.PLANNING_ERROR.value, "approach committed before any error"
            if row[col["verify"]] or row[col["done"]]:
                return Category.FALSE_SUCCESS.value, "unverified success claim"
    return Category.OTHER.value, "no specific evidence"


def attribute(
    trajectory: Trajectory,
    logits: np.ndarray,
    findings: Sequence[Finding] = (),
    features: np.ndarray | None = None,
    judge_p: Mapping[int, float] | None = None,
    judge_weight: float = 0.0,
    judge_dist: Mapping[str, float] | None = None,
    agent_temperature: float = 0.0,
    actor_weight: float = 0.0,
    temperature: float = 1.0,
    first_runner_weight: float = 0.0,
    uncertain_below: float = 0.0,
    uncertain_top: int = 3,
    category_params: CategoryParams | None = None,
    table: pl.DataFrame | None = None,
) -> Attribution:
    """Rank the steps of a failed run and name the decisive one.

    Args:
        trajectory: The run.
        logits: Ranker logits, one per step.
        findings: Detector findings of the run.
        features: The feature matrix (for category defaults).
        judge_p: Judge P(decisive) for the re-ranked top candidates.
        judge_weight: Weight of the judge's log-odds.
        judge_dist: Judge's category distribution for the decisive step, if already known.
        agent_temperature: Temperature of the agent mass (0: agent of the top step).
        actor_weight: Weight of the agents' share of the acting decisions (see
            :func:`responsible_agent`).
        first_runner_weight: Weight added to the agent that first runs something (see
            :func:`responsible_agent`).
        temperature: Temperature of the reported probabilities (candidates, confidence,
            rationale); the ranking and the agent do not depend on it
            (:meth:`~analyzer.attribution.ranker.Ranker.confidence_temperature`).
        uncertain_below: Reported probability of the best candidate below which the run is
            uncertain: ``uncertain_steps`` then names the ``uncertain_top`` best candidates and
            the rationale says so (the params' fitted threshold; 0 never is uncertain).
        uncertain_top: How many candidates an uncertain answer names.
        category_params: Tunables of the category chooser (the params file's ``category``
            section; None: :class:`~analyzer.attribution.category_params.CategoryParams`'s defaults).
        table: The run's step-signal table (:func:`~analyzer.signals.steps.table_for`); computed when None.
    """
    steps = trajectory.steps
    tab = table_for(trajectory, None, table)
    if not steps or not any(columns_of(tab)["decision"]):
        why = simple("run_no_steps" if not steps else "run_no_agent_steps")
        return Attribution([], np.zeros(len(steps)), None, None, None, None, why.render(), explanation=why)
    final = combine_with_judge(logits, judge_p or {}, judge_weight)
    probs = softmax(final / temperature if temperature > 0.0 else final)
    order = sorted(range(len(steps)), key=lambda k: (-probs[k], k))
    cands = [Candidate(step=k, agent=steps[k].agent or str(steps[k].role), probability=float(probs[k]),
                       ranker_logit=float(logits[k]), judge_p=(judge_p or {}).get(k)) for k in order]
    best = cands[0]
    confidence = round(best.probability, 4)
    unsure = uncertain_candidates(cands, confidence, uncertain_below, uncertain_top)
    agents: list[str] = columns_of(tab)["agent"]
    share = agent_mass(agents, final, agent_temperature)
    by_mass = responsible_agent(agents, final, agent_temperature)
    actors = actor_share(steps, tab) if actor_weight else {}
    first = first_runner(steps, tab) if first_runner_weight else None
    agent = responsible_agent(agents, final, agent_temperature, actors, actor_weight,
                              first[0] if first else None, first_runner_weight)
    by_actions = responsible_agent(agents, final, agent_temperature, actors, actor_weight)
    category, _ = choose_category(trajectory, best.step, findings, features, judge_dist, category_params,
                                  tab)
    runner = cands[1] if len(cands) > 1 else None
    named_first = first is not None and agent == first[0] and agent != by_actions
    explanation = explain(trajectory, best.step, category, findings, ranking_tail(
        best.probability, runner.step if runner else None, runner.probability if runner else None,
        agent=agent if agent != agents[best.step] else None, agent_share=share.get(agent),
        actor_share=actors.get(agent) if agent != by_mass and not named_first else None,
        first_run_step=first[1] if named_first and first is not None else None,
        judge_reranked=len(judge_p or {}), uncertain_steps=unsure), table=tab)
    return Attribution(
        candidates=cands, probs=probs, decisive_step=best.step, decisive_agent=agent,
        category=category, confidence=confidence, rationale=explanation.render(),
        judge_used=bool(judge_p) and judge_weight != 0.0, agent_share=share, explanation=explanation,
        uncertain_steps=unsure)
