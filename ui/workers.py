"""Background work: loading files and analysing runs in QThreadPool workers.

Workers report progress, deliver partial results (one file's LoadResult, one run's
RunAnalysis) as they appear, and stop at the next unit boundary when cancelled through a
:class:`analyzer.jobs.CancelFlag` (granularity: one file when loading, one run when
analysing; with the judge: one judge call). Results are delivered to the GUI thread by
Qt's queued signals; nothing here touches widgets and nothing calls ``processEvents()``.

Every job keeps its last report (:attr:`Job.last_progress`, :attr:`Job.last_event`) so the
status bar's jobs indicator (:mod:`ui.views.jobs_indicator`) can list every running job with
what it is doing now, and cancel each one.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal, Slot

from analyzer.jobs import CancelFlag, ProgressEvent

AnalyzeFn = Callable[..., Any]


class WorkerSignals(QObject):
    """Signals of one background job (emitted from the pool thread, received on the GUI thread).

    Signals:
        progress(done, total, message)
        event(object): a structured :class:`analyzer.jobs.ProgressEvent` (analysis: per run and
            per judge call).
        partial(object): a per-file LoadResult or a per-run RunAnalysis.
        notice(str): a non-fatal message (e.g. the judge model is missing, analysis runs without it).
        judge_cues(object): dict trace id -> the judge's P(the final state achieves the task) of the
            runs whose outcome is an estimate (an analysis with a judge, when the params use it).
        finished(object): the final result.
        failed(message, details): the job raised; ``details`` is the traceback.
    """

    progress = Signal(int, int, str)
    event = Signal(object)
    partial = Signal(object)
    notice = Signal(str)
    judge_cues = Signal(object)
    finished = Signal(object)
    failed = Signal(str, str)


class JobProgress:
    """The progress sink a job hands to core functions (an :class:`analyzer.jobs.EventProgress`)."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def __call__(self, done: int, total: int, message: str = "") -> None:
        self._job._progress(done, total, message)

    def event(self, event: ProgressEvent) -> None:
        """Forward a structured report to the GUI thread."""
        self._job.last_event = event
        self._job.event_is_latest = True
        self._job.signals.event.emit(event)


class Job(QRunnable):
    """A cancellable background job.

    Attributes:
        kind: What the job does (``load``, ``analyze``, ``judge_curve``, ``adapt``, ...).
        title: What the jobs indicator calls it (empty: a title for the kind).
        background: Started by the app on its own, not by an action of the analyst.
        last_progress: The last ``(done, total, message)`` report.
        last_event: The last structured report (analysis only).
    """

    kind = "job"

    def __init__(self) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = WorkerSignals()
        self.cancel_flag = CancelFlag()
        self.title = ""
        self.background = False
        self.last_progress: tuple[int, int, str] | None = None
        self.last_event: ProgressEvent | None = None
        self.event_is_latest = False
        """The last report was an event (else a ``(done, total, message)`` report)."""
        self.sink = JobProgress(self)

    def cancel(self) -> None:
        """Ask the job to stop at the next unit boundary."""
        self.cancel_flag.cancel()

    @property
    def cancelling(self) -> bool:
        """True once cancel was asked (the job still finishes its current unit)."""
        return self.cancel_flag.cancelled

    def _progress(self, done: int, total: int, message: str = "") -> None:
        self.last_progress = (int(done), int(total), str(message))
        self.event_is_latest = False
        self.signals.progress.emit(int(done), int(total), str(message))

    @Slot()
    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
            return
        self.signals.finished.emit(result)

    def work(self) -> Any:
        """Do the job (in the pool thread) and return its result."""
        raise NotImplementedError


class LoadJob(Job):
    """Loads files and folders; each file's partial LoadResult is delivered as it finishes."""

    kind = "load"

    def __init__(self, paths: Sequence[str | Path], use_cache: bool = True) -> None:
        super().__init__()
        self.paths = [str(p) for p in paths]
        self.use_cache = use_cache

    def work(self) -> Any:
        from analyzer.loading import ParsedCache, load

        cache = ParsedCache() if self.use_cache else None
        return load(self.paths, progress=self._progress, cancel=self.cancel_flag, cache=cache,
                    on_file=self.signals.partial.emit)


def resolve_analyze() -> AnalyzeFn:
    """The core ``analyze`` function (imported lazily; raises ImportError while it is missing)."""
    from analyzer.pipeline import analyze

    return analyze


