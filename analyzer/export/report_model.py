"""What a report shows, computed once and rendered as HTML, PDF or Markdown.

Every string taken from a trace stays a plain ``str`` here; the renderers escape it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from analyzer.analysis.result import AnalysisResult, uncertain_steps
from analyzer.attribution.rationale import rationale_text
from analyzer.export.palette import category_color, category_title, text_color_on
from analyzer.export.report_i18n import html_lang, translator
from analyzer.export.report_signals import SignalSection, signal_section
from analyzer.export.svg import (
    BarRow,
    Marker,
    category_bars_svg,
    data_uri,
    sparkline,
    value_plot_svg,
)
from analyzer.export.tables import run_table
from analyzer.insights import text as insight_text
from analyzer.insights.recommend import KIND_TITLES
from analyzer.locales import category_title as locale_category_title
from analyzer.locales import finding_text, note_text, step_list_text
from analyzer.metrics.columns import COUNT_PREFIX
from analyzer.metrics.model_names import NAMES_SEPARATOR
from analyzer.metrics.models import DEFAULT_MIN_GROUP_RUNS, model_metrics, rank_groups
from analyzer.schema.outcome_source import DECIDED_OUTCOMES, FAILED_OUTCOMES
from analyzer.taxonomy import CATEGORIES, CATEGORY_IDS

if TYPE_CHECKING:
    from analyzer.insights.model import InsightSet


@dataclass(frozen=True)
class ReportOptions:
    """How much a report shows.

    Attributes:
        title: Report title.
        max_runs: Failed runs shown in full (the rest are counted, see ``traces.csv``).
        context_steps: Steps shown before and after the decisive step.
        excerpt_chars: Characters kept of each step text in the excerpt.
        task_chars: Characters kept of the task statement.
        generated: Timestamp printed in the report (default: now, UTC).
        lang: Language of the report's text, rationales and category names (``en``, ``zh_CN``).
    """

    title: str = "TrajScope failure report"
    max_runs: int = 200
    context_steps: int = 1
    excerpt_chars: int = 1500
    task_chars: int = 800
    generated: str | None = None
    lang: str = "en"


@dataclass(frozen=True)
class CategoryView:
    """A taxonomy category with its colours."""

    id: str
    key: str
    title: str
    color: str
    text_color: str
    description: str
    count: int = 0


@dataclass(frozen=True)
class ModelView:
    """One row of the model comparison."""

    model: str
    runs: int
    passes: int
    failures: int
    unknown: int
    pass_rate: float | None
    ci_low: float | None
    ci_high: float | None
    p_step: float | None
    horizon_50: float | None
    horizon_80: float | None
    decisive_rel_median: float | None
    label_source: str | None
    top_categories: list[tuple[CategoryView, int]]
    too_few_runs: bool = False
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TagCounts:
    """What the analyst recorded in the workspace, over the runs of the report.

    Attributes:
        runs: Runs with any annotation (category, tag, note, decisive mark or rejection).
        steps: Steps with any annotation.
        run_level: Run-level annotations (not on a step).
        decisive: Decisive steps marked by the analyst.
        rejected: Suggestions the analyst rejected.
        labelled: Annotations carrying a taxonomy category (rejections left out).
        tags: Custom tags applied (one per tag per annotation).
        notes: Annotations with a note.
        authors: Analysts who annotated.
        by_category: Category id -> annotations with it.
        by_tag: Custom tag -> annotations with it, most used first.
        other_runs: Annotated runs in the workspace that are not in this report.
    """

    runs: int = 0
    steps: int = 0
    run_level: int = 0
    decisive: int = 0
    rejected: int = 0
    labelled: int = 0
    tags: int = 0
    notes: int = 0
    authors: list[str] = field(default_factory=list)
    by_category: list[tuple[CategoryView, int]] = field(default_factory=list)
    by_tag: list[tuple[str, int]] = field(default_factory=list)
    other_runs: int = 0


@dataclass(frozen=True)
class StepView:
    """A step in a decisive-step excerpt."""

    index: int
    agent: str
    role: str
    kind: str
    tool_name: str
    tool_args: str
    text: str
    clipped: int
    is_error: bool
    error_text: str
    value: float | None
    is_decisive: bool
    findings: list[CategoryView]
    native_step_id: str = ""
    is_candidate: bool = False


@dataclass(frozen=True)
class FindingView:
    """A finding on a run."""

    step: int
    category: CategoryView
    score: float | None
    source: str
    status: str
    rationale: str
    evidence: str


@dataclass(frozen=True)
class NoteView:
    """An analyst note."""

    step: int | None
    text: str
    author: str
    category: CategoryView | None
    status: str


@dataclass
class RunView:
    """A failed run as the report shows it.

    ``uncertain_steps`` are the likeliest steps when the pipeline does not know (the report
    then says "uncertain: steps a, b, c" instead of one decisive step; empty when it knows or
    an analyst set the step); ``uncertain_list`` is the same numbers joined in the report's
    language.
    """

    trace_id: str
    native_id: str
    model: str
    framework: str
    task: str
    task_clipped: int
    n_steps: int
    decisive_step: int | None
    decisive_agent: str
    category: CategoryView
    confidence: float | None
    decisive_source: str
    label_source: str
    top_steps: list[int]
    min_value: float | None
    largest_drop: float | None
    largest_drop_step: int | None
    drop_note: str
    rationale: str
    source: str
    plot_uri: str
    sparkline: str
    excerpt: list[StepView]
    findings: list[FindingView]
    tags: list[str]
    notes: list[NoteView]
    problems: str
    uncertain_steps: list[int] = field(default_factory=list)
    uncertain_list: str = ""
    outcome: str = ""
    outcome_source: str = ""


@dataclass(frozen=True)
class InsightView:
    """One insight (a group of similar failures) in the report's insights section."""

    id: str
    name: str
    named_by: str
    category: CategoryView
    size: int
    share_failed: float
    shares: list[tuple[str, float]]
    median_position: float | None
    tools: str
    terms: list[str]
    representatives: list[str]
    recommendation: str = ""
    recommendation_kind: str = ""
    recommendation_evidence: str = ""


