"""A run's steps as the alignment sees them.

Each step gets a class (input, action, decision, observation); an action its tool and its
normalised arguments; every step a text vector. Text and argument vectors are hashed word counts
(CRC-32 of each word, l2-normalised), so the cosine of two steps is their lexical overlap:
deterministic, fast on a corpus, and needing no model.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
import orjson
import polars as pl
from scipy import sparse


class StepClass(IntEnum):
    """What a step is to the alignment (only like classes are matched)."""

    INPUT = 0
    ACTION = 1
    DECISION = 2
    OBSERVATION = 3


_CLASS_OF_KIND = {
    "user": StepClass.INPUT, "system": StepClass.INPUT,
    "action": StepClass.ACTION, "tool_call": StepClass.ACTION,
    "thought": StepClass.DECISION, "message": StepClass.DECISION,
    "observation": StepClass.OBSERVATION,
}

DECISION_CLASSES = (StepClass.ACTION, StepClass.DECISION)
"""Classes of the steps that are decisions of the agent (the divergence is one of them)."""

TEXT_CHARS = 1000
"""Characters of a step's text that are vectorised (the start says what the step is)."""

TEXT_FEATURES = 2 ** 14
ARGS_FEATURES = 2 ** 12
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class EncodedRun:
    """One run's steps as arrays (row ``r`` is the ``r``-th step in order).

    Attributes:
        steps: The step index of each row.
        cls: :class:`StepClass` of each row.
        tool: Tool-name id of each action (-1 for other steps).
        args_id: Id of the normalised arguments of each action (-1 for other steps).
        text: Text vectors (rows l2-normalised; sparse).
        args: Argument vectors (rows l2-normalised; sparse).
    """

    steps: np.ndarray
    cls: np.ndarray
    tool: np.ndarray
    args_id: np.ndarray
    text: sparse.csr_matrix
    args: sparse.csr_matrix

    def __len__(self) -> int:
        return int(self.steps.shape[0])


def _leaves(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            _leaves(value[k], f"{path}.{k}" if path else str(k), out)
    elif isinstance(value, list):
        for v in value:
            _leaves(v, f"{path}[]", out)
    else:
        text = "null" if value is None else _SPACE.sub("_", str(value).strip().casefold())
        out.append(f"{path}={text}")


def normalise_args(raw: str | None) -> str:
    """Arguments as a canonical text: sorted ``path=value`` leaves, values case-folded.

    Two calls with the same arguments in another key order, case or spacing give the same text;
    arguments that are not JSON are compared as their collapsed, case-folded text.
    """
    if raw is None or not raw.strip():
        return ""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _SPACE.sub("_", raw.strip().casefold())
    out: list[str] = []
    _leaves(value, "", out)
    return " ".join(sorted(out))


_WORD = re.compile(r"\w+")


def hashed_vectors(token_lists: list[list[str]], n_features: int) -> sparse.csr_matrix:
    """Rows of hashed token counts (CRC-32 of each token modulo ``n_features``), l2-normalised.

    Deterministic across processes (no salted ``hash``); an empty row stays zero.
    """
    rows: list[int] = []
    cols: list[int] = []
    for r, tokens in enumerate(token_lists):
        for t in tokens:
            rows.append(r)
            cols.append(zlib.crc32(t.encode("utf-8", "surrogatepass")) % n_features)
    data = np.ones(len(rows), dtype=np.float32)
    m = sparse.csr_matrix((data, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                          shape=(len(token_lists), n_features), dtype=np.float32)
    m.sum_duplicates()
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float64).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags((1.0 / norms).astype(np.float32)) @ m)


def _id(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def encode_frame(steps: pl.DataFrame) -> dict[str, EncodedRun]:
    """Encode every run of a steps frame (STEP_COLUMNS), vectorising all texts at once.

    Args:
        steps: Steps of one or more runs.

    Returns:
        Run id -> encoded run, steps in order.
    """
    if steps.height == 0:
        return {}
    df = steps.select("trace_id", "step", "kind", "text", "tool_name", "tool_args").sort(
        "trace_id", "step", maintain_order=True)
    kinds = df["kind"].to_list()
    cls = np.fromiter((_CLASS_OF_KIND.get(str(k), StepClass.DECISION) for k in kinds), dtype=np.int8, count=len(kinds))
    is_action = cls == StepClass.ACTION
    tools = df["tool_name"].to_list()
    raw_args = df["tool_args"].to_list()
    texts = [(t or "")[:TEXT_CHARS] for t in df["text"].to_list()]
    tool = np.full(len(kinds), -1, dtype=np.int64)
    args_id = np.full(len(kinds), -1, dtype=np.int64)
    args_text = [""] * len(kinds)
    for r in np.flatnonzero(is_action):
        name = str(tools[r] or "").strip().casefold()
        tool[r] = _id(name)
        args_text[r] = normalise_args(raw_args[r])
        args_id[r] = _id(args_text[r])
        if not texts[r]:
            texts[r] = name
    text_m = hashed_vectors([_WORD.findall(t.lower()) for t in texts], TEXT_FEATURES)
    args_m = hashed_vectors([a.split() for a in args_text], ARGS_FEATURES)
    ids = df["trace_id"].to_numpy()
    step_idx = df["step"].to_numpy().astype(np.int64)
    bounds = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(ids)]])
    out: dict[str, EncodedRun] = {}
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        out[str(ids[a])] = EncodedRun(step_idx[a:b], cls[a:b], tool[a:b], args_id[a:b], text_m[a:b], args_m[a:b])
    return out


def encode_run(steps: pl.DataFrame) -> EncodedRun:
    """Encode one run's steps (a steps frame holding one run)."""
    runs = encode_frame(steps.with_columns(pl.lit("run").alias("trace_id")))
    return runs.get("run") or EncodedRun(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int64),
                                         np.zeros(0, np.int64), sparse.csr_matrix((0, TEXT_FEATURES), dtype=np.float32),
                                         sparse.csr_matrix((0, ARGS_FEATURES), dtype=np.float32))