_model_lock = threading.Lock()
_judge_run_lock = threading.Lock()
_models: dict[str, Any] = {}


def resolve_judge(choice: str | None) -> Any:
    """Load the judge for a settings value (None: the bundled default); kept for later analyses.

    Raises:
        analyzer.errors.ModelUnavailable: The model is missing or invalid.
        ImportError: The judge backend is not available.
    """
    key = f"judge:{choice or ''}"
    with _model_lock:
        if key not in _models:
            try:
                from analyzer.judge.llama import load_judge
            except ImportError:
                from analyzer.judge import load_judge  # type: ignore[attr-defined,no-redef]
            _models[key] = load_judge(choice)
        return _models[key]


def resolve_embedder() -> Any:
    """The default embedder (loaded once, lazily); None when it is not installed."""
    with _model_lock:
        if "embedder" not in _models:
            try:
                from analyzer.embedding import load_embedder

                _models["embedder"] = load_embedder()
            except Exception:  # missing package or model: lexical signals only
                _models["embedder"] = None
        return _models["embedder"]


class AnalyzeJob(Job):
    """Analyses runs; each run's RunAnalysis is delivered as it finishes.

    Args:
        traces: Traces frame of the runs to analyse.
        steps: Their steps.
        use_judge: Load a judge model (else only the cheap estimator runs).
        judge_choice: Judge model name or ``.gguf`` path (None: bundled default).
        use_embedder: Use the sentence embedder for alignment signals (loaded once, lazily).
        judge_curve: Also compute the judge's value curve of failed runs (what opening a run asks for).
        ranker: The ranker to use (the workspace's adapted one); None: the shipped weights.
    """

    kind = "analyze"

    def __init__(self, traces: pl.DataFrame, steps: pl.DataFrame, use_judge: bool = False,
                 judge_choice: str | None = None, use_embedder: bool = True, judge_curve: bool = False,
                 ranker: Any = None) -> None:
        super().__init__()
        self.ranker = ranker
        self.use_embedder = use_embedder
        self.judge_curve = judge_curve
        self.traces = traces
        self.steps = steps
        self.use_judge = use_judge
        self.judge_choice = judge_choice
        self.analysis_version: str | None = None
        """Version of the results (set in the pool thread before the first run is analysed)."""
        self.known_judge_cues: dict[str, float] = {}
        """Final-state answers the session already holds (not asked again)."""

    def _cancelled_result(self) -> Any:
        from analyzer.analysis.result import AnalysisResult

        return AnalysisResult.from_runs([], cancelled=True)

    def work(self) -> Any:
        from analyzer.errors import ModelUnavailable

        analyze = resolve_analyze()
        judge = None
        if self.use_judge:
            self._progress(0, self.traces.height, QCoreApplication.translate("Workers", "loading the judge model"))
            try:
                judge = resolve_judge(self.judge_choice)
            except (ModelUnavailable, ImportError) as exc:
                self.signals.notice.emit(str(exc))
        embedder = None
        if self.use_embedder:
            self._progress(0, self.traces.height, QCoreApplication.translate("Workers", "loading the embedder"))
            embedder = resolve_embedder()
        from analyzer.analysis.version import current_analysis_version

        self.analysis_version = current_analysis_version(getattr(judge, "model_id", None) if judge is not None else None)
        kwargs: dict[str, Any] = {}
        if self.ranker is not None:
            kwargs["ranker"] = self.ranker
        if self.judge_curve:
            from analyzer.pipeline import AnalyzeOptions

            kwargs["options"] = AnalyzeOptions(judge_curve=True)
        if self.cancel_flag.cancelled:
            return self._cancelled_result()
        if judge is None:
            return analyze(self.traces, self.steps, judge=None, embedder=embedder, progress=self.sink,
                           cancel=self.cancel_flag, on_run=self.signals.partial.emit, **kwargs)
        # one llama.cpp context is not thread-safe: judge jobs take turns, and say so while they wait
        if not _judge_run_lock.acquire(blocking=False):
            self._progress(0, self.traces.height,
                           QCoreApplication.translate("Workers", "waiting for another judge job to finish"))
            while not _judge_run_lock.acquire(timeout=0.2):
                if self.cancel_flag.cancelled:
                    return self._cancelled_result()
        try:
            self._ask_judge_cues(judge)
            if self.cancel_flag.cancelled:
                return self._cancelled_result()
            return analyze(self.traces, self.steps, judge=judge, embedder=embedder, progress=self.sink,
                           cancel=self.cancel_flag, on_run=self.signals.partial.emit, **kwargs)
        finally:
            _judge_run_lock.release()

    def _ask_judge_cues(self, judge: Any) -> None:
        """Ask the judge the final-state question of the runs whose outcome is estimated (holding the judge).

        Only when the shipped params use the judge model (else the answer would not be read);
        the values go to the session through ``judge_cues`` and the estimates follow.
        """
        from analyzer.outcome.estimate import judge_cue_wanted, with_judged_estimates
        from analyzer.outcome.judge_cue import estimated_run_cues

        if self.judge_curve or not judge_cue_wanted() or not hasattr(judge, "p_achieved"):
            return
        self._progress(0, self.traces.height,
                       QCoreApplication.translate("Workers", "asking the judge whether each run achieved its task"))
        values = estimated_run_cues(judge, self.traces, self.steps, self.known_judge_cues,
                                    cancelled=lambda: self.cancel_flag.cancelled)
        if values:
            self.traces = with_judged_estimates(self.traces, self.steps, values)  # the outcome the session will show
            self.signals.judge_cues.emit(values)


