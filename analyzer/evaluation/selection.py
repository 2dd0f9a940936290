"""Nested selection of every tunable of the attribution ranker, across agent systems.

Every choice the shipped figures depend on is made here, in code, from the training systems
alone:

- the **step configuration** (:class:`StepConfig`): the feature set, the L2 penalty, the
  group-robust temperature, the weight of the structural prior, the weight of the
  detector-evidence prior and its weight on runs that log tool output, the weights of the
  evidence column's classes of finding and which findings it reads as symptoms
  (:data:`SYMPTOM_RULES`);
- the **agent rule** (:class:`AgentConfig`): the weight of each agent's share of the actions and
  of the agent that first runs something, and the temperature that spreads the step
  distribution over the agents;
- the **calibration temperature** of the reported probabilities;
- the **category chooser's** tunables, on the training systems that label a category
  (:mod:`analyzer.evaluation.category_select`, in :func:`params_of`).

:func:`select` chooses them by leave-one-system-out *among the training systems*: each
candidate is fitted on all training systems but one and scored on that one, in turn; the best
mean held-out step@1 + step@3 wins (:attr:`Candidate.key`; ties: mean step@1, then the earlier
candidate of the grid, which lists the plainest value first). The step configuration is searched by coordinate ascent from
:data:`START` over :data:`GRID`; the agent rule is scored on the same held-out logits, on the
training systems with agent labels; the temperature maximises the held-out likelihood of the
labelled steps.

:func:`nested_leave_one_system_out` is the headline: for each system, :func:`select` and the fit
are redone on the other systems only, then the system is scored once. :func:`fit_all` is what
``trajscope eval fit ROOT`` writes into the shipped params file. Training code never runs in the
app: :mod:`analyzer.attribution` only reads the params file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from analyzer.attribution.attribute import actor_share, first_runner, responsible_agent
from analyzer.attribution.features import (
    CONTENT_FEATURES,
    RULE_FEATURES,
    TRANSFER_FEATURES,
    EvidencePart,
    evidence_parts,
)
from analyzer.attribution.ranker import RankerParams, softmax
from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.evaluation.category_select import category_sets, select_category
from analyzer.evaluation.fit import TrainingRun, fit_transfer, to_params
from analyzer.evaluation.scoring import normalise_agent
from analyzer.evaluation.transfer import (
    POSITION_BUCKETS,
    PreparedSet,
    canonical_ranking,
    position_bucket,
    reweighted,
    training_run,
)
from analyzer.jobs import Progress, no_progress
from analyzer.taxonomy import Category

_CAUSES = frozenset({Category.HALLUCINATION.value, Category.ERROR_ACCUMULATION.value})
_LATE = frozenset({Category.GOAL_DRIFT.value})
_GROUNDED = frozenset({Category.FALSE_SUCCESS.value})

SYMPTOM_RULES: dict[str, SymptomRule] = {
    "causes": SymptomRule(causes=_CAUSES),
    "causes+late": SymptomRule(causes=_CAUSES, late=_LATE),
    "causes+grounded": SymptomRule(causes=_CAUSES, grounded_only=_GROUNDED),
    "causes+late+grounded": SymptomRule(causes=_CAUSES, late=_LATE, grounded_only=_GROUNDED),
    "causes+planning+late+grounded": SymptomRule(causes=_CAUSES | {Category.PLANNING_ERROR.value}, late=_LATE,
                                                 grounded_only=_GROUNDED),
}
"""Candidate symptom rules of the evidence column (the plainest first: ties keep it).

