"""The flat "one step per line" form of the generic format, read with polars' NDJSON reader.

Each line is one step: ``{"schema_version", "trace_id", "step", "agent", "role", "kind",
"text", "tool_name", "tool_args", "is_error", ...}`` (any name of
:data:`analyzer.frames.columns.STEP_COLUMNS`, plus ``metadata`` as an object), with the
run-level keys (:data:`TRACE_KEYS` and ``trace_metadata``) allowed on any line of the run;
for each of them the first non-null value in file order wins. See ``docs/generic_format.md``.

Two paths give the same frames (a property test checks it):

* fast (:func:`read_whole`, then :meth:`FlatReader.whole`): one polars streaming scan of the whole
  file with a fixed schema, accepted only when it is clean (every line parsed and valid, one row
  per line), then the frames in one ``collect_all`` over it;
* blocks (:func:`parse_chunk`): blocks of whole lines (:func:`analyzer.loading.jsonio.iter_line_chunks`),
  each parsed by ``polars.read_ndjson``; a block that polars rejects, or that holds an invalid
  line, is parsed again line by line so every bad line becomes a ``line N`` error and the good
  lines still load. Runs that span blocks are merged by :class:`FlatReader`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer import guard
from analyzer.errors import ImportFailure
from analyzer.frames.build import empty_frame
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.import_messages import imsg, render_en
from analyzer.loading.jsonio import (
    LINE_CHUNK_BYTES,
    finite_float,
    iter_line_chunks,
    line_stats,
    loads,
    parse_json,
)
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import SCHEMA_VERSION, Outcome, Role, StepKind

IMPORTER_ID = "generic"

_MAJOR = SCHEMA_VERSION.split(".", 1)[0]
_VERSION_RE = re.compile(rf"^{_MAJOR}(\.\d+)*$")

ROLES = tuple(str(r) for r in Role)
KINDS = tuple(str(k) for k in StepKind)
OUTCOMES = tuple(str(o) for o in Outcome)

TRACE_KEYS = (
    "native_id", "task", "model", "framework", "task_family", "task_key", "outcome", "outcome_raw",
    "outcome_source", "score",
    "final_answer", "ground_truth", "gold_decisive_step", "gold_decisive_agent", "gold_reason",
)
"""Run-level keys a flat line may carry (first non-null value per run wins)."""

_TRACE_TYPES = {c.name: c.dtype for c in TRACE_COLUMNS}
LINE_SCHEMA: dict[str, Any] = {
    **{c.name: c.dtype for c in STEP_COLUMNS},
    **{k: _TRACE_TYPES[k] for k in TRACE_KEYS},
    "metadata": pl.Utf8,
    "trace_metadata": pl.Utf8,
    "schema_version": pl.Utf8,
}
"""polars schema of one flat line (objects in string columns arrive as JSON text)."""

_RUN_FIELDS = (*TRACE_KEYS, "trace_metadata", "schema_version")
_LINE = "_line"


def supported_version(value: object) -> bool:
    """True for a schema version this TrajScope reads (same major version)."""
    return isinstance(value, str) and bool(_VERSION_RE.match(value))


def version_message(value: object) -> Message:
    """The reason for an unsupported ``schema_version``, as an importer message."""
    shown = repr(value)[:60] if isinstance(value, (str, int, float, bool)) or value is None else _short(value)
    return imsg("version_unsupported", version=shown, major=_MAJOR)


def version_error(value: object) -> str:
    """Plain-words reason for an unsupported ``schema_version`` (English text of :func:`version_message`)."""
    return render_en(version_message(value))


# ---- per-line checks (the reference semantics; the vectorised path mirrors them) ----------

def _coerce(name: str, value: Any, dtype: Any) -> Any:
    if value is None:
        return None
    if dtype == pl.Utf8:
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        try:  # the same text polars writes for nested values
            return json.dumps(value, ensure_ascii=False)
        except RecursionError:
            return json.dumps(guard.cut_nesting(value), ensure_ascii=False)
    if dtype == pl.Int64:
        if isinstance(value, int) and not isinstance(value, bool):
            if not _INT64_MIN <= value <= _INT64_MAX:
                raise ImportFailure(imsg("field_int_range", field=name, value=_short(value)))
            return value
        raise ImportFailure(imsg("field_not_int", field=name, type=type(value).__name__, value=_short(value)))
    if dtype == pl.Float64:
        if isinstance(value, int | float) and not isinstance(value, bool):
            got = finite_float(value)
            if got is not None:
                return got
        raise ImportFailure(imsg("field_not_number", field=name, type=type(value).__name__, value=_short(value)))
    if dtype == pl.Boolean:
        if isinstance(value, bool):
            return value
        raise ImportFailure(imsg("field_not_bool", field=name, type=type(value).__name__, value=_short(value)))
    return value  # pragma: no cover - every declared dtype is handled above


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else guard.dumps(value)
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


def check_line(obj: Any) -> dict[str, Any]:
    """Validate one parsed flat line and return its row (LINE_SCHEMA keys).

    Raises:
        ImportFailure: With a plain-words reason when the line is not a valid step.
    """
    if not isinstance(obj, dict):
        raise ImportFailure(imsg("flat_not_object", type=type(obj).__name__))
    row = {name: _coerce(name, obj.get(name), dtype) for name, dtype in LINE_SCHEMA.items()}
    if not row["trace_id"]:
        raise ImportFailure(imsg("flat_no_trace_id"))
    if row["step"] is None:
        raise ImportFailure(imsg("flat_no_step"))
    if row["step"] < 0:
        raise ImportFailure(imsg("flat_negative_step", value=str(row['step'])))
    for name, allowed in (("role", ROLES), ("kind", KINDS)):
        if row[name] is not None and row[name] not in allowed:
            raise ImportFailure(imsg("field_not_one_of", field=name, value=repr(row[name]), allowed=', '.join(allowed)))
    if row["outcome"] is not None and row["outcome"].lower() not in OUTCOMES:
        raise ImportFailure(imsg("field_not_one_of", field="outcome", value=repr(row['outcome']),
                                 allowed=', '.join(OUTCOMES)))
    if row["schema_version"] is not None and not supported_version(row["schema_version"]):
        raise ImportFailure(version_message(row["schema_version"]))
    return row


def _invalid_rows() -> pl.Expr:
    """Expression true for rows that :func:`check_line` would reject."""
    c = pl.col
    return (
        c("trace_id").is_null() | (c("trace_id") == "")
        | c("step").is_null() | (c("step") < 0)
        | (c("role").is_not_null() & ~c("role").is_in(ROLES))
        | (c("kind").is_not_null() & ~c("kind").is_in(KINDS))
        | (c("outcome").is_not_null() & ~c("outcome").str.to_lowercase().is_in(OUTCOMES))
        | (c("schema_version").is_not_null() & ~c("schema_version").str.contains(_VERSION_RE.pattern))
    )


_FRAME_SCHEMA = {**LINE_SCHEMA, _LINE: pl.Int64}


def _parse_by_line(chunk: bytes, first_line: int, ctx: ImportContext) -> pl.DataFrame:
    rows = []
    for i, line in enumerate(chunk.split(b"\n")):
        if not line.strip():
            continue
        record = f"line {first_line + i}"
        try:
            row = check_line(parse_json(line, "line"))
        except ImportFailure as exc:
            ctx.error(record, exc.message or exc.reason)
            continue
        row[_LINE] = first_line + i
        rows.append(row)
    return pl.from_dicts(rows, schema=_FRAME_SCHEMA) if rows else pl.DataFrame(schema=_FRAME_SCHEMA)


def _line_numbers(chunk: bytes, first_line: int, n_lines: int, n_rows: int) -> pl.Series | None:
    """Line number of each row polars read (it skips blank lines), or None if they disagree."""
    if not chunk.endswith(b"\n"):
        n_lines += 1
    if n_rows == n_lines:
        nums = pl.int_range(first_line, first_line + n_rows, eager=True)
    else:
        nums = pl.Series([first_line + i for i, ln in enumerate(chunk.split(b"\n")) if ln.strip()],
                         dtype=pl.Int64)
    return nums.alias(_LINE).cast(pl.Int64) if nums.len() == n_rows else None


def parse_chunk(chunk: bytes, first_line: int, n_lines: int, ctx: ImportContext) -> pl.DataFrame:
    """Parse one block of whole lines into a raw line frame (LINE_SCHEMA + ``_line``).

    The fast path is one ``polars.read_ndjson`` call; if polars fails or any row is invalid,
    the block is parsed line by line so each bad line is reported and the rest kept.
    """
    try:
        df = pl.read_ndjson(io.BytesIO(chunk), schema=LINE_SCHEMA)
        nums = _line_numbers(chunk, first_line, n_lines, df.height)
        if nums is not None and not df.select(_invalid_rows().any()).item():
            return df.with_columns(nums)
    except Exception:  # polars rejects the whole block; find the bad lines one by one
        pass
    return _parse_by_line(chunk, first_line, ctx)


def _null_if_empty_json(col: str) -> pl.Expr:
    """JSON object text, with null for ``{}``, ``null`` and other too-short-to-hold-a-key values."""
    c = pl.col(col)
    return pl.when(c.str.len_bytes() > 5).then(c)


def _steps_part(df: pl.DataFrame) -> pl.DataFrame:
    return _steps_query(df.lazy()).collect()


def _steps_query(lf: pl.LazyFrame) -> pl.LazyFrame:
    """The steps columns (declared defaults filled) and ``_line`` of a raw line frame."""
    role = pl.col("role").fill_null(str(Role.ASSISTANT))
    meta = pl.coalesce(_null_if_empty_json("metadata"), _null_if_empty_json("metadata_json"))
    return lf.select(
        *[
            (pl.coalesce(pl.col("agent"), role) if c.name == "agent"
             else role if c.name == "role"
             else pl.col("kind").fill_null(str(StepKind.MESSAGE)) if c.name == "kind"
             else pl.col("text").fill_null("") if c.name == "text"
             else pl.col("is_error").fill_null(False) if c.name == "is_error"
             else meta if c.name == "metadata_json"
             else pl.col(c.name)).alias(c.name)
            for c in STEP_COLUMNS
        ],
        pl.col(_LINE),
    )


def _runs_part(df: pl.DataFrame) -> pl.DataFrame:
    return _runs_query(df.lazy()).collect()


def _runs_query(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Per run: its first line and the first non-null value of each run-level key.

    Only rows that start a block of a run or carry a run-level key can matter, so the
    grouping runs over those few rows.
    """
    starts = (pl.col("trace_id") != pl.col("trace_id").shift(1)).fill_null(True)
    carries = pl.any_horizontal([pl.col(k).is_not_null() for k in (*TRACE_KEYS, "trace_metadata")])
    return lf.filter(starts | carries).group_by("trace_id", maintain_order=True).agg(
        pl.col(_LINE).min(), *[pl.col(k).drop_nulls().first() for k in _RUN_FIELDS]
    )


