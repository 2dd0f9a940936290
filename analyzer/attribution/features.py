"""Per-step features for ranking candidate decisive steps.

Only structure every importer provides (step kinds, roles, error flags, order), text cues,
detector findings and task alignment. No agent names, no dataset conventions, and never
the gold labels. The per-step facts come from the run's table of step signals
(:mod:`analyzer.signals.steps`); the columns here put them in the ranker's form.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

FINDING_CATEGORIES: tuple[str, ...] = tuple(c.value for c in Category if c != Category.OTHER)

FEATURE_NAMES: tuple[str, ...] = (
    "is_first", "rel_pos", "log_pos", "is_last",
    "decision", "observation", "input", "briefing", "task_containment",
    "first_decision", "second_decision", "decision_ordinal_log", "agent_first_turn", "same_agent_as_prev",
    "next_obs_error", "prev_obs_error", "errors_after_log", "first_error_source", "no_obs_before",
    "acting", "len_log", "assume", "verify", "done", "termination_only", "retrieval_claim", "revision",
    "new_numbers_log", "new_numbers_prose_log", "code_new_numbers", "new_entities_log", "workaround",
    "empty_result_follows", "list_items_log", "before_first_error", "prose_len_log",
    "finding_max", "finding_agent", "finding_near", "n_findings_log", "evidence",
    "lex_align_centered",
    # structure that held leave-one-dataset-out (see TRANSFER_FEATURES)
    "decision_rel", "handoff", "top_actor", "top_actor_first_turn", "top_actor_second_turn",
    "top_actor_first_act", "len_z", "next_similarity_z",
    # content, normalised within the run (see CONTENT_FEATURES)
    "task_sim_z", "next_obs_task_sim_z",
    # the first step that runs something (a tool call, an action, runnable code; not a handoff)
    "first_run",
)
"""Names of the feature columns, in order (also stored in the fitted params file).

Detector findings enter as tied features (strongest finding on the step, strongest
agent-fault finding on a decision step, strongest finding next to it, number of categories)
rather than one weight per category: the development set shows some categories rarely, and
a per-category weight fitted on a handful of cases would not carry over to other systems.

``evidence`` is the detector-evidence prior (strongest finding on the step, weighted by the
params' ``evidence_classes``: :func:`evidence_parts`, :func:`evidence_column`). It is not fitted:
the ranker adds it with a weight the nested selection chooses (see
:mod:`analyzer.attribution.ranker`).

The last columns describe roles inferred from behaviour, not from names: the **top actor** is
the agent whose decisions act most (code blocks, tool calls, ``<action>``/``Action:`` sections;
ties: most decisions), i.e. the agent that does the work. ``top_actor_first_turn`` is set only in runs where
at least two agents decide: in a single-agent run the top actor's first turn is just the
run's first decision (``first_decision``), usually its plan, and says nothing about roles.
``decision_rel`` is the decision's
place among the run's decisions (0 first, 1 last); ``len_z`` and ``next_similarity_z`` are
z-scored within the run's decisions (log length; embedding cosine to the most similar later
step, 0 without an embedder), so they do not depend on one system's verbosity.
"""

ROLE_FEATURES: tuple[str, ...] = (
    "decision_rel", "handoff", "top_actor", "top_actor_first_turn", "top_actor_second_turn",
    "top_actor_first_act", "len_z", "next_similarity_z", "task_sim_z", "next_obs_task_sim_z", "first_run",
)
"""The behaviour-inferred role and within-run normalised columns (:func:`role_features`)."""

CONTENT_FEATURES: tuple[str, ...] = (
    "decision", "acting", "first_error_source", "next_obs_error", "empty_result_follows", "prev_obs_error",
    "assume", "verify", "done", "retrieval_claim", "revision", "new_numbers_prose_log", "new_entities_log",
    "code_new_numbers", "finding_near", "len_z", "next_similarity_z", "task_sim_z", "next_obs_task_sim_z",
)
"""Columns that read what a step says and what follows it, never where it stands: its output errs
or is empty, it claims, assumes or revises, it brings numbers and names no observation gave, a
finding lies next to it, and how close it (and the output it gets back) keeps to the task
(``task_sim_z``, ``next_obs_task_sim_z``: embedding cosine to the task, z-scored within the run;
0 without an embedder). One of the candidate feature sets of the nested selection
(:mod:`analyzer.evaluation.selection`)."""

TRANSFER_FEATURES: tuple[str, ...] = (
    "decision", "agent_first_turn", "decision_rel", "top_actor_first_turn", "top_actor_second_turn",
    "first_error_source",
)
"""The structural columns (who acts, in what order, what follows an error): one of the candidate
feature sets of the nested selection (:mod:`analyzer.evaluation.selection`).
``top_actor_first_turn`` may instead carry a fixed structural prior, when the selection gives
it one. The other columns of :data:`FEATURE_NAMES` are fitted only within one system
(``trajscope eval --cv``) and by the analyst's own labels (adaptation)."""