CONTRAST_ROWS = 20
"""Failed runs listed in the contrast section (the rest are in ``traces.csv``)."""


@dataclass
class ContrastView:
    """A failed run against the nearest success of its task (the report's contrast section)."""

    run: str
    task_key: str
    model: str
    success: str
    divergence_step: int | None
    kind: str


@dataclass
class ContrastSection:
    """The contrast section: failed runs whose task also succeeded."""

    tasks: int
    runs: list[ContrastView]
    with_divergence: int
    total: int
    omitted: int


def contrast_section(table: pl.DataFrame) -> ContrastSection | None:
    """The contrast section from ``traces.csv`` rows (None when no failed run has a success to compare)."""
    if "contrast_run" not in table.columns:
        return None
    rows = table.filter(pl.col("contrast_run").is_not_null())
    if rows.height == 0:
        return None
    label = {str(t): (f"{n} · {str(t)[:8]}" if n else str(t)) for t, n in table.select("trace_id", "native_id").iter_rows()}
    ordered = rows.sort("task_key", nulls_last=True, maintain_order=True)
    views = [ContrastView(label[str(r["trace_id"])], _str(r["task_key"]), _str(r["model"]) or "(unknown)",
                          label.get(str(r["contrast_run"]), str(r["contrast_run"])), r["divergence_step"],
                          _str(r["divergence_kind"]))
             for r in ordered.head(CONTRAST_ROWS).iter_rows(named=True)]
    return ContrastSection(int(rows["task_key"].n_unique()), views, int(rows["divergence_step"].is_not_null().sum()),
                           rows.height, max(0, rows.height - CONTRAST_ROWS))


@dataclass
class Report:
    """Everything a report renders."""

    title: str
    generated: str
    version: str
    summary: dict[str, Any]
    categories: list[CategoryView]
    models: list[ModelView]
    category_chart_uri: str
    runs: list[RunView]
    omitted_runs: int
    problems: list[str] = field(default_factory=list)
    tags: TagCounts = field(default_factory=TagCounts)
    min_group_runs: int = DEFAULT_MIN_GROUP_RUNS
    signals: SignalSection | None = None
    insights: list[InsightView] = field(default_factory=list)
    insights_ungrouped: list[str] = field(default_factory=list)
    lang: str = "en"
    contrast: ContrastSection | None = None

    @property
    def html_lang(self) -> str:
        """BCP 47 tag of the report's language."""
        return html_lang(self.lang)


