"""Per-step evidence for the value curve, read from the run's content.

Each step gets a log likelihood ratio ``llr[t] = log P(evidence_t | derailed) / P(evidence_t | on track)``:
positive when the step shows the run going wrong (an error output, a detector finding, the
task alignment falling, the judge's value falling), negative when it shows a recovery (a
retried action now succeeds, the error stops recurring, tests pass, the judge's value rises),
zero when it says nothing. :mod:`analyzer.attribution.value_curve` filters these into V(t).

Nothing here reads the ranker (its position prior or its probabilities) or any gold label.
The weights are documented in ``docs/value_curve.md``; they are set by hand, not fitted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from analyzer.detection.helpers import lexical_alignment
from analyzer.detection.messages import TERM_LABELS
from analyzer.detection.text import (
    action_signature,
    content_words,
    error_text,
    is_decision,
    is_observation,
    jaccard,
)
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.taxonomy import BY_ID, Category

ERROR_OUTPUT = 3.0
"""Log-LR of a step flagged as an error (``Step.is_error``): one error makes derailment ~20x likelier."""

ERROR_TEXT = 1.5
"""Log-LR of an observation not flagged as an error whose text reads like one (traceback, ``Error:``)."""

RECURRING_ERROR = 1.0
"""Extra log-LR when an error repeats the open error episode's first error (same words)."""

FINDING_SCALE = 3.0
"""Log-LR of a finding of score 1 and category weight 1; a finding adds ``weight * scale * score``."""

FINDING_CAP = 4.0
"""Most log-LR the findings of one step add together."""

CATEGORY_WEIGHTS: dict[str, float] = {
    Category.PLANNING_ERROR.value: 0.4,  # placed on the first decision, in hindsight of later errors
    Category.GOAL_DRIFT.value: 0.6,  # overlaps the alignment term
    Category.EVIDENCE_ACTION_GAP.value: 0.8,
    Category.ERROR_ACCUMULATION.value: 0.6,  # overlaps the error outputs it counts
    Category.REPEATED_ACTION.value: 0.7,
    Category.FAILED_RECOVERY.value: 0.9,
    Category.FALSE_SUCCESS.value: 0.8,
    Category.HALLUCINATION.value: 1.0,
    Category.ENVIRONMENT_FAILURE.value: 0.3,  # sits on an error output already counted
    Category.OTHER.value: 0.5,
}
"""How much a finding of each category says about derailment (0-1)."""

ALIGN_WEIGHT = 0.25
"""Most log-LR per decision step when the smoothed task alignment has fallen far below the run's baseline."""

ALIGN_SLACK = 0.3
"""Relative fall of the smoothed alignment below the baseline that still counts as noise."""

ALIGN_SMOOTHING = 0.3
"""Weight of the newest step in the exponential moving average of the alignment."""

ALIGN_MIN_WORDS = 3
"""Decision steps with fewer content words carry no alignment evidence."""

RETRY_SUCCEEDS = -3.0
"""Log-LR when the action that failed (same tool or same call) is run again without an error."""

NO_RECURRENCE = -2.0
"""Log-LR when ``CLEAN_RUN`` observations in a row pass without an error after an error."""

CLEAN_RUN = 2
"""Clean observations in a row after which the error counts as no longer recurring."""

TESTS_PASS = -3.0
"""Log-LR of an observation reporting passing tests after earlier evidence of failure."""

JUDGE_WEIGHT = 0.7
"""Log-LR per unit fall of the judge's value in logit space (a rise counts as recovery)."""

JUDGE_CLIP = 3.0
"""Largest log-LR (either sign) one step of the judge's curve contributes."""

STEP_CLIP = 30.0
"""Largest log-LR (either sign) of one step, all terms together."""

_ERROR_OUTPUT_RE = re.compile(
    r"Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\b:|^\s*(?:error|fatal)\s*:|"
    r"\bexit (?:code|status)[: ]+[1-9]|returned non-zero exit|command not found|No such file or directory|"
    r"\bSegmentation fault\b",
    re.IGNORECASE | re.MULTILINE,
)
_ERROR_CAPS_RE = re.compile(r"\bFAILED\b|\bFATAL\b")  # case-sensitive: "failed" in prose is not an error output
_TESTS_PASS_RE = re.compile(
    r"\b\d+ passed\b|\ball (?:\d+ )?tests? (?:passed|pass|succeeded)\b|\btests? passed\b|^OK(?: \(.*\))?\s*$|\bPASSED\b",
    re.IGNORECASE | re.MULTILINE,
)
_TESTS_FAIL_RE = re.compile(r"\b\d+ (?:failed|errors?)\b|\bFAILED\b|\bFAIL:|\bERROR:", re.IGNORECASE)




