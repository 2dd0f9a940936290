"""Column specs of the exported tables (``traces.csv``, ``steps.csv``).

Every column is taken from a frame spec (TRACE_COLUMNS, STEP_COLUMNS, RUN_COLUMNS,
STEP_VALUE_COLUMNS, LABEL_COLUMNS) so exports, the UI and the pipeline agree on names.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS
from analyzer.contrast.corpus import CONTRAST_COLUMNS
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS, ColumnSpec
from analyzer.metrics.efficiency import EFFICIENCY_COLUMNS
from analyzer.metrics.labels import LABEL_COLUMNS
from analyzer.outcome.effective import OUTCOME_COLUMNS
from analyzer.signals.columns import SIGNAL_RUN_COLUMNS

TOP_K = 3
"""Candidate decisive steps listed per run in ``traces.csv``."""


def _pick(specs: tuple[ColumnSpec, ...], *names: str) -> tuple[ColumnSpec, ...]:
    by_name = {c.name: c for c in specs}
    return tuple(by_name[n] for n in names)


_TRACE_PART = (*_pick(TRACE_COLUMNS, "trace_id", "native_id", "model", "framework", "task_family", "task_key", "task"),
               replace(_pick(TRACE_COLUMNS, "outcome")[0], doc="Effective outcome: the analyst's, else the recorded "
                       "one, else the estimate (success | failure | unknown; see outcome_source)."),
               *OUTCOME_COLUMNS,
               *_pick(TRACE_COLUMNS, "score", "n_steps", "n_errors", "tokens_total"))
_LABEL_PART = _pick(LABEL_COLUMNS, "decisive_step", "decisive_agent", "category")
_RUN_PART = (
    replace(_pick(RUN_COLUMNS, "confidence")[0], doc="Confidence 0-1 in the pipeline's decisive step."),
    replace(_pick(RUN_COLUMNS, "top_steps")[0], doc=f"Top-{TOP_K} candidate decisive steps, best first, comma-separated."),
    replace(_pick(RUN_COLUMNS, "top_scores")[0], doc=f"Scores of the top-{TOP_K} candidates, comma-separated."),
    replace(_pick(RUN_COLUMNS, "decisive_uncertain")[0],
            doc="When the pipeline does not know: the likeliest steps, best first, ';'-separated (\"uncertain: "
                "steps a, b, c\" instead of one decisive step; the decisive step column holds the first); null "
                "when its answer is certain or an analyst set the decisive step."),
    *_pick(RUN_COLUMNS, "min_value", "largest_drop", "largest_drop_step", "drop_note"),
)
_CONTRAST_PART = _pick(CONTRAST_COLUMNS, "contrast_run", "contrast_cost", "divergence_step", "divergence_kind")
_REVIEW_PART = _pick(LABEL_COLUMNS, "tags", "decisive_source", "label_source", "judge_decisive_step",
                     "judge_category", "notes")
_INSIGHT_PART = (ColumnSpec("insight", pl.Utf8, "Insight (group of similar failures) of the run's decisive failure: "
                             "the id of its row in insights.csv; empty when the run was not clustered or joined no group "
                             "of two or more (the 'not grouped' row of insights.csv)."),)
_TAIL = (
    *_pick(RUN_COLUMNS, "rationale", "value_estimator", "judge_model", "n_findings", "error"),
    *_pick(TRACE_COLUMNS, "source_file", "source_format", "record"),
)

EXPORT_RUN_COLUMNS: tuple[ColumnSpec, ...] = (*_TRACE_PART, *_LABEL_PART, *_RUN_PART, *_CONTRAST_PART, *_REVIEW_PART, *_INSIGHT_PART, *_TAIL,
                                              *SIGNAL_RUN_COLUMNS, *EFFICIENCY_COLUMNS)
"""``traces.csv``: one row per run (decisive step/category are the effective, reviewed ones)."""

EXPORT_STEP_COLUMNS: tuple[ColumnSpec, ...] = (
    *STEP_VALUE_COLUMNS[:4],
    *_pick(STEP_COLUMNS, "role", "tool_name", "is_error", "native_step_id"),
    *STEP_VALUE_COLUMNS[4:],
)
"""``steps.csv``: one row per step (values, drops, alignment, findings)."""
