"""Per-step evidence for the value curve, read from the run's content.

Each step gets a log likelihood ratio ``llr[t] = log P(evidence_t | derailed) / P(evidence_t | on track)``:
positive when the step shows the run going wrong (an error output, a detector finding, the
task alignment falling, the judge's value falling), negative when it shows a recovery (a
retried action now succeeds, the error stops recurring, tests pass, the judge's value rises),
zero when it says nothing. :mod:`analyzer.attribution.value_curve` filters these into V(t).

The evidence is computed in two steps. :func:`term_matrix` reads the run once into an
unweighted **term matrix**, one documented column per evidence term
(:data:`~analyzer.attribution.curve_params.TERM_COLUMNS`: error output, error text, recurring
error, the finding score of each category, alignment fall, judge fall/rise, retry succeeds, no
recurrence, tests pass). :func:`weigh` turns it into log-LRs with the weights of a
:class:`~analyzer.attribution.curve_params.CurveParams`::

    llr = clip(X_plain @ w_plain + min(X_finding @ w_finding, finding_cap)
               + clip(judge columns x judge weights, +-judge_clip), +-step_clip)

The weights come from the params file the fit command writes (``docs/value_curve.md``); nothing
here is set by hand. Nothing here reads the ranker (its position prior or its probabilities) or
any gold label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from analyzer.attribution.curve_params import (
    FAILURE_COLUMNS,
    FINDING_CATEGORIES,
    FINDING_COLUMNS,
    TERM_COLUMNS,
    CurveParams,
    shipped_curve_params,
)
from analyzer.detection.messages import TERM_LABELS
from analyzer.detection.text import content_words, error_text, jaccard
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import BY_ID, Category

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

_COL = {name: i for i, name in enumerate(TERM_COLUMNS)}
_OTHER = f"finding:{Category.OTHER.value}"
_PLAIN = ("error_output", "recurring_error", "error_text", "retry_succeeds", "no_recurrence")
"""Columns whose contribution is weight x value, under the names of :data:`TERM_LABELS` (in this order)."""
_LABEL = {"error_output": "error", "recurring_error": "recurring", "error_text": "error_text",
          "retry_succeeds": "retry", "no_recurrence": "no_recurrence"}


@dataclass
class TermMatrix:
    """The unweighted evidence of one run: one row per step, one column per :data:`TERM_COLUMNS` entry.

    Attributes:
        values: ``steps x len(TERM_COLUMNS)`` (float64, finite).
        has_judge: Whether the judge's per-step values were given (its columns are 0 otherwise).
    """

    values: np.ndarray
    has_judge: bool = False

    columns: tuple[str, ...] = TERM_COLUMNS

    def column(self, name: str) -> np.ndarray:
        """One column by name (a view)."""
        return self.values[:, _COL[name]]

    def to_frame(self) -> Any:
        """The matrix as a polars frame (``step`` then one column per term)."""
        import polars as pl

        return pl.DataFrame({"step": np.arange(self.values.shape[0]),
                             **{c: self.values[:, i] for i, c in enumerate(self.columns)}})


@dataclass
class StepEvidence:
    """Per-step evidence of one run.

    Attributes:
        llr: Total log likelihood ratio (derailed vs on track) of each step.
        terms: Each term's weighted contribution per step (``error``, ``finding``, ``alignment`` ...).
        reasons: Plain words for the strongest term of each step ("" when the step says nothing).
        matrix: The unweighted term matrix the log-LRs were weighed from (None when built by hand).
    """

    llr: np.ndarray
    terms: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    matrix: TermMatrix | None = None


def _title(category: str) -> str:
    info = BY_ID.get(category)
    return info.title.lower() if info is not None else category.replace("_", " ")


def _looks_like_error(s: Step, observation: bool) -> bool:
    if s.error_text:
        return True
    head = s.text[:4000]
    return observation and bool(_ERROR_OUTPUT_RE.search(head) or _ERROR_CAPS_RE.search(head))


def _tests_pass(s: Step) -> bool:
    text = s.text[:4000]
    return bool(_TESTS_PASS_RE.search(text)) and not _TESTS_FAIL_RE.search(text)


def _error_columns(steps: Sequence[Step], x: np.ndarray, params: CurveParams, table: pl.DataFrame) -> np.ndarray:
    """Fill the error and recovery columns; return the passing-tests marks (one per step).

    An *episode* opens at an error and closes at the first recovery: the failed action run
    again (same tool or same call) without an error, ``clean_run`` clean observations in a
    row, or passing tests.
    """
    passing = np.zeros(len(steps), dtype=bool)
    t = columns_of(table)
    decision, observation = t["decision"], t["observation"]
    sigs: list[str | None] = t["action_signature"]
    last_action: Step | None = None
    open_words: frozenset[str] | None = None  # first error's words while an episode is open
    failed_tool: str | None = None
    failed_sig: str | None = None
    clean = 0
    for s in steps:
        i = s.index
        if decision[i] and sigs[i] is not None:
            last_action = s
        flagged = s.is_error
        textual = not flagged and _looks_like_error(s, observation[i])
        if flagged or textual:
            words = content_words(error_text(s)[:2000] or s.text[:2000])
            x[i, _COL["error_output" if flagged else "error_text"]] = 1.0
            if open_words is not None and jaccard(open_words, words) >= params.recurring_jaccard:
                x[i, _COL["recurring_error"]] = 1.0
            if open_words is None:
                open_words = words
                failed_tool = last_action.tool_name if last_action is not None else None
                failed_sig = sigs[last_action.index] if last_action is not None else None
            clean = 0
            continue
        if not observation[i]:
            continue
        if _tests_pass(s):
            passing[i] = True
            open_words = None
            continue
        if open_words is None:
            continue
        retried = last_action is not None and (
            (failed_tool is not None and last_action.tool_name == failed_tool)
            or (failed_sig is not None and sigs[last_action.index] == failed_sig))
        clean += 1
        if retried:
            x[i, _COL["retry_succeeds"]] = 1.0
        elif clean >= params.clean_run:
            x[i, _COL["no_recurrence"]] = 1.0
        else:
            continue
        open_words, failed_tool, failed_sig, clean = None, None, None, 0
    return passing


def _finding_columns(findings: Sequence[Finding], x: np.ndarray) -> None:
    """The strongest score of each category's findings per step (unknown categories add to ``other``)."""
    n = x.shape[0]
    best: dict[tuple[int, str], float] = {}
    for f in findings:
        if 0 <= f.step < n:
            key = (f.step, str(f.category))
            best[key] = max(best.get(key, 0.0), float(f.score))
    for (step, cat), score in sorted(best.items()):
        col = _COL.get(f"finding:{cat}", _COL[_OTHER])
        x[step, col] += score


