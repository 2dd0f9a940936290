"""Error types of the core."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analyzer.import_messages import render_en
from analyzer.messages import Message


@dataclass(frozen=True)
class LoadError:
    """A problem with one file or one record, in plain words.

    Attributes:
        file: Path of the file.
        record: Record locator inside the file (``line 12``, ``samples/3.json``) or None.
        importer: Importer id that tried, or None when no importer claimed the file.
        reason: What went wrong, in plain words (English).
        message: The same reason as a message id plus parameters (:mod:`analyzer.reasons`,
            :mod:`analyzer.import_messages`), when the loader or a built-in importer wrote it;
            None for a third-party importer's own words.
    """

    file: str
    record: str | None
    importer: str | None
    reason: str
    message: Message | None = field(default=None, compare=False)

    @classmethod
    def of(cls, file: str, record: str | None, importer: str | None, message: Message) -> LoadError:
        """A problem stated as a load-problem message (its English text becomes ``reason``)."""
        return cls(file, record, importer, render_en(message), message)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for JSON output): file, record, importer, reason."""
        return {"file": self.file, "record": self.record, "importer": self.importer, "reason": self.reason}

    def __str__(self) -> str:
        where = f"{self.file}" + (f" [{self.record}]" if self.record else "")
        who = f" ({self.importer})" if self.importer else ""
        return f"{where}{who}: {self.reason}"


class ImportFailure(Exception):
    """Raised by an importer when a whole file (or record) cannot be read.

    Args:
        reason: What went wrong, in plain words, or as a load-problem or importer message
            (:mod:`analyzer.reasons`, :mod:`analyzer.import_messages`; ``reason`` then holds its
            English text).
        record: Record locator, if the failure is about one record.
    """

    def __init__(self, reason: str | Message, record: str | None = None) -> None:
        message = reason if isinstance(reason, Message) else None
        if message is not None:
            reason = render_en(message)
        assert isinstance(reason, str)
        super().__init__(reason)
        self.reason: str = reason
        self.message = message
        self.record = record


class PluginError(Exception):
    """A plugin could not be loaded or failed while running."""


class ModelUnavailable(Exception):
    """A model (judge GGUF or embedder) is missing, corrupt, or its backend is not installed."""


@dataclass(frozen=True)
class DamagedRecord:
    """Stands in for a record of a JSON list that could not be parsed (see :mod:`analyzer.loading.salvage`).

    The list keeps its length, so every other record keeps its index; an importer that hands
    this to :meth:`analyzer.plugin_host.protocols.ImportContext.guarded` gets the record
    reported (one error, naming the record) instead of converted.

    Attributes:
        message: The problem (``record is damaged JSON at bytes A-B (...)``).
        start: First byte of the damaged record in the file.
        end: Byte after its end (where reading resumed).
    """

    message: Message
    start: int
    end: int
