"""Progress sinks and cancel tokens taken by every long-running core function.

Both are protocols with no-op defaults, so scripts and tests can ignore them while the UI
passes Qt-backed implementations. Cancellation is checked between units of work (one file,
one run, one judge call), never inside one.
"""

from __future__ import annotations

import threading
from typing import Protocol


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