def _alignment_column(steps: Sequence[Step], alignment: Sequence[float], params: CurveParams,
                      table: pl.DataFrame) -> np.ndarray:
    """How far the smoothed task alignment of decision steps has fallen below the run's baseline (0-1).

    The baseline is the median alignment of the first ``align_baseline_share`` (at least
    ``align_baseline_steps``) of the eligible decision steps; the moving average must fall more
    than ``align_slack`` (relative) below it. NaN where an alignment value is NaN (and after it).
    """
    n = len(steps)
    col = np.zeros(n)
    t = columns_of(table)
    decision, words = t["decision"], t["content_words"]
    idx = [s.index for s in steps if decision[s.index] and words[s.index] >= params.align_min_words]
    if len(idx) < params.align_min_steps:
        return col
    vals = np.array([float(alignment[i]) for i in idx])
    head = max(params.align_baseline_steps, int(len(vals) * params.align_baseline_share + 1e-9))
    base = float(np.median(vals[:head]))
    if base <= 1e-6:
        return col
    slack, smooth = params.align_slack, params.align_smoothing
    ema = vals[0]
    for k, i in enumerate(idx):
        ema = vals[k] if k == 0 else (1 - smooth) * ema + smooth * vals[k]
        deficit = (base - ema) / base
        col[i] = float(np.clip((deficit - slack) / (1 - slack), 0.0, 1.0))
    return col


def _judge_fall(judge_values: Sequence[float], n: int) -> np.ndarray:
    """Fall of the judge's value in logit space from the previous step (NaN where a value is NaN)."""
    v = np.clip(np.asarray(list(judge_values), dtype=np.float64), 0.01, 0.99)
    if v.size != n or n == 0:
        return np.zeros(n)
    lv = np.log(v / (1 - v))
    prev = np.concatenate(([lv[0]], lv[:-1]))
    out: np.ndarray = prev - lv
    return out


