"""Parameters of the value curve: the weight of each evidence column and the filter's constants.

They are read from a params file (``params/value-curve-v1.json``, shipped) that
``trajscope eval fit-curve ROOT`` writes (:mod:`analyzer.evaluation.curve_fit`); nothing in
:mod:`analyzer.attribution.hazards` or :mod:`analyzer.attribution.value_curve` is set by hand.
``params/value-curve-handset.json`` keeps the weights that were set by hand before the fit
(the baseline of the evaluation). See ``docs/value_curve.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from analyzer.taxonomy import Category

CURVE_PARAMS_FILE = "value-curve-v1.json"
"""The shipped value-curve params (package data under ``analyzer/attribution/params``)."""

HANDSET_PARAMS_FILE = "value-curve-handset.json"
"""The weights set by hand before the fit (issue 9), kept as the evaluation's baseline."""

FINDING_CATEGORIES: tuple[str, ...] = tuple(sorted(c.value for c in Category))
"""Categories of the finding columns, in column order (sorted ids; unknown ones count as ``other``)."""

TERM_DOCS: dict[str, str] = {
    "error_output": "1 on a step flagged as an error (`Step.is_error`)",
    "error_text": "1 on an observation not flagged as an error whose text reads like one (traceback, "
                  "`SomeError:`, non-zero exit ...), or a step with `error_text`",
    "recurring_error": "1 on an error while an error episode is open whose words overlap the episode's first "
                       "error (Jaccard >= `recurring_jaccard`)",
    "retry_succeeds": "1 on an observation without error, while an error episode is open, after the same tool "
                      "(or the same call) as the one that failed",
    "no_recurrence": "1 on the `clean_run`-th clean observation in a row while an error episode is open",
    **{f"finding:{c}": f"strongest score (0-1) of a steps-phase `{c}` finding on the step"
       for c in FINDING_CATEGORIES},
    "alignment_fall": "0-1: how far the moving average of the step-task alignment of decision steps has fallen "
                      "below the run's baseline, beyond `align_slack` (linear from the slack to 100%)",
    "judge_fall": "fall of the judge's value in logit space from the previous step (0 when it rises; 0 without "
                  "the judge)",
    "judge_rise": "minus the rise of the judge's value in logit space (<= 0; 0 when it falls or without the judge)",
    "tests_pass": "1 on an observation reporting passing tests after a step with any non-zero failure column "
                  "(error, finding, alignment, judge fall) since the previous passing tests",
}
"""Every column of the term matrix and what one unit of it is (the matrix is unweighted)."""

TERM_COLUMNS: tuple[str, ...] = tuple(TERM_DOCS)
"""Column order of the term matrix (:func:`analyzer.attribution.hazards.term_matrix`)."""

FAILURE_COLUMNS: tuple[str, ...] = tuple(
    c for c in TERM_COLUMNS if c in ("error_output", "error_text", "recurring_error", "alignment_fall", "judge_fall")
    or c.startswith("finding:"))
"""Columns that are evidence of failure (their weights are >= 0); the others are evidence of recovery."""

FINDING_COLUMNS: tuple[str, ...] = tuple(f"finding:{c}" for c in FINDING_CATEGORIES)