def _clip(text: Any, limit: int) -> tuple[str, int]:
    s = "" if text is None else str(text)
    if len(s) <= limit:
        return s, 0
    return s[:limit], len(s) - limit


class _CategoryViews(dict[str, CategoryView]):
    """Category views by id, with the report language's word for no category."""

    unlabelled = "Unlabelled"


def _categories(counts: dict[str, int], lang: str = "en") -> dict[str, CategoryView]:
    out = _CategoryViews()
    out.unlabelled = translator(lang)("Unlabelled")
    for c in CATEGORIES:
        color = category_color(c.id.value)
        title = c.title if lang == "en" else locale_category_title(c.id.value, lang)
        out[c.id.value] = CategoryView(c.id.value, c.key, title, color, text_color_on(color), c.description,
                                       counts.get(c.id.value, 0))
    return out


def _cat_view(cats: dict[str, CategoryView], cat: Any) -> CategoryView:
    if cat is None or str(cat) == "":
        color = category_color(None)
        unlabelled = getattr(cats, "unlabelled", _CategoryViews.unlabelled)
        return CategoryView("", "", unlabelled, color, text_color_on(color), "")
    if str(cat) in cats:
        return cats[str(cat)]
    color = category_color(None)
    return CategoryView(str(cat), "", category_title(str(cat)), color, text_color_on(color), "")


def _ints(text: Any) -> list[int]:
    out = []
    for part in str(text or "").split(","):
        part = part.strip()
        if part.lstrip("-").isdigit():
            out.append(int(part))
    return out


def _str(v: Any) -> str:
    return "" if v is None else str(v)


def build_report(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, result: AnalysisResult | None = None,
                 annotations: pl.DataFrame | None = None, options: ReportOptions | None = None,
                 problems: Sequence[str] = (), aliases: Mapping[str, str] | None = None,
                 min_group_runs: int = DEFAULT_MIN_GROUP_RUNS, insights: InsightSet | None = None, *,
                 run_rows: pl.DataFrame | None = None, model_rows: pl.DataFrame | None = None) -> Report:
    """Compute the content of a report.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS), or a lazy one: the texts are then read only for the
            runs the report shows.
        result: Analysis result, or None (the report then shows what the loader knows).
        annotations: Analyst annotations (ANNOTATION_COLUMNS), or None.
        options: What to show.
        problems: Load or analysis problems to list at the end.
        aliases: Model alias table of the workspace (the model comparison groups by it).
        min_group_runs: Groups with fewer runs are marked "too few runs" and ranked after the others.
        insights: Failure insights for the insights section, or None (no section).
        run_rows: The run table (:func:`analyzer.export.tables.run_table`) of these inputs, if
            already built (an export that also writes ``traces.csv``); else it is built here.
        model_rows: The model metrics of these inputs grouped by model with ``aliases`` and
            ``min_group_runs`` (``models.csv``), if already built.

    Returns:
        The report content.
    """
    from analyzer import __version__

    opts = options or ReportOptions()
    table = run_rows if run_rows is not None else run_table(traces, result, annotations, steps)
    if model_rows is None:
        model_rows = model_metrics(traces, result.runs if result is not None else None, annotations, steps=steps,
                                   aliases=aliases, min_runs=min_group_runs)
    metrics = rank_groups(model_rows, min_group_runs)
    failed = table.filter(pl.col("outcome").is_in(list(FAILED_OUTCOMES)))
    overall = {c: int(failed.filter(pl.col("category") == c).height) for c in CATEGORY_IDS}
    cats = _categories(overall, opts.lang)
    models = _model_views(metrics, cats)
    chart = category_bars_svg(
        [BarRow(m["model"], {c: int(m[f"{COUNT_PREFIX}{c}"] or 0) for c in CATEGORY_IDS})
         for m in metrics.iter_rows(named=True) if m["labelled"]],
        CATEGORY_IDS, width=960,
    ) if metrics.height and int(metrics["labelled"].sum() or 0) else ""
    shown = failed.head(max(0, opts.max_runs))
    run_views = _run_views(shown, steps, result, annotations, cats, opts)
    analysed = result.runs.height if result is not None else 0
    tag_counts = count_tags(annotations, set(traces["trace_id"].to_list()), cats)
    summary = {
        "runs": traces.height,
        "models": metrics.height,
        "passes": int((table["outcome"] == "success").sum()),
        "failures": failed.height,
        "unknown": table.height - int(table["outcome"].is_in(list(DECIDED_OUTCOMES)).fill_null(False).sum()),
        "estimated": int((table["outcome_source"] == "estimate").fill_null(False).sum())
        if "outcome_source" in table.columns else 0,
        "analysed": analysed,
        "attributed": int(failed["decisive_step"].is_not_null().sum()),
        "reviewed": failed.filter((pl.col("decisive_source") == "analyst")
                                  | (pl.col("label_source") == "analyst")).height,
        "tagged": tag_counts.runs,
        "tagged_steps": tag_counts.steps,
        "findings": result.findings.height if result is not None else 0,
        "estimators": sorted({str(v) for v in table["value_estimator"].drop_nulls().to_list()}),
    }
    all_problems = list(problems) + (list(result.errors) if result is not None else [])
    return Report(
        title=opts.title if opts.lang == "en" else translator(opts.lang)(opts.title),
        lang=opts.lang,
        generated=opts.generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__,
        summary=summary,
        categories=list(cats.values()),
        models=models,
        category_chart_uri=data_uri(chart) if chart else "",
        runs=run_views,
        omitted_runs=failed.height - len(run_views),
        problems=all_problems,
        tags=tag_counts,
        min_group_runs=min_group_runs,
        signals=signal_section(table, metrics),
        insights=_insight_views(insights.with_aliases(aliases) if insights is not None else None, cats, traces,
                                opts.lang),
        insights_ungrouped=_ungrouped_runs(insights, traces),
        contrast=contrast_section(table),
    )


