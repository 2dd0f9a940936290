"""Qt-free session: frames, analysis, filters and the one shared selection.

Views observe the session through plain psygnal signals; ``ui/`` adapters forward them to
Qt on the GUI thread. Models know nothing of views.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl
from psygnal import Signal

from analyzer.analysis.result import AnalysisResult
from analyzer.errors import LoadError
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.loading.loader import LoadResult


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


class Session:
    """Holds what the analyst is looking at. Emits signals on every change."""

    traces_changed = Signal()
    load_errors_changed = Signal()
    analysis_changed = Signal()
    selection_changed = Signal(object)
    filter_changed = Signal()

    def __init__(self) -> None:
        self.traces: pl.DataFrame = empty_frame(TRACE_COLUMNS)
        self.steps: pl.DataFrame = empty_frame(STEP_COLUMNS)
        self.load_errors: list[LoadError] = []
        self.analysis: AnalysisResult = AnalysisResult()
        self.selection = Selection()
        self.filter_text: str = ""

    # -- data --------------------------------------------------------------
    def add_load_result(self, res: LoadResult) -> None:
        """Append what a (partial) load produced; runs already present are skipped."""
        if res.traces.height:
            new = res.traces.filter(~pl.col("trace_id").is_in(self.traces["trace_id"].implode()))
            ids = new["trace_id"].implode()
            self.traces = pl.concat([self.traces, new], how="vertical_relaxed")
            self.steps = pl.concat([self.steps, res.steps.filter(pl.col("trace_id").is_in(ids))],
                                   how="vertical_relaxed")
            self.traces_changed.emit()
        if res.errors:
            self.load_errors.extend(res.errors)
            self.load_errors_changed.emit()

    def clear(self) -> None:
        """Forget every loaded run and analysis."""
        self.__init__()  # type: ignore[misc]
        self.traces_changed.emit()
        self.analysis_changed.emit()

    def merge_analysis(self, result: AnalysisResult) -> None:
        """Merge (partial) analysis results; newer rows replace older ones per run."""
        self.analysis = self.analysis.merge(result)
        self.analysis_changed.emit()

    def run_steps(self, trace_id: str) -> pl.DataFrame:
        """Steps of one run, in order."""
        return self.steps.filter(pl.col("trace_id") == trace_id).sort("step")

    def runs_view(self) -> pl.DataFrame:
        """Traces joined with their analysis row (what the runs table shows)."""
        if self.analysis.runs.height == 0:
            return self.traces
        return self.traces.join(self.analysis.runs, on="trace_id", how="left")

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
            self.selection = new
            self.selection_changed.emit(new)
