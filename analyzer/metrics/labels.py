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
* **Everything said about the decisive step follows it** (:func:`analyst_step_overrides`): where
  the analyst set the step, ``decisive_uncertain`` is null and ``drop_note`` is written again for
  the analyst's step from the stored value curve.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from analyzer.attribution.value_curve import ValueCurve, drop_note
from analyzer.detection.messages import TERM_LABELS, parse_note
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


OVERLAY_COLUMNS = ("decisive_step", "decisive_agent", "category", "decisive_source", "label_source",
                   "judge_decisive_step", "judge_category")
"""The columns of :data:`LABEL_COLUMNS` :func:`overlay_labels` puts over a runs frame."""


def _stored_curve(values: pl.DataFrame, pipeline_note: str | None) -> ValueCurve | None:
    """The value curve of one run as far as its stored step values tell it (None without values).

    The stored rows hold values and drops, not the plain words of each step's evidence: the words
    at the largest drop are read back from the pipeline's own ``drop_note`` when it names them.
    """
    rows = values.filter(pl.col("step").is_not_null()).sort("step")
    if rows.height == 0 or rows["value"].is_null().all():
        return None
    n = int(rows["step"].max()) + 1  # type: ignore[arg-type]
    vals, drops = [0.0] * n, [0.0] * n
    for s, v, d in rows.select("step", "value", "drop").iter_rows():
        if 0 <= s < n:
            vals[s] = float(v) if v is not None else 0.0
            drops[s] = float(d) if d is not None else 0.0
    reasons = [""] * n
    outcome_step: int | None = None
    parsed = parse_note(pipeline_note) if pipeline_note else None
    if parsed is not None and str(parsed.params.get("at", "")).isdigit():
        at = int(parsed.params["at"])
        if 0 <= at < n:
            if parsed.id.startswith("last_step"):
                reasons[at], outcome_step = TERM_LABELS["outcome"], at
            elif "why" in parsed.params:
                reasons[at] = parsed.params["why"]
    return ValueCurve(vals, drops, 0.0, [], reasons, outcome_step=outcome_step)


def analyst_step_overrides(df: pl.DataFrame, step_values: pl.DataFrame | pl.LazyFrame | None) -> pl.DataFrame:
    """What is said about the decisive step follows the analyst's step, where they set one.

    The one place that does it for the runs table, ``traces.csv`` and the reports: on rows with
    ``decisive_source == "analyst"``, ``decisive_uncertain`` becomes null (the analyst's own step
    is not uncertain) and ``drop_note`` is :func:`analyzer.attribution.value_curve.drop_note`
    for the analyst's step over the run's stored value curve (null when the curve is not stored).

    Args:
        df: Runs with the effective labels (``trace_id``, ``decisive_step``, ``decisive_source``;
            ``decisive_uncertain`` and ``drop_note`` where present).
        step_values: Per-step values (STEP_VALUE_COLUMNS; a lazy frame is read for the analyst's
            runs only), or None.

    Returns:
        ``df`` with those two columns rewritten on the analyst's rows, same rows and order.
    """
    if "decisive_source" not in df.columns or df.height == 0:
        return df
    is_analyst = pl.col("decisive_source") == ANALYST
    if "decisive_uncertain" in df.columns:
        df = df.with_columns(pl.when(is_analyst).then(None).otherwise(pl.col("decisive_uncertain"))
                             .alias("decisive_uncertain"))
    if "drop_note" not in df.columns:
        return df
    mine = df.filter(is_analyst & pl.col("decisive_step").is_not_null()).select("trace_id", "decisive_step", "drop_note")
    if mine.height == 0:
        return df
    parts: dict[str, pl.DataFrame] = {}
    if step_values is not None:
        picked = (step_values.lazy().filter(pl.col("trace_id").is_in(mine["trace_id"].implode()))
                  .select("trace_id", "step", "value", "drop").collect())
        parts = {str(k[0]): g for k, g in picked.partition_by("trace_id", as_dict=True).items()}
    notes: dict[str, str | None] = {}
    for tid, step, note in mine.iter_rows():
        curve = _stored_curve(parts[tid], note) if tid in parts else None
        notes[tid] = drop_note(curve, int(step)) if curve is not None else None
    new = pl.DataFrame({"trace_id": list(notes), "_note": list(notes.values())},
                       schema={"trace_id": pl.Utf8, "_note": pl.Utf8})
    return (df.join(new, on="trace_id", how="left", maintain_order="left")
            .with_columns(pl.when(is_analyst).then(pl.col("_note")).otherwise(pl.col("drop_note")).alias("drop_note"))
            .drop("_note"))


def overlay_labels(runs: pl.DataFrame, annotations: pl.DataFrame | None = None,
                   steps: pl.DataFrame | pl.LazyFrame | None = None,
                   step_values: pl.DataFrame | pl.LazyFrame | None = None) -> pl.DataFrame:
    """A runs frame with the effective labels in place of the pipeline's (the runs table's view).

    Args:
        runs: Runs (``trace_id`` and the pipeline's RUN_COLUMNS, null where not analysed).
        annotations: Analyst annotations, or None.
        steps: Steps, to name the agent of the analyst's step (lazy frames are read sparingly).
        step_values: Stored value curves, for the ``drop_note`` of the analyst's step.

    Returns:
        ``runs`` with :data:`OVERLAY_COLUMNS` from :func:`effective_labels`, then
        :func:`analyst_step_overrides`; same rows and order.
    """
    reviewed = (pl.Series("t", [], pl.Utf8) if annotations is None or "trace_id" not in annotations.columns
                else annotations["trace_id"].cast(pl.Utf8).unique())
    mask = pl.col("trace_id").is_in(reviewed.implode())
    labels = effective_labels(runs.filter(mask), annotations, steps).select("trace_id", *OVERLAY_COLUMNS)
    rest = runs.filter(~mask)
    if rest.height:  # no review: the pipeline's labels, as effective_labels gives them (vectorised for speed)
        def col(name: str, dtype: Any) -> pl.Expr:
            return pl.col(name).cast(dtype) if name in rest.columns else pl.lit(None, dtype)
        judged = col("judge_model", pl.Utf8).str.strip_chars().fill_null("") != ""
        source = pl.when(judged).then(pl.lit(JUDGE)).otherwise(pl.lit(RANKER))
        step, raw = col("decisive_step", pl.Int64), col("category", pl.Utf8).str.strip_chars()
        cat = pl.when(raw != "").then(raw)
        labels = pl.concat([labels, rest.select(
            col("trace_id", pl.Utf8).alias("trace_id"), step.alias("decisive_step"),
            col("decisive_agent", pl.Utf8).alias("decisive_agent"), cat.alias("category"),
            pl.when(step.is_not_null()).then(source).alias("decisive_source"),
            pl.when(cat.is_not_null()).then(source).alias("label_source"),
            step.alias("judge_decisive_step"), cat.alias("judge_category"))], how="vertical_relaxed")
    out = runs.drop([c for c in OVERLAY_COLUMNS if c in runs.columns])
    out = out.join(labels.unique("trace_id", keep="last"), on="trace_id", how="left", maintain_order="left")
    return analyst_step_overrides(out, step_values)