RULE_FEATURES: tuple[str, ...] = ("top_actor_first_act", "first_run")
"""What two fixed rules say, as columns: the first action of the agent that acts most, and the
first step that runs something. Added to :data:`TRANSFER_FEATURES` in one candidate feature set,
so the fit can weigh them against the rest."""

EVIDENCE_KEYS: tuple[str, ...] = ("repeat", "off_kind", "symptom")
"""The weights of the detector-evidence column (``RankerParams.evidence_classes``): a finding that
is not the first of its category in the run (``repeat``), one on a kind of step it is not about
(``off_kind``: an agent fault on tool output, an environment failure on a decision), and a
symptom (``symptom``: which findings are symptoms is the params' ``symptom_rule``,
:class:`~analyzer.attribution.symptom_rule.SymptomRule`). 1 makes no distinction; the values come from the params file, chosen by
the nested selection (:mod:`analyzer.evaluation.selection`)."""

PLAIN_EVIDENCE: dict[str, float] = dict.fromkeys(EVIDENCE_KEYS, 1.0)
"""Evidence weights that make no distinction (every finding counts its score)."""


@dataclass(frozen=True)
class EvidencePart:
    """One finding's place in the evidence column, before any weight.

    Attributes:
        step: The step it points at.
        score: Its score 0-1.
        repeat: It is not the first finding of its category in the run.
        off_kind: It lies on a kind of step it is not about.
        symptom: It most likely shows an earlier cause's consequence.
    """

    step: int
    score: float
    repeat: bool
    off_kind: bool
    symptom: bool


def evidence_parts(trajectory: Trajectory, findings: Sequence[Finding],
                   table: pl.DataFrame | None = None, rule: SymptomRule | None = None) -> list[EvidencePart]:
    """What each steps-phase finding of a run says for the evidence column (no weights applied).

    ``table`` is the run's step-signal table (:func:`~analyzer.signals.steps.table_for`; computed when None).
    ``rule`` says which findings are symptoms (the ranker params' ``symptom_rule``); None marks none.
    """
    rule = rule or SymptomRule()
    n = len(trajectory.steps)
    tab = table_for(trajectory, None, table)
    t = columns_of(tab)
    decision, unresolved = t["decision"], t["unresolved_error"]
    live = [f for f in findings if f.source != "judge_category" and 0 <= f.step < n]
    first_of: dict[str, int] = {}
    for f in sorted(live, key=lambda f: f.step):
        first_of.setdefault(str(f.category), f.step)
    cause_at = min((first_of[c] for c in rule.causes if c in first_of), default=None)
    out: list[EvidencePart] = []
    for f in live:
        cat = str(f.category)
        env = f.category == Category.ENVIRONMENT_FAILURE
        fits_kind = (not decision[f.step]) if env else decision[f.step]
        symptom = cat in rule.late or (cat not in rule.causes and cause_at is not None and cause_at < f.step)
        if cat in rule.grounded_only and unresolved[f.step] is None:
            symptom = True
        out.append(EvidencePart(f.step, float(f.score), first_of.get(cat) != f.step, not fits_kind, symptom))
    return out


def evidence_column(parts: Sequence[EvidencePart], n: int, weights: Mapping[str, float]) -> np.ndarray:
    """The ``evidence`` column: per step, the strongest weighted finding (0 where none)."""
    out = np.zeros(n)
    w = {**PLAIN_EVIDENCE, **weights}
    for p in parts:
        v = p.score * (w["repeat"] if p.repeat else 1.0) * (w["off_kind"] if p.off_kind else 1.0)
        v *= w["symptom"] if p.symptom else 1.0
        if p.step < n:
            out[p.step] = max(out[p.step], v)
    return out


