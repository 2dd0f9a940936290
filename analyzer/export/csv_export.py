"""CSV export that spreadsheets open safely.

Text cells that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be
read as formulas by Excel, LibreOffice and Google Sheets (CSV/formula injection). Such
cells get a leading single quote, which spreadsheets show as text. Only text (Utf8)
columns are touched: numeric columns stay numeric. Files are UTF-8 with a header row.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analyzer.export.files import atomic_write

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_RE = "^[=+\\-@\\t\\r]"


def neutralise(value: str) -> str:
    """Make one text cell inert for spreadsheets (prefix ``'`` when it could be a formula)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def neutralise_frame(df: pl.DataFrame) -> pl.DataFrame:
    """Neutralise every text cell of a frame; other columns are returned unchanged.

    Nested columns (lists, structs) are written as JSON text first, then neutralised.
    """
    exprs: list[pl.Expr] = []
    for name, dtype in df.schema.items():
        col = pl.col(name)
        if dtype.is_nested():
            col = col.map_elements(_json_text, return_dtype=pl.Utf8)
        elif not (dtype == pl.Utf8 or isinstance(dtype, pl.Categorical | pl.Enum)):
            continue
        text = col.cast(pl.Utf8)
        exprs.append(pl.when(text.str.contains(_FORMULA_RE)).then(pl.lit("'") + text).otherwise(text).alias(name))
    return df.with_columns(exprs) if exprs else df


def _json_text(value: object) -> str:
    import orjson

    if isinstance(value, pl.Series):
        value = value.to_list()
    return orjson.dumps(value, default=str).decode()


def write_csv(df: pl.DataFrame, path: str | Path) -> Path:
    """Write a frame as a spreadsheet-safe UTF-8 CSV with a header (atomically).

    Args:
        df: Frame to write.
        path: Destination file.

    Returns:
        The destination path.

    Raises:
        analyzer.export.files.ExportError: If the file cannot be written.
    """
    safe = neutralise_frame(df)
    return atomic_write(path, lambda p: safe.write_csv(p, include_header=True, null_value=""))


def write_parquet(df: pl.DataFrame, path: str | Path) -> Path:
    """Write a frame as Parquet (zstd), atomically. Values are typed, so nothing is neutralised."""
    return atomic_write(path, lambda p: df.write_parquet(p, compression="zstd"))
