"""Error types of the core."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class LoadError:
    """A problem with one file or one record, in plain words.

    Attributes:
        file: Path of the file.
        record: Record locator inside the file (``line 12``, ``samples/3.json``) or None.
        importer: Importer id that tried, or None when no importer claimed the file.
        reason: What went wrong, in plain words.
    """

    file: str
    record: str | None
    importer: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for JSON output)."""
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.file}" + (f" [{self.record}]" if self.record else "")
        who = f" ({self.importer})" if self.importer else ""
        return f"{where}{who}: {self.reason}"


class ImportFailure(Exception):
    """Raised by an importer when a whole file (or record) cannot be read.

    Args:
        reason: What went wrong, in plain words.
        record: Record locator, if the failure is about one record.
    """

    def __init__(self, reason: str, record: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.record = record


class PluginError(Exception):
    """A plugin could not be loaded or failed while running."""


class ModelUnavailable(Exception):
    """A model (judge GGUF or embedder) is missing, corrupt, or its backend is not installed."""
