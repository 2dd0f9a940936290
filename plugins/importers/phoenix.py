"""Arize Phoenix span exports with OpenInference attributes (JSONL, JSON and Parquet).

Phoenix's span rows (REST ``GET /v1/projects/{id}/spans``, ``px.Client().get_spans_dataframe()``,
``TraceDataset.save()``) are::

    {"name": "ChatCompletion", "context": {"trace_id": "…", "span_id": "…"},
     "span_kind": "LLM", "parent_id": "…" | null, "start_time": "2025-…+00:00",
     "end_time": "…", "status_code": "OK" | "ERROR" | "UNSET", "status_message": "…",
     "attributes": {"openinference.span.kind": "LLM", "llm.input_messages": […], …},
     "events": [{"name": "exception", "timestamp": "…", "attributes": {"exception.message": …}}]}

* ``.jsonl``/``.ndjson``: one row per line (a bad line costs only itself); ``.json``: a list of
  rows or ``{"data": [...]}`` (the REST response).
* ``.parquet`` (file names with ``spans`` or ``trace_dataset-*``, as Phoenix and analysts name
  them; other Parquet files are not offered to this importer): the spans dataframe, with dotted
  column names (``context.span_id``,
  ``attributes.llm.input_messages``, …); nested values (message lists) are read as lists of
  dicts, times as timestamps. Each row is checked on its own (``row N``).

Attributes may be flat dotted keys or nested dicts; ``llm.input_messages``/
``llm.output_messages`` may be indexed keys or lists. Mapping to steps is that of
:mod:`plugins.importers.otel` (LLM spans -> thought/tool_call/message steps, TOOL and
RETRIEVER spans -> observations with ``is_error`` from ``status_code`` ERROR or an
``exception`` event; the span id is each step's ``native_step_id``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import first_json_char
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Trajectory
from plugins.importers._outline import Outline, outline
from plugins.importers.otel import _Collector, collect_spans, emit_trajectories

MAX_PARQUET_BYTES = 512 * 1024 * 1024
"""Largest Parquet span file read."""

_PARQUET_MAGIC = b"PAR1"


def _phoenix_row(o: Outline, path: str) -> bool:
    keys = o.at(path)
    ctx = f"{path}.context" if path else "context"
    return ("context" in keys and "span_kind" in keys and o.any_of(ctx, "span_id")
            and any(k in keys for k in ("status_code", "parent_id", "attributes")))


def claims(o: Outline) -> bool:
    """True for the outline of a Phoenix span-row file."""
    if o.container in ("lines", "array", "values", "object") and _phoenix_row(o, ""):
        return True
    return o.container == "object" and _phoenix_row(o, "data[]")


def _parquet_columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return list(pq.read_schema(path).names)


def parquet_claims(columns: list[str]) -> bool:
    """True for the columns of a Phoenix spans dataframe."""
    cols = set(columns)
    return "context.span_id" in cols and "context.trace_id" in cols and (
        "span_kind" in cols or "attributes.openinference.span.kind" in cols)


def _plain(value: Any) -> Any:
    """Python value of a Parquet cell: timestamps -> ISO text, NaN -> None, arrays -> lists."""
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    return value


def _rows(batch: Any) -> Iterator[dict[str, Any] | Exception]:
    """The rows of a record batch as dicts; a row Python cannot hold is its exception.

    ``to_pylist`` converts a whole batch at once, and one timestamp outside Python's date range
    (``OverflowError``) would fail the batch's other rows with it: they are then converted one
    by one, so only the bad row is skipped.
    """
    try:
        yield from batch.to_pylist()
        return
    except (OverflowError, ValueError):
        pass
    for i in range(batch.num_rows):
        try:
            yield batch.slice(i, 1).to_pylist()[0]
        except (OverflowError, ValueError) as exc:
            yield exc


def row_from_columns(flat: Mapping[str, Any]) -> dict[str, Any]:
    """One Phoenix span row from dataframe columns (``context.*`` and ``attributes.*`` regrouped)."""
    row: dict[str, Any] = {"context": {}, "attributes": {}}
    for col, value in flat.items():
        v = _plain(value)
        if v is None:
            continue
        if col.startswith("context."):
            row["context"][col[len("context."):]] = v
        elif col.startswith("attributes."):
            row["attributes"][col[len("attributes."):]] = v
        elif col == "attributes" and isinstance(v, Mapping):
            row["attributes"].update(v)
        else:
            row[col] = v
    return row


class PhoenixImporter:
    """Reads Phoenix span exports (JSONL/JSON rows and Parquet dataframes)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims Parquet with ``context.span_id`` columns, or JSON rows with ``span_kind`` + ``context``."""
        if head.startswith(_PARQUET_MAGIC):
            try:
                return parquet_claims(_parquet_columns(path))
            except Exception:
                return False
        if first_json_char(head) not in "{[":
            return False
        return claims(outline(path))

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per trace id."""
        if path.suffix.lower() == ".parquet":
            col = self._collect_parquet(path, ctx)
        else:
            col = collect_spans(path, ctx)
            if not col.traces:
                raise ImportFailure(imsg("no_spans_found"))
        yield from emit_trajectories(col, ctx, "phoenix")

    @staticmethod
    def _collect_parquet(path: Path, ctx: ImportContext) -> _Collector:
        size = path.stat().st_size
        if size > MAX_PARQUET_BYTES:
            raise ImportFailure(imsg("px_over_limit", size=f"{size / 1e6:.0f}", limit=f"{MAX_PARQUET_BYTES / 1e6:.0f}"))
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(path)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise ImportFailure(imsg("px_unreadable", error=str(exc))) from None
        if not parquet_claims(list(pf.schema_arrow.names)):
            raise ImportFailure(imsg("px_no_columns"))
        col = _Collector(ctx)
        n = 0
        try:
            for batch in pf.iter_batches(batch_size=2000):
                for flat in _rows(batch):
                    n += 1
                    where = f"row {n}"
                    if ctx.cancel.cancelled:
                        return col
                    try:
                        if isinstance(flat, Exception):
                            raise flat
                        if not col.add_doc(row_from_columns(flat), where):
                            ctx.error(where, imsg("px_not_span_row"))
                    except (ImportFailure, ValueError, TypeError, OverflowError) as exc:
                        ctx.error(where, wrap("px_row_skipped", (exc.message or exc.reason) if isinstance(exc, ImportFailure)
                                            else str(getattr(exc, "reason", exc))))
        except (pa.ArrowException, OSError, ValueError) as exc:
            ctx.error(f"row {n + 1}", imsg("px_stopped", error=str(exc)))
        if not col.traces:
            raise ImportFailure(imsg("no_spans_found"))
        return col
