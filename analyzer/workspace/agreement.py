"""Judge-vs-analyst agreement on the runs the analyst reviewed (Cohen's kappa, confusion)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from analyzer.taxonomy import CATEGORY_IDS


@dataclass
class Agreement:
    """Agreement between the judge's and the analyst's decisive-failure category.

    Attributes:
        n: Runs compared (reviewed by the analyst and attributed by the judge).
        observed: Share of runs where both gave the same category.
        kappa: Cohen's kappa over categories (None when undefined).
        per_category: Category -> one-vs-rest kappa (None when undefined).
        confusion: (judge category, analyst category) -> count.
        step_agreement: Share of runs where the analyst's decisive step equals the judge's.
    """

    n: int = 0
    observed: float | None = None
    kappa: float | None = None
    per_category: dict[str, float | None] = field(default_factory=dict)
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)
    step_agreement: float | None = None


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    """Cohen's kappa of two equally long label lists (None when chance agreement is 1)."""
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def _analyst_labels(annotations: pl.DataFrame,
                    judge_steps: dict[str, int | None]) -> dict[str, tuple[str | None, int | None]]:
    """Run -> (analyst category, analyst decisive step), following the export's label rules.

    The category is the one of the analyst's decisive row, else the one accepted on the
    judge's decisive step, else the one accepted for the whole run (step null). Categories
    accepted on other steps (e.g. a detector finding the analyst agreed with) say nothing
    about the run's decisive failure and are ignored; so are rejected rows. Accepting on the
    judge's decisive step counts as agreeing with that step. Rows are applied oldest first,
    so the latest decision wins.
    """
    decisive: dict[str, tuple[int, str | None]] = {}
    accepted: dict[tuple[str, int | None], str] = {}
    for row in annotations.sort("timestamp").iter_rows(named=True):
        tid, cat, status = row["trace_id"], row["category"], row["status"]
        step = None if row["step"] is None or int(row["step"]) < 0 else int(row["step"])
        if status == "decisive" and step is not None:
            decisive[tid] = (step, cat)
        if status in ("accepted", "decisive") and cat:
            accepted[(tid, step)] = cat
        elif status == "rejected":
            accepted.pop((tid, step), None)
            if tid in decisive and decisive[tid][0] == step:
                del decisive[tid]
    out: dict[str, tuple[str | None, int | None]] = {}
    for tid in {t for t, _s in accepted} | set(decisive):
        if tid in decisive:
            step, cat = decisive[tid]
            out[tid] = (cat or accepted.get((tid, step)), step)
        else:
            js = judge_steps.get(tid)
            cat = accepted.get((tid, js)) if js is not None else None
            # accepting the category on the judge's decisive step also accepts that step
            out[tid] = (cat, js) if cat else (accepted.get((tid, None)), None)
    return {k: v for k, v in out.items() if v[0] is not None}


def judge_analyst_agreement(runs: pl.DataFrame, annotations: pl.DataFrame) -> Agreement:
    """Compare the analysis' decisive category/step with the analyst's labels.

    Args:
        runs: RUN_COLUMNS frame (``category``, ``decisive_step``).
        annotations: ANNOTATION_COLUMNS frame from the workspace.

    Returns:
        Agreement over runs that have both a judge category and an analyst category.
    """
    judge_steps = {str(r[0]): (None if r[1] is None else int(r[1]))
                   for r in runs.select("trace_id", "decisive_step").iter_rows()} if runs.height else {}
    labels = _analyst_labels(annotations, judge_steps)
    judge: list[str] = []
    analyst: list[str] = []
    same_step: list[bool] = []
    for row in runs.iter_rows(named=True):
        lab = labels.get(row["trace_id"])
        if lab is None or not row.get("category"):
            continue
        judge.append(str(row["category"]))
        analyst.append(str(lab[0]))
        if lab[1] is not None and row.get("decisive_step") is not None:
            same_step.append(int(lab[1]) == int(row["decisive_step"]))
    res = Agreement(n=len(judge))
    if not judge:
        return res
    res.observed = sum(x == y for x, y in zip(judge, analyst, strict=True)) / len(judge)
    res.kappa = cohen_kappa(judge, analyst)
    res.confusion = dict(Counter(zip(judge, analyst, strict=True)))
    for cat in CATEGORY_IDS:
        if cat in judge or cat in analyst:
            res.per_category[cat] = cohen_kappa([str(x == cat) for x in judge], [str(x == cat) for x in analyst])
    res.step_agreement = sum(same_step) / len(same_step) if same_step else None
    return res
