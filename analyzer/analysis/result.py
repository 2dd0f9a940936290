"""The shape of analysis output, shared by the pipeline, exports, reports and the UI.

Column names here are the CSV headers of ``traces.csv`` (RUN_COLUMNS joined onto the
traces frame) and ``steps.csv`` (STEP_VALUE_COLUMNS).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl

from analyzer.contrast.corpus import CONTRAST_COLUMNS, PAIR_COLUMNS
from analyzer.frames.build import empty_frame, frame_from_rows
from analyzer.frames.columns import FINDING_COLUMNS, ColumnSpec
from analyzer.schema.findings import Finding
from analyzer.signals.columns import SIGNAL_RUN_COLUMNS, SIGNAL_STEP_COLUMNS

RUN_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("decisive_step", pl.Int64, "Predicted decisive step (0-based); null for successful runs."),
    ColumnSpec("decisive_agent", pl.Utf8, "Responsible agent: the agent whose steps hold most of the candidate "
               "probability (usually the agent of the decisive step)."),
    ColumnSpec("category", pl.Utf8, "Taxonomy id of the decisive failure."),
    ColumnSpec("confidence", pl.Float64, "Confidence 0-1 in the decisive step."),
    ColumnSpec("top_steps", pl.Utf8, "Ranked candidate decisive steps, best first, comma-separated."),
    ColumnSpec("top_scores", pl.Utf8, "Scores of the ranked candidates, comma-separated."),
    ColumnSpec("decisive_uncertain", pl.Utf8, "When no step stands out (the decisive step's calibrated "
               "probability is below the fitted threshold, ``uncertain_below`` in the ranker params): the "
               "likeliest steps, best first, ';'-separated, shown as \"uncertain: steps a, b, c\" instead of one "
               "decisive step; null when the answer is certain."),
    ColumnSpec("label_priority", pl.Float64, "How much the analyst's label of this run would teach the ranker: "
               "the entropy of its step distribution over log(n steps), 0 (one step holds all the mass) to 1 "
               "(uniform); the review queue offers the highest first. Null without a decisive step."),
    ColumnSpec("rationale", pl.Utf8, "Why this step: what went wrong in the taxonomy's terms, with verbatim quotes "
               "of the evidence and the steps they come from (English)."),
    ColumnSpec("rationale_json", pl.Utf8, "The rationale as message ids plus parameters (JSON, see "
               "analyzer.attribution.rationale); the app renders it in the analyst's language."),
    ColumnSpec("min_value", pl.Float64, "Lowest value on the run's value curve."),
    ColumnSpec("largest_drop", pl.Float64, "Largest one-step fall of the value curve."),
    ColumnSpec("largest_drop_step", pl.Int64, "Step of the largest fall."),
    ColumnSpec("drop_note", pl.Utf8, "Why the value curve's largest drop is not at the pipeline's decisive step "
               "(the text names both steps); null when they agree within one step or there is no decisive step."),
    ColumnSpec("value_estimator", pl.Utf8, "Which estimator produced the values ('evidence-v1'; 'cheap' in "
               "older analyses)."),
    ColumnSpec("judge_model", pl.Utf8, "Judge model used for re-ranking/classification, if any."),
    ColumnSpec("n_findings", pl.Int64, "Number of detector findings."),
    ColumnSpec("error", pl.Utf8, "Analysis problems for this run (detector errors, judge errors)."),
    *SIGNAL_RUN_COLUMNS,
)

UNCERTAIN_SEPARATOR = ";"
"""Between the steps of ``decisive_uncertain``."""


def uncertain_steps(value: object) -> list[int]:
    """The steps of a ``decisive_uncertain`` cell, best first (empty for null: a certain answer)."""
    if value is None:
        return []
    return [int(p) for p in str(value).split(UNCERTAIN_SEPARATOR) if p.strip().isdigit()]


def uncertain_cell(steps: Sequence[int]) -> str | None:
    """The ``decisive_uncertain`` cell of a list of steps (None when empty)."""
    return UNCERTAIN_SEPARATOR.join(str(int(s)) for s in steps) or None


STEP_VALUE_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("step", pl.Int64, "0-based step index."),
    ColumnSpec("agent", pl.Utf8, "Agent of the step."),
    ColumnSpec("kind", pl.Utf8, "Step kind."),
    ColumnSpec("value", pl.Float64, "Estimated chance the run still succeeds after this step."),
    ColumnSpec("drop", pl.Float64, "Fall of the value at this step (previous value minus this one, >= 0)."),
    ColumnSpec("alignment", pl.Float64, "Semantic alignment of the step with the task (cosine), if computed."),
    ColumnSpec("candidate_score", pl.Float64, "Score of this step as the decisive step."),
    ColumnSpec("findings", pl.Utf8, "Categories of findings on this step, ';'-separated."),
    ColumnSpec("value_estimator", pl.Utf8, "Estimator of ``value`` ('evidence-v1'; 'cheap' in older analyses)."),
    ColumnSpec("judge_value", pl.Float64, "Judge's value for this step, when the judge curve was computed."),
    *SIGNAL_STEP_COLUMNS,
)


@dataclass
class RunAnalysis:
    """Analysis of one run (what the pipeline yields per run, for partial results).

    Attributes:
        run: One row of RUN_COLUMNS as a dict.
        steps: Rows of STEP_VALUE_COLUMNS.
        findings: Findings on this run.
        errors: Problems (detector id: message) that did not stop the analysis.
    """

    run: dict[str, object]
    steps: list[dict[str, object]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class AnalysisResult:
    """Frames of an analysis over many runs.

    Attributes:
        runs: RUN_COLUMNS, one row per analysed run.
        step_values: STEP_VALUE_COLUMNS, one row per step.
        findings: FINDING_COLUMNS.
        errors: Problems that did not stop the analysis.
        cancelled: True when the analysis stopped early on request.
        contrast: CONTRAST_COLUMNS: each failed run whose task also succeeded, against its nearest
            success (:mod:`analyzer.contrast`).
        pairs: PAIR_COLUMNS: every (failed, success) pair aligned, kept so a pair is aligned once.
    """

    runs: pl.DataFrame = field(default_factory=lambda: empty_frame(RUN_COLUMNS))
    step_values: pl.DataFrame = field(default_factory=lambda: empty_frame(STEP_VALUE_COLUMNS))
    findings: pl.DataFrame = field(default_factory=lambda: empty_frame(FINDING_COLUMNS))
    errors: list[str] = field(default_factory=list)
    cancelled: bool = False
    contrast: pl.DataFrame = field(default_factory=lambda: empty_frame(CONTRAST_COLUMNS))
    pairs: pl.DataFrame = field(default_factory=lambda: empty_frame(PAIR_COLUMNS))

    @classmethod
    def from_runs(cls, runs: list[RunAnalysis], cancelled: bool = False) -> AnalysisResult:
        """Combine per-run analyses into frames."""
        steps: list[dict[str, object]] = []
        findings: list[dict[str, object]] = []
        errors: list[str] = []
        for r in runs:
            steps.extend(r.steps)
            findings.extend(f.model_dump() for f in r.findings)
            errors.extend(r.errors)
        return cls(
            runs=frame_from_rows([r.run for r in runs], RUN_COLUMNS),
            step_values=frame_from_rows(steps, STEP_VALUE_COLUMNS),
            findings=frame_from_rows(findings, FINDING_COLUMNS),
            errors=errors,
            cancelled=cancelled,
        )

    def merge(self, other: AnalysisResult) -> AnalysisResult:
        """Results of ``other`` replace this result's rows for the same runs."""
        ids = other.runs["trace_id"]

        def keep(df: pl.DataFrame) -> pl.DataFrame:
            return df.filter(~pl.col("trace_id").is_in(ids.implode()))

        return AnalysisResult(
            runs=pl.concat([keep(self.runs), other.runs], how="vertical_relaxed"),
            step_values=pl.concat([keep(self.step_values), other.step_values], how="vertical_relaxed"),
            findings=pl.concat([keep(self.findings), other.findings], how="vertical_relaxed"),
            errors=self.errors + other.errors,
            cancelled=other.cancelled,
            contrast=self.contrast if other.contrast.height == 0 else pl.concat(
                [self.contrast.filter(~pl.col("trace_id").is_in(other.contrast["trace_id"].implode())), other.contrast],
                how="vertical_relaxed"),
            pairs=pl.concat([self.pairs, other.pairs], how="vertical_relaxed").unique(
                ["failed_id", "success_id", "params"], keep="last", maintain_order=True),
        )