def count_tags(annotations: pl.DataFrame | None, run_ids: set[str],
               cats: dict[str, CategoryView] | None = None) -> TagCounts:
    """Every tag count of the workspace annotations (ANNOTATION_COLUMNS) over the given runs.

    Args:
        annotations: Analyst annotations, or None.
        run_ids: Runs of the report; annotations of other runs are only counted in ``other_runs``.
        cats: Category views (default: the taxonomy with no counts).
    """
    if annotations is None or annotations.height == 0:
        return TagCounts()
    cats = cats or _categories({})
    ann = annotations.filter(pl.col("trace_id").is_not_null())
    other = ann.filter(~pl.col("trace_id").is_in(list(run_ids)))["trace_id"].n_unique()
    ann = ann.filter(pl.col("trace_id").is_in(list(run_ids)))
    if ann.height == 0:
        return TagCounts(other_runs=other)
    on_step = ann.filter(pl.col("step").is_not_null() & (pl.col("step") >= 0))
    status = pl.col("status").fill_null("accepted")
    labelled = ann.filter(pl.col("category").is_not_null() & (status != "rejected"))
    by_cat = labelled.group_by("category").len()
    cat_counts = {str(c): int(n) for c, n in by_cat.iter_rows()}
    tag_counts: dict[str, int] = {}
    for raw in ann["tags"].fill_null("").to_list():
        for t in str(raw).split(","):
            if t.strip():
                tag_counts[t.strip()] = tag_counts.get(t.strip(), 0) + 1
    return TagCounts(
        runs=ann["trace_id"].n_unique(),
        steps=on_step.select("trace_id", "step").unique().height,
        run_level=ann.height - on_step.height,
        decisive=ann.filter(status == "decisive").height,
        rejected=ann.filter(status == "rejected").height,
        labelled=labelled.height,
        tags=sum(tag_counts.values()),
        notes=ann.filter(pl.col("note").fill_null("").str.strip_chars() != "").height,
        authors=sorted({str(a) for a in ann["author"].drop_nulls().to_list()}) if "author" in ann.columns else [],
        by_category=[(_cat_view(cats, c), n) for c, n in sorted(cat_counts.items(), key=lambda t: (-t[1], t[0]))],
        by_tag=sorted(tag_counts.items(), key=lambda t: (-t[1], t[0])),
        other_runs=other,
    )


def _run_names(traces: pl.DataFrame) -> dict[str, str]:
    if "native_id" not in traces.columns:
        return {}
    return {str(t): str(n) for t, n in zip(traces["trace_id"], traces["native_id"], strict=True) if n}


