"""Qt-free session: frames, analysis, annotations, filters and the one shared selection.

Views observe the session through plain psygnal signals; ``ui/`` adapters forward them to
Qt on the GUI thread. Models know nothing of views. Filtering and sorting happen here, in
polars, so every view (and a script) sees the same runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl
from psygnal import Signal

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, AnalysisResult
from analyzer.corpus.store import Corpus, part_path
from analyzer.errors import LoadError
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import ANNOTATION_COLUMNS, FINDING_COLUMNS, STEP_COLUMNS, TRACE_COLUMNS
from analyzer.frames.titles import with_titles
from analyzer.loading.loader import LoadResult, RunRegistry
from analyzer.metrics.labels import overlay_labels
from analyzer.outcome.effective import ESTIMATE, effective_outcomes
from analyzer.outcome.estimate import estimate_p_failed
from analyzer.schema.outcome_source import FAILED_OUTCOMES

ANALYST_STATUS_ORDER: tuple[str, ...] = ("decisive", "accepted", "rejected", "suggested")
"""Annotation statuses from most to least telling; a run shows the first one it has."""


@dataclass(frozen=True)
class Selection:
    """What is selected, everywhere at once.

    Attributes:
        trace_ids: Selected runs (multi-select in the runs table).
        trace_id: The current run (shown in the transcript and plots).
        steps: Selected steps of the current run.
        step: The current step.
        finding: Index of the current finding in the findings frame, if any.
    """

    trace_ids: tuple[str, ...] = ()
    trace_id: str | None = None
    steps: tuple[int, ...] = ()
    step: int | None = None
    finding: int | None = None


@dataclass(frozen=True)
class RunFilter:
    """Which runs the runs table shows.

    Attributes:
        text: Case-insensitive text searched in the task, the task key, the run id and every step's text.
        outcomes: Keep only these outcomes (empty: all); ``failure`` keeps the ``error`` runs too
            (they did not succeed either, and are counted as failed).
        models: Keep only these models (empty: all).
        categories: Keep only these decisive-failure categories (empty: all).
        tags: Keep runs carrying any of these tags (empty: all).
        min_confidence: Lowest confidence kept (runs without a confidence are dropped when set).
        max_confidence: Highest confidence kept.
        task_keys: Keep only runs of these tasks (``task_key``; empty: all).
    """

    text: str = ""
    outcomes: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    min_confidence: float | None = None
    max_confidence: float | None = None
    task_keys: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when the filter keeps every run."""
        return self == RunFilter()

    def to_json(self) -> dict[str, object]:
        """Plain JSON object (for saved filters)."""
        return {
            "text": self.text, "outcomes": list(self.outcomes), "models": list(self.models),
            "categories": list(self.categories), "tags": list(self.tags),
            "min_confidence": self.min_confidence, "max_confidence": self.max_confidence,
            "task_keys": list(self.task_keys),
        }

    @classmethod
    def from_json(cls, obj: object) -> RunFilter:
        """Filter from a parsed JSON object; unknown or wrongly typed keys are ignored."""
        if not isinstance(obj, dict):
            return cls()

        def strings(key: str) -> tuple[str, ...]:
            v = obj.get(key)
            return tuple(str(x) for x in v) if isinstance(v, list) else ()

        def number(key: str) -> float | None:
            v = obj.get(key)
            return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

        text = obj.get("text")
        return cls(text=text if isinstance(text, str) else "", outcomes=strings("outcomes"),
                   models=strings("models"), categories=strings("categories"), tags=strings("tags"),
                   min_confidence=number("min_confidence"), max_confidence=number("max_confidence"),
                   task_keys=strings("task_keys"))


