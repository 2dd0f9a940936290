"""TrajScope generic JSON/JSONL importer: the documented reference format.

* ``.json``: one canonical trajectory (``Trajectory.model_dump()``), a list of them, or
  ``{"schema_version": ..., "trajectories": [...]}``.
* ``.jsonl``: one canonical trajectory per line (lines with a ``steps`` key).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from analyzer.errors import ImportFailure
from analyzer.loading.jsonio import first_json_char, iter_jsonl, read_json_document
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Trajectory


def _validation_reason(exc: ValidationError) -> str:
    e = exc.errors()[0]
    loc = ".".join(str(x) for x in e["loc"])
    return f"field {loc}: {e['msg']}"


class GenericImporter:
    """Reads the canonical TrajScope format."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims files carrying a ``schema_version`` key plus ``steps``/``trajectories``."""
        if first_json_char(head) not in "{[":
            return False
        return b'"schema_version"' in head and (b'"steps"' in head or b'"trajectories"' in head) and b"ATIF" not in head

    def _one(self, obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
        if not isinstance(obj, dict):
            ctx.error(record, "expected a JSON object for a trajectory")
            return None
        try:
            t = Trajectory.model_validate(obj)
        except ValidationError as exc:
            ctx.error(record, _validation_reason(exc))
            return None
        t.record = record
        return t

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the trajectories of a generic file."""
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            for lineno, obj in iter_jsonl(path, ctx):
                t = self._one(obj, f"line {lineno}", ctx)
                if t is not None:
                    yield t
            return
        doc = read_json_document(path)
        items: list[Any]
        if isinstance(doc, dict) and "trajectories" in doc:
            items = doc["trajectories"] if isinstance(doc["trajectories"], list) else []
        elif isinstance(doc, list):
            items = doc
        elif isinstance(doc, dict):
            t = self._one(doc, "$", ctx)
            if t is not None:
                yield t
            return
        else:
            raise ImportFailure("expected a trajectory object or a list of them")
        for i, obj in enumerate(items):
            t = self._one(obj, f"trajectories[{i}]", ctx)
            if t is not None:
                yield t
