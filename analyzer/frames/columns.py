"""Column specs: the one place that names the columns of every frame.

Tables, detectors, CSV exporters and the UI all read names from here, so they agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a frame.

    Attributes:
        name: Column name (also the CSV header).
        dtype: polars dtype.
        doc: What the column holds.
    """

    name: str
    dtype: pl.DataType | type[pl.DataType]
    doc: str


TRACE_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Stable content-derived run id."),
    ColumnSpec("native_id", pl.Utf8, "Run id given by the producing framework."),
    ColumnSpec("source_file", pl.Utf8, "File the run was read from."),
    ColumnSpec("source_format", pl.Utf8, "Importer id."),
    ColumnSpec("record", pl.Utf8, "Locator of the run inside the file."),
    ColumnSpec("task", pl.Utf8, "Task statement."),
    ColumnSpec("model", pl.Utf8, "Model name."),
    ColumnSpec("framework", pl.Utf8, "Agent framework."),
    ColumnSpec("task_family", pl.Utf8, "Task family / dataset / level."),
    ColumnSpec("task_key", pl.Utf8, "Identity of the task across runs."),
    ColumnSpec("outcome", pl.Utf8, "success | failure | error | unknown."),
    ColumnSpec("outcome_raw", pl.Utf8, "Raw success value from the file."),
    ColumnSpec("outcome_source", pl.Utf8, "Where the outcome came from (file, a sidecar, labels, analyst, estimate)."),
    ColumnSpec("score", pl.Float64, "Numeric score or reward."),
    ColumnSpec("final_answer", pl.Utf8, "Final answer / submission."),
    ColumnSpec("ground_truth", pl.Utf8, "Expected answer from the file (never used by the analysis)."),
    ColumnSpec("gold_decisive_step", pl.Int64, "Decisive step labelled in the file."),
    ColumnSpec("gold_decisive_agent", pl.Utf8, "Responsible agent labelled in the file."),
    ColumnSpec("gold_reason", pl.Utf8, "Label explanation from the file."),
    ColumnSpec("n_steps", pl.Int64, "Number of steps."),
    ColumnSpec("n_errors", pl.Int64, "Number of steps flagged as errors."),
    ColumnSpec("tokens_total", pl.Int64, "Sum of prompt and completion tokens, when known."),
    ColumnSpec("metadata_json", pl.Utf8, "Other run metadata as JSON."),
    ColumnSpec("schema_version", pl.Utf8, "Canonical schema version."),
)

STEP_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("step", pl.Int64, "0-based step index."),
    ColumnSpec("agent", pl.Utf8, "Agent (or role) that produced the step."),
    ColumnSpec("role", pl.Utf8, "system | user | assistant | tool | environment."),
    ColumnSpec("kind", pl.Utf8, "user | system | thought | action | tool_call | observation | message."),
    ColumnSpec("text", pl.Utf8, "Step text."),
    ColumnSpec("tool_name", pl.Utf8, "Tool called."),
    ColumnSpec("tool_args", pl.Utf8, "Tool arguments as JSON text."),
    ColumnSpec("tool_call_id", pl.Utf8, "Tool call id."),
    ColumnSpec("is_error", pl.Boolean, "Step reports an error."),
    ColumnSpec("error_text", pl.Utf8, "Error description."),
    ColumnSpec("tokens_in", pl.Int64, "Prompt tokens."),
    ColumnSpec("tokens_out", pl.Int64, "Completion tokens."),
    ColumnSpec("timestamp", pl.Utf8, "ISO-8601 start time."),
    ColumnSpec("duration_s", pl.Float64, "Duration in seconds."),
    ColumnSpec("span_id", pl.Utf8, "Span id."),
    ColumnSpec("parent_span_id", pl.Utf8, "Parent span id."),
    ColumnSpec("native_index", pl.Int64, "Index of the record in the source file."),
    ColumnSpec("native_step_id", pl.Utf8, "The source's own id of the step (span, observation, run, event id or message path)."),
    ColumnSpec("metadata_json", pl.Utf8, "Other step metadata as JSON."),
)

FINDING_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("step", pl.Int64, "Step the finding points at."),
    ColumnSpec("agent", pl.Utf8, "Agent of that step."),
    ColumnSpec("category", pl.Utf8, "Taxonomy id (TAXONOMY.md)."),
    ColumnSpec("score", pl.Float64, "Strength 0-1."),
    ColumnSpec("evidence_start", pl.Int64, "First step of the evidence span."),
    ColumnSpec("evidence_end", pl.Int64, "Last step of the evidence span."),
    ColumnSpec("evidence_quote", pl.Utf8, "Quoted evidence."),
    ColumnSpec("rationale", pl.Utf8, "Why the detector fired."),
    ColumnSpec("source", pl.Utf8, "Detector id or 'human'."),
    ColumnSpec("status", pl.Utf8, "suggested | accepted | rejected."),
)

ANNOTATION_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("step", pl.Int64, "Step (null for a run-level annotation)."),
    ColumnSpec("category", pl.Utf8, "Taxonomy id."),
    ColumnSpec("tags", pl.Utf8, "Custom tags, comma-separated."),
    ColumnSpec("note", pl.Utf8, "Free-text note."),
    ColumnSpec("status", pl.Utf8, "suggested | accepted | rejected | decisive."),
    ColumnSpec("author", pl.Utf8, "Analyst name from settings."),
    ColumnSpec("timestamp", pl.Utf8, "ISO-8601 time of the action."),
    ColumnSpec("outcome", pl.Utf8, "The analyst's outcome of the run (run-level rows): failure | success | unknown."),
)


def schema_of(columns: tuple[ColumnSpec, ...]) -> dict[str, pl.DataType | type[pl.DataType]]:
    """Polars schema (name -> dtype) of a column spec tuple."""
    return {c.name: c.dtype for c in columns}
