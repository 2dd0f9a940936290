"""Protocols that importer and detector plugins implement."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import polars as pl

from analyzer import reasons
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import render_en
from analyzer.jobs import CancelToken, NeverCancel
from analyzer.messages import Message
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory

T = TypeVar("T")


@dataclass
class ImportContext:
    """What an importer gets besides the path.

    Attributes:
        path: File being read.
        importer_id: Id of the importer reading it.
        errors: Per-record problems reported with :meth:`error`.
        cancel: Cancel token, checked between records.
    """

    path: Path
    importer_id: str
    errors: list[tuple[str | None, str]] = field(default_factory=list)
    cancel: CancelToken = field(default_factory=NeverCancel)

    messages: dict[int, Message] = field(default_factory=dict)

    def error(self, record: str | None, reason: str | Message) -> None:
        """Report a bad record and go on with the next one.

        Args:
            record: Record locator (``line 12``), or None for the whole file.
            reason: Plain words (a third-party importer's own, shown as written), or a message:
                a load-problem message (:mod:`analyzer.reasons`) or an importer message
                (:func:`analyzer.import_messages.imsg`), which the app and ``--lang`` show in
                the analyst's language; ``errors`` holds its English text either way.
        """
        if isinstance(reason, Message):
            self.messages[len(self.errors)] = reason
            reason = render_en(reason)
        self.errors.append((record, reason))

    def message_of(self, index: int) -> Message | None:
        """The message of the ``index``-th reported error, if it was given as one."""
        return self.messages.get(index)

    def guarded(self, record: str, convert: Callable[..., T], *args: Any) -> T | None:
        """Run one record's conversion so that a failure costs that record only.

        ``convert(*args)`` is returned; if it raises, the problem is reported for ``record``
        (``unexpected content (TypeError: ...); record skipped``) and None is returned. An
        :class:`analyzer.errors.ImportFailure` naming a record is reported for that record; one
        naming none is about the whole file and propagates. A
        :class:`analyzer.errors.DamagedRecord` among ``args`` is reported for ``record`` as is.
        """
        for arg in args:
            if isinstance(arg, DamagedRecord):  # a record the JSON salvage could not parse
                self.error(record, arg.message)
                return None
        try:
            return convert(*args)
        except ImportFailure as exc:
            if exc.record is None:
                raise
            self.error(exc.record, exc.message or exc.reason)
        except RecursionError:
            self.error(record, reasons.reason("record_too_deep"))
        except Exception as exc:  # an importer bug or an unforeseen shape: this record only
            text = " ".join(str(exc).split())[:300]
            self.error(record, reasons.reason("record_unexpected", error=f"{type(exc).__name__}: {text}"))
        return None


@runtime_checkable
class Importer(Protocol):
    """Reads one file format into canonical trajectories.

    An importer may additionally define ``read_frames(path, ctx)`` yielding
    ``(traces, steps)`` polars frame pairs with the declared columns; the loader then
    uses it instead of :meth:`read` (the fast path of the generic JSONL importer).

    Optional, for JSON/JSONL formats (claiming by structure, not by a byte window):

    * ``sniff_structure(shape, path) -> bool``: judge the file by its parsed
      :class:`analyzer.loading.structure.JsonShape` (top-level keys, the first record's keys,
      its values' kinds and short string values, the keys of its nested objects/lists).
      When defined it replaces :meth:`sniff` for files that start with ``{`` or ``[``; an
      importer that defines only :meth:`sniff` keeps getting the head bytes.
    * ``near_miss(shape, path) -> (closeness 0-1, reason) | None``: when no importer claims
      a file, the closest one's reason is reported ("looks like Who&When but has no
      `history`"). :class:`analyzer.loading.structure.KeyRule` gives both from key lists.
    """

    def sniff(self, head: bytes, path: Path) -> bool:
        """Return True when the first bytes of the file look like this format.

        Args:
            head: Up to the first 64 KiB of the file (for zip files, the zip head).
            path: The file path (for extension checks).
        """

    def read(self, path: Path, ctx: ImportContext) -> Iterable[Trajectory]:
        """Yield the trajectories of a file, reporting bad records through ``ctx.error``.

        Raise :class:`analyzer.errors.ImportFailure` when the whole file is unreadable.
        Trajectories may leave ``id`` empty; the loader fills it from content.
        """


FrameReader = Callable[[Path, ImportContext], Iterable[tuple[pl.DataFrame, pl.DataFrame]]]


@dataclass
class DetectionContext:
    """Shared inputs for detectors on one run.

    Attributes:
        step_embeddings: Optional per-step embedding vectors (unit-norm), aligned with steps.
        task_embedding: Optional embedding of the task statement.
        settings: Free-form detector settings.
        step_table: The run's table of step signals (:func:`analyzer.signals.steps.step_signals`), when the
            pipeline computed it; None otherwise. Detectors read it through
            :func:`analyzer.signals.steps.table_for`, which computes it when it is missing (a detector
            that ignores it keeps working).
    """

    step_embeddings: Sequence[Sequence[float]] | None = None
    task_embedding: Sequence[float] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    step_table: pl.DataFrame | None = None


class Detector(Protocol):
    """A detector: a callable from a trajectory (and context) to findings."""

    def __call__(self, trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
        """Return findings for one run."""