@dataclass
class StepEvidence:
    """Per-step evidence of one run.

    Attributes:
        llr: Total log likelihood ratio (derailed vs on track) of each step.
        terms: Each term's contribution per step (``error``, ``finding``, ``alignment`` ...).
        reasons: Plain words for the strongest term of each step ("" when the step says nothing).
    """

    llr: np.ndarray
    terms: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)


def _title(category: str) -> str:
    info = BY_ID.get(category)
    return info.title.lower() if info is not None else category.replace("_", " ")


def _looks_like_error(s: Step) -> bool:
    if s.error_text:
        return True
    head = s.text[:4000]
    return is_observation(s) and bool(_ERROR_OUTPUT_RE.search(head) or _ERROR_CAPS_RE.search(head))


def _tests_pass(s: Step) -> bool:
    text = s.text[:4000]
    return bool(_TESTS_PASS_RE.search(text)) and not _TESTS_FAIL_RE.search(text)


def _error_terms(steps: Sequence[Step], n: int) -> dict[str, np.ndarray]:
    """Errors, their recurrence, and the recoveries that close an error episode.

    An *episode* opens at an error and closes at the first recovery: the failed action run
    again (same tool or same call) without an error, ``CLEAN_RUN`` clean observations in a
    row, or passing tests.
    """
    out = {k: np.zeros(n) for k in ("error", "recurring", "error_text", "retry", "no_recurrence", "passing")}
    last_action: Step | None = None
    open_words: frozenset[str] | None = None  # first error's words while an episode is open
    failed_tool: str | None = None
    failed_sig: str | None = None
    clean = 0
    for s in steps:
        i = s.index
        if is_decision(s) and action_signature(s) is not None:
            last_action = s
        flagged = s.is_error
        textual = not flagged and _looks_like_error(s)
        if flagged or textual:
            words = content_words(error_text(s)[:2000] or s.text[:2000])
            out["error" if flagged else "error_text"][i] = ERROR_OUTPUT if flagged else ERROR_TEXT
            if open_words is not None and jaccard(open_words, words) >= 0.5:
                out["recurring"][i] = RECURRING_ERROR
            if open_words is None:
                open_words = words
                failed_tool = last_action.tool_name if last_action is not None else None
                failed_sig = action_signature(last_action) if last_action is not None else None
            clean = 0
            continue
        if not is_observation(s):
            continue
        if _tests_pass(s):
            out["passing"][i] = 1.0  # marks the step; :func:`_tests_pass_term` decides what it is worth
            open_words = None
            continue
        if open_words is None:
            continue
        retried = last_action is not None and (
            (failed_tool is not None and last_action.tool_name == failed_tool)
            or (failed_sig is not None and action_signature(last_action) == failed_sig))
        clean += 1
        if retried:
            out["retry"][i] = RETRY_SUCCEEDS
        elif clean >= CLEAN_RUN:
            out["no_recurrence"][i] = NO_RECURRENCE
        else:
            continue
        open_words, failed_tool, failed_sig, clean = None, None, None, 0
    return out


