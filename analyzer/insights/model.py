"""Insights: what each group of similar failures looks like, and the analyst's edits to them.

An :class:`InsightSet` keeps the failures, their feature rows and one insight id per failure;
everything else (names, sizes, shares, representatives) is derived, so a split, merge or rename
is a new set computed from the same rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from analyzer.embedding.base import Embedder
from analyzer.frames.columns import ColumnSpec
from analyzer.insights.cluster import (
    InsightParams,
    cluster_failures,
    failure_table,
    feature_matrix,
    insight_id,
    model_column,
    split_labels,
)
from analyzer.insights.naming import insight_name, terms_of, top_terms
from analyzer.insights.recommend import Recommendation, recommend
from analyzer.jobs import CancelToken, Progress, no_progress

N_REPRESENTATIVES = 3
AUTO = "auto"
ANALYST = "analyst"
MIN_GROUP = 2
"""An insight needs this many runs; runs in smaller ones are *not grouped* (one row, not groups of one)."""
NOT_GROUPED = "not grouped"
"""``name`` of the ``insights.csv`` row of the runs that joined no group (its ``insight`` is empty)."""

INSIGHT_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("insight", pl.Utf8, "Insight id (``ins-`` + hash of its category and members); the ``insight`` "
               "column of traces.csv refers to it. Empty on the last row, 'not grouped': the runs that "
               "joined no group of two or more."),
    ColumnSpec("name", pl.Utf8, "Short name: the category title and the terms its members share most "
               "distinctively (c-TF-IDF), or the analyst's name."),
    ColumnSpec("named_by", pl.Utf8, "'auto' (from the shared terms) or 'analyst' (renamed in the app)."),
    ColumnSpec("category", pl.Utf8, "Taxonomy id of most of its members' decisive failures."),
    ColumnSpec("size", pl.Int64, "Number of failed runs in the insight."),
    ColumnSpec("share_failed", pl.Float64, "Its size over all clustered failed runs (0-1)."),
    ColumnSpec("share_by_model", pl.Utf8, "Per model, the share (0-1) of that model's failed runs that fall in "
               "this insight: 'model=0.25; model=0.10', largest first."),
    ColumnSpec("top_model", pl.Utf8, "Model with the largest share."),
    ColumnSpec("median_position", pl.Float64, "Typical step position: median of decisive step / (steps - 1), "
               "0 = first step, 1 = last step."),
    ColumnSpec("median_step", pl.Float64, "Median decisive step index (0-based)."),
    ColumnSpec("tools", pl.Utf8, "Tools/actions at the decisive steps, most common first: 'tool (count)'."),
    ColumnSpec("terms", pl.Utf8, "Top shared terms, ';'-separated."),
    ColumnSpec("representatives", pl.Utf8, "Up to three run ids closest to the insight's centroid, ';'-separated "
               "(on the 'not grouped' row: all its runs)."),
    ColumnSpec("cohesion", pl.Float64, "Mean cosine of members' embedding rows to their centroid (1 = identical)."),
    ColumnSpec("recommendation_kind", pl.Utf8, "What to change: model | infrastructure | tool_description | "
               "verification | system_prompt (rules in docs/insights.md)."),
    ColumnSpec("recommendation", pl.Utf8, "The suggested change (the rule's text, or the analyst's)."),
    ColumnSpec("recommendation_evidence", pl.Utf8, "Why the rule suggests it, with the figures."),
    ColumnSpec("recommended_by", pl.Utf8, "'rule' or 'analyst' (edited in the app)."),
)
"""``insights.csv``: one row per insight of two or more runs, then one ``not grouped`` row (when any)."""


@dataclass(frozen=True)
class Insight:
    """One group of similar failures.

    Attributes:
        id: Insight id.
        name: Display name.
        named_by: ``auto`` or ``analyst``.
        category: Majority taxonomy id.
        members: Run ids, in corpus order.
        share_by_model: Model -> share of that model's failed runs in this insight.
        median_position: Median relative position of the decisive step (0-1).
        median_step: Median decisive step.
        tools: (tool, count), most common first.
        terms: Top shared terms.
        representatives: Up to three run ids closest to the centroid.
        cohesion: Mean cosine of members to the centroid.
        recommendation: What to change to prevent it.
    """

    id: str
    name: str
    named_by: str
    category: str
    members: tuple[str, ...]
    share_by_model: dict[str, float]
    median_position: float | None
    median_step: float | None
    tools: tuple[tuple[str, int], ...]
    terms: tuple[str, ...]
    representatives: tuple[str, ...]
    cohesion: float
    recommendation: Recommendation

    @property
    def size(self) -> int:
        """Number of member runs."""
        return len(self.members)


@dataclass
class InsightSet:
    """The insights of a corpus.

    Attributes:
        failures: :func:`analyzer.insights.cluster.failure_table` rows.
        features: Feature rows of the failures (same order).
        labels: Insight id per failure (same order).
        names: Analyst names by insight id (others are named automatically).
        params: Clustering knobs used.
        recommendations: Analyst recommendation texts by insight id (others come from the rules).
    """

    failures: pl.DataFrame
    features: npt.NDArray[np.float32]
    labels: list[str]
    names: dict[str, str] = field(default_factory=dict)
    params: InsightParams = field(default_factory=InsightParams)
    recommendations: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (len(self.labels) == self.failures.height == len(self.features)):
            raise ValueError("failures, features and labels differ in length")
        self.insights: list[Insight] = self._summarise()
        self._by_id = {i.id: i for i in self.insights}

    # -- derived -----------------------------------------------------------------------
    def _summarise(self) -> list[Insight]:
        groups: dict[str, list[int]] = {}
        for row, lab in enumerate(self.labels):
            groups.setdefault(lab, []).append(row)
        if not groups:
            return []
        ids = self.failures["trace_id"].to_list()
        models = self.failures["model"].to_list()
        cats = self.failures["category"].to_list()
        tools = self.failures["tool"].to_list()
        rel = self.failures["rel_position"].to_list()
        step = self.failures["decisive_step"].to_list()
        texts = self.failures["text"].to_list()
        tasks = (self.failures["task"].to_list() if "task" in self.failures.columns and self.params.remove_task
                 else [""] * len(texts))
        failed_per_model = Counter(models)
        order = sorted(groups, key=lambda g: (-len(groups[g]), g))
        term_sets = [[terms_of(texts[r]) - terms_of(tasks[r] or "") for r in groups[g]] for g in order]
        terms = top_terms(term_sets)
        out: list[Insight] = []
        for gid, gterms in zip(order, terms, strict=True):
            rows = groups[gid]
            category = Counter(cats[r] for r in rows).most_common(1)[0][0]
            x = self.features[rows]
            centre = x.mean(axis=0)
            dist = np.linalg.norm(x - centre, axis=1)
            reps = tuple(ids[rows[i]] for i in np.argsort(dist, kind="stable")[:N_REPRESENTATIVES])
            norm = float(np.linalg.norm(centre))
            cohesion = float(np.mean(x @ centre) / (norm * float(np.mean(np.linalg.norm(x, axis=1))))) if norm else 0.0
            per_model = Counter(models[r] for r in rows)
            shares = {m: per_model[m] / failed_per_model[m] for m in sorted(per_model, key=lambda m: (-per_model[m]
                                                                                                     / failed_per_model[m], m))}
            rels = [float(rel[r]) for r in rows if rel[r] is not None]
            stps = [float(step[r]) for r in rows if step[r] is not None]
            name = self.names.get(gid)
            tool_counts = tuple(Counter(tools[r] for r in rows).most_common())
            rec = recommend(category, len(rows), dict(per_model), shares, len(failed_per_model), tool_counts, gterms,
                            float(np.median(stps)) if stps else None)
            if self.recommendations.get(gid):
                rec = Recommendation(rec.kind, self.recommendations[gid], rec.evidence, "analyst",
                                     evidence_message=rec.evidence_message)
            out.append(Insight(
                id=gid, name=name or insight_name(category, gterms), named_by=ANALYST if name else AUTO,
                category=category, members=tuple(ids[r] for r in rows), share_by_model=shares,
                median_position=float(np.median(rels)) if rels else None,
                median_step=float(np.median(stps)) if stps else None,
                tools=tool_counts, terms=tuple(gterms),
                representatives=reps, cohesion=round(cohesion, 4), recommendation=rec,
            ))
        return out

    def __len__(self) -> int:
        return len(self.insights)

    def get(self, iid: str) -> Insight | None:
        """The insight with this id, or None."""
        return self._by_id.get(iid)

    @property
    def groups(self) -> list[Insight]:
        """The insights of two or more runs (``MIN_GROUP``), largest first: what the app and exports list."""
        return [i for i in self.insights if i.size >= MIN_GROUP]

    @property
    def ungrouped(self) -> tuple[str, ...]:
        """Run ids that joined no group of two or more (in corpus order): shown as one *not grouped* entry."""
        alone = {i.id for i in self.insights if i.size < MIN_GROUP}
        return tuple(t for t, lab in zip(self.failures["trace_id"].to_list(), self.labels, strict=True)
                     if lab in alone)

    @property
    def grouped_share(self) -> float | None:
        """Share of the clustered failed runs that are in groups of two or more (None: no failed run)."""
        if not self.failures.height:
            return None
        return sum(i.size for i in self.groups) / self.failures.height

    def of_run(self, trace_id: str) -> str | None:
        """Insight id of a run, or None when it was not clustered."""
        try:
            return self.labels[self.failures["trace_id"].to_list().index(trace_id)]
        except ValueError:
            return None

    def assignment(self) -> dict[str, str]:
        """Run id -> insight id."""
        return dict(zip(self.failures["trace_id"].to_list(), self.labels, strict=True))

    def decisive_targets(self, iid: str) -> list[tuple[str, int]]:
        """(run id, decisive step) of every member of an insight (what bulk tagging labels)."""
        rows = [r for r, lab in enumerate(self.labels) if lab == iid]
        sub = self.failures[rows]
        return [(str(t), int(s)) for t, s in zip(sub["trace_id"], sub["decisive_step"], strict=True)]

    # -- edits (each gives a new set) ---------------------------------------------------
    def _with(self, labels: list[str], names: dict[str, str], recs: dict[str, str] | None = None) -> InsightSet:
        live = set(labels)
        recs = self.recommendations if recs is None else recs
        return InsightSet(self.failures, self.features, labels, {k: v for k, v in names.items() if k in live},
                          self.params, {k: v for k, v in recs.items() if k in live and v})

    def recommend_text(self, iid: str, text: str) -> InsightSet:
        """The set with the analyst's recommendation for one insight (empty: back to the rule's)."""
        self._require(iid)
        recs = dict(self.recommendations)
        if text.strip():
            recs[iid] = text.strip()
        else:
            recs.pop(iid, None)
        return self._with(list(self.labels), dict(self.names), recs)

    def _require(self, iid: str) -> Insight:
        ins = self.get(iid)
        if ins is None:
            raise KeyError(f"no insight {iid!r}")
        return ins

    def rename(self, iid: str, name: str) -> InsightSet:
        """The set with one insight renamed (an empty name goes back to the automatic one)."""
        self._require(iid)
        names = dict(self.names)
        if name.strip():
            names[iid] = name.strip()
        else:
            names.pop(iid, None)
        return self._with(list(self.labels), names)

    def merge(self, a: str, b: str) -> InsightSet:
        """The set with insight ``b`` merged into ``a`` (a new id; ``a``'s analyst name is kept)."""
        ia, ib = self._require(a), self._require(b)
        if a == b:
            raise ValueError("cannot merge an insight with itself")
        new = insight_id(ia.category, [*ia.members, *ib.members])
        labels = [new if lab in (a, b) else lab for lab in self.labels]
        names, recs = dict(self.names), dict(self.recommendations)
        keep = names.pop(a, None) or names.pop(b, None)
        names.pop(b, None)
        if keep:
            names[new] = keep
        rec = recs.pop(a, None) or recs.pop(b, None)
        recs.pop(b, None)
        if rec:
            recs[new] = rec
        return self._with(labels, names, recs)

    def split(self, iid: str) -> InsightSet:
        """The set with one insight re-clustered into two (average linkage on its members)."""
        ins = self._require(iid)
        rows = [r for r, lab in enumerate(self.labels) if lab == iid]
        halves = split_labels(self.features[rows])
        ids = self.failures["trace_id"].to_list()
        new_ids = {h: insight_id(ins.category, [ids[r] for r, hh in zip(rows, halves.tolist(), strict=True)
                                                if hh == h]) for h in (0, 1)}
        labels = list(self.labels)
        for r, h in zip(rows, halves.tolist(), strict=True):
            labels[r] = new_ids[int(h)]
        names = {k: v for k, v in self.names.items() if k != iid}
        return self._with(labels, names)

    def with_saved(self, assignment: Mapping[str, str], names: Mapping[str, str],
                   recommendations: Mapping[str, str] | None = None) -> InsightSet:
        """Overlay the analyst's saved insights: saved runs take their saved insight, others keep theirs.

        Args:
            assignment: Run id -> saved insight id (runs not in this corpus are ignored).
            names: Saved analyst names by insight id.
            recommendations: Saved analyst recommendations by insight id.
        """
        ids = self.failures["trace_id"].to_list()
        labels = [assignment.get(t, lab) for t, lab in zip(ids, self.labels, strict=True)]
        merged = {**self.names, **{k: v for k, v in names.items() if v}}
        recs = {**self.recommendations, **{k: v for k, v in (recommendations or {}).items() if v}}
        return self._with(labels, merged, recs)

    def with_aliases(self, aliases: Mapping[str, str] | None) -> InsightSet:
        """The set with its runs' models regrouped by a model alias table (the insights stay).

        Per-model shares, the most affected model and the model rule of the recommendations
        follow the groups (as the Compare tab and ``models.csv`` group them). None: provider
        prefixes removed only.
        """
        if "raw_model" not in self.failures.columns:
            return self
        models = model_column(self.failures["raw_model"], aliases)
        if models.equals(self.failures["model"]):
            return self
        failures = self.failures.with_columns(models)
        return InsightSet(failures, self.features, list(self.labels), dict(self.names), self.params,
                          dict(self.recommendations))

    # -- tables --------------------------------------------------------------------------
    def table(self) -> pl.DataFrame:
        """``insights.csv`` (INSIGHT_COLUMNS): the groups, largest first, then one ``not grouped`` row."""
        total = max(self.failures.height, 1)
        rows = []
        for i in self.groups:
            rows.append({
                "insight": i.id, "name": i.name, "named_by": i.named_by, "category": i.category, "size": i.size,
                "share_failed": i.size / total,
                "share_by_model": "; ".join(f"{m}={s:.2f}" for m, s in i.share_by_model.items()),
                "top_model": next(iter(i.share_by_model), None),
                "median_position": i.median_position, "median_step": i.median_step,
                "tools": "; ".join(f"{t} ({n})" for t, n in i.tools),
                "terms": ";".join(i.terms), "representatives": ";".join(i.representatives),
                "cohesion": i.cohesion, "recommendation_kind": i.recommendation.kind,
                "recommendation": i.recommendation.text, "recommendation_evidence": i.recommendation.evidence,
                "recommended_by": i.recommendation.by,
            })
        alone = self.ungrouped
        if alone:
            rows.append(self._ungrouped_row(alone, total))
        return pl.DataFrame(rows, schema={c.name: c.dtype for c in INSIGHT_COLUMNS})

    def _ungrouped_row(self, alone: tuple[str, ...], total: int) -> dict[str, object]:
        sub = self.failures.filter(pl.col("trace_id").is_in(list(alone)))
        failed_per_model = Counter(self.failures["model"].to_list())
        per_model = Counter(sub["model"].to_list())
        shares = sorted(((m, n / failed_per_model[m]) for m, n in per_model.items()), key=lambda t: (-t[1], t[0]))
        rels = [float(x) for x in sub["rel_position"].to_list() if x is not None]
        stps = [float(x) for x in sub["decisive_step"].to_list() if x is not None]
        return {
            "insight": None, "name": NOT_GROUPED, "named_by": AUTO, "category": None, "size": len(alone),
            "share_failed": len(alone) / total, "share_by_model": "; ".join(f"{m}={s:.2f}" for m, s in shares),
            "top_model": shares[0][0] if shares else None,
            "median_position": float(np.median(rels)) if rels else None,
            "median_step": float(np.median(stps)) if stps else None,
            "tools": "; ".join(f"{t} ({n})" for t, n in Counter(sub["tool"].to_list()).most_common()),
            "terms": "", "representatives": ";".join(alone), "cohesion": None, "recommendation_kind": None,
            "recommendation": None, "recommendation_evidence": None, "recommended_by": None,
        }

    def run_column(self) -> pl.DataFrame:
        """``trace_id`` and ``insight`` of every clustered run (for ``traces.csv``; empty when not grouped)."""
        alone = set(self.ungrouped)
        labels = [None if t in alone else lab
                  for t, lab in zip(self.failures["trace_id"].to_list(), self.labels, strict=True)]
        return pl.DataFrame({"trace_id": self.failures["trace_id"], "insight": pl.Series(labels, dtype=pl.Utf8)})


def compute_insights(runs: pl.DataFrame, traces: pl.DataFrame, steps: pl.DataFrame, embedder: Embedder,
                     findings: pl.DataFrame | None = None, params: InsightParams | None = None,
                     progress: Progress = no_progress, cancel: CancelToken | None = None,
                     aliases: Mapping[str, str] | None = None) -> InsightSet:
    """Insights of a corpus: failure table, features, clusters.

    Args:
        runs: Run attributions (``trace_id``, ``decisive_step``, ``category``, ``rationale``).
        traces: Traces frame.
        steps: Steps frame.
        embedder: Text embedder (``embed(list[str]) -> ndarray``).
        findings: Findings frame (evidence quotes), or None.
        params: Clustering knobs.
        progress: Called once per category block.
        cancel: Checked between blocks.
        aliases: The workspace's model alias table (models are grouped by it; see
            :meth:`InsightSet.with_aliases` to regroup later).

    Returns:
        The insights (empty when no run failed with a decisive step).
    """
    p = params or InsightParams()
    failures = failure_table(runs, traces, steps, findings, p, aliases)
    features = feature_matrix(failures, embedder, p)
    labels = cluster_failures(failures, features, p, progress, cancel)
    return InsightSet(failures, features, labels, {}, p, {})