def filter_runs(runs: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, flt: RunFilter) -> pl.DataFrame:
    """Apply a :class:`RunFilter` to a runs view (see :meth:`Session.runs_view`).

    Args:
        runs: Runs view frame.
        steps: Steps frame, searched for ``flt.text`` (a lazy frame, e.g. a corpus on disk, is
            scanned for the matching runs only).
        flt: The filter.

    Returns:
        The kept rows, in their original order.
    """
    conds: list[pl.Expr] = []
    if flt.outcomes:
        wanted = set(flt.outcomes) | (set(FAILED_OUTCOMES) if "failure" in flt.outcomes else set())
        conds.append(pl.col("outcome").is_in(sorted(wanted)))
    if flt.models:
        conds.append(pl.col("model").is_in(list(flt.models)))
    if flt.categories:
        conds.append(pl.col("category").is_in(list(flt.categories)))
    if flt.tags:
        tag_expr = pl.col("tags").fill_null("").str.split(", ").list.eval(
            pl.element().is_in(list(flt.tags))).list.any()
        conds.append(tag_expr)
    if flt.task_keys:
        conds.append(pl.col("task_key").is_in(list(flt.task_keys)))
    if flt.min_confidence is not None:
        conds.append(pl.col("confidence") >= flt.min_confidence)
    if flt.max_confidence is not None:
        conds.append(pl.col("confidence") <= flt.max_confidence)
    out = runs.filter(pl.all_horizontal(conds)) if conds else runs
    needle = flt.text.strip()
    if needle:
        pattern = "(?i)" + re.escape(needle)
        hit_steps = (steps.lazy().filter(pl.col("text").str.contains(pattern)).select("trace_id").unique()
                     .collect()["trace_id"])
        out = out.filter(pl.col("task").fill_null("").str.contains(pattern)
                         | pl.col("task_key").fill_null("").str.contains(pattern)
                         | pl.col("trace_id").str.contains(pattern)
                         | pl.col("trace_id").is_in(hit_steps.implode()))
    return out


def run_labels(annotations: pl.DataFrame) -> pl.DataFrame:
    """Per-run ``tags`` (categories and custom tags, comma-separated) and ``analyst_status``.

    Rejected annotations do not contribute their category. The status is the most telling
    one the run has (:data:`ANALYST_STATUS_ORDER`).

    Args:
        annotations: Frame with ANNOTATION_COLUMNS.

    Returns:
        Frame with columns ``trace_id``, ``tags``, ``analyst_status``.
    """
    schema = {"trace_id": pl.Utf8, "tags": pl.Utf8, "analyst_status": pl.Utf8}
    if annotations.height == 0:
        return pl.DataFrame(schema=schema)
    rank = {s: i for i, s in enumerate(ANALYST_STATUS_ORDER)}
    tags: dict[str, set[str]] = {}
    status: dict[str, str] = {}
    for row in annotations.select("trace_id", "category", "tags", "note", "status").iter_rows(named=True):
        if not (row["category"] or row["tags"] or row["note"]) and (row["status"] or "accepted") == "accepted":
            continue  # a row that only carries the analyst's outcome is not a label
        tid = row["trace_id"]
        bag = tags.setdefault(tid, set())
        st = row["status"] or ""
        if row["category"] and st != "rejected":
            bag.add(row["category"])
        for t in (row["tags"] or "").split(","):
            if t.strip():
                bag.add(t.strip())
        if st and rank.get(st, 99) < rank.get(status.get(tid, ""), 100):
            status[tid] = st
    return pl.DataFrame(
        {"trace_id": list(tags),
         "tags": [", ".join(sorted(v)) or None for v in tags.values()],
         "analyst_status": [status.get(t) for t in tags]},
        schema=schema)


def skipped_runs(notices: Iterable[LoadError]) -> int:
    """Runs the duplicate notes stand for (each note's record says ``"3 runs"`` or ``"1 run"``)."""
    n = 0
    for e in notices:
        head = (e.record or "").split(" ")[0].replace(",", "")
        n += int(head) if head.isdigit() else 1
    return n


