"""Progress sinks and cancel tokens taken by every long-running core function.

Both are protocols with no-op defaults, so scripts and tests can ignore them while the UI
passes Qt-backed implementations. Cancellation is checked between units of work (one file,
one run, one judge call), never inside one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


class Progress(Protocol):
    """Receives progress reports."""

    def __call__(self, done: int, total: int, message: str = "") -> None:
        """Report that ``done`` of ``total`` units are finished."""


class CancelToken(Protocol):
    """Tells long work whether to stop at the next unit boundary."""

    @property
    def cancelled(self) -> bool:
        """True once cancellation was requested."""


def no_progress(done: int, total: int, message: str = "") -> None:
    """A progress sink that ignores everything."""


class NeverCancel:
    """A cancel token that never fires."""

    @property
    def cancelled(self) -> bool:
        """Always False."""
        return False


class CancelFlag:
    """A thread-safe cancel token that can be fired from another thread."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Request cancellation."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._event.is_set()


class Cancelled(Exception):
    """Raised by core functions that stop early because their token fired."""


PHASES = ("run", "judge_candidates", "judge_category", "judge_value_curve", "done")
"""What a :class:`ProgressEvent` can report: a run starts, one judge call, the analysis ends."""


@dataclass(frozen=True)
class ProgressEvent:
    """What an analysis is doing now, in parts a front end can translate and lay out.

    One event is sent when a run starts and one per judge call (for the judge's value curve:
    one per step), so a slow judge never leaves the front end on a stale message.

    Attributes:
        phase: One of :data:`PHASES`.
        run: 0-based index of the current run.
        runs: Runs in this analysis.
        run_label: The run's native id (else its id).
        step: The step the judge reads now (None when the call is not about one step).
        steps: Steps of the current unit (the run's steps; for the value curve, the steps it judges).
        candidates: The steps a candidate-scoring call compares (else empty).
        judge_calls: Judge calls started so far in this analysis (this one included).
        eta_seconds: Estimated seconds left for the whole analysis (None until it can be told).
    """

    phase: str
    run: int
    runs: int
    run_label: str
    step: int | None = None
    steps: int | None = None
    candidates: tuple[int, ...] = ()
    judge_calls: int = 0
    eta_seconds: float | None = None


@runtime_checkable
class EventProgress(Protocol):
    """A :class:`Progress` sink that also takes structured :class:`ProgressEvent` reports.

    Core functions check ``isinstance(progress, EventProgress)`` and send events only to
    sinks that want them; a plain callable keeps receiving ``(done, total, message)``.
    """

    def __call__(self, done: int, total: int, message: str = "") -> None:
        """Report that ``done`` of ``total`` units are finished."""

    def event(self, event: ProgressEvent) -> None:
        """Receive one structured report."""


class EtaClock:
    """Estimates the time left from the fraction of the work done (pure arithmetic, no threads).

    The estimate is ``elapsed * (total - done) / done``; it is None until some work is done
    and some time has passed, so the first unit never shows a made-up figure.

    Args:
        total: Units of work (e.g. runs; fractions of a unit are allowed in :meth:`eta`).
        clock: Monotonic seconds (tests pass a fake clock).
    """

    def __init__(self, total: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = float(total)
        self._clock = clock
        self._start = clock()

    def elapsed(self) -> float:
        """Seconds since the clock was made."""
        return max(0.0, self._clock() - self._start)

    def eta(self, done: float) -> float | None:
        """Seconds left when ``done`` units are finished (None while it cannot be estimated)."""
        spent = self.elapsed()
        if done <= 0 or spent <= 0 or self.total <= 0:
            return None
        left = max(0.0, self.total - min(done, self.total))
        return spent * left / done