def _ungrouped_runs(insights: InsightSet | None, traces: pl.DataFrame) -> list[str]:
    """The runs that joined no insight of two or more (the section's "not grouped" row), by their names."""
    if insights is None:
        return []
    names = _run_names(traces)
    return [names.get(r, r) for r in insights.ungrouped]


def _insight_views(insights: InsightSet | None, cats: dict[str, CategoryView],
                   traces: pl.DataFrame, lang: str = "en") -> list[InsightView]:
    if insights is None:
        return []
    names = _run_names(traces)
    total = max(insights.failures.height, 1)
    return [InsightView(
        id=i.id, name=insight_text.insight_name(i, lang), named_by=i.named_by, category=_cat_view(cats, i.category), size=i.size,
        share_failed=i.size / total, shares=list(i.share_by_model.items()), median_position=i.median_position,
        tools=", ".join(f"{t} ({n})" for t, n in i.tools[:3]), terms=list(i.terms),
        representatives=[names.get(r, r) for r in i.representatives],
        recommendation=insight_text.recommendation_text(i.recommendation, lang), recommendation_kind=KIND_TITLES.get(i.recommendation.kind, i.recommendation.kind),
        recommendation_evidence=insight_text.evidence_text(i.recommendation, lang),
    ) for i in insights.groups]


def _model_views(metrics: pl.DataFrame, cats: dict[str, CategoryView]) -> list[ModelView]:
    out = []
    for m in metrics.iter_rows(named=True):
        counts = sorted(((int(m[f"{COUNT_PREFIX}{c}"] or 0), c) for c in CATEGORY_IDS), key=lambda t: (-t[0], t[1]))
        out.append(ModelView(
            model=m["model"], runs=m["runs"], passes=m["passes"], failures=m["failures"], unknown=m["unknown"],
            pass_rate=m["pass_rate"], ci_low=m["pass_rate_low"], ci_high=m["pass_rate_high"], p_step=m["p_step"],
            horizon_50=m["horizon_50"], horizon_80=m["horizon_80"], decisive_rel_median=m["decisive_rel_median"],
            label_source=m["label_source"],
            top_categories=[(cats[c], k) for k, c in counts[:3] if k],
            too_few_runs=bool(m["too_few_runs"]),
            names=[n for n in str(m["names"] or "").split(NAMES_SEPARATOR) if n and n != m["model"]],
        ))
    return out


