"""Readable names for runs: a title and the source file as the runs table shows them.

* ``title``: the first line of the task that reads as words (a line that is only a markup tag,
  such as ``<pr_description>``, is skipped), cut to :data:`TITLE_CHARS`; else the source's own
  id of the run (``native_id``); else the first 12 characters of the run id.
* ``source_name``: the run's file relative to the folder all loaded files share (so the
  trial or instance folder a ``trajectory.json`` sits in stays visible); the file name when
  only one file is loaded.
"""

from __future__ import annotations

import os
import re

import polars as pl

TITLE_CHARS = 100
"""Longest title (longer ones end in an ellipsis)."""

_TAG_ONLY = re.compile(r"^\s*</?[A-Za-z_][\w.-]*(\s[^>]*)?>\s*$")
_WORDY = re.compile(r"\w")


def run_title(task: str | None, native_id: str | None, trace_id: str | None) -> str:
    """The title of one run (rule in the module docstring)."""
    for line in (task or "").splitlines():
        text = " ".join(line.split())
        if text and _WORDY.search(text) and not _TAG_ONLY.match(text):
            return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"
    if native_id:
        return str(native_id)
    return str(trace_id or "")[:12]


def source_names(paths: list[str | None]) -> list[str | None]:
    """Each path relative to the folder all of them share (the file name for a single file)."""
    real = sorted({p for p in paths if p})
    if not real:
        return list(paths)
    if len(real) == 1:
        base = os.path.dirname(real[0])
    else:
        try:
            base = os.path.commonpath(real)
        except ValueError:  # different drives
            base = ""
        if base in real:  # one file is the prefix of all (cannot happen for files; kept safe)
            base = os.path.dirname(base)
    return [os.path.relpath(p, base) if p and base else p for p in paths]


def with_titles(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with ``title`` and ``source_name`` columns (from ``task``, ``native_id``, ``trace_id``, ``source_file``)."""
    if frame.height == 0:
        return frame.with_columns(pl.lit(None, dtype=pl.Utf8).alias("title"),
                                  pl.lit(None, dtype=pl.Utf8).alias("source_name"))
    titles = [run_title(t, n, i) for t, n, i in zip(frame["task"].to_list(), frame["native_id"].to_list(),
                                                    frame["trace_id"].to_list(), strict=True)]
    names = source_names(frame["source_file"].to_list())
    return frame.with_columns(pl.Series("title", titles, dtype=pl.Utf8), pl.Series("source_name", names, dtype=pl.Utf8))
