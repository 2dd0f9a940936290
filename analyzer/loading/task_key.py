"""Task identity across runs: ``task_key``, so reruns of one task can be compared.

An importer sets :attr:`analyzer.schema.models.Trajectory.task_key` when its source names the
task (Inspect: ``<task>:<sample id>`` shared by every epoch and model; tau-bench and tau2-bench:
``<family>:<task_id>``; SWE-bench: the ``instance_id``; Harbor: the trial's ``task_name``).
Every other run gets :func:`text_task_key`, a hash of its normalised task text, when the loader
admits it (:func:`fill_task_keys`), so every loaded run has a key.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import polars as pl

TEXT_KEY_PREFIX = "text:"
"""Prefix of a key made from the task text (a source's own id never starts with it)."""

_SPACE = re.compile(r"\s+")


def normalise_task_text(text: str) -> str:
    """The task text as compared across runs: NFKC, case-folded, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def text_task_key(text: str | None) -> str | None:
    """``text:<16 hex>`` of the normalised task text; None for an empty task."""
    norm = normalise_task_text(text or "")
    if not norm:
        return None
    return TEXT_KEY_PREFIX + hashlib.blake2b(norm.encode("utf-8", "replace"), digest_size=8).hexdigest()


_ASCII_SPACE = "[\t\n\x0b\x0c\r\x1c-\x1f ]+"
"""polars pattern of a run of the ASCII characters Python's ``\\s`` (and ``str.strip``) treats as space."""

_NOT_ASCII = "[^\x00-\x7f]"


def text_task_keys(tasks: pl.Series) -> dict[str, str | None]:
    """:func:`text_task_key` of each distinct non-null text of a string series, as a dict.

    ASCII texts (nearly all task texts) are normalised in one vectorised polars pass: NFKC
    leaves ASCII unchanged and case-folding ASCII is lower-casing, so lower-casing, collapsing
    runs of the ASCII characters Python counts as whitespace to one space and trimming spaces
    gives exactly :func:`normalise_task_text`; only the hash is per text. Other texts take
    :func:`text_task_key` itself.

    Args:
        tasks: Task texts (a ``pl.Utf8`` series; nulls and repeats are allowed).

    Returns:
        Text -> key (None for a text that normalises to nothing).
    """
    texts = tasks.drop_nulls().unique()
    is_ascii = ~texts.str.contains(_NOT_ASCII)
    plain = texts.filter(is_ascii)
    norm = plain.str.to_lowercase().str.replace_all(_ASCII_SPACE, " ").str.strip_chars(" ")
    keys: dict[str, str | None] = {
        t: TEXT_KEY_PREFIX + hashlib.blake2b(n.encode("ascii"), digest_size=8).hexdigest() if n else None
        for t, n in zip(plain.to_list(), norm.to_list(), strict=True)
    }
    for t in texts.filter(~is_ascii).to_list():
        keys[t] = text_task_key(t)
    return keys


def source_task_key(family: str | None, task_id: object) -> str | None:
    """A key from a source's own task id, qualified by its task family when there is one."""
    if task_id is None or str(task_id).strip() == "":
        return None
    ident = str(task_id).strip()
    return f"{family}:{ident}" if family else ident


def fill_task_keys(traces: pl.DataFrame) -> pl.DataFrame:
    """The traces frame with every missing ``task_key`` set from the task text.

    Keys an importer set are kept; a run with no key and no task text keeps a null key.
    """
    if traces.height == 0 or "task" not in traces.columns:
        return traces
    if "task_key" not in traces.columns:
        traces = traces.with_columns(pl.lit(None, dtype=pl.Utf8).alias("task_key"))
    missing = pl.col("task_key").is_null() | (pl.col("task_key") == "")
    todo = traces.filter(missing)
    if todo.height == 0:
        return traces
    keys = text_task_keys(todo["task"].cast(pl.Utf8))
    by_text = pl.col("task").replace_strict(keys, default=None, return_dtype=pl.Utf8)
    return traces.with_columns(pl.when(missing).then(by_text).otherwise(pl.col("task_key")).alias("task_key"))