def _run_views(shown: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, result: AnalysisResult | None,
               annotations: pl.DataFrame | None, cats: dict[str, CategoryView],
               opts: ReportOptions) -> list[RunView]:
    ids = shown["trace_id"].to_list()
    if not ids:
        return []

    def parts(df: pl.DataFrame | pl.LazyFrame | None) -> dict[str, pl.DataFrame]:
        if df is None or "trace_id" not in df.collect_schema().names():
            return {}
        sub = df.lazy().filter(pl.col("trace_id").is_in(ids)).collect()
        return {str(k[0]): v for k, v in sub.partition_by("trace_id", as_dict=True).items()}

    step_parts = parts(steps)
    value_parts = parts(result.step_values if result is not None else None)
    finding_parts = parts(result.findings if result is not None else None)
    note_parts = parts(annotations)
    structured: dict[str, str] = {}
    if opts.lang != "en" and result is not None and "rationale_json" in result.runs.columns:
        structured = {str(t): str(j) for t, j in result.runs.select("trace_id", "rationale_json").iter_rows()
                      if j is not None}
    out = []
    for row in shown.iter_rows(named=True):
        tid = row["trace_id"]
        st = step_parts[tid].sort("step") if tid in step_parts else None
        n_steps = int(row["n_steps"] or (st.height if st is not None else 0))
        values: list[float | None] = [None] * n_steps
        if tid in value_parts:
            for s, v in value_parts[tid].select("step", "value").iter_rows():
                if s is not None and 0 <= s < n_steps:
                    values[s] = v
        f_df = finding_parts.get(tid)
        findings = [] if f_df is None else [
            FindingView(step=int(f["step"]), category=_cat_view(cats, f["category"]), score=f["score"],
                        source=_str(f["source"]), status=_str(f["status"]) or "suggested",
                        rationale=_clip(finding_text(f["rationale"], opts.lang), 400)[0],
                        evidence=_clip(f["evidence_quote"], 300)[0])
            for f in f_df.sort(["step", "score"], descending=[False, True]).iter_rows(named=True)
            if f["step"] is not None
        ]
        decisive = row["decisive_step"]
        unsure = uncertain_steps(row.get("decisive_uncertain"))  # null where the analyst set the step
        errors = [] if st is None else st.filter(pl.col("is_error").fill_null(False))["step"].to_list()
        plot = value_plot_svg(values, decisive=None if unsure else decisive, decisive_category=row["category"],
                              candidates=unsure or _ints(row["top_steps"]),
                              markers=[Marker(f.step, f.category.id) for f in findings if f.status != "rejected"],
                              errors=errors, width=960, height=220)
        task, task_clipped = _clip(row["task"], opts.task_chars)
        out.append(RunView(
            trace_id=tid, native_id=_str(row["native_id"]), model=_str(row["model"]) or "(unknown)",
            framework=_str(row["framework"]), task=task, task_clipped=task_clipped, n_steps=n_steps,
            decisive_step=decisive, decisive_agent=_str(row["decisive_agent"]),
            category=_cat_view(cats, row["category"]), confidence=row["confidence"],
            decisive_source=_str(row["decisive_source"]), label_source=_str(row["label_source"]),
            top_steps=_ints(row["top_steps"]), min_value=row["min_value"], largest_drop=row["largest_drop"],
            largest_drop_step=row["largest_drop_step"],
            drop_note=note_text(_str(row["drop_note"]), opts.lang),  # written for the analyst's step if set
            rationale=rationale_text(structured.get(tid), _str(row["rationale"]), opts.lang),
            source=f"{_str(row['source_file'])} [{_str(row['record'])}]" if row["source_file"] else "",
            outcome=_str(row.get("outcome")), outcome_source=_str(row.get("outcome_source")),
            plot_uri=data_uri(plot), sparkline=sparkline(values),
            excerpt=_excerpt(st, values, decisive, row["largest_drop_step"], findings, opts, unsure),
            findings=findings, tags=[t for t in _str(row["tags"]).split(",") if t],
            notes=_notes(note_parts.get(tid), cats), problems=_str(row["error"]),
            uncertain_steps=unsure, uncertain_list=step_list_text(unsure, opts.lang),
        ))
    return out


def _excerpt(st: pl.DataFrame | None, values: list[float | None], decisive: int | None,
             drop_step: int | None, findings: list[FindingView], opts: ReportOptions,
             uncertain: Sequence[int] = ()) -> list[StepView]:
    if st is None or st.height == 0:
        return []
    centre = decisive if decisive is not None else drop_step
    if centre is None:
        centre = st.height - 1
    lo, hi = int(centre) - opts.context_steps, int(centre) + opts.context_steps
    by_step: dict[int, list[CategoryView]] = {}
    for f in findings:
        if f.status != "rejected" and f.category not in by_step.setdefault(f.step, []):
            by_step[f.step].append(f.category)
    out = []
    for s in st.filter(pl.col("step").is_between(lo, hi)).iter_rows(named=True):
        text, clipped = _clip(s["text"], opts.excerpt_chars)
        i = int(s["step"])
        out.append(StepView(
            index=i, agent=_str(s["agent"]), role=_str(s["role"]), kind=_str(s["kind"]),
            tool_name=_str(s["tool_name"]), tool_args=_clip(s["tool_args"], 600)[0], text=text, clipped=clipped,
            is_error=bool(s["is_error"]), error_text=_clip(s["error_text"], 300)[0],
            value=values[i] if 0 <= i < len(values) else None, is_decisive=i == decisive and not uncertain,
            findings=by_step.get(i, []), native_step_id=_str(s.get("native_step_id")), is_candidate=i in uncertain,
        ))
    return out


def _notes(df: pl.DataFrame | None, cats: dict[str, CategoryView]) -> list[NoteView]:
    if df is None:
        return []
    out = []
    for a in df.sort("step", nulls_last=False).iter_rows(named=True):
        if not (a.get("note") or a.get("category") or a.get("status") in ("decisive", "rejected")):
            continue
        out.append(NoteView(step=a["step"], text=_str(a.get("note")), author=_str(a.get("author")),
                            category=_cat_view(cats, a["category"]) if a.get("category") else None,
                            status=_str(a.get("status"))))
    return out