class JobRunner(QObject):
    """Starts jobs on the global thread pool and keeps them alive until they finish.

    Signals:
        busyChanged(bool): True while any job runs.
        progress(kind, done, total, message)
        jobsChanged: A job started, finished or was asked to cancel.
        jobUpdated(object): A job reported progress (its ``last_progress``/``last_event`` changed).
    """

    busyChanged = Signal(bool)
    progress = Signal(str, int, int, str)
    jobsChanged = Signal()
    jobUpdated = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool.globalInstance()
        self.jobs: list[Job] = []

    def start(self, job: Job) -> Job:
        """Run a job in the background."""
        self.jobs.append(job)
        job.signals.progress.connect(lambda d, t, m, j=job: self._on_progress(j, d, t, m))
        job.signals.event.connect(lambda _e, j=job: self.jobUpdated.emit(j))
        job.signals.finished.connect(lambda _r, j=job: self._done(j))
        job.signals.failed.connect(lambda _m, _d, j=job: self._done(j))
        if len(self.jobs) == 1:
            self.busyChanged.emit(True)
        self.jobsChanged.emit()
        # a job the user started never waits in the queue behind long background jobs
        # (the pool's default size is the core count, 2 on a small laptop)
        if self.pool.activeThreadCount() >= self.pool.maxThreadCount():
            self.pool.setMaxThreadCount(self.pool.activeThreadCount() + 1)
        self.pool.start(job)
        return job

    def _on_progress(self, job: Job, done: int, total: int, message: str) -> None:
        self.progress.emit(job.kind, done, total, message)
        self.jobUpdated.emit(job)

    def _done(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        self.jobsChanged.emit()
        if not self.jobs:
            self.busyChanged.emit(False)

    def cancel(self, job: Job) -> bool:
        """Ask one job to stop at its next unit boundary; False if it is not running."""
        if job not in self.jobs:
            return False
        job.cancel()
        self.jobsChanged.emit()
        return True

    def running(self, kind: str | None = None) -> list[Job]:
        """Jobs still running (of one kind, or all)."""
        return [j for j in self.jobs if kind is None or j.kind == kind]

    def cancel_all(self) -> int:
        """Ask every running job to stop; returns how many were asked."""
        for j in self.jobs:
            j.cancel()
        if self.jobs:
            self.jobsChanged.emit()
        return len(self.jobs)

    def wait(self, msecs: int = 30000) -> bool:
        """Block until the pool is idle (tests and shutdown)."""
        return bool(self.pool.waitForDone(msecs))


def expected_analysis_version(use_judge: bool, judge_choice: str | None) -> str:
    """The analysis version an analysis with these judge settings would carry.

    The judge model id is read from the model file (a cheap fingerprint, the model is not
    loaded); a judge that cannot be found counts as no judge, as the analysis would run without it.
    """
    from analyzer.analysis.version import current_analysis_version
    from analyzer.errors import ModelUnavailable

    model_id = None
    if use_judge:
        try:
            from analyzer.judge.llama import resolve_model

            model_id = resolve_model(judge_choice)[1]
        except (ModelUnavailable, ImportError, OSError):
            model_id = None
    return current_analysis_version(model_id)
