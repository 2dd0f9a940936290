"""Cheap cues of a failed run, computed from its steps (never from its recorded outcome).

Each cue is a number per run; how much each one weighs is fitted by ``trajscope outcome-fit``
(:mod:`analyzer.outcome.fit`), never set by hand. The word lists below say what a cue looks
for, not how much it counts. Everything is one polars query, so a session of many runs pays
little for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

GIVE_UP = (
    r"(?i)\b(i apologi[sz]e|i'?m sorry|sorry,|unfortunately|i (?:am|was) (?:unable|not able)|i could ?n[o']t|"
    r"i can ?n[o']t|i cannot|unable to (?:complete|finish|proceed|resolve|find|access|determine|fix)|"
    r"give up|gave up|giving up|not possible|impossible to|no way to|failed to (?:complete|find|resolve|fix))")
"""A give-up or apology message."""

CLAIM = (
    r"(?i)\b(successfully|completed|done|fixed|resolved|all tests pass|tests? (?:now )?pass(?:es|ed)?|verified|"
    r"final answer|submitted|here is|here's the)\b")
"""A message that claims the task is done."""

LIMIT = (
    r"(?i)(max(?:imum)?[ _-]?(?:steps|iterations|turns|tokens)|step limit|cost limit|budget exceeded|timed? ?out|"
    r"context (?:length|window)|exit_cost|exit_context|exit_format|autosubmi|exceeded|interrupted|killed)")
"""A run stopped by a limit (steps, cost, time, context) rather than by the agent."""

TAIL_MESSAGES = 3
"""How many of the last agent messages the give-up and claim cues read (what the cue is, not a weight)."""
TAIL_STEPS = 2
"""How many of the last steps the limit cue reads."""
TAIL_CHARS = 2000
"""The end of each text the cues read (a closing message says its verdict at its end)."""


@dataclass(frozen=True)
class Cue:
    """One cue.

    Attributes:
        name: Column name in :func:`cue_frame` and in the params file.
        doc: What it measures.
    """

    name: str
    doc: str


CUES: tuple[Cue, ...] = (
    Cue("end_error", "The last tool output of the run is an error (an error left unresolved at the end)."),
    Cue("errors_after_success", "log(1 + errors after the last tool output that was not an error)."),
    Cue("error_share", "Share of steps flagged as errors."),
    Cue("no_final_answer", "Neither a final answer nor a closing agent message (the run ends on a tool step)."),
    Cue("give_up", f"One of the last {TAIL_MESSAGES} agent messages gives up or apologises."),
    Cue("claims_done", f"One of the last {TAIL_MESSAGES} agent messages claims the task is done."),
    Cue("limit_hit", "The last steps say a step, cost, time or context limit stopped the run."),
    Cue("log_steps", "log(1 + number of steps)."),
)
CUE_NAMES: tuple[str, ...] = tuple(c.name for c in CUES)


def _tail(col: str) -> pl.Expr:
    return pl.col(col).fill_null("").str.slice(-TAIL_CHARS)


def cue_frame(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The cues of every run of ``traces``.

    Args:
        traces: Traces frame (needs ``trace_id``; ``final_answer`` is used when present).
        steps: Steps frame, or a lazy one (only these runs' rows and the columns used are read).

    Returns:
        Frame with ``trace_id`` and one Float64 column per cue, in the order of ``traces``; a run
        without steps has no error, no message and no final answer unless the file gives one.
    """
    schema: dict[str, Any] = {"trace_id": pl.Utf8, **{c: pl.Float64 for c in CUE_NAMES}}
    if traces.height == 0:
        return pl.DataFrame(schema=schema)
    ids = traces.select(pl.col("trace_id").cast(pl.Utf8),
                        (pl.col("final_answer").fill_null("").str.strip_chars() != "").alias("_answer")
                        if "final_answer" in traces.columns else pl.lit(False).alias("_answer"))
    rows = (steps.lazy().filter(pl.col("trace_id").is_in(ids["trace_id"].implode()))
            .select("trace_id", "step", "kind", "role", "text", "is_error", "error_text")
            .with_columns(pl.col("is_error").fill_null(False))
            .sort("trace_id", "step"))
    output = pl.col("kind").is_in(["observation"]) | pl.col("role").is_in(["tool", "environment"])
    last_ok = pl.col("step").filter(output & ~pl.col("is_error")).max().over("trace_id").fill_null(-1)
    per_step = rows.with_columns(
        (pl.col("is_error") & (pl.col("step") > last_ok)).alias("_after"),
        pl.when(output).then(pl.col("is_error")).otherwise(None).alias("_out_error"),
        pl.col("step").rank("ordinal", descending=True).over("trace_id").alias("_from_end"),
    )
    base = per_step.group_by("trace_id").agg(
        pl.col("_out_error").drop_nulls().last().fill_null(False).cast(pl.Float64).alias("end_error"),
        pl.col("_after").sum().cast(pl.Float64).log1p().alias("errors_after_success"),
        pl.col("is_error").cast(pl.Float64).mean().alias("error_share"),
        ((pl.col("kind").last() == "message") & (pl.col("role").last() == "assistant")).alias("_closing"),
        pl.len().cast(pl.Float64).log1p().alias("log_steps"),
        pl.concat_str(_tail("text"), _tail("error_text"), separator=" ").filter(pl.col("_from_end") <= TAIL_STEPS)
        .str.contains(LIMIT).any().cast(pl.Float64).alias("limit_hit"),
    )
    said = (rows.filter(pl.col("kind").is_in(["message", "thought"]) & (pl.col("text").fill_null("") != ""))
            .with_columns(pl.col("step").rank("ordinal", descending=True).over("trace_id").alias("_k"))
            .filter(pl.col("_k") <= TAIL_MESSAGES)
            .group_by("trace_id").agg(_tail("text").str.contains(GIVE_UP).any().cast(pl.Float64).alias("give_up"),
                                      _tail("text").str.contains(CLAIM).any().cast(pl.Float64).alias("claims_done")))
    out = (ids.lazy().join(base, on="trace_id", how="left", maintain_order="left")
           .join(said, on="trace_id", how="left", maintain_order="left")
           .with_columns((~pl.col("_answer") & ~pl.col("_closing").fill_null(False)).cast(pl.Float64)
                         .alias("no_final_answer"))
           .select("trace_id", *[pl.col(c).cast(pl.Float64).fill_null(0.0) for c in CUE_NAMES])
           .collect())
    return out
