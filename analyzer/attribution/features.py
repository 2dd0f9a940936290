"""Per-step features for ranking candidate decisive steps.

Only structure every importer provides (step kinds, roles, error flags, order), text cues,
detector findings and task alignment. No agent names, no dataset conventions, and never
the gold labels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from analyzer.detection.helpers import lexical_alignment
from analyzer.detection.text import (
    ASSUMPTION_RE,
    DONE_RE,
    RETRIEVAL_CLAIM_RE,
    REVISION_RE,
    VERIFY_RE,
    WORKAROUND_RE,
    acts,
    agent_identity,
    briefing_steps,
    code_blocks,
    entities,
    is_acting,
    is_decision,
    is_empty_output,
    is_input,
    is_observation,
    is_termination_only,
    list_items,
    next_observation,
    significant_numbers,
    source_decision,
    strip_code,
    task_containment,
    unresolved_error,
)
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
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
)
"""Names of the feature columns, in order (also stored in the fitted params file).

Detector findings enter as tied features (strongest finding on the step, strongest
agent-fault finding on a decision step, strongest finding next to it, number of categories)
rather than one weight per category: the development set shows some categories rarely, and
a per-category weight fitted on a handful of cases would not carry over to other systems.

``evidence`` is the detector-evidence prior (strongest finding on the step; full weight for
the first finding of its category on the kind of step it is about: an agent decision for
agent faults, tool/environment output for environment failures; half otherwise). A finding
that follows a cause finding of the same run (:data:`CAUSE_CATEGORIES`) counts less: it most
likely shows the cause's consequence (:func:`evidence_class_weight`). It is not fitted:
the ranker adds it with a fixed weight (see :mod:`analyzer.attribution.ranker`).

Embedding alignment reaches the ranker through the goal-drift and evidence-gap findings;
as direct features (centred cosine, change from the previous decision) it lowered the
cross-validated step@1 on the development set (37% vs 43%), so it is not a column here.

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
    "top_actor_first_act", "len_z", "next_similarity_z",
)
"""The behaviour-inferred role and within-run normalised columns (:func:`role_features`)."""

TRANSFER_FEATURES: tuple[str, ...] = (
    "decision", "agent_first_turn", "decision_rel", "top_actor_first_turn", "top_actor_second_turn",
    "first_error_source",
)
"""The features the shipped weights use. Each is structural (who acts, in what order, what
follows an error) and kept its sign and use when fitted on two development sets and scored
on the third (README, ablation table). ``top_actor_first_turn`` is not fitted there: it carries
the fixed structural prior (:data:`analyzer.attribution.fit.TRANSFER_PRIOR`). The other columns
are fitted only within one system:
``trajscope eval --cv`` and the analyst's own labels (adaptation) free them.

``next_obs_error`` (the decision's own output errs) was one of them until GAIA's tool outputs
were read as observations. Its leave-one-dataset-out contribution was 0 on every set before and
after; fitted with GAIA's errors its weight turned negative (a decision that visibly fails is
rarely the decisive one) and pushed the planted tool failures of ``sample_traces/`` out of the
top 3 (14 of 19). Without it no step figure moves and Who&When agent@1 gains a run (README)."""

CAUSE_CATEGORIES: frozenset[str] = frozenset({Category.HALLUCINATION.value, Category.ERROR_ACCUMULATION.value})
"""Categories whose findings mark where an error enters a run: a value that no observation
supports, or one that later steps build on. On all three development sets their strongest
finding in a run lies on the labelled decisive step more often than chance (1.2 to 10 times).
The other categories' findings (repeated actions, failed recoveries, environment failures,
goal drift, false success claims) mark where a failure shows: no more often than chance."""

SYMPTOM_EVIDENCE = 0.25
"""Weight, in the ``evidence`` column, of a non-cause finding that comes after a cause
finding of the same run (most likely its consequence), and of every goal-drift finding."""

LATE_CATEGORIES: frozenset[str] = frozenset({Category.GOAL_DRIFT.value})
"""Categories whose findings always count as symptoms: goal drift is found where a fall in task
alignment is already under way, and its strongest finding lay on the decisive step in 1 of 35
development runs (chance: about 4)."""

GROUNDED_ONLY: frozenset[str] = frozenset({Category.FALSE_SUCCESS.value})
"""Categories whose findings count fully only where the trace itself shows the failure: a
success claim after an error output the run has not resolved
(:func:`~analyzer.detection.text.unresolved_error`). Without one, the claim is false only by
the run's recorded outcome, and it counts as a symptom (:data:`SYMPTOM_EVIDENCE`). The
strongest false-success finding of a run lies on the labelled decisive step less often than
chance on Who&When and TracerTraj-Code (README); counted this way, Who&When's
leave-one-dataset-out step@1 rose from 32.5% to 37.3%, GAIA's fell by one run, and the planted
samples stayed at 16 of 19."""

