"""What the contrast view shows, without Qt: a failed run against each success of its task.

:func:`run_contrast` aligns the failed run with every success of its task (nearest first) and
:func:`aligned_rows` turns one alignment into display rows: each row holds the failed run's
step, the success's step, or both, and a status (a decision that matched well, a difference, the
divergence, or context: inputs and observations).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import polars as pl

from analyzer.contrast.corpus import PairResult, contrast_pair
from analyzer.contrast.divergence import good_positions
from analyzer.contrast.encode import DECISION_CLASSES, EncodedRun, encode_frame
from analyzer.contrast.params import ContrastParams, load_params


class RowStatus(StrEnum):
    """How an aligned row is drawn."""

    SAME = "same"
    DIFFERENT = "different"
    DIVERGENCE = "divergence"
    CONTEXT = "context"


@dataclass(frozen=True)
class AlignedRow:
    """One row of the side-by-side view.

    Attributes:
        failed_step: Step of the failed run (None: the success's step has no counterpart).
        success_step: Step of the success (None: the failed run's step has no counterpart).
        status: How the row is drawn.
        cost: Cost of the row on the alignment.
    """

    failed_step: int | None
    success_step: int | None
    status: RowStatus
    cost: float


@dataclass(frozen=True)
class SuccessContrast:
    """The failed run against one success."""

    success_id: str
    pair: PairResult
    encoded: EncodedRun


@dataclass(frozen=True)
class RunContrast:
    """A failed run against every success of its task, nearest (lowest cost) first."""

    failed_id: str
    task_key: str
    failed: EncodedRun
    successes: list[SuccessContrast]


def successes_of(traces: pl.DataFrame, trace_id: str) -> tuple[str | None, list[str]]:
    """The task key of a run and the successful runs of that task (other than the run)."""
    row = traces.filter(pl.col("trace_id") == trace_id).select("task_key")
    if row.height == 0 or row["task_key"][0] is None:
        return None, []
    key = str(row["task_key"][0])
    won = traces.filter((pl.col("task_key") == key) & (pl.col("outcome") == "success")
                        & (pl.col("trace_id") != trace_id))["trace_id"].to_list()
    return key, [str(t) for t in won]


def run_contrast(traces: pl.DataFrame, steps_of: Callable[[Sequence[str]], pl.DataFrame], trace_id: str,
                 params: ContrastParams | None = None) -> RunContrast | None:
    """The failed run ``trace_id`` against every success of its task (None without any).

    Args:
        traces: Traces frame.
        steps_of: Returns the steps (STEP_COLUMNS) of the given runs.
        trace_id: The failed run.
        params: Costs and thresholds (default: the shipped params).
    """
    params = params or load_params()
    key, won = successes_of(traces, trace_id)
    if key is None or not won:
        return None
    enc = encode_frame(steps_of([trace_id, *won]))
    failed = enc.get(trace_id)
    if failed is None or not len(failed):
        return None
    out = [SuccessContrast(s, contrast_pair(failed, enc[s], params), enc[s]) for s in won if s in enc and len(enc[s])]
    out.sort(key=lambda c: c.pair.alignment.total)
    return RunContrast(trace_id, key, failed, out)


def aligned_rows(failed: EncodedRun, success: EncodedRun, pair: PairResult,
                 params: ContrastParams | None = None) -> list[AlignedRow]:
    """Display rows of one alignment (see :class:`RowStatus`)."""
    params = params or load_params()
    al, div = pair.alignment, pair.divergence
    good = good_positions(al, failed, success, params)
    rows: list[AlignedRow] = []
    for k, (x, y, c) in enumerate(zip(al.a.tolist(), al.b.tolist(), al.cost.tolist(), strict=True)):
        cls = int(failed.cls[x]) if x >= 0 else int(success.cls[y])
        if div.position is not None and k == div.position:
            status = RowStatus.DIVERGENCE
        elif cls not in DECISION_CLASSES:
            status = RowStatus.CONTEXT
        elif good[k]:
            status = RowStatus.SAME
        else:
            status = RowStatus.DIFFERENT
        rows.append(AlignedRow(int(failed.steps[x]) if x >= 0 else None, int(success.steps[y]) if y >= 0 else None,
                               status, float(c)))
    return rows


def difference_rows(rows: Sequence[AlignedRow]) -> list[int]:
    """Indices of the rows that differ (the divergence included), in order."""
    return [i for i, r in enumerate(rows) if r.status in (RowStatus.DIFFERENT, RowStatus.DIVERGENCE)]