def term_matrix(
    trajectory: Trajectory,
    findings: Sequence[Finding] = (),
    alignment: Sequence[float] | None = None,
    judge_values: Sequence[float] | None = None,
    params: CurveParams | None = None,
    table: pl.DataFrame | None = None,
) -> TermMatrix:
    """The unweighted evidence of every step of a run (:data:`TERM_COLUMNS`).

    Args:
        trajectory: The run (its outcome is not read here).
        findings: Steps-phase detector findings (not the decisive-phase ones, which follow the ranker).
        alignment: Embedding cosine of each step with the task; None for the lexical set-cosine.
        judge_values: The judge's per-step value (chance of success after each step), if it ran.
        params: The filter constants (episode and alignment rules); None for the shipped ones.
            The weights are not read here.
        table: The run's step-signal table (kinds, action signatures, lexical alignment, content words:
            :func:`~analyzer.signals.steps.table_for`); computed when None.

    Returns:
        The matrix (finite values).
    """
    p = params or shipped_curve_params()
    steps = trajectory.steps
    n = len(steps)
    x = np.zeros((n, len(TERM_COLUMNS)))
    if n == 0:
        return TermMatrix(x)
    tab = table_for(trajectory, None, table)
    passing = _error_columns(steps, x, p, tab)
    _finding_columns(findings, x)
    align = alignment if alignment is not None and len(alignment) == n else columns_of(tab)["lexical_alignment"]
    a = _alignment_column(steps, align, p, tab)
    unreadable = np.isnan(a)  # a NaN alignment or judge value says nothing, not even to the tests-pass rule
    x[:, _COL["alignment_fall"]] = np.nan_to_num(a, nan=0.0)
    has_judge = judge_values is not None and len(judge_values) == n
    if has_judge:
        assert judge_values is not None
        d = _judge_fall(judge_values, n)
        unreadable |= np.isnan(d)
        d = np.nan_to_num(d, nan=0.0)
        x[:, _COL["judge_fall"]] = np.maximum(d, 0.0)
        x[:, _COL["judge_rise"]] = np.minimum(d, 0.0)
    failing = (x[:, [_COL[c] for c in FAILURE_COLUMNS]] != 0).any(axis=1) & ~unreadable
    pending = False
    for i in range(n):  # passing tests count after evidence of failure since the previous passing tests
        if passing[i]:
            if pending:
                x[i, _COL["tests_pass"]] = 1.0
            pending = False
        elif failing[i]:
            pending = True
    return TermMatrix(x, has_judge)


def weigh(matrix: TermMatrix, params: CurveParams | None = None) -> StepEvidence:
    """Per-step log-LRs of a term matrix with the params' weights, and the reason of each step.

    Args:
        matrix: :func:`term_matrix` of the run.
        params: Weights and clips; None for the shipped ones.

    Returns:
        The total and per-term (weighted) evidence, and the plain-words reason of each step.
    """
    p = params or shipped_curve_params()
    x = matrix.values
    n = x.shape[0]
    if n == 0:
        return StepEvidence(np.zeros(0), {}, [], matrix)
    w = p.weights
    terms: dict[str, np.ndarray] = {_LABEL[c]: w.get(c, 0.0) * x[:, _COL[c]] for c in _PLAIN}
    finding = np.zeros(n)
    top = np.zeros(n)
    top_cat = [""] * n
    for cat, name in zip(FINDING_CATEGORIES, FINDING_COLUMNS, strict=True):
        add = w.get(name, 0.0) * x[:, _COL[name]]
        finding = finding + add
        better = add > top
        top = np.where(better, add, top)
        for j in np.flatnonzero(better).tolist():
            top_cat[j] = cat
    terms["finding"] = np.minimum(finding, p.finding_cap)
    terms["alignment"] = w.get("alignment_fall", 0.0) * x[:, _COL["alignment_fall"]]
    if matrix.has_judge:
        terms["judge"] = np.minimum(w.get("judge_fall", 0.0) * x[:, _COL["judge_fall"]], p.judge_clip)
        terms["judge_up"] = np.maximum(w.get("judge_rise", 0.0) * x[:, _COL["judge_rise"]], -p.judge_clip)
    terms["tests_pass"] = w.get("tests_pass", 0.0) * x[:, _COL["tests_pass"]]
    llr = np.clip(np.sum(list(terms.values()), axis=0), -p.step_clip, p.step_clip)
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
        reasons.append(TERM_LABELS[name].format(category=_title(top_cat[i])) if name == "finding"
                       else TERM_LABELS[name])
    return StepEvidence(llr, terms, reasons, matrix)


def step_evidence(
    trajectory: Trajectory,
    findings: Sequence[Finding] = (),
    alignment: Sequence[float] | None = None,
    judge_values: Sequence[float] | None = None,
    params: CurveParams | None = None,
    table: pl.DataFrame | None = None,
) -> StepEvidence:
    """Per-step log likelihood ratios (derailed vs on track) from the run's content.

    :func:`term_matrix` then :func:`weigh`.

    Args:
        trajectory: The run (its outcome is not read here).
        findings: Steps-phase detector findings (not the decisive-phase ones, which follow the ranker).
        alignment: Embedding cosine of each step with the task; None for the lexical set-cosine.
        judge_values: The judge's per-step value (chance of success after each step), if it ran.
        params: Weights and constants; None for the shipped params file.
        table: The run's step-signal table (:func:`~analyzer.signals.steps.table_for`); computed when None.

    Returns:
        The total and per-term evidence, and the plain-words reason of each step.
    """
    return weigh(term_matrix(trajectory, findings, alignment, judge_values, params, table), params)