PLANNING_EVIDENCE = 0.5
"""The same for a planning-error finding (the committing step) after a cause finding."""


def evidence_class_weight(category: str, after_cause: bool = False) -> float:
    """Weight of a finding of ``category`` in the detector-evidence prior.

    Cause findings count fully. Goal drift (:data:`LATE_CATEGORIES`) counts as a symptom. The
    others count fully, unless a cause finding came earlier in the run: then they are most
    likely its consequence.
    """
    if category in LATE_CATEGORIES:
        return SYMPTOM_EVIDENCE
    if category in CAUSE_CATEGORIES or not after_cause:
        return 1.0
    return PLANNING_EVIDENCE if category == Category.PLANNING_ERROR.value else SYMPTOM_EVIDENCE


def _within_z(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``values`` z-scored over the rows in ``mask`` (0 elsewhere, and when fewer than 2 rows)."""
    out = np.zeros_like(values)
    if int(mask.sum()) >= 2:
        v = values[mask]
        sd = float(v.std())
        out[mask] = (v - v.mean()) / (sd if sd > 1e-9 else 1.0)
    return out


def role_features(trajectory: Trajectory, step_embeddings: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The behaviour-inferred role and within-run normalised columns of one run (see the module doc)."""
    steps = trajectory.steps
    n = len(steps)
    out = {k: np.zeros(n) for k in ROLE_FEATURES}
    if n == 0:
        return out
    brief = briefing_steps(steps, trajectory.task)
    dec = np.array([is_decision(s) for s in steps])
    order = [s.index for s in steps if dec[s.index] and s.index not in brief]
    agents = [agent_identity(s) for s in steps]
    acting = [acts(s) for s in steps]
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
    out["len_z"] = _within_z(np.array([math.log1p(len(s.text)) for s in steps]), dec)
    if step_embeddings is not None and len(step_embeddings) == n and n > 1:
        e = np.asarray(step_embeddings, dtype=np.float64)
        later = np.zeros(n)
        for i in range(n - 1):  # cosine to the most similar later step (the step's content taken up)
            later[i] = float((e[i + 1:] @ e[i]).max())
        out["next_similarity_z"] = _within_z(later, dec)
    return out



def step_features(trajectory: Trajectory, findings: Sequence[Finding] = (),
                  step_embeddings: np.ndarray | None = None) -> np.ndarray:
    """Feature matrix (steps x FEATURE_NAMES) of one run.

    Args:
        trajectory: The run (gold fields are ignored).
        findings: Detector findings of this run (``judge_category`` findings are ignored);
            with an embedder, the goal-drift and evidence-gap findings carry its signal.
        step_embeddings: Unit-norm step embeddings (rows aligned with steps), if computed.

    Returns:
        A float64 array of shape ``(len(steps), len(FEATURE_NAMES))``.
    """
    steps = trajectory.steps
    n = len(steps)
    x = np.zeros((n, len(FEATURE_NAMES)), dtype=np.float64)
    if n == 0:
        return x
    col = {name: k for k, name in enumerate(FEATURE_NAMES)}
    brief = briefing_steps(steps, trajectory.task)
    seen_numbers = significant_numbers(trajectory.task)
    seen_entities = entities(trajectory.task)
    err_idx = [s.index for s in steps if is_observation(s) and s.is_error]
    first_err = err_idx[0] if err_idx else None
    first_err_src = None
    if first_err is not None:
        first_err_src = source_decision(steps, first_err)
    by_step: dict[int, dict[str, float]] = {}
    first_of: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: f.step):
        if f.source != "judge_category" and f.step < n:
            first_of.setdefault(str(f.category), f.step)
    evidence = np.zeros(n)
    cause_at = min((first_of[c] for c in CAUSE_CATEGORIES if c in first_of), default=None)
    for f in findings:
        if f.source == "judge_category" or f.step >= n:
            continue
        env = f.category == Category.ENVIRONMENT_FAILURE
        fits_kind = (not is_decision(steps[f.step])) if env else is_decision(steps[f.step])
        w = (1.0 if first_of.get(str(f.category)) == f.step else 0.5) * (1.0 if fits_kind else 0.5)
        after_cause = cause_at is not None and cause_at < f.step
        cw = evidence_class_weight(str(f.category), after_cause)
        if str(f.category) in GROUNDED_ONLY and unresolved_error(steps, f.step) is None:
            cw = min(cw, SYMPTOM_EVIDENCE)
        evidence[f.step] = max(evidence[f.step], w * f.score * cw)
    for f in findings:
        if f.source == "judge_category" or f.step >= n:
            continue
        d = by_step.setdefault(f.step, {})
        d[str(f.category)] = max(d.get(str(f.category), 0.0), f.score)
    lex = [lexical_alignment(trajectory.task, s.text) for s in steps]
    dec_lex = [lex[s.index] for s in steps if is_decision(s)] or lex
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
        dec, obs = is_decision(s), is_observation(s)
        row[col["decision"]] = float(dec)
        row[col["observation"]] = float(obs)
        row[col["input"]] = float(is_input(s))
        row[col["briefing"]] = float(i in brief)
        row[col["task_containment"]] = task_containment(trajectory.task, s.text) if trajectory.task else 0.0
        text = s.text[:50000]
        prose = strip_code(text)
        nums = significant_numbers(text)
        if dec and i not in brief:
            row[col["first_decision"]] = float(ordinal == 0)
            row[col["second_decision"]] = float(ordinal == 1)
            row[col["decision_ordinal_log"]] = math.log1p(ordinal)
            ordinal += 1
        if dec:
            agent = agent_identity(s)
            row[col["agent_first_turn"]] = float(agent not in agents_seen)
            row[col["same_agent_as_prev"]] = float(prev_decision_agent == agent)
            agents_seen.add(agent)
            prev_decision_agent = agent
            nxt = next_observation(steps, i)
            row[col["next_obs_error"]] = float(nxt is not None and nxt.is_error)
            row[col["empty_result_follows"]] = float(nxt is not None and is_empty_output(nxt.text))
            row[col["workaround"]] = float(bool(WORKAROUND_RE.search(prose)))
            row[col["list_items_log"]] = math.log1p(list_items(prose))
            row[col["new_entities_log"]] = math.log1p(len(entities(prose) - seen_entities))
            row[col["prose_len_log"]] = math.log1p(len(prose)) / 10.0
            row[col["prev_obs_error"]] = float(prev_obs_error)
            row[col["acting"]] = float(is_acting(s))
            row[col["assume"]] = float(bool(ASSUMPTION_RE.search(text)))
            row[col["verify"]] = float(bool(VERIFY_RE.search(prose)))
            row[col["done"]] = float(bool(DONE_RE.search(prose)))
            row[col["termination_only"]] = float(is_termination_only(prose))
            row[col["retrieval_claim"]] = float(bool(RETRIEVAL_CLAIM_RE.search(prose)))
            row[col["revision"]] = float(bool(REVISION_RE.search(prose)))
            new_all = nums - seen_numbers
            new_prose = significant_numbers(prose) - seen_numbers
            code_nums: set[str] = set()
            for c in code_blocks(text):
                code_nums |= significant_numbers(c)
            row[col["new_numbers_log"]] = math.log1p(len(new_all))
            row[col["new_numbers_prose_log"]] = math.log1p(len(new_prose))
            row[col["code_new_numbers"]] = float(bool(code_nums - seen_numbers))
            row[col["no_obs_before"]] = float(not obs_seen)
        row[col["errors_after_log"]] = math.log1p(sum(1 for e in err_idx if e > i))
        row[col["first_error_source"]] = float(first_err_src == i)
        row[col["before_first_error"]] = float(first_err is None or i < first_err)
        row[col["len_log"]] = math.log1p(len(s.text)) / 10.0
        cats = by_step.get(i, {})
        row[col["finding_max"]] = max(cats.values(), default=0.0)
        row[col["finding_agent"]] = max((v for c, v in cats.items() if c != Category.ENVIRONMENT_FAILURE.value),
                                        default=0.0) if dec else 0.0
        near = [v for j in (i - 1, i + 1) for v in by_step.get(j, {}).values()]
        row[col["finding_near"]] = max(near, default=0.0)
        row[col["evidence"]] = evidence[i]
        row[col["n_findings_log"]] = math.log1p(len(cats))
        row[col["lex_align_centered"]] = lex[i] - lex_mean
        seen_numbers |= nums
        seen_entities |= entities(text)
        if obs:
            obs_seen = True
            prev_obs_error = bool(s.is_error)
        elif dec:
            prev_obs_error = False
    for name, values in role_features(trajectory, step_embeddings).items():
        x[:, col[name]] = values
    return x