A *cause* finding marks where an error enters a run: a value no observation supports
(hallucination) or one that later steps build on (error accumulation); a finding of another
category after it is most likely its consequence. Then, in turn: goal drift as a symptom
wherever it stands (it is found where a fall in task alignment is already under way); a success
claim as a symptom unless the run shows an error it never resolved; both (the rule the evidence
column had before it was chosen here, ``docs/eval/history.md``); and planning errors among the
causes. The symptom weight 1 (:data:`GRID`) stands for "no symptoms"."""

FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "structure": TRANSFER_FEATURES,
    "structure+rules": (*TRANSFER_FEATURES, *RULE_FEATURES),
    "content": CONTENT_FEATURES,
    "structure+content": tuple(dict.fromkeys((*TRANSFER_FEATURES, *CONTENT_FEATURES))),
}
"""Candidate feature sets: who acts and in what order (with or without the fixed rules as
columns); what the steps say and what follows them; both."""

PRIOR_FEATURE = "top_actor_first_turn"
"""The column of the structural prior ("among several agents, the one that does the work errs at
its first decision"): a fixed weight, not fitted, when the selection gives it one."""


@dataclass(frozen=True)
class StepConfig:
    """The tunables of the step ranker.

    Attributes:
        features: Name of the feature set (:data:`FEATURE_SETS`).
        l2: L2 penalty of the group-robust fit (per run).
        tau: Temperature of the smooth maximum over the systems' losses (small: the worst system).
        prior_weight: Fixed weight of :data:`PRIOR_FEATURE` (0: none).
        evidence_weight: Weight of the detector-evidence offset.
        evidence_grounded: Its weight on runs that log tool output (at most ``evidence_weight``: no boost).
        symptom: Weight, in the evidence column, of a finding that most likely shows an earlier
            cause's consequence (:func:`~analyzer.attribution.features.evidence_parts`).
        symptom_rule: Which findings are symptoms: a name in :data:`SYMPTOM_RULES`.
        repeat: Weight of a finding that is not the first of its category in the run.
        off_kind: Weight of a finding on a kind of step it is not about.
        strata: Groups of the group-robust fit per training system: 1, the system's runs; 2,
            its runs whose labelled step lies at or before the training systems' pooled median
            index and those whose label lies after it (:meth:`Selector.groups`), so that with a
            small ``tau`` the fit is also held to the runs whose decisive step comes late.
    """

    features: str = "structure"
    l2: float = 30.0
    tau: float = 0.05
    prior_weight: float = 0.0
    evidence_weight: float = 1.0
    evidence_grounded: float = 0.0
    symptom: float = 1.0
    symptom_rule: str = next(iter(SYMPTOM_RULES))
    repeat: float = 1.0
    off_kind: float = 1.0
    strata: int = 1

    @property
    def evidence_classes(self) -> dict[str, float]:
        """The evidence-column weights (``RankerParams.evidence_classes``)."""
        return {"repeat": self.repeat, "off_kind": self.off_kind, "symptom": self.symptom}

    @property
    def rule(self) -> SymptomRule:
        """The symptom rule (``RankerParams.symptom_rule``): none at symptom weight 1, where it changes nothing."""
        return SymptomRule() if self.symptom == 1.0 else SYMPTOM_RULES[self.symptom_rule]

    @property
    def canonical(self) -> StepConfig:
        """This configuration with the rule name at its default where the rule changes nothing.

        Configurations that differ only there give the same fit, so the search tries them once.
        """
        return replace(self, symptom_rule=StepConfig.symptom_rule) if self.symptom == 1.0 else self


@dataclass(frozen=True)
class AgentConfig:
    """The tunables of the responsible-agent rule (see :func:`responsible_agent`)."""

    actor_weight: float = 0.0
    first_runner_weight: float = 0.0
    agent_temperature: float = 0.0


START = StepConfig()
"""Where the coordinate search starts: the structural features, no prior, no boost."""

GRID: dict[str, tuple[Any, ...]] = {
    "features": tuple(FEATURE_SETS),
    "l2": (30.0, 3.0, 300.0),
    "tau": (0.05, 1.0),
    "prior_weight": (0.0, 1.0, 2.0, 4.0),
    "evidence_weight": (1.0, 0.0, 2.0, 4.0),
    "evidence_grounded": (0.0, 2.0, 4.0, 8.0),
    "symptom": (1.0, 0.5, 0.25),
    "symptom_rule": tuple(SYMPTOM_RULES),
    "repeat": (1.0, 0.5),
    "off_kind": (1.0, 0.5),
}
"""Values tried per tunable (the plainest first: ties keep it).

Retired from the grid, because they lowered the nested figures (``docs/eval/trials.md``, T15,
T16): ``strata`` 2 (:class:`StepConfig`; kept in code so the trial can be repeated by adding
``"strata": (1, 2)`` here) and separate weights for the evidence column's late and ungrounded
rules."""

AGENT_GRID: dict[str, tuple[float, ...]] = {
    "actor_weight": (0.0, 1.0, 2.0, 4.0, 8.0),
    "first_runner_weight": (0.0, 0.5, 1.0, 2.0, 3.0),
    "agent_temperature": (0.0, 0.5, 1.0, 2.0),
}
"""Agent-rule values tried (every combination; the plainest first: ties keep it). The temperature
spreads the decisive-step distribution over the agents (0: the agent of the top step)."""

TEMPERATURES: tuple[float, ...] = (1.0, 0.5, 0.75, 1.5, 2.0, 3.0, 5.0, 8.0)
"""Calibration temperatures tried."""

SEARCH_ROUNDS = 2
"""Passes of the coordinate search over :data:`GRID`."""

UNCERTAIN_BELOW = 0.5
"""Not a tuned value but the definition of "uncertain": the calibrated probability that the named
step is the decisive one is below one half (the answer is more likely wrong than right)."""


@dataclass
class Candidate:
    """One configuration's inner leave-one-system-out result.

    Attributes:
        config: The step configuration.
        step1: Held-out step@1 per system.
        step3: Held-out step@3 per system.
    """

    config: StepConfig
    step1: dict[str, float]
    step3: dict[str, float]

    @property
    def key(self) -> tuple[float, float]:
        """What the selection maximises: mean held-out step@1 plus mean step@3, then mean step@1.

        Both figures count: step@1 is the answer the app gives, step@3 the short list an analyst
        reads. (Mean step@1 alone was tried first; ``docs/eval/trials.md`` has both.)
        """
        s1 = float(np.mean(list(self.step1.values())))
        return (round(s1 + float(np.mean(list(self.step3.values()))), 9), round(s1, 9))


@dataclass
class Selection:
    """What :func:`select` chose and why.

    Attributes:
        step: The chosen step configuration.
        agent: The chosen agent rule.
        temperature: The chosen calibration temperature.
        trained_on: The systems the choice saw.
        tried: Every step configuration tried, with its inner held-out figures.
        agent_table: Inner held-out agent@1 (mean over systems with agent labels) per agent rule.
        criterion: What the step configuration's held-out figures averaged over (:data:`CRITERIA`).
    """

    step: StepConfig
    agent: AgentConfig
    temperature: float
    trained_on: list[str]
    tried: list[Candidate] = field(default_factory=list)
    agent_table: dict[str, float] = field(default_factory=dict)
    criterion: str = "pooled"

    def to_json(self) -> dict[str, Any]:
        """Plain dict (recorded in the params file's meta)."""
        return {"step": asdict(self.step), "agent": asdict(self.agent), "calibration_temperature": self.temperature,
                "trained_on": self.trained_on, "criterion": self.criterion,
                "tried": [{"config": asdict(c.config), "step@1": c.step1, "step@3": c.step3} for c in self.tried],
                "agent_table": self.agent_table}


CRITERIA: tuple[str, ...] = ("pooled", "position-balanced")
"""What a held-out system's step@1 and step@3 average over in the selection: every labelled run
alike (``pooled``), or the runs of each :data:`~analyzer.evaluation.transfer.POSITION_BUCKETS`
bucket of the labelled step's index alike (``position-balanced``: the mean of the buckets' rates,
so runs whose decisive step comes late count as much as the many that label an early step). The
reported figures are always pooled; this is only what the selection maximises."""


class Selector:
    """Fits and held-out scores, cached by (training systems, configuration)."""

    def __init__(self, sets: Sequence[PreparedSet], criterion: str = "pooled") -> None:
        if criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {', '.join(CRITERIA)}, got {criterion!r}")
        self.criterion = criterion
        self._base = {s.name: s for s in sets}
        self._parts: dict[tuple[str, SymptomRule], dict[str, list[EvidencePart]]] = {}
        self._sets: dict[tuple[str, tuple[float, ...], SymptomRule], PreparedSet] = {}
        self._fits: dict[tuple[frozenset[str], StepConfig], Any] = {}

    @property
    def names(self) -> list[str]:
        """The systems, in the order given."""
        return list(self._base)

    def set(self, name: str, cfg: StepConfig | None = None) -> PreparedSet:
        """System ``name`` with its evidence column weighted as ``cfg`` says (cached)."""
        if cfg is None:
            return self._base[name]
        weights = cfg.evidence_classes
        key = (name, tuple(weights.values()), cfg.rule)
        if key not in self._sets:
            ps = self._base[name]
            if (name, cfg.rule) not in self._parts:
                self._parts[name, cfg.rule] = {r.key: evidence_parts(r.trajectory, r.findings, r.table, cfg.rule)
                                               for r in ps.runs}
            self._sets[key] = reweighted(ps, weights, self._parts[name, cfg.rule])
        return self._sets[key]

    def groups(self, names: Sequence[str], cfg: StepConfig) -> list[list[TrainingRun]]:
        """The groups of the group-robust fit: per system, split by label position when ``cfg.strata`` is 2.

        The split point is the median labelled-step index pooled over the systems ``names`` (the
        training systems only): runs labelled at or before it form one group, the others another.
        The held-out system's labels are never read.
        """
        per_system = [[training_run(r) for r in self.set(n, cfg).trainable] for n in sorted(names)]
        if cfg.strata == 1:
            return per_system
        if cfg.strata != 2:
            raise ValueError(f"strata must be 1 or 2, got {cfg.strata}")
        split = float(np.median([r.gold_step for g in per_system for r in g]))
        out: list[list[TrainingRun]] = []
        for g in per_system:
            out += [part for part in ([r for r in g if r.gold_step <= split], [r for r in g if r.gold_step > split])
                    if part]
        return out

    def fit(self, names: Sequence[str], cfg: StepConfig) -> Any:
        """The group-robust fit of ``cfg`` on the systems ``names`` (cached)."""
        key = (frozenset(names), cfg)
        if key not in self._fits:
            groups = self.groups(names, cfg)
            self._fits[key] = fit_transfer(groups, l2=cfg.l2, tau=cfg.tau, features=FEATURE_SETS[cfg.features],
                                           evidence_weight=cfg.evidence_weight,
                                           evidence_grounded=cfg.evidence_grounded,
                                           prior={PRIOR_FEATURE: cfg.prior_weight})
        return self._fits[key]

    def held_logits(self, names: Sequence[str], held: str, cfg: StepConfig) -> dict[str, np.ndarray]:
        """Logits of every run of ``held`` from the fit on ``names`` without it."""
        fitted = self.fit([n for n in names if n != held], cfg)
        return {r.key: fitted.logits(r.features) for r in self.set(held, cfg).runs}

    def hits(self, held: str, logits: dict[str, np.ndarray], criterion: str | None = None) -> tuple[float, float]:
        """step@1 and step@3 of ``logits`` on system ``held``.

        With the ``pooled`` criterion every labelled record counts alike (the reported figure);
        ``position-balanced`` averages the rates of the label-position buckets that hold a label
        (:data:`CRITERIA`). ``criterion`` defaults to the selector's.
        """
        ps = self.set(held)
        by_key = {r.key: r for r in ps.runs}
        buckets = POSITION_BUCKETS if (criterion or self.criterion) == "position-balanced" else ((0, None),)
        counts = np.zeros((len(buckets), 3))  # labels, hits@1, hits@3 per bucket
        for g in ps.golds:
            r = by_key.get(g.file)
            if r is None or g.step is None or g.file not in logits:
                if len(buckets) == 1:
                    counts[0, 0] += 1  # an unscorable record counts as a miss in the pooled figure
                continue
            order = [int(k) for k in np.argsort(-logits[g.file], kind="stable")]
            top = canonical_ranking(order, ps.canonical.get(g.file))
            b = position_bucket(g.step, buckets)
            assert b is not None  # the buckets cover every index from 0
            counts[b] += (1, top[0] == g.step, g.step in top[:3])
        filled = counts[counts[:, 0] > 0]
        if not len(filled):
            return 0.0, 0.0
        return float(np.mean(filled[:, 1] / filled[:, 0])), float(np.mean(filled[:, 2] / filled[:, 0]))

    def candidate(self, names: Sequence[str], cfg: StepConfig) -> Candidate:
        """Leave-one-system-out among ``names`` for ``cfg``."""
        s1: dict[str, float] = {}
        s3: dict[str, float] = {}
        for held in names:
            s1[held], s3[held] = self.hits(held, self.held_logits(names, held, cfg))
        return Candidate(cfg, s1, s3)


def coordinate_ascent(evaluate: Callable[[StepConfig], Candidate], best: Candidate,
                      dims: Sequence[str] | None = None) -> Candidate:
    """From ``best``, move one tunable of :data:`GRID` at a time while the criterion rises.

    At most :data:`SEARCH_ROUNDS` passes over the tunables ``dims`` (default: all of
    :data:`GRID`, in its order); a candidate replaces the best only when its key is higher, so
    ties keep the earlier one.
    """
    for _ in range(SEARCH_ROUNDS):
        moved = False
        for dim, values in GRID.items():
            if dims is not None and dim not in dims:
                continue
            for v in values:
                cand = evaluate(replace(best.config, **{dim: v}))
                if cand.key > best.key:
                    best, moved = cand, True
        if not moved:
            break
    return best


def select(selector: Selector, names: Sequence[str], progress: Progress = no_progress) -> Selection:
    """Choose every tunable by leave-one-system-out among the systems ``names`` only."""
    names = sorted(names)
    tried: dict[StepConfig, Candidate] = {}

    def evaluate(cfg: StepConfig) -> Candidate:
        cfg = cfg.canonical
        if cfg not in tried:
            progress(len(tried), len(tried) + 1, f"selection on {'+'.join(names)}: {cfg}")
            tried[cfg] = selector.candidate(names, cfg)
        return tried[cfg]

    best = coordinate_ascent(evaluate, evaluate(START))
    held = {h: selector.held_logits(names, h, best.config) for h in names}
    agent, agent_table = _select_agent(selector, held)
    temperature = _select_temperature(selector, held)
    return Selection(best.config, agent, temperature, list(names), list(tried.values()), agent_table,
                     selector.criterion)


def _agent_hits(ps: PreparedSet, logits: dict[str, np.ndarray], cfg: AgentConfig) -> float:
    """agent@1 of an agent rule on one system's held-out logits (every labelled record counts)."""
    by_key = {r.key: r for r in ps.runs}
    hits = 0
    for g in ps.golds:
        r = by_key.get(g.file)
        if r is None or not g.agent or g.file not in logits:
            continue
        steps = r.trajectory.steps
        first = first_runner(steps, r.table) if cfg.first_runner_weight else None
        agent = responsible_agent(r.agents, logits[g.file], cfg.agent_temperature,
                                  actor_share(steps, r.table) if cfg.actor_weight else None,
                                  cfg.actor_weight, first[0] if first else None, cfg.first_runner_weight)
        hits += normalise_agent(agent) == normalise_agent(g.agent)
    return hits / max(1, len(ps.golds))


def _select_agent(selector: Selector, held: dict[str, dict[str, np.ndarray]]) -> tuple[AgentConfig, dict[str, float]]:
    """The agent rule with the best mean held-out agent@1 over the systems with agent labels."""
    labelled = [h for h in held if selector.set(h).multi_agent]
    table: dict[str, float] = {}
    best: tuple[float, AgentConfig] | None = None
    for t in AGENT_GRID["agent_temperature"]:
        for a in AGENT_GRID["actor_weight"]:
            for f in AGENT_GRID["first_runner_weight"]:
                cfg = AgentConfig(a, f, t)
                value = float(np.mean([_agent_hits(selector.set(h), held[h], cfg) for h in labelled])) if labelled else 0.0
                table[f"actor {a:g}, first runner {f:g}, temperature {t:g}"] = round(value, 6)
                if best is None or value > best[0] + 1e-12:
                    best = (value, cfg)
    assert best is not None
    return best[1], table


def _select_temperature(selector: Selector, held: dict[str, dict[str, np.ndarray]]) -> float:
    """The temperature that maximises the mean held-out log-probability of the labelled spans."""
    pairs: list[tuple[np.ndarray, list[int]]] = []
    for h, logits in held.items():
        ps = selector.set(h)
        for r in ps.trainable:
            canon = ps.canonical.get(r.key)
            assert r.gold_step is not None
            members = [k for k in range(len(logits[r.key])) if (canon[k] if canon else k) == r.gold_step]
            pairs.append((logits[r.key], members or [r.gold_step]))

    def loglik(t: float) -> float:
        return float(np.mean([math.log(max(1e-12, float(softmax(s / t)[m].sum()))) for s, m in pairs]))

    return max(TEMPERATURES, key=loglik) if pairs else 1.0


def params_of(selector: Selector, names: Sequence[str], sel: Selection, meta: dict[str, Any] | None = None) -> RankerParams:
    """Params of the chosen configuration fitted on every run of the systems ``names``."""
    fitted = selector.fit(names, sel.step)
    params = to_params(fitted, agent_temperature=sel.agent.agent_temperature, actor_weight=sel.agent.actor_weight,
                     first_runner_weight=sel.agent.first_runner_weight,
                     calibration_temperature=sel.temperature, uncertain_below=UNCERTAIN_BELOW,
                     meta={**(meta or {}), "fit": "group-robust transfer, nested selection",
                           "trained_sets": sorted(names), "selection": sel.to_json(),
                           "n_runs": sum(len(selector.set(n).trainable) for n in names)})
    params.evidence_classes = sel.step.evidence_classes
    params.symptom_rule = sel.step.rule
    labelled = category_sets([selector.set(n) for n in names])
    if labelled:  # the category chooser's tunables, chosen on the same training systems
        chosen = select_category(labelled)
        params.category = chosen.params
        params.meta["category_selection"] = chosen.to_json()
    else:
        params.meta["category_selection"] = {"note": "no training system labels a category: defaults kept"}
    return params


@dataclass
class NestedResult:
    """Nested leave-one-system-out: per held-out system, what was chosen without it, and its params."""

    selections: dict[str, Selection]
    params: dict[str, RankerParams]


def nested_leave_one_system_out(sets: Sequence[PreparedSet], progress: Progress = no_progress,
                                selector: Selector | None = None) -> NestedResult:
    """For each system: :func:`select` and fit on the others, the params that score it.

    A training-only set (planted failures) is among the others of every system, never a target.
    """
    sel = selector or Selector(sets)
    names = [s.name for s in sets]
    selections: dict[str, Selection] = {}
    params: dict[str, RankerParams] = {}
    for target in (s.name for s in sets if not s.training_only):
        others = [n for n in names if n != target]
        choice = select(sel, others, progress)
        selections[target] = choice
        params[target] = params_of(sel, others, choice, {"held_out": target})
    return NestedResult(selections, params)


def fit_all(sets: Sequence[PreparedSet], progress: Progress = no_progress, selector: Selector | None = None,
            meta: dict[str, Any] | None = None) -> tuple[RankerParams, Selection]:
    """The shipped params: :func:`select` on every system, then the fit on every labelled run."""
    sel = selector or Selector(sets)
    names = [s.name for s in sets]
    choice = select(sel, names, progress)
    trained = sorted(r.trajectory.id for s in sets for r in s.trainable)
    return params_of(sel, names, choice, {**(meta or {}), "trained_trace_ids": trained}), choice


def column_ablation(selector: Selector, nested: NestedResult, progress: Progress = no_progress) -> dict[str, dict[str, float]]:
    """Each column's nested contribution: its held-out step@1 lost when it is left out (points).

    For each held-out system, the configuration chosen without it is refitted on the other
    systems without one column of its feature set, and the system is scored again.
    """
    out: dict[str, dict[str, float]] = {}
    names = selector.names
    targets = list(nested.selections)
    for t, target in enumerate(targets):
        progress(t, len(targets), target)
        cfg = nested.selections[target].step
        others = [n for n in names if n != target]
        full = selector.hits(target, selector.held_logits(names, target, cfg), "pooled")[0]
        cols = [c for c in FEATURE_SETS[cfg.features] if c != PRIOR_FEATURE or not cfg.prior_weight]
        extra = [PRIOR_FEATURE + " (prior)"] if cfg.prior_weight else []
        for col in [*cols, *extra, "evidence (prior)"]:
            feats = tuple(c for c in FEATURE_SETS[cfg.features] if c != col)
            fitted = fit_transfer(selector.groups(others, cfg), l2=cfg.l2, tau=cfg.tau,
                                  features=feats, evidence_weight=0.0 if col == "evidence (prior)" else cfg.evidence_weight,
                                  evidence_grounded=0.0 if col == "evidence (prior)" else cfg.evidence_grounded,
                                  prior={PRIOR_FEATURE: 0.0 if col.startswith(PRIOR_FEATURE + " ") else cfg.prior_weight})
            logits = {r.key: fitted.logits(r.features) for r in selector.set(target, cfg).runs}
            out.setdefault(col, {})[target] = round(100 * (selector.hits(target, logits, "pooled")[0] - full), 1)
    return out
