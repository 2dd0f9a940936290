"""TrajScope generic JSON/JSONL importer: the documented reference format for plugin authors.

Full description with examples: ``docs/generic_format.md``. In short:

* ``.json``: one canonical trajectory (``Trajectory.model_dump(mode="json")``), a list of
  them, or ``{"schema_version": "1.0", "trajectories": [...]}``.
* ``.jsonl`` / ``.ndjson``, either form (decided by the first line):

  - one canonical trajectory per line (lines with a ``steps`` list), or
  - the flat "one step per line" form: each line is
    ``{"schema_version", "trace_id", "step", "agent", "role", "kind", "text", "tool_name",
    "tool_args", "is_error", ...}`` using the step column names of
    :data:`analyzer.frames.columns.STEP_COLUMNS` (``metadata`` may be an object), plus the
    optional run-level keys ``task, model, outcome, score, framework, task_family,
    final_answer, native_id, outcome_raw, ground_truth, gold_decisive_step,
    gold_decisive_agent, gold_reason, trace_metadata`` on any line of the run (the first
    non-null value in file order wins). ``trace_id`` is the run's id as given (keep it
    unique across files); ``step`` is the 0-based step index. ``schema_version`` must be on
    the first line at least.

Every ``schema_version`` must have the major version this TrajScope reads (``1.x``); any
other gives the error "unsupported schema_version". The flat form is read by polars' NDJSON
reader in blocks of whole lines (see :mod:`plugins.importers.generic_flat`), so a 1 GB file
is never held in memory at once, and each bad line is reported as ``line N``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import ValidationError

from analyzer.errors import ImportFailure
from analyzer.frames.build import steps_frame, traces_frame, trajectories_from_frames
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import (
    LINE_CHUNK_BYTES,
    first_json_char,
    iter_jsonl,
    loads,
    read_json_document,
)
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Trajectory
from plugins.importers.generic_flat import (
    IMPORTER_ID,
    first_record,
    read_flat_frames,
    supported_version,
    version_message,
)

_HEAD_MAX = 65536
_VERSION = re.compile(rb'"schema_version"\s*:\s*"\d+(?:\.\d+)*"')
_STEPS = re.compile(rb'"steps"\s*:\s*\[')
_TRAJECTORIES = re.compile(rb'"trajectories"\s*:\s*\[')
_TRACE_ID = re.compile(rb'"trace_id"\s*:')
_STEP = re.compile(rb'"step"\s*:')
_NUMERIC_VERSION = re.compile(r"^\d+(?:\.\d+)*$")
_BATCH = 2000
_LINES_SUFFIXES = (".jsonl", ".ndjson")


def _validation_reason(exc: ValidationError) -> Message:
    errs = exc.errors()
    e = errs[0]
    loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
    if len(errs) > 1:
        return imsg("generic_invalid_more", field=loc, error=str(e["msg"]), more=len(errs) - 1)
    return imsg("generic_invalid", field=loc, error=str(e["msg"]))


def _claims_record(obj: Any) -> bool:
    """True for a parsed first record of either JSONL form (any numeric schema version)."""
    if not isinstance(obj, dict):
        return False
    version = obj.get("schema_version")
    if not isinstance(version, str) or not _NUMERIC_VERSION.match(version):
        return False
    return isinstance(obj.get("steps"), list) or ("trace_id" in obj and "step" in obj)


def _is_flat(obj: Any) -> bool:
    return isinstance(obj, dict) and "trace_id" in obj and "steps" not in obj


class GenericImporter:
    """Reads the canonical TrajScope format (whole documents, per-line trajectories, flat steps).

    Args:
        chunk_bytes: Size of the blocks of lines handed to polars for the flat form.
        whole_file: Offer a flat file to polars in one streaming scan first (the fast path);
            False always reads it block by block.
    """

    def __init__(self, chunk_bytes: int = LINE_CHUNK_BYTES, whole_file: bool = True) -> None:
        self.chunk_bytes = chunk_bytes
        self.whole_file = whole_file

    # ---- claiming ------------------------------------------------------------------------
    def sniff(self, head: bytes, path: Path) -> bool:
        """Claim generic files: a numeric ``schema_version`` plus ``steps``/``trajectories``/flat keys."""
        if first_json_char(head) not in ("{", "["):
            return False
        if path.suffix.lower() in _LINES_SUFFIXES:
            text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
            nl = text.find(b"\n")
            line = text[:nl] if nl >= 0 else text if len(head) < _HEAD_MAX else None
            if line is not None:
                try:
                    return _claims_record(loads(line, "line"))
                except ImportFailure:
                    pass  # a cut first line: judge from its bytes
            line = line if line is not None else text
            return bool(_VERSION.search(line)) and (
                bool(_STEPS.search(line)) or (bool(_TRACE_ID.search(line)) and bool(_STEP.search(line)))
            )
        return bool(_VERSION.search(head)) and bool(_STEPS.search(head) or _TRAJECTORIES.search(head))

    # ---- reading -------------------------------------------------------------------------
    def _flat_form(self, path: Path) -> bool:
        """True for a flat JSONL file; raises when its first line has an unsupported version."""
        if path.suffix.lower() not in _LINES_SUFFIXES:
            return False
        first = first_record(path)
        if first is None or not _is_flat(first[1]):
            return False
        version = first[1].get("schema_version")
        if version is not None and not supported_version(version):
            raise ImportFailure(version_message(version), record=f"line {first[0]}")
        return True

    def read_frames(self, path: Path, ctx: ImportContext) -> Iterator[tuple[pl.DataFrame, pl.DataFrame]]:
        """Fast path: yield ``(traces, steps)`` frame pairs with the declared columns."""
        if self._flat_form(path):
            yield from read_flat_frames(path, ctx, self.chunk_bytes, self.whole_file)
            return
        batch: list[Trajectory] = []
        for t in self._read_objects(path, ctx):
            batch.append(t)
            if len(batch) >= _BATCH:
                yield traces_frame(batch), steps_frame(batch)
                batch = []
        if batch:
            yield traces_frame(batch), steps_frame(batch)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the trajectories of a generic file (any form)."""
        if self._flat_form(path):
            for traces, steps in read_flat_frames(path, ctx, self.chunk_bytes, self.whole_file):
                yield from trajectories_from_frames(traces, steps)
            return
        yield from self._read_objects(path, ctx)

    def _read_objects(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        if path.suffix.lower() in _LINES_SUFFIXES:
            for lineno, obj in iter_jsonl(path, ctx):
                t = ctx.guarded(f"line {lineno}", self._one, obj, f"line {lineno}", ctx)
                if t is not None:
                    yield t
            return
        doc = read_json_document(path, records=("", "trajectories"))
        if isinstance(doc, dict) and "trajectories" in doc:
            version = doc.get("schema_version")
            if version is not None and not supported_version(version):
                raise ImportFailure(version_message(version))
            items = doc["trajectories"]
            if not isinstance(items, list):
                raise ImportFailure(imsg("generic_not_list"))
        elif isinstance(doc, list):
            items = doc
        elif isinstance(doc, dict):
            version = doc.get("schema_version")
            if version is not None and not supported_version(version):
                raise ImportFailure(version_message(version))
            t = ctx.guarded("$", self._one, doc, "$", ctx)
            if t is not None:
                yield t
            return
        else:
            raise ImportFailure(imsg("generic_shape"))
        for i, obj in enumerate(items):
            if ctx.cancel.cancelled:
                return
            t = ctx.guarded(f"trajectories[{i}]", self._one, obj, f"trajectories[{i}]", ctx)
            if t is not None:
                yield t

    @staticmethod
    def _one(obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
        if not isinstance(obj, dict):
            ctx.error(record, imsg("generic_not_object", type=type(obj).__name__))
            return None
        version = obj.get("schema_version")
        if version is not None and not supported_version(version):
            ctx.error(record, version_message(version))
            return None
        try:
            t = Trajectory.model_validate(obj)
        except ValidationError as exc:
            ctx.error(record, _validation_reason(exc))
            return None
        t.record = record
        t.source_format = t.source_format or IMPORTER_ID
        return t.with_id()