_SAME_RUN = pl.col("trace_id") == pl.col("trace_id").shift(1)
_IN_ORDER = pl.when(_SAME_RUN).then(pl.col("step") == pl.col("step").shift(1) + 1).otherwise(pl.col("step") == 0)
"""Per row: the step follows the previous row's step of its run (or is 0 where a run starts)."""
_RUN_STARTS = (~_SAME_RUN.fill_null(False)).sum()
"""Number of places where a run starts (more than the runs when a run is split)."""


def _step_stats_query(steps: pl.LazyFrame) -> pl.LazyFrame:
    """Per run: number of steps, of error steps, and the token total (before the null-if-0 rule)."""
    tokens = pl.col("tokens_in").fill_null(0) + pl.col("tokens_out").fill_null(0)
    return steps.group_by("trace_id").agg(
        pl.len().cast(pl.Int64).alias("n_steps"),
        pl.col("is_error").sum().cast(pl.Int64).alias("n_errors"),
        tokens.sum().cast(pl.Int64).alias("tokens_total"),
    )


def _without_line(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` without its ``_line`` column (the same columns, not copied)."""
    return pl.DataFrame([s for s in df.get_columns() if s.name != _LINE])


class FlatReader:
    """Accumulates the blocks of one flat file and builds its traces and steps frames."""

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self._steps: list[pl.DataFrame] = []
        self._runs: list[pl.DataFrame] = []

    def add(self, raw: pl.DataFrame) -> None:
        """Add one parsed block (output of :func:`parse_chunk`)."""
        if raw.height:
            self._steps.append(_steps_part(raw))
            self._runs.append(_runs_part(raw))

    def whole(self, raw: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
        """The traces and steps frames of a whole file's raw line frame, or None if a row is invalid.

        What :meth:`add` then :meth:`frames` give for one block (the same queries), in one
        polars ``collect_all``: the validity check, the steps, the runs, the order check and
        the per-run statistics share one pass over the raw frame, where the block path pays
        for each on its own. A file whose runs are split or misnumbered takes the block
        path's :meth:`_order_steps` after it.

        Args:
            raw: The whole file as parsed by :func:`read_whole` (``_line`` included).
        """
        if raw.height == 0:
            return empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS)
        lf = raw.lazy()
        steps_q = _steps_query(lf)
        check, steps, runs, stats = pl.collect_all([
            lf.select(_invalid_rows().any().alias("bad"), _IN_ORDER.all().alias("in_order"),
                      _RUN_STARTS.alias("starts")),
            steps_q,
            _runs_query(lf).with_row_index("_order"),
            _step_stats_query(steps_q),
        ])
        bad, in_order, starts = check.row(0)
        if bad:
            return None
        if not (in_order and starts == runs.height):
            steps = self._order_steps(steps, runs)
            return self._traces(runs, steps), _without_line(steps)
        return self._traces(runs, steps, stats), _without_line(steps)

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The traces and steps frames (declared columns) of everything added."""
        if not self._steps:
            return empty_frame(TRACE_COLUMNS), empty_frame(STEP_COLUMNS)
        runs = pl.concat(self._runs).group_by("trace_id", maintain_order=True).agg(
            pl.col(_LINE).min(), *[pl.col(k).drop_nulls().first() for k in _RUN_FIELDS]
        ).with_row_index("_order")
        steps = self._order_steps(pl.concat(self._steps), runs)
        return self._traces(runs, steps), steps.drop(_LINE)

    def _order_steps(self, steps: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
        """Sort steps by run then step; drop repeated steps; renumber runs with gaps."""
        clean = steps.select(_IN_ORDER.all(), _RUN_STARTS).row(0)
        if clean[0] and clean[1] == runs.height:  # every run contiguous and numbered 0..n-1
            return steps
        steps = steps.join(runs.select("trace_id", "_order"), on="trace_id", how="left")
        steps = steps.sort(["_order", "step", _LINE], maintain_order=True)
        first = pl.struct("trace_id", "step").is_first_distinct()
        for tid, step, line in steps.filter(~first).select("trace_id", "step", _LINE).iter_rows():
            self.ctx.error(f"line {line}", imsg("flat_step_repeated", step_no=str(step), run=repr(tid)))
        steps = steps.filter(first)
        stats = steps.group_by("trace_id", maintain_order=True).agg(  # errors in run order
            pl.len().alias("_n"), pl.col("step").max().alias("_max"))
        gappy = stats.filter(pl.col("_max") != pl.col("_n") - 1)
        if gappy.height:
            for tid, n, mx in gappy.select("trace_id", "_n", "_max").iter_rows():
                self.ctx.error(f"run {tid}", imsg("flat_step_gaps", last=str(n - 1), largest=str(mx)))
            bad = pl.col("trace_id").is_in(gappy["trace_id"].to_list())
            steps = steps.with_columns(
                pl.when(bad).then(pl.int_range(pl.len()).over("trace_id")).otherwise(pl.col("step")).alias("step")
            )
        return steps.drop("_order")

    @staticmethod
    def _traces(runs: pl.DataFrame, steps: pl.DataFrame, stats: pl.DataFrame | None = None) -> pl.DataFrame:
        """The traces frame from the runs and their (ordered) steps, or their per-run ``stats``."""
        if stats is None:
            stats = _step_stats_query(steps.lazy()).collect()
        runs = runs.join(stats, on="trace_id", how="left").sort("_order")
        exprs = {
            "native_id": pl.coalesce(pl.col("native_id"), pl.col("trace_id")),
            "source_file": pl.lit(""),
            "source_format": pl.lit(IMPORTER_ID),
            "record": pl.format("line {}", pl.col(_LINE)),
            "task": pl.col("task").fill_null(""),
            "outcome": pl.col("outcome").str.to_lowercase().fill_null(str(Outcome.UNKNOWN)),
            "tokens_total": pl.when(pl.col("tokens_total") > 0).then(pl.col("tokens_total")),
            "metadata_json": _null_if_empty_json("trace_metadata"),
            "schema_version": pl.col("schema_version").fill_null(SCHEMA_VERSION),
        }
        return runs.select([exprs.get(c.name, pl.col(c.name)).cast(c.dtype).alias(c.name) for c in TRACE_COLUMNS])


def _head_keys(path: Path, max_bytes: int = 1 << 20) -> set[str]:
    """The keys of the objects on the whole lines of the file's first ``max_bytes`` (a sample)."""
    with path.open("rb") as fh:
        head = fh.read(max_bytes)
    keys: set[str] = set()
    for line in head.split(b"\n")[:-1]:  # the last piece may be a cut line
        if not line.strip():
            continue
        try:  # orjson first: the keys are all this needs (any line it refuses gets the full reader)
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            try:
                obj = loads(line, "line")
            except ImportFailure:
                continue
        if isinstance(obj, dict):
            keys.update(obj)
    return keys


def _scan(path: Path) -> pl.DataFrame:
    """The whole file parsed with :data:`LINE_SCHEMA` (raises what polars raises).

    polars pays for every schema column on every line, present or not, so the columns that no
    line of the file's head uses are first read as ``pl.Null``, which costs nothing; polars
    raises on any non-null value in such a column, and the file is then read again with the
    full schema. So the frame is always the full-schema frame, usually at the cost of the
    columns the file has.
    """
    head = _head_keys(path)
    absent = [k for k in LINE_SCHEMA if k not in head]
    if absent:
        narrow = {k: (pl.Null if k in absent else v) for k, v in LINE_SCHEMA.items()}
        try:
            df = pl.scan_ndjson(path, schema=narrow).collect(engine="streaming")
        except Exception:  # a column the head does not use has a value further down
            pass
        else:
            return df.with_columns([pl.col(k).cast(LINE_SCHEMA[k]) for k in absent])
    return pl.scan_ndjson(path, schema=LINE_SCHEMA).collect(engine="streaming")


def read_whole(path: Path, ctx: ImportContext) -> pl.DataFrame | None:
    """Fast path: the whole file in one polars streaming scan, or None to read it in blocks.

    Used when the file has no byte-order mark, no line over the size cap, and polars reads it
    into exactly one row per line; any doubt (a parse error, blank lines that would shift line
    numbers) returns None so the exact block-by-block path decides. Whether every row is
    valid is checked by :meth:`FlatReader.whole` in the same pass that builds the frames
    (an invalid row sends the file to the block path too).
    The raw text is never copied into memory: polars maps the file and streams it.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:  # count lines while polars parses
        stats_job = pool.submit(line_stats, path)
        try:
            df = _scan(path)
        except Exception:
            df = None
        stats = stats_job.result()
    if df is None or ctx.cancel.cancelled or stats.bom or stats.longest_bound > guard.limits().max_line_bytes:
        return None
    if df.height != stats.n_lines:
        return None
    return df.with_columns(pl.int_range(1, df.height + 1, dtype=pl.Int64).alias(_LINE))


def read_flat_frames(path: Path, ctx: ImportContext, chunk_bytes: int = LINE_CHUNK_BYTES,
                     whole_file: bool = True) -> Iterator[tuple[pl.DataFrame, pl.DataFrame]]:
    """Read a flat generic JSONL file into one ``(traces, steps)`` frame pair, streaming.

    The whole file is first offered to polars in one streaming scan (:func:`read_whole`);
    if that is not clean, it is read in blocks of whole lines, each parsed by polars and,
    when a block fails, line by line so every bad line is reported as ``line N``.

    Args:
        path: The file.
        ctx: Import context (per-line errors, cancel token).
        chunk_bytes: Size of the blocks of lines given to polars on the block path.
        whole_file: Try the one-scan fast path first (tests turn it off to exercise blocks).

    Yields:
        One ``(traces, steps)`` pair with the declared columns (runs may span blocks, so the
        pair is built once the whole file is read).
    """
    reader = FlatReader(ctx)
    whole = read_whole(path, ctx) if whole_file else None
    frames = reader.whole(whole) if whole is not None else None
    if frames is None:
        for first_line, n_lines, chunk in iter_line_chunks(path, ctx, chunk_bytes):
            reader.add(parse_chunk(chunk, first_line, n_lines, ctx))
        frames = reader.frames()
    yield frames


def first_record(path: Path, max_bytes: int = 1 << 20, max_lines: int = 100) -> tuple[int, Any] | None:
    """``(line_number, value)`` of the first non-blank line that parses to an object, or None.

    Lines longer than ``max_bytes`` or that do not parse are passed over (without holding
    them); at most ``max_lines`` lines are looked at.
    """
    with path.open("rb") as fh:
        lineno = 0
        while lineno < max_lines:
            line = fh.readline(max_bytes + 1)
            if not line:
                return None
            lineno += 1
            if len(line) > max_bytes and not line.endswith(b"\n"):
                while (more := fh.readline(max_bytes)) and not more.endswith(b"\n"):
                    pass
                continue
            if not line.strip():
                continue
            try:
                value = loads(line, "line")
            except ImportFailure:
                continue
            if isinstance(value, dict):  # a null or list line is that line's error, not the file's form
                return lineno, value
    return None
