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

_LOOK_CHARS = 4000  # a title is looked for in the task's head, not its whole (long) text
_TAG_ONLY = re.compile(r"^\s*</?[A-Za-z_][\w.-]*(\s[^>]*)?>\s*$")
_WORDY = re.compile(r"\w")


def run_title(task: str | None, native_id: str | None, trace_id: str | None) -> str:
    """The title of one run (rule in the module docstring)."""
    text = task or ""
    start = 0
    while start < min(len(text), _LOOK_CHARS):
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        line = " ".join(text[start: min(stop, start + 4 * TITLE_CHARS)].split())
        if line and _WORDY.search(line) and not _TAG_ONLY.match(line):
            return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"
        if end < 0:
            break
        start = end + 1
    if native_id:
        return str(native_id)
    return str(trace_id or "")[:12]


def source_names(paths: list[str | None]) -> list[str | None]:
    """Each path relative to the folder all of them share (the file name for a single file)."""
    real = {p for p in paths if p}
    if not real:
        return list(paths)
    folders = {os.path.dirname(p) for p in real}
    try:
        base = os.path.commonpath(list(folders)) if len(folders) > 1 else next(iter(folders))
    except ValueError:  # different drives, or absolute and relative paths mixed
        return list(paths)
    if not base:
        return list(paths)
    prefix = base.rstrip(os.sep) + os.sep
    cut = len(prefix)
    return [p[cut:] if p and p.startswith(prefix) else p for p in paths]


def with_titles(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with ``title`` and ``source_name`` columns (from ``task``, ``native_id``, ``trace_id``, ``source_file``)."""
    if frame.height == 0:
        return frame.with_columns(pl.lit(None, dtype=pl.Utf8).alias("title"),
                                  pl.lit(None, dtype=pl.Utf8).alias("source_name"))
    titles = [run_title(t, n, i) for t, n, i in zip(frame["task"].to_list(), frame["native_id"].to_list(),
                                                    frame["trace_id"].to_list(), strict=True)]
    names = source_names(frame["source_file"].to_list())
    return frame.with_columns(pl.Series("title", titles, dtype=pl.Utf8), pl.Series("source_name", names, dtype=pl.Utf8))
