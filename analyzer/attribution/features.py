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
    strip_code,
    task_containment,
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
)
"""Names of the feature columns, in order (also stored in the fitted params file).

Detector findings enter as tied features (strongest finding on the step, strongest
agent-fault finding on a decision step, strongest finding next to it, number of categories)
rather than one weight per category: the development set shows some categories rarely, and
a per-category weight fitted on a handful of cases would not carry over to other systems.

``evidence`` is the detector-evidence prior (strongest finding on the step; full weight for
the first finding of its category on the kind of step it is about: an agent decision for
agent faults, tool/environment output for environment failures; half otherwise). It is not fitted:
the ranker adds it with a fixed weight (see :mod:`analyzer.attribution.ranker`).

Embedding alignment reaches the ranker through the goal-drift and evidence-gap findings;
as direct features (centred cosine, change from the previous decision) it lowered the
cross-validated step@1 on the development set (37% vs 43%), so it is not a column here.
"""


def step_features(trajectory: Trajectory, findings: Sequence[Finding] = ()) -> np.ndarray:
    """Feature matrix (steps x FEATURE_NAMES) of one run.

    Args:
        trajectory: The run (gold fields are ignored).
        findings: Detector findings of this run (``judge_category`` findings are ignored);
            with an embedder, the goal-drift and evidence-gap findings carry its signal.

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
        first_err_src = next((s.index for s in reversed(steps[:first_err]) if is_decision(s)), None)
    by_step: dict[int, dict[str, float]] = {}
    first_of: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: f.step):
        if f.source != "judge_category" and f.step < n:
            first_of.setdefault(str(f.category), f.step)
    evidence = np.zeros(n)
    for f in findings:
        if f.source == "judge_category" or f.step >= n:
            continue
        env = f.category == Category.ENVIRONMENT_FAILURE
        fits_kind = (not is_decision(steps[f.step])) if env else is_decision(steps[f.step])
        w = (1.0 if first_of.get(str(f.category)) == f.step else 0.5) * (1.0 if fits_kind else 0.5)
        evidence[f.step] = max(evidence[f.step], w * f.score)
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
            agent = s.agent or str(s.role)
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
    return x
