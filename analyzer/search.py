"""Text search across every run: each hit with its run, step, field and a snippet around the match.

One case-insensitive literal search (no regex syntax for the analyst to escape) over the
steps' text, tool name, tool arguments, error text and agent, and over each run's task.
Hits come in run order (the order of ``traces``), then step order; a task hit has no step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

SEARCH_FIELDS = ("text", "tool_name", "tool_args", "error_text", "agent")
"""Step columns searched, in the order a step's first matching field is reported."""

SNIPPET_BEFORE = 24
"""Characters shown before the match in a snippet (few, so the match shows in a narrow column)."""

SNIPPET_AFTER = 100
"""Characters shown after the match in a snippet."""

DEFAULT_LIMIT = 2000
"""Hits listed at most (the total is still counted)."""


@dataclass(frozen=True)
class SearchHits:
    """Result of :func:`search_runs`.

    Attributes:
        hits: One row per hit: ``trace_id``, ``step`` (null for a task hit), ``field``, ``snippet``,
            ``start`` and ``length`` (where the match is inside ``snippet``), ``count`` (matches of the
            needle in that field).
        total: Hits found before the limit.
    """

    hits: pl.DataFrame
    total: int

    @property
    def truncated(self) -> bool:
        """More hits were found than listed."""
        return self.total > self.hits.height


HIT_SCHEMA = {"trace_id": pl.Utf8, "step": pl.Int64, "field": pl.Utf8, "snippet": pl.Utf8,
              "start": pl.Int64, "length": pl.Int64, "count": pl.Int64}


def snippet(text: str, needle: str, before: int = SNIPPET_BEFORE, after: int = SNIPPET_AFTER) -> tuple[str, int, int]:
    """One line of ``text`` around the first match of ``needle`` (case-insensitive).

    Returns:
        (snippet, start, length): the match is ``snippet[start:start + length]``; ``start`` is -1
        when there is no match (the snippet is then the head of the text).
    """
    flat = " ".join(text.split())
    m = re.search(re.escape(" ".join(needle.split())), flat, flags=re.IGNORECASE)
    if m is None:
        return flat[: before + after], -1, 0
    lo, hi = max(0, m.start() - before), min(len(flat), m.end() + after)
    head = "…" if lo > 0 else ""
    tail = "…" if hi < len(flat) else ""
    return head + flat[lo:hi] + tail, m.start() - lo + len(head), m.end() - m.start()


def search_runs(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, needle: str,
                limit: int = DEFAULT_LIMIT) -> SearchHits:
    """Every place ``needle`` occurs, run by run.

    Args:
        traces: Traces frame (``trace_id``, ``task``); its order is the order of the hits.
        steps: Steps frame (``trace_id``, ``step`` and :data:`SEARCH_FIELDS`), or a lazy frame
            (a corpus on disk): only its matching steps are collected.
        needle: Literal text, case-insensitive; blank finds nothing.
        limit: Hits returned at most.

    Returns:
        The hits and how many there were.
    """
    needle = needle.strip()
    empty = pl.DataFrame(schema=HIT_SCHEMA)
    if not needle or traces.height == 0:
        return SearchHits(empty, 0)
    pat = "(?i)" + re.escape(needle)
    order = traces.select("trace_id").with_row_index("_run")
    parts: list[pl.DataFrame] = []
    if "task" in traces.columns:
        task = (traces.select("trace_id", pl.col("task").fill_null("").alias("_value"))
                .filter(pl.col("_value").str.contains(pat))
                .with_columns(pl.lit(None, pl.Int64).alias("step"), pl.lit("task").alias("field"),
                              pl.lit(-1, pl.Int64).alias("_field")))
        parts.append(task.select("trace_id", "step", "field", "_field", "_value"))
    if isinstance(steps, pl.LazyFrame):
        names = steps.collect_schema().names()
        found_fields = [f for f in SEARCH_FIELDS if f in names]
        if not found_fields:
            steps = steps.select("trace_id", "step").head(0).collect()
        else:
            steps = steps.select("trace_id", "step", *found_fields).filter(pl.any_horizontal(
                pl.col(f).cast(pl.Utf8).fill_null("").str.contains(pat) for f in found_fields)).collect()
    fields = [f for f in SEARCH_FIELDS if f in steps.columns]
    if steps.height and fields:
        scoped = steps.join(order.select("trace_id"), on="trace_id", how="semi")
        for i, f in enumerate(fields):
            hit = (scoped.select("trace_id", "step", pl.col(f).cast(pl.Utf8).fill_null("").alias("_value"))
                   .filter(pl.col("_value").str.contains(pat))
                   .with_columns(pl.lit(f).alias("field"), pl.lit(i, pl.Int64).alias("_field")))
            parts.append(hit.select("trace_id", "step", "field", "_field", "_value"))
    if not parts:
        return SearchHits(empty, 0)
    found = (pl.concat(parts, how="vertical_relaxed")
             .join(order, on="trace_id", how="inner")
             .sort(["_run", "step", "_field"], nulls_last=False))
    # one hit per step: its first matching field (the others are counted in ``count``)
    found = found.unique(subset=["trace_id", "step"], keep="first", maintain_order=True)
    total = found.height
    rows = []
    for tid, step, field, value in found.head(limit).select("trace_id", "step", "field", "_value").iter_rows():
        text, start, length = snippet(value, needle)
        count = len(re.findall(re.escape(needle), value, flags=re.IGNORECASE))
        rows.append({"trace_id": tid, "step": step, "field": field, "snippet": text, "start": start,
                     "length": length, "count": count})
    return SearchHits(pl.DataFrame(rows, schema=HIT_SCHEMA) if rows else empty, total)
