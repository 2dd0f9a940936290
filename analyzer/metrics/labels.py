"""Effective labels of each run: the analyst's review wins over the judge's suggestion.

Rules (annotations follow ANNOTATION_COLUMNS; rows are applied oldest first, so the latest
row of any author wins):

* **Decisive step.** A row with status ``decisive`` and a step overrides the pipeline's
  decisive step (``decisive_source = "analyst"``); otherwise the pipeline's step is used
  (``decisive_source = "judge"`` or ``"ranker"``, as for the category below).
* **Category.** First match wins: the category of the ``decisive`` row; the category of an
  ``accepted`` row on the effective decisive step; the category of an ``accepted`` run-level
  row (step null). Any of these gives ``label_source = "analyst"``. A ``rejected`` row on the
  effective decisive step (or at run level) without an analyst category clears the judge's
  category (the analyst said it is wrong; ``label_source = "analyst"``, category null).
  Otherwise the pipeline's category is used: ``label_source = "judge"`` when the judge took
  part in the run's attribution (its ``judge_model`` is set), else ``"ranker"`` (detectors
  and the fitted ranker). The pipeline's decisive step has the same source.
* ``suggested`` rows are ignored for labels. Tags of every row of a run are merged; notes are
  collected with the step they belong to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ColumnSpec

ANALYST = "analyst"
JUDGE = "judge"
RANKER = "ranker"
MIXED = "mixed"
LABEL_SOURCES = (RANKER, JUDGE, ANALYST, MIXED)

LABEL_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id."),
    ColumnSpec("decisive_step", pl.Int64, "Effective decisive step (analyst override, else the pipeline's)."),
    ColumnSpec("decisive_agent", pl.Utf8, "Responsible agent: the agent of the analyst's step, else the pipeline's."),
    ColumnSpec("category", pl.Utf8, "Effective taxonomy id of the decisive failure."),
    ColumnSpec("decisive_source", pl.Utf8, "Who chose the decisive step: 'analyst', 'judge' or 'ranker'."),
    ColumnSpec("label_source", pl.Utf8, "Who chose the category: 'analyst', 'judge' (the judge took part) "
               "or 'ranker' (detectors and the fitted ranker, no judge)."),
    ColumnSpec("judge_decisive_step", pl.Int64, "The pipeline's decisive step, before any override."),
    ColumnSpec("judge_category", pl.Utf8, "The pipeline's category, before any override."),
    ColumnSpec("tags", pl.Utf8, "Analyst tags of the run and its steps, comma-separated."),
    ColumnSpec("notes", pl.Utf8, "Analyst notes ('step N: ...' for step notes), ' | '-separated."),
    ColumnSpec("reviewed", pl.Boolean, "True when the run has any analyst annotation."),
)


@dataclass
class _RunReview:
    decisive: tuple[int, str | None] | None = None
    accepted: dict[int | None, str] = field(default_factory=dict)
    rejected: set[int | None] = field(default_factory=set)
    tags: dict[str, None] = field(default_factory=dict)
    notes: list[tuple[int | None, str]] = field(default_factory=list)


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _reviews(annotations: pl.DataFrame | None) -> dict[str, _RunReview]:
    out: dict[str, _RunReview] = {}
    if annotations is None or annotations.height == 0:
        return out
    ann = annotations
    if "timestamp" in ann.columns:
        ann = ann.with_row_index("_order").sort(["timestamp", "_order"], nulls_last=False)
    for row in ann.iter_rows(named=True):
        tid = _clean(row.get("trace_id"))
        if tid is None:
            continue
        rev = out.setdefault(tid, _RunReview())
        step_raw = row.get("step")
        step = None if step_raw is None or int(step_raw) < 0 else int(step_raw)
        status = (_clean(row.get("status")) or "accepted").lower()
        category = _clean(row.get("category"))
        for tag in str(row.get("tags") or "").split(","):
            if tag.strip():
                rev.tags[tag.strip()] = None
        note = _clean(row.get("note"))
        if note:
            rev.notes.append((step, note))
        if status == "suggested":
            continue
        if status == "decisive" and step is not None:
            rev.decisive = (step, category)
            rev.rejected.discard(step)
            if category:
                rev.accepted[step] = category
        elif status == "decisive" or status == "accepted":
            if category:
                rev.accepted[step] = category
                rev.rejected.discard(step)
        elif status == "rejected":
            rev.rejected.add(step)
            rev.accepted.pop(step, None)
            if rev.decisive is not None and rev.decisive[0] == step:
                rev.decisive = None
    return out


def _notes_text(notes: Iterable[tuple[int | None, str]]) -> str | None:
    parts = [(note if step is None else f"step {step}: {note}") for step, note in notes]
    return " | ".join(parts) if parts else None


def effective_labels(runs: pl.DataFrame, annotations: pl.DataFrame | None = None,
                     steps: pl.DataFrame | pl.LazyFrame | None = None) -> pl.DataFrame:
    """One row per run with the labels exports and metrics should count (see module docstring).

    Args:
        runs: Pipeline output (RUN_COLUMNS; needs ``trace_id``, ``decisive_step``,
            ``decisive_agent``, ``category``).
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        steps: Steps frame (STEP_COLUMNS) used to name the agent of an analyst-chosen step; a
            lazy frame (a corpus on disk) is read for those runs only.

    Returns:
        Frame with LABEL_COLUMNS: every run of ``runs`` plus every annotated run.
    """
    reviews = _reviews(annotations)
    agents: dict[tuple[str, int], str] = {}
    wanted = {(tid, rev.decisive[0]) for tid, rev in reviews.items() if rev.decisive is not None}
    if wanted and steps is not None:
        ids = [t for t, _ in wanted]
        picked = steps.lazy().filter(pl.col("trace_id").is_in(ids)).select("trace_id", "step", "agent").collect()
        for r in picked.iter_rows():
            if (r[0], r[1]) in wanted:
                agents[(r[0], r[1])] = r[2]
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    cols = [c for c in ("trace_id", "decisive_step", "decisive_agent", "category", "judge_model") if c in runs.columns]
    for run in runs.select(cols).iter_rows(named=True):
        tid = run["trace_id"]
        if tid in seen:
            continue
        seen.add(tid)
        source = JUDGE if _clean(run.get("judge_model")) else RANKER
        rows.append(_label_row(tid, run.get("decisive_step"), run.get("decisive_agent"),
                               _clean(run.get("category")), reviews.get(tid), agents, source))
    for tid, rev in reviews.items():
        if tid not in seen:
            rows.append(_label_row(tid, None, None, None, rev, agents, RANKER))
    return frame_from_rows(rows, LABEL_COLUMNS)


def _label_row(tid: str, j_step: Any, j_agent: Any, j_cat: str | None, rev: _RunReview | None,
               agents: dict[tuple[str, int], str], source: str = RANKER) -> dict[str, Any]:
    judge_step = None if j_step is None else int(j_step)
    row: dict[str, Any] = {
        "trace_id": tid,
        "decisive_step": judge_step,
        "decisive_agent": j_agent,
        "category": j_cat,
        "decisive_source": source if judge_step is not None else None,
        "label_source": source if j_cat is not None else None,
        "judge_decisive_step": judge_step,
        "judge_category": j_cat,
        "tags": None,
        "notes": None,
        "reviewed": rev is not None,
    }
    if rev is None:
        return row
    row["tags"] = ",".join(rev.tags) or None
    row["notes"] = _notes_text(rev.notes)
    step = judge_step
    if rev.decisive is not None:
        step = rev.decisive[0]
        row["decisive_step"] = step
        row["decisive_agent"] = agents.get((tid, step), j_agent if step == judge_step else None)
        row["decisive_source"] = ANALYST
    category: str | None = None
    if rev.decisive is not None and rev.decisive[1]:
        category = rev.decisive[1]
    elif step is not None and step in rev.accepted:
        category = rev.accepted[step]
    elif None in rev.accepted:
        category = rev.accepted[None]
    if category is not None:
        row["category"] = category
        row["label_source"] = ANALYST
    elif rev.decisive is None and (step in rev.rejected or None in rev.rejected):
        row["category"] = None
        row["label_source"] = ANALYST
    return row