def _tests_pass_term(passing: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """``TESTS_PASS`` on each passing-tests observation that follows evidence of failure.

    Evidence of failure is any step with positive log-LR since the previous passing tests;
    tests passing in a run that showed nothing wrong say nothing new.
    """
    term = np.zeros(passing.size)
    pending = False
    for i in range(passing.size):
        if passing[i]:
            if pending:
                term[i] = TESTS_PASS
            pending = False
        elif negative[i] > 0:
            pending = True
    return term


def _finding_term(findings: Sequence[Finding], n: int) -> tuple[np.ndarray, list[str]]:
    best: dict[tuple[int, str], float] = {}
    for f in findings:
        if 0 <= f.step < n:
            key = (f.step, str(f.category))
            best[key] = max(best.get(key, 0.0), float(f.score))
    term = np.zeros(n)
    top: list[tuple[float, str]] = [(0.0, "")] * n
    for (step, cat), score in sorted(best.items()):
        add = CATEGORY_WEIGHTS.get(cat, CATEGORY_WEIGHTS[Category.OTHER.value]) * FINDING_SCALE * score
        term[step] += add
        if add > top[step][0]:
            top[step] = (add, cat)
    return np.minimum(term, FINDING_CAP), [c for _, c in top]


def _alignment_term(steps: Sequence[Step], alignment: Sequence[float]) -> np.ndarray:
    """Evidence from the smoothed task alignment of decision steps falling below the run's baseline.

    The baseline is the median alignment of the first third (at least 3) of the eligible
    decision steps; the moving average must fall more than ``ALIGN_SLACK`` (relative) below it.
    """
    n = len(steps)
    term = np.zeros(n)
    idx = [s.index for s in steps if is_decision(s) and len(content_words(s.text[:4000])) >= ALIGN_MIN_WORDS]
    if len(idx) < 6:
        return term
    vals = np.array([float(alignment[i]) for i in idx])
    base = float(np.median(vals[: max(3, len(vals) // 3)]))
    if base <= 1e-6:
        return term
    ema = vals[0]
    for k, i in enumerate(idx):
        ema = vals[k] if k == 0 else (1 - ALIGN_SMOOTHING) * ema + ALIGN_SMOOTHING * vals[k]
        deficit = (base - ema) / base
        term[i] = ALIGN_WEIGHT * float(np.clip((deficit - ALIGN_SLACK) / (1 - ALIGN_SLACK), 0.0, 1.0))
    return term


def _judge_term(judge_values: Sequence[float], n: int) -> np.ndarray:
    v = np.clip(np.asarray(list(judge_values), dtype=np.float64), 0.01, 0.99)
    if v.size != n or n == 0:
        return np.zeros(n)
    lv = np.log(v / (1 - v))
    prev = np.concatenate(([lv[0]], lv[:-1]))
    return np.clip(JUDGE_WEIGHT * (prev - lv), -JUDGE_CLIP, JUDGE_CLIP)


def step_evidence(
    trajectory: Trajectory,
    findings: Sequence[Finding] = (),
    alignment: Sequence[float] | None = None,
    judge_values: Sequence[float] | None = None,
) -> StepEvidence:
    """Per-step log likelihood ratios (derailed vs on track) from the run's content.

    Args:
        trajectory: The run (its outcome is not read here).
        findings: Steps-phase detector findings (not the decisive-phase ones, which follow the ranker).
        alignment: Embedding cosine of each step with the task; None for the lexical set-cosine.
        judge_values: The judge's per-step value (chance of success after each step), if it ran.

    Returns:
        The total and per-term evidence, and the plain-words reason of each step.
    """
    steps = trajectory.steps
    n = len(steps)
    if n == 0:
        return StepEvidence(np.zeros(0), {}, [])
    terms = _error_terms(steps, n)
    terms["finding"], finding_cat = _finding_term(findings, n)
    align = alignment if alignment is not None and len(alignment) == n else [
        lexical_alignment(trajectory.task, s.text) for s in steps]
    terms["alignment"] = _alignment_term(steps, align)
    if judge_values is not None and len(judge_values) == n:
        j = _judge_term(judge_values, n)
        terms["judge"], terms["judge_up"] = np.maximum(j, 0.0), np.minimum(j, 0.0)
    passing = terms.pop("passing")
    negative = np.sum([np.maximum(v, 0.0) for v in terms.values()], axis=0)
    terms["tests_pass"] = _tests_pass_term(passing, negative)
    for name in terms:  # a NaN alignment or judge value says nothing
        terms[name] = np.nan_to_num(terms[name], nan=0.0, posinf=STEP_CLIP, neginf=-STEP_CLIP)
    llr = np.clip(np.sum(list(terms.values()), axis=0), -STEP_CLIP, STEP_CLIP)
    names = list(terms)
    stack = np.vstack([terms[k] for k in names])
    reasons: list[str] = []
    for i in range(n):
        col = stack[:, i]
        k = int(np.argmax(np.abs(col)))
        if col[k] == 0.0:
            reasons.append("")
            continue
        # the reason of a step whose evidence is net positive is its strongest positive term
        if llr[i] > 0 and col[k] < 0:
            k = int(np.argmax(col))
        name = names[k]
        reasons.append(TERM_LABELS[name].format(category=_title(finding_cat[i])) if name == "finding"
                       else TERM_LABELS[name])
    return StepEvidence(llr, terms, reasons)