@dataclass(frozen=True)
class SessionCounts:
    """Numbers shown in the status bar.

    Attributes:
        runs: Loaded runs.
        failed: Runs whose (effective) outcome is failure or error: recorded, the analyst's or estimated.
        failed_estimated: Of those, runs whose failure is an estimate ("likely failed").
        unknown: Runs whose outcome is still unknown.
        tagged: Runs with at least one analyst tag or category.
        analysed: Runs with an analysis row.
        stale: Analysed runs whose analysis is from an older analysis version.
        load_problems: Bad files or records (duplicate runs skipped are notes, not counted).
        duplicates: Runs skipped because they were already loaded.
        shown: Runs kept by the current filter.
    """

    runs: int = 0
    failed: int = 0
    failed_estimated: int = 0
    unknown: int = 0
    tagged: int = 0
    analysed: int = 0
    stale: int = 0
    load_problems: int = 0
    duplicates: int = 0
    shown: int = 0


@dataclass
class _Cache:
    runs_view: pl.DataFrame | None = None
    filtered: pl.DataFrame | None = None
    estimates: pl.DataFrame | None = None


_TRACE_NAMES = [c.name for c in TRACE_COLUMNS]


@dataclass(frozen=True)
class _OnDisk:
    """Where a corpus run's rows are: its id in the corpus and its source partition."""

    corpus_id: str
    source: str


