"""Background work: loading files and analysing runs in QThreadPool workers.

Workers report progress, deliver partial results (one file's LoadResult, one run's
RunAnalysis) as they appear, and stop at the next unit boundary when cancelled through a
:class:`analyzer.jobs.CancelFlag` (granularity: one file when loading, one run when
analysing). Results are delivered to the GUI thread by Qt's queued signals; nothing here
touches widgets and nothing calls ``processEvents()``.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal, Slot

from analyzer.jobs import CancelFlag

AnalyzeFn = Callable[..., Any]


class WorkerSignals(QObject):
    """Signals of one background job (emitted from the pool thread, received on the GUI thread).

    Signals:
        progress(done, total, message)
        partial(object): a per-file LoadResult or a per-run RunAnalysis.
        notice(str): a non-fatal message (e.g. the judge model is missing, analysis runs without it).
        finished(object): the final result.
        failed(message, details): the job raised; ``details`` is the traceback.
    """

    progress = Signal(int, int, str)
    partial = Signal(object)
    notice = Signal(str)
    finished = Signal(object)
    failed = Signal(str, str)


class Job(QRunnable):
    """A cancellable background job."""

    kind = "job"

    def __init__(self) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = WorkerSignals()
        self.cancel_flag = CancelFlag()

    def cancel(self) -> None:
        """Ask the job to stop at the next unit boundary."""
        self.cancel_flag.cancel()

    def _progress(self, done: int, total: int, message: str = "") -> None:
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
        if judge is None:
            return analyze(self.traces, self.steps, judge=None, embedder=embedder, progress=self._progress,
                           cancel=self.cancel_flag, on_run=self.signals.partial.emit, **kwargs)
        with _judge_run_lock:  # one llama.cpp context is not thread-safe: judge jobs take turns
            return analyze(self.traces, self.steps, judge=judge, embedder=embedder, progress=self._progress,
                           cancel=self.cancel_flag, on_run=self.signals.partial.emit, **kwargs)


class JobRunner(QObject):
    """Starts jobs on the global thread pool and keeps them alive until they finish.

    Signals:
        busyChanged(bool): True while any job runs.
        progress(kind, done, total, message)
    """

    busyChanged = Signal(bool)
    progress = Signal(str, int, int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool.globalInstance()
        self.jobs: list[Job] = []

    def start(self, job: Job) -> Job:
        """Run a job in the background."""
        self.jobs.append(job)
        job.signals.progress.connect(lambda d, t, m, k=job.kind: self.progress.emit(k, d, t, m))
        job.signals.finished.connect(lambda _r, j=job: self._done(j))
        job.signals.failed.connect(lambda _m, _d, j=job: self._done(j))
        if len(self.jobs) == 1:
            self.busyChanged.emit(True)
        self.pool.start(job)
        return job

    def _done(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        if not self.jobs:
            self.busyChanged.emit(False)

    def running(self, kind: str | None = None) -> list[Job]:
        """Jobs still running (of one kind, or all)."""
        return [j for j in self.jobs if kind is None or j.kind == kind]

    def cancel_all(self) -> int:
        """Ask every running job to stop; returns how many were asked."""
        for j in self.jobs:
            j.cancel()
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