def _within_z(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``values`` z-scored over the rows in ``mask`` (0 elsewhere, and when fewer than 2 rows)."""
    out = np.zeros_like(values)
    if int(mask.sum()) >= 2:
        v = values[mask]
        sd = float(v.std())
        out[mask] = (v - v.mean()) / (sd if sd > 1e-9 else 1.0)
    return out


def role_features(trajectory: Trajectory, step_embeddings: np.ndarray | None = None,
                  task_embedding: np.ndarray | None = None, table: pl.DataFrame | None = None) -> dict[str, np.ndarray]:
    """The behaviour-inferred role and within-run normalised columns of one run (see the module doc).

    ``table`` is the run's step-signal table (:func:`~analyzer.signals.steps.table_for`; computed when None).
    """
    steps = trajectory.steps
    n = len(steps)
    out = {k: np.zeros(n) for k in ROLE_FEATURES}
    if n == 0:
        return out
    tab = table_for(trajectory, None, table)
    cols = columns_of(tab)
    brief = cols["briefing"]
    dec = np.array(cols["decision"], dtype=bool)
    order = [s.index for s in steps if dec[s.index] and not brief[s.index]]
    agents = cols["agent"]
    acting = cols["acts"]
    n_act: dict[str, int] = {}
    n_dec: dict[str, int] = {}
    first: dict[str, int] = {}
    for i in order:
        n_dec[agents[i]] = n_dec.get(agents[i], 0) + 1
        n_act[agents[i]] = n_act.get(agents[i], 0) + int(acting[i])
        first.setdefault(agents[i], i)
    top = max(n_dec, key=lambda a: (n_act[a], n_dec[a], -first[a])) if n_dec else None
    several = len(n_dec) >= 2  # the top actor's first turn says who errs only among several agents
    first_act = next((i for i in order if agents[i] == top and acting[i]), None)
    turns: dict[str, int] = {}
    prev: str | None = None
    for k, i in enumerate(order):
        a = agents[i]
        t = turns.get(a, 0)
        turns[a] = t + 1
        out["decision_rel"][i] = k / max(1, len(order) - 1)
        out["handoff"][i] = float(prev is not None and prev != a)
        prev = a
        if a == top:
            out["top_actor"][i] = 1.0
            out["top_actor_first_turn"][i] = float(t == 0 and several)
            out["top_actor_second_turn"][i] = float(t == 1)
            out["top_actor_first_act"][i] = float(i == first_act)
    runs, handoff = cols["runs_code"], cols["handoff"]
    runner = next((s.index for s in steps if runs[s.index] and not handoff[s.index]), None)
    if runner is not None:
        out["first_run"][runner] = 1.0
    out["len_z"] = _within_z(np.array([math.log1p(v) for v in cols["text_len"]]), dec)
    if step_embeddings is not None and len(step_embeddings) == n and n > 1:
        e = np.asarray(step_embeddings, dtype=np.float64)
        later = np.zeros(n)
        for i in range(n - 1):  # cosine to the most similar later step (the step's content taken up)
            later[i] = float((e[i + 1:] @ e[i]).max())
        out["next_similarity_z"] = _within_z(later, dec)
    if step_embeddings is not None and task_embedding is not None and len(step_embeddings) == n:
        sim = np.asarray(step_embeddings, dtype=np.float64) @ np.asarray(task_embedding, dtype=np.float64)
        out["task_sim_z"] = _within_z(sim, dec)
        nxt = np.zeros(n)
        has = np.zeros(n, dtype=bool)
        next_obs = cols["next_observation"]
        for i in order:
            o = next_obs[i]
            if o is not None:
                nxt[i], has[i] = sim[o], True
        out["next_obs_task_sim_z"] = _within_z(nxt, has)
    return out



def step_features(trajectory: Trajectory, findings: Sequence[Finding] = (),
                  step_embeddings: np.ndarray | None = None, task_embedding: np.ndarray | None = None,
                  evidence_weights: Mapping[str, float] | None = None,
                  table: pl.DataFrame | None = None, symptom_rule: SymptomRule | None = None) -> np.ndarray:
    """Feature matrix (steps x FEATURE_NAMES) of one run.

    Every per-step fact comes from the run's step-signal table (:mod:`analyzer.signals.steps`):
    the columns here are that table's columns put in the ranker's form (flags, log counts,
    positions, within-run normalisations) together with the detector findings.

    Args:
        trajectory: The run (gold fields are ignored).
        findings: Detector findings of this run (``judge_category`` findings are ignored);
            with an embedder, the goal-drift and evidence-gap findings carry its signal.
        step_embeddings: Unit-norm step embeddings (rows aligned with steps), if computed.
        task_embedding: Unit-norm embedding of the task, if computed.
        evidence_weights: Weights of the evidence column (:data:`EVIDENCE_KEYS`; the ranker
            params' ``evidence_classes``); None makes no distinction.
        table: The run's step-signal table (:func:`~analyzer.signals.steps.table_for`); computed when None.
        symptom_rule: Which findings the evidence column reads as symptoms (the ranker params'
            ``symptom_rule``); None marks none.

    Returns:
        A float64 array of shape ``(len(steps), len(FEATURE_NAMES))``.
    """
    steps = trajectory.steps
    n = len(steps)
    x = np.zeros((n, len(FEATURE_NAMES)), dtype=np.float64)
    if n == 0:
        return x
    tab = table_for(trajectory, None, table)
    t = columns_of(tab)
    col = {name: k for k, name in enumerate(FEATURE_NAMES)}
    err_idx = [s.index for s in steps if t["observation"][s.index] and t["is_error"][s.index]]
    first_err = err_idx[0] if err_idx else None
    first_err_src = None
    if first_err is not None:
        first_err_src = t["source_decision"][first_err]
    by_step: dict[int, dict[str, float]] = {}
    evidence = evidence_column(evidence_parts(trajectory, findings, tab, symptom_rule), n,
                               PLAIN_EVIDENCE if evidence_weights is None else evidence_weights)
    for f in findings:
        if f.source == "judge_category" or f.step >= n:
            continue
        d = by_step.setdefault(f.step, {})
        d[str(f.category)] = max(d.get(str(f.category), 0.0), f.score)
    lex = t["lexical_alignment"]
    dec_lex = [lex[s.index] for s in steps if t["decision"][s.index]] or lex
    lex_mean = float(np.mean(dec_lex))
    ordinal = 0
    agents_seen: set[str] = set()
    prev_decision_agent: str | None = None
    obs_seen = False
    prev_obs_error = False
    for s in steps:
        i = s.index
        row = x[i]
        row[col["is_first"]] = float(i == 0)
        row[col["rel_pos"]] = i / (n - 1) if n > 1 else 0.0
        row[col["log_pos"]] = math.log1p(i)
        row[col["is_last"]] = float(i == n - 1)
        dec, obs = t["decision"][i], t["observation"][i]
        brief = t["briefing"][i]
        row[col["decision"]] = float(dec)
        row[col["observation"]] = float(obs)
        row[col["input"]] = float(t["input"][i])
        row[col["briefing"]] = float(brief)
        row[col["task_containment"]] = t["task_containment"][i]
        if dec and not brief:
            row[col["first_decision"]] = float(ordinal == 0)
            row[col["second_decision"]] = float(ordinal == 1)
            row[col["decision_ordinal_log"]] = math.log1p(ordinal)
            ordinal += 1
        if dec:
            agent = t["agent"][i]
            row[col["agent_first_turn"]] = float(agent not in agents_seen)
            row[col["same_agent_as_prev"]] = float(prev_decision_agent == agent)
            agents_seen.add(agent)
            prev_decision_agent = agent
            nxt = t["next_observation"][i]
            row[col["next_obs_error"]] = float(nxt is not None and t["is_error"][nxt])
            row[col["empty_result_follows"]] = float(nxt is not None and t["empty_output"][nxt])
            row[col["workaround"]] = float(t["workaround"][i])
            row[col["list_items_log"]] = math.log1p(t["list_items"][i])
            row[col["new_entities_log"]] = math.log1p(t["new_entities"][i])
            row[col["prose_len_log"]] = math.log1p(t["prose_len"][i]) / 10.0
            row[col["prev_obs_error"]] = float(prev_obs_error)
            row[col["acting"]] = float(t["acting"][i])
            row[col["assume"]] = float(t["assume"][i])
            row[col["verify"]] = float(t["verify"][i])
            row[col["done"]] = float(t["done"][i])
            row[col["termination_only"]] = float(t["termination_only"][i])
            row[col["retrieval_claim"]] = float(t["retrieval_claim"][i])
            row[col["revision"]] = float(t["revision"][i])
            row[col["new_numbers_log"]] = math.log1p(t["new_numbers"][i])
            row[col["new_numbers_prose_log"]] = math.log1p(t["new_numbers_prose"][i])
            row[col["code_new_numbers"]] = float(t["code_new_numbers"][i])
            row[col["no_obs_before"]] = float(not obs_seen)
        row[col["errors_after_log"]] = math.log1p(sum(1 for e in err_idx if e > i))
        row[col["first_error_source"]] = float(first_err_src == i)
        row[col["before_first_error"]] = float(first_err is None or i < first_err)
        row[col["len_log"]] = math.log1p(t["text_len"][i]) / 10.0
        cats = by_step.get(i, {})
        row[col["finding_max"]] = max(cats.values(), default=0.0)
        row[col["finding_agent"]] = max((v for c, v in cats.items() if c != Category.ENVIRONMENT_FAILURE.value),
                                        default=0.0) if dec else 0.0
        near = [v for j in (i - 1, i + 1) for v in by_step.get(j, {}).values()]
        row[col["finding_near"]] = max(near, default=0.0)
        row[col["evidence"]] = evidence[i]
        row[col["n_findings_log"]] = math.log1p(len(cats))
        row[col["lex_align_centered"]] = lex[i] - lex_mean
        if obs:
            obs_seen = True
            prev_obs_error = bool(t["is_error"][i])
        elif dec:
            prev_obs_error = False
    for name, values in role_features(trajectory, step_embeddings, task_embedding, tab).items():
        x[:, col[name]] = values
    return x