class Session:
    """Holds what the analyst is looking at. Emits signals on every change.

    Runs come from loaded files (their steps in :attr:`steps`) or from a corpus folder opened
    with :meth:`open_corpus`: then only the runs and their analysis rows are read, and a run's
    steps, findings and value curve are read from disk the first time the run is used
    (:meth:`hydrate`, called by :meth:`select`, :meth:`run_steps` and :meth:`steps_for`). Code
    that needs steps of many runs asks :meth:`steps_for` (those runs) or :meth:`steps_scan` (a
    lazy frame over every run, for text search and aggregates) rather than :attr:`steps`, which
    holds only the steps read so far.
    """

    traces_changed = Signal()
    load_errors_changed = Signal()
    analysis_changed = Signal()
    annotations_changed = Signal()
    selection_changed = Signal(object)
    filter_changed = Signal()

    def __init__(self) -> None:
        self.traces: pl.DataFrame = empty_frame(TRACE_COLUMNS)
        self.steps: pl.DataFrame = empty_frame(STEP_COLUMNS)
        self.load_errors: list[LoadError] = []
        """Files or records that could not be read (the load problems every count shows)."""
        self.load_notices: list[LoadError] = []
        """Runs skipped because they were already loaded, one grouped entry per file: notes, not problems."""
        self._registry = RunRegistry()
        self.analysis: AnalysisResult = AnalysisResult()
        self.stale: set[str] = set()
        """Runs whose shown analysis was made by an older analysis version (see ``merge_analysis``)."""
        self.annotations: pl.DataFrame = empty_frame(ANNOTATION_COLUMNS)
        self.selection = Selection()
        self.filter: RunFilter = RunFilter()
        self._cache = _Cache()
        self.corpora: list[Corpus] = []
        """Corpus folders opened (:meth:`open_corpus`)."""
        self._on_disk: dict[str, tuple[Corpus, _OnDisk]] = {}  # corpus runs whose rows are still on disk
        self._corpus_analysis: set[str] = set()  # runs whose analysis row came from a corpus
        self._corpus_runs: set[str] = set()  # runs opened from a corpus folder (never estimated: their steps stay on disk)
        self._titles_of: tuple[pl.DataFrame, pl.DataFrame] | None = None  # (traces, their titles)
        self.judge_cues: dict[str, float] = {}
        """The judge's P(the final state achieves the task) of runs whose outcome is estimated,
        asked by an analysis with a judge (:meth:`set_judge_cues`); the estimate reads them when
        the params use the judge model."""

    @property
    def filter_text(self) -> str:
        """Text part of the current filter."""
        return self.filter.text

    def _invalidate(self, traces: bool = False) -> None:
        self._cache = _Cache(estimates=None if traces else self._cache.estimates)

    # -- data --------------------------------------------------------------
    def add_load_result(self, res: LoadResult) -> None:
        """Append what a (partial) load produced; runs already present are skipped.

        The loader's grouped de-duplication entries, and one grouped line per file for runs
        this session already holds (the same record of the same source), are kept in
        :attr:`load_notices` (notes, not problems); a distinct run whose id is taken is kept
        under a distinct id.
        """
        notices = list(res.duplicates)
        if res.traces.height:
            new = self._admit(res, notices)
            new_traces, new_steps = new
            self.traces = pl.concat([self.traces, new_traces], how="vertical_relaxed")
            self.steps = pl.concat([self.steps, new_steps], how="vertical_relaxed")
            self._invalidate(traces=True)
            self.traces_changed.emit()
        if res.errors or notices:
            # a file read again with the same problem is still one problem
            known = set(self.load_errors)
            self.load_errors.extend(e for e in dict.fromkeys(res.errors) if e not in known)
            self.load_notices.extend(notices)
            self.load_errors_changed.emit()

    def _admit(self, res: LoadResult, notices: list[LoadError]) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The runs of ``res`` to add, file by file, through the session's run registry.

        The same record of the same source (a file opened again) is skipped as one grouped line
        per file; a distinct record whose id is taken keeps a distinct id.
        """
        traces: list[pl.DataFrame] = []
        steps: list[pl.DataFrame] = []
        for (file,), tr in res.traces.group_by("source_file", maintain_order=True):
            part = LoadResult(traces=tr, steps=res.steps.filter(pl.col("trace_id").is_in(tr["trace_id"].implode())),
                              formats={str(tr["source_format"][0]): tr.height})
            self._registry.admit(part, Path(str(file)))
            notices.extend(part.duplicates)
            traces.append(part.traces)
            steps.append(part.steps)
        return pl.concat(traces, how="vertical_relaxed"), pl.concat(steps, how="vertical_relaxed")

    def clear(self) -> None:
        """Forget every loaded run, analysis, load problem and the selection."""
        self._registry = RunRegistry()
        self.traces = empty_frame(TRACE_COLUMNS)
        self.steps = empty_frame(STEP_COLUMNS)
        self.load_errors = []
        self.load_notices = []
        self.analysis = AnalysisResult()
        self.stale = set()
        self.corpora = []
        self._on_disk = {}
        self._corpus_analysis = set()
        self._corpus_runs = set()
        self._invalidate(traces=True)
        self.traces_changed.emit()
        self.load_errors_changed.emit()
        self.analysis_changed.emit()
        self.select(trace_ids=(), trace_id=None, steps=(), step=None, finding=None)

    def clear_load_errors(self) -> None:
        """Forget the listed load problems and notes."""
        self.load_errors = []
        self.load_notices = []
        self.load_errors_changed.emit()

    def merge_analysis(self, result: AnalysisResult, stale: set[str] | frozenset[str] = frozenset()) -> None:
        """Merge (partial) analysis results; newer rows replace older ones per run.

        Args:
            result: The results.
            stale: Runs of ``result`` made by an older analysis version (results read back
                from a workspace); every other run of ``result`` is current.
        """
        self.analysis = self.analysis.merge(result)
        ids = {str(t) for t in result.runs["trace_id"].to_list()}
        self.stale = (self.stale - ids) | (set(stale) & ids)
        self._corpus_analysis -= ids  # a new analysis replaces the corpus's findings and values
        self._invalidate()
        self.analysis_changed.emit()

    def set_annotations(self, annotations: pl.DataFrame) -> None:
        """Replace the analyst annotations (ANNOTATION_COLUMNS), e.g. after a workspace write."""
        self.annotations = annotations
        self._invalidate()
        self.annotations_changed.emit()

    # -- corpora --------------------------------------------------------------
    def open_corpus(self, corpus: Corpus) -> int:
        """Add a corpus folder's runs and analysis rows; their steps stay on disk until used.

        The runs pass the session's run registry like loaded files do: a run already held
        (the same record of the same source) is skipped as one grouped line per source file,
        kept in :attr:`load_notices`.

        The runs come sorted by source file path, each file's runs in record order: the same
        order on every machine (the corpus's partitions are named by hashes of absolute paths,
        so their own order changes with the folder the corpus was built from).

        Returns:
            Runs added.
        """
        runs = (corpus.runs().collect().sort("source_file", nulls_last=True, maintain_order=True)
                .with_columns(pl.col("trace_id").alias("_corpus_id")))
        notices: list[LoadError] = []
        kept: list[pl.DataFrame] = []
        for (file,), tr in runs.group_by("source_file", maintain_order=True):
            part = LoadResult(traces=tr, formats={str(tr["source_format"][0]): tr.height})
            self._registry.admit(part, Path(str(file)))
            notices.extend(part.duplicates)
            kept.append(part.traces)
        added = pl.concat(kept, how="vertical_relaxed") if kept else runs.clear()
        if corpus not in self.corpora:
            self.corpora.append(corpus)
        rename: dict[str, str] = {}
        for tid, cid, src in added.select("trace_id", "_corpus_id", "source").iter_rows():
            self._on_disk[str(tid)] = (corpus, _OnDisk(str(cid), str(src)))
            self._corpus_runs.add(str(tid))
            if tid != cid:
                rename[str(cid)] = str(tid)
        if added.height:
            self.traces = pl.concat([self.traces, added.select(_TRACE_NAMES)], how="vertical_relaxed")
            res = corpus.results()
            if res is not None:
                rows = (res.drop("source").filter(pl.col("trace_id").is_in(pl.Series(list(added["_corpus_id"])).implode()))
                        .collect())
                if rename:
                    rows = rows.with_columns(pl.col("trace_id").replace(rename))
                if rows.height:
                    self.analysis = self.analysis.merge(AnalysisResult(runs=rows))
                    self._corpus_analysis |= {str(t) for t in rows["trace_id"].to_list()}
            self._invalidate(traces=True)
            self.traces_changed.emit()
            self.analysis_changed.emit()
        if notices:
            self.load_notices.extend(notices)
            self.load_errors_changed.emit()
        return added.height

    def hydrate(self, trace_ids: Iterable[str]) -> None:
        """Read from disk the steps of corpus runs not read yet.

        When a run's analysis came from the corpus, its findings and value curve are read too.
        Runs already in memory cost nothing, and only the runs' partitions are read. A partition
        that cannot be read is listed with the load problems (file, run, reason); the run keeps
        its row and shows no steps. Only that signal is emitted: the runs table does not change.
        """
        todo: dict[Corpus, list[tuple[str, _OnDisk]]] = {}
        for tid in dict.fromkeys(trace_ids):
            hit = self._on_disk.pop(tid, None)
            if hit is not None:
                todo.setdefault(hit[0], []).append((tid, hit[1]))
        for corpus, items in todo.items():
            back = {d.corpus_id: tid for tid, d in items}
            sources = [d.source for _, d in items]
            with_analysis = [d.corpus_id for tid, d in items if tid in self._corpus_analysis]

            def read(table: str, ids: Sequence[str], corpus: Corpus = corpus, back: dict[str, str] = back,
                     sources: list[str] = sources) -> pl.DataFrame | None:
                df = corpus.of_runs(table, ids, sources) if ids else None
                if df is None or not df.height:
                    return None
                return df.with_columns(pl.col("trace_id").replace(back)).sort("trace_id", "step", maintain_order=True)

            try:
                steps = read("steps", list(back))
                findings = read("findings", with_analysis)
                values = read("step_values", with_analysis)
            except (OSError, pl.exceptions.PolarsError) as exc:
                why = f"cannot read this run from the corpus ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
                self.load_errors.extend(LoadError(str(part_path(corpus.root, "steps", d.source)), tid, None, why)
                                        for tid, d in items)
                self.load_errors_changed.emit()
                continue
            if steps is not None:
                self.steps = pl.concat([self.steps, steps.select(self.steps.columns)], how="vertical_relaxed")
            if findings is not None or values is not None:
                a = self.analysis
                if findings is not None:
                    a.findings = pl.concat([a.findings, findings.select([c.name for c in FINDING_COLUMNS])],
                                           how="vertical_relaxed")
                if values is not None:
                    a.step_values = pl.concat([a.step_values, values.select([c.name for c in STEP_VALUE_COLUMNS])],
                                              how="vertical_relaxed")

    def steps_for(self, trace_ids: Iterable[str]) -> pl.DataFrame:
        """Steps of some runs (read from a corpus first where needed), sorted by run and step."""
        ids = list(dict.fromkeys(str(t) for t in trace_ids))
        self.hydrate(ids)
        return self.steps.filter(pl.col("trace_id").is_in(pl.Series(ids, dtype=pl.Utf8).implode()))

    def steps_scan(self) -> pl.LazyFrame:
        """Every run's steps as a lazy frame: those in memory plus those still in corpus folders.

        Select columns and filter before collecting; nothing is read from disk until then.
        """
        return self._with_disk(self.steps, lambda c: c.steps().drop("source"), analysed_only=False)

    def findings_scan(self) -> pl.LazyFrame:
        """Every run's findings as a lazy frame.

        These are the findings in memory plus those a corpus holds for runs not read yet (whose
        analysis came from the corpus).
        """
        return self._with_disk(self.analysis.findings, lambda c: c.findings(), analysed_only=True)

    def step_values_scan(self) -> pl.LazyFrame:
        """Every run's per-step analysis values as a lazy frame (memory plus corpus runs not read yet)."""
        return self._with_disk(self.analysis.step_values, lambda c: c.step_values(), analysed_only=True)

    def export_sources(self) -> tuple[pl.LazyFrame, Callable[[], AnalysisResult]]:
        """What an export of every run reads, without reading the corpus runs into the session.

        Returns:
            The steps as a lazy frame (each table reads only its columns) and a function,
            safe to call from a worker thread, that reads the analysis with the findings and
            step values of corpus runs not read yet.
        """
        a = self.analysis
        findings, values = self.findings_scan(), self.step_values_scan()

        def result() -> AnalysisResult:
            return AnalysisResult(runs=a.runs, findings=findings.collect(), step_values=values.collect(),
                                  errors=list(a.errors))

        return self.steps_scan(), result

    def _with_disk(self, memory: pl.DataFrame, table: Callable[[Corpus], pl.LazyFrame | None], *,
                   analysed_only: bool) -> pl.LazyFrame:
        """``memory`` plus the rows ``table`` gives for the corpus runs still on disk, lazily.

        Args:
            memory: The rows in memory (their columns are the result's).
            table: A corpus's lazy table (None when it has none).
            analysed_only: Only runs whose analysis came from the corpus.
        """
        parts = [memory.lazy()]
        waiting: dict[Corpus, dict[str, str]] = {}  # corpus -> corpus id -> session id
        for tid, (corpus, d) in self._on_disk.items():
            if not analysed_only or tid in self._corpus_analysis:
                waiting.setdefault(corpus, {})[d.corpus_id] = tid
        for corpus, ids in waiting.items():
            disk = table(corpus)
            if disk is None:
                continue
            disk = disk.filter(pl.col("trace_id").is_in(pl.Series(list(ids)).implode()))
            if any(k != v for k, v in ids.items()):
                disk = disk.with_columns(pl.col("trace_id").replace(ids))
            parts.append(disk.select(memory.columns))
        return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed")

    def run_steps(self, trace_id: str) -> pl.DataFrame:
        """Steps of one run, in order."""
        self.hydrate((trace_id,))
        return self.steps.filter(pl.col("trace_id") == trace_id).sort("step")

    def run_row(self, trace_id: str) -> dict[str, object] | None:
        """The runs-view row of one run, as a dict (None if unknown)."""
        rows = self.runs_view().filter(pl.col("trace_id") == trace_id)
        return rows.row(0, named=True) if rows.height else None

    def run_step_values(self, trace_id: str) -> pl.DataFrame:
        """Per-step analysis values of one run (STEP_VALUE_COLUMNS), in order."""
        self.hydrate((trace_id,))
        return self.analysis.step_values.filter(pl.col("trace_id") == trace_id).sort("step")

    def run_findings(self, trace_id: str) -> pl.DataFrame:
        """Findings of one run with their row index in the findings frame (column ``finding``)."""
        self.hydrate((trace_id,))
        f = self.analysis.findings.with_row_index("finding")
        return f.filter(pl.col("trace_id") == trace_id).sort(["step", "finding"])

    def outcome_estimates(self) -> pl.DataFrame:
        """``trace_id``, ``outcome_p_failed`` of the runs without a recorded outcome (computed once per load).

        Runs opened from a corpus folder are not estimated: their steps stay on disk (their outcome
        stays as recorded), whether or not a run was read since.
        """
        if self._cache.estimates is None:
            loaded = self.traces.filter(~pl.col("trace_id").is_in(pl.Series(sorted(self._corpus_runs),
                                                                             dtype=pl.Utf8).implode()))
            self._cache.estimates = estimate_p_failed(loaded, self.steps, judge_values=self.judge_cues or None)
        return self._cache.estimates

    def set_judge_cues(self, values: Mapping[str, float]) -> None:
        """Record the judge's final-state answers (an analysis worker asked them); the estimates follow.

        Args:
            values: Trace id -> P(the final state achieves the task).
        """
        new = {str(k): float(v) for k, v in values.items() if self.judge_cues.get(str(k)) != float(v)}
        if not new:
            return
        self.judge_cues.update(new)
        self._invalidate(traces=True)  # the estimates, hence the effective outcomes, follow
        # like an outcome the analyst marks: the runs, counts and inspector refresh (the runs themselves did not change)
        self.annotations_changed.emit()

    def effective_traces(self, trace_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """Traces (TRACE_COLUMNS) with the effective outcome: the analyst's, else recorded, else estimated.

        This is what an analysis is given, so attribution and the judge value curve work on runs
        the analyst marked or the estimate calls likely failed (see :mod:`analyzer.outcome.effective`).
        """
        traces = self.traces
        if trace_ids is not None:
            traces = traces.filter(pl.col("trace_id").is_in(pl.Series([str(t) for t in trace_ids], dtype=pl.Utf8)
                                                             .implode()))
        return effective_outcomes(traces, self.annotations, self.outcome_estimates()).select(_TRACE_NAMES)

    def runs_view(self) -> pl.DataFrame:
        """Traces joined with their analysis row and analyst labels (what the runs table shows).

        ``outcome`` is the effective outcome (:mod:`analyzer.outcome.effective`), with
        ``outcome_source``, ``outcome_recorded``, ``outcome_analyst`` and ``outcome_p_failed``.

        Always has the TRACE_COLUMNS, ``title`` and ``source_name``
        (:mod:`analyzer.frames.titles`), the RUN_COLUMNS (null until analysed), ``tags``,
        ``analyst_status``, ``analysis_stale`` (True when the run's analysis is from an older
        analysis version) and ``decisive_source``/``label_source``/``judge_decisive_step``/
        ``judge_category``: ``decisive_step``, ``decisive_agent`` and ``category`` are the
        effective ones (the analyst's where set, :func:`analyzer.metrics.labels.overlay_labels`);
        there ``decisive_uncertain`` is null and ``drop_note`` speaks of the analyst's step.
        """
        if self._cache.runs_view is None:
            runs = self.analysis.runs
            if runs.height == 0:
                runs = empty_frame(RUN_COLUMNS)
            traces = effective_outcomes(self.traces, self.annotations, self.outcome_estimates())
            view = traces.join(runs.unique("trace_id", keep="last"), on="trace_id", how="left")
            # the analyst's decisive step and category win (the same rules as traces.csv and the reports)
            view = overlay_labels(view, self.annotations, self.steps_scan(), self.step_values_scan())
            labels = run_labels(self.annotations)
            view = view.join(labels, on="trace_id", how="left")
            view = view.join(self._titles(), on="trace_id", how="left", maintain_order="left")
            self._cache.runs_view = view.with_columns(
                pl.col("trace_id").is_in(list(self.stale)).alias("analysis_stale"))
        return self._cache.runs_view

    def _titles(self) -> pl.DataFrame:
        """``trace_id``, ``title``, ``source_name`` of the loaded runs (made once per traces frame, not per edit)."""
        if self._titles_of is None or self._titles_of[0] is not self.traces:
            cols = self.traces.select("trace_id", "native_id", "task", "source_file")
            self._titles_of = (self.traces, with_titles(cols).select("trace_id", "title", "source_name"))
        return self._titles_of[1]

    def filtered_runs(self) -> pl.DataFrame:
        """The runs view with the current filter applied."""
        if self._cache.filtered is None:
            view = self.runs_view()
            steps = self.steps_scan() if self.filter.text.strip() else self.steps
            self._cache.filtered = view if self.filter.is_empty() else filter_runs(view, steps, self.filter)
        return self._cache.filtered

    def set_filter(self, flt: RunFilter) -> None:
        """Change the run filter and notify if it changed."""
        if flt != self.filter:
            self.filter = flt
            self._cache.filtered = None
            self.filter_changed.emit()

    def stale_runs(self) -> list[str]:
        """Loaded runs whose analysis is stale, in table order."""
        if not self.stale:
            return []
        return [t for t in self.traces["trace_id"].to_list() if t in self.stale]

    def counts(self) -> SessionCounts:
        """Numbers for the status bar."""
        view = self.runs_view()
        failed = int(view["outcome"].is_in(list(FAILED_OUTCOMES)).sum()) if view.height else 0
        estimated = int(((view["outcome"] == "failure") & (view["outcome_source"] == ESTIMATE)).sum()) \
            if view.height else 0
        unknown = int((view["outcome"] == "unknown").sum()) if view.height else 0
        tagged = int(view["tags"].is_not_null().sum()) if view.height else 0
        analysed = int(view["value_estimator"].is_not_null().sum()) if view.height else 0
        stale = int(view["analysis_stale"].sum()) if view.height else 0
        return SessionCounts(runs=view.height, failed=failed, failed_estimated=estimated, unknown=unknown, tagged=tagged, analysed=analysed, stale=stale,
                             load_problems=len(self.load_errors), duplicates=skipped_runs(self.load_notices),
                             shown=self.filtered_runs().height)

    # -- selection -----------------------------------------------------------
    def select(self, **changes: object) -> None:
        """Change the selection (fields of :class:`Selection`) and notify if it changed.

        Selecting a different ``trace_id`` resets the step and finding unless given.
        """
        new = replace(self.selection, **changes)  # type: ignore[arg-type]
        if "trace_id" in changes and changes["trace_id"] != self.selection.trace_id:
            if "step" not in changes:
                new = replace(new, step=None, steps=())
            if "finding" not in changes:
                new = replace(new, finding=None)
        if new != self.selection:
            if new.trace_id is not None:
                self.hydrate((new.trace_id, *new.trace_ids))  # a corpus run's steps, before any view asks
            self.selection = new
            self.selection_changed.emit(new)