@dataclass(frozen=True)
class CurveParams:
    """Weights of the term matrix and constants of the evidence filter.

    Attributes:
        weights: Log-LR of one unit of each column of :data:`TERM_COLUMNS`.
        finding_cap: Most log-LR the finding columns of one step add together.
        judge_clip: Largest log-LR (either sign) of the judge columns of one step.
        step_clip: Largest log-LR (either sign) of one step, all terms together.
        recurring_jaccard: Word overlap with the open episode's first error that makes an error recur.
        clean_run: Clean observations in a row after which an error no longer recurs.
        align_slack: Relative fall of the smoothed alignment below the baseline that is still noise.
        align_smoothing: Weight of the newest step in the moving average of the alignment.
        align_min_words: Decision steps with fewer content words carry no alignment evidence.
        align_min_steps: Runs with fewer eligible decision steps carry no alignment evidence.
        align_baseline_steps: Least number of first eligible steps whose median is the baseline.
        align_baseline_share: Share of the eligible steps (from the start) whose median is the baseline.
        derail: Chance per step that an on-track run derails without visible evidence.
        recover: Chance per step that a derailed run gets back on track without visible evidence.
        failed_end: P(on track) at the last step of a run known to have failed.
        succeeded_end: Least P(on track) at the last step of a run known to have succeeded.
        max_temper: Most the outcome multiplies the evidence that points its way by.
        llr_clip: Bound on one step's log-LR inside the filter (numerical safety).
        meta: Where the values come from (fit command, date, training systems, figures).
    """

    weights: dict[str, float]
    finding_cap: float
    judge_clip: float
    step_clip: float
    recurring_jaccard: float
    clean_run: int
    align_slack: float
    align_smoothing: float
    align_min_words: int
    align_min_steps: int
    align_baseline_steps: int
    align_baseline_share: float
    derail: float
    recover: float
    failed_end: float
    succeeded_end: float
    max_temper: float
    llr_clip: float
    meta: dict[str, Any] = field(default_factory=dict)

    def weight_vector(self) -> list[float]:
        """The weights in :data:`TERM_COLUMNS` order (a missing column weighs 0)."""
        return [float(self.weights.get(c, 0.0)) for c in TERM_COLUMNS]

    def with_weights(self, weights: dict[str, float], **changes: Any) -> CurveParams:
        """A copy with some weights (and other fields) replaced."""
        return replace(self, weights={**self.weights, **weights}, **changes)

    def to_json(self) -> dict[str, Any]:
        """The params file's content."""
        out: dict[str, Any] = {"format": "trajscope-value-curve", "version": 1,
                               "weights": {c: self.weights.get(c, 0.0) for c in TERM_COLUMNS}}
        for name in _SCALARS:
            out[name] = getattr(self, name)
        out["meta"] = self.meta
        return out

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> CurveParams:
        """Parse a params file's content; a missing entry takes the fallback value.

        Raises:
            ValueError: Not a value-curve params document, or a weight names no column.
        """
        if doc.get("format") != "trajscope-value-curve":
            raise ValueError("not a value-curve params file (format is not 'trajscope-value-curve')")
        weights = {str(k): float(v) for k, v in dict(doc.get("weights", {})).items()}
        unknown = sorted(set(weights) - set(TERM_COLUMNS))
        if unknown:
            raise ValueError(f"value-curve params: unknown columns {', '.join(unknown)}")
        base = FALLBACK
        kw: dict[str, Any] = {}
        for name in _SCALARS:
            kind = type(getattr(base, name))
            kw[name] = kind(doc[name]) if name in doc else getattr(base, name)
        return cls(weights={**base.weights, **weights}, meta=dict(doc.get("meta", {})), **kw)

    @classmethod
    def load(cls, path: str | Path | None = None) -> CurveParams:
        """The shipped params (``path`` None) or a params file."""
        if path is None:
            return shipped_curve_params()
        return cls.from_json(json.loads(Path(path).read_text("utf-8")))

    @classmethod
    def packaged(cls, name: str) -> CurveParams:
        """A params file shipped in the package (``CURVE_PARAMS_FILE``, ``HANDSET_PARAMS_FILE``)."""
        text = resources.files("analyzer.attribution").joinpath("params", name).read_text("utf-8")
        return cls.from_json(json.loads(text))


_SCALARS: tuple[str, ...] = (
    "finding_cap", "judge_clip", "step_clip", "recurring_jaccard", "clean_run", "align_slack", "align_smoothing",
    "align_min_words", "align_min_steps", "align_baseline_steps", "align_baseline_share", "derail", "recover",
    "failed_end", "succeeded_end", "max_temper", "llr_clip")

FALLBACK = CurveParams(
    weights={'error_output': 0.0,
             'error_text': 1.5,
             'recurring_error': 0.0,
             'retry_succeeds': -5.0,
             'no_recurrence': -2.0,
             'finding:environment_failure': 1.0,
             'finding:error_accumulation': 8.0,
             'finding:evidence_action_gap': 2.4000000000000004,
             'finding:failed_recovery': 5.0,
             'finding:false_success': 0.5,
             'finding:goal_drift': 2.0,
             'finding:hallucination': 5.0,
             'finding:other': 1.5,
             'finding:planning_error': 1.0,
             'finding:repeated_action': 0.0,
             'alignment_fall': 0.25,
             'judge_fall': 0.7,
             'judge_rise': 0.7,
             'tests_pass': 0.0},
    finding_cap=4.0,
    judge_clip=3.0,
    step_clip=30.0,
    recurring_jaccard=0.5,
    clean_run=1,
    align_slack=0.3,
    align_smoothing=0.6,
    align_min_words=3,
    align_min_steps=6,
    align_baseline_steps=3,
    align_baseline_share=0.3333333333333333,
    derail=4e-05,
    recover=0.002,
    failed_end=0.05,
    succeeded_end=0.95,
    max_temper=50.0,
    llr_clip=50.0,
    meta={"source": "fallback: equal to the shipped params file (tests/analyzer/test_curve_terms.py checks it)"},
)
"""Used only when the shipped params file cannot be read; equal to it (a test checks that)."""


@lru_cache(maxsize=1)
def shipped_curve_params() -> CurveParams:
    """The shipped params, read once per process; the fallback when the file cannot be read."""
    try:
        return CurveParams.packaged(CURVE_PARAMS_FILE)
    except (OSError, ValueError):
        return FALLBACK
