"""Every failed run against every success of its task: the nearest success and the divergence.

Pairs are aligned once: :func:`contrast_corpus` takes the pairs of an earlier call (the
``pairs`` frame kept with the analysis) and aligns only the pairs it does not hold for the
current params.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import sparse

from analyzer.contrast.align import Alignment, SimCache, Similarities, align
from analyzer.contrast.divergence import Divergence, find_divergence
from analyzer.contrast.encode import EncodedRun, encode_frame
from analyzer.contrast.params import ContrastParams, load_params
from analyzer.frames.build import empty_frame, frame_from_rows
from analyzer.frames.columns import ColumnSpec
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress

CONTRAST_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("trace_id", pl.Utf8, "Run id (a failed run whose task also succeeded)."),
    ColumnSpec("contrast_run", pl.Utf8, "The nearest success of the same task (lowest alignment cost)."),
    ColumnSpec("contrast_cost", pl.Float64, "Alignment cost with that success (a gap of an action costs 1)."),
    ColumnSpec("contrast_successes", pl.Int64, "Successes of the same task it was aligned with."),
    ColumnSpec("divergence_step", pl.Int64, "First decision of the failed run with no good match in the nearest "
               "success (null: every decision matched)."),
    ColumnSpec("divergence_success_step", pl.Int64, "The success's step at the divergence (null when unmatched)."),
    ColumnSpec("divergence_kind", pl.Utf8, "different_action | different_arguments | missing_action | extra_action."),
)
"""Contrast columns of a failed run (joined into ``traces.csv``)."""

PAIR_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("failed_id", pl.Utf8, "Failed run."),
    ColumnSpec("success_id", pl.Utf8, "Successful run of the same task."),
    ColumnSpec("cost", pl.Float64, "Alignment cost."),
    ColumnSpec("divergence_step", pl.Int64, "Divergence step of the failed run (null: none)."),
    ColumnSpec("divergence_success_step", pl.Int64, "The success's step at the divergence."),
    ColumnSpec("divergence_kind", pl.Utf8, "Kind of the divergence."),
    ColumnSpec("params", pl.Utf8, "Version of the params the pair was aligned with."),
)
"""One row per aligned (failed, success) pair: the alignment cache kept with the analysis."""


@dataclass
class ContrastResult:
    """Contrast of a corpus.

    Attributes:
        runs: CONTRAST_COLUMNS, one row per failed run whose task also succeeded.
        pairs: PAIR_COLUMNS, one row per aligned pair.
    """

    runs: pl.DataFrame = field(default_factory=lambda: empty_frame(CONTRAST_COLUMNS))
    pairs: pl.DataFrame = field(default_factory=lambda: empty_frame(PAIR_COLUMNS))


@dataclass(frozen=True)
class PairResult:
    """An aligned pair: the path and the divergence."""

    alignment: Alignment
    divergence: Divergence


def contrast_pair(a: EncodedRun, b: EncodedRun, params: ContrastParams | None = None,
                  cache: SimCache | None = None, whole: Similarities | None = None) -> PairResult:
    """Align failed run ``a`` with success ``b`` and find the divergence (``cache``, ``whole``: see :func:`align`)."""
    params = params or load_params()
    al = align(a, b, params, cache, whole)
    return PairResult(al, find_divergence(al, a, b, params))


def task_groups(traces: pl.DataFrame) -> dict[str, tuple[list[str], list[str]]]:
    """Task key -> (failed runs, successful runs), for tasks that have both (runs in frame order)."""
    if traces.height == 0 or "task_key" not in traces.columns:
        return {}
    df = traces.select("trace_id", "task_key", "outcome").filter(pl.col("task_key").is_not_null())
    out: dict[str, tuple[list[str], list[str]]] = {}
    for tid, key, outcome in df.iter_rows():
        failed, won = out.setdefault(str(key), ([], []))
        if outcome == "failure":
            failed.append(str(tid))
        elif outcome == "success":
            won.append(str(tid))
    return {k: v for k, v in out.items() if v[0] and v[1]}


def _step_rows(steps: pl.DataFrame | pl.LazyFrame, ids: Iterable[str]) -> pl.DataFrame:
    wanted = list(ids)
    return (steps.lazy().filter(pl.col("trace_id").is_in(wanted))
            .select("trace_id", "step", "kind", "text", "tool_name", "tool_args").collect())


def contrast_corpus(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, *,
                    params: ContrastParams | None = None, cached: pl.DataFrame | None = None,
                    progress: Progress = no_progress, cancel: CancelToken | None = None,
                    encoded: dict[str, EncodedRun] | None = None, sim_cache: SimCache | None = None) -> ContrastResult:
    """Contrast every failed run with every success of its task.

    Args:
        traces: Traces frame (needs ``trace_id``, ``task_key``, ``outcome``).
        steps: Steps frame, or a lazy one (only the runs of contrasted tasks are read).
        params: Costs and thresholds (default: the shipped params file).
        cached: PAIR_COLUMNS of an earlier call; its pairs for the same params are reused.
        progress: Called once per task.
        cancel: Checked between tasks (the pairs done so far are returned).
        encoded: The runs already encoded (a fit trying many params), or None to encode them here.
        sim_cache: Similarity blocks kept between calls (see :func:`analyzer.contrast.align.align`).

    Returns:
        One row per failed run whose task also succeeded, and every pair aligned.
    """
    params = params or load_params()
    cancel = cancel or NeverCancel()
    groups = task_groups(traces)
    version = params.version
    known: dict[tuple[str, str], dict[str, Any]] = {}
    if cached is not None and cached.height:
        for prow in cached.filter(pl.col("params") == version).iter_rows(named=True):
            known[(str(prow["failed_id"]), str(prow["success_id"]))] = prow
    need = {t for failed, won in groups.values() for t in (*failed, *won)
            if any((f, s) not in known for f in failed for s in won)}
    if encoded is None:
        encoded = encode_frame(_step_rows(steps, need)) if need else {}
    pair_rows: list[dict[str, Any]] = []
    run_rows: list[dict[str, Any]] = []
    for n, (_key, (failed, won)) in enumerate(groups.items()):
        if cancel.cancelled:
            break
        progress(n, len(groups), _key)
        todo = [(f, s) for f in failed for s in won if (f, s) not in known]
        task_sims = _TaskSimilarities(encoded, [*failed, *won]) if todo and sim_cache is None else None
        for f in failed:
            best: dict[str, Any] | None = None
            for s in won:
                row: dict[str, Any] | None = known.get((f, s))
                if row is None:
                    row = _align_row(f, s, encoded, params, version, sim_cache, task_sims)
                    if row is None:
                        continue
                pair_rows.append(row)
                if best is None or float(row["cost"]) < float(best["cost"]):
                    best = row
            if best is not None:
                run_rows.append({"trace_id": f, "contrast_run": best["success_id"], "contrast_cost": best["cost"],
                                 "contrast_successes": len(won), "divergence_step": best["divergence_step"],
                                 "divergence_success_step": best["divergence_success_step"],
                                 "divergence_kind": best["divergence_kind"]})
    progress(len(groups), len(groups), "done")
    return ContrastResult(frame_from_rows(run_rows, CONTRAST_COLUMNS), frame_from_rows(pair_rows, PAIR_COLUMNS))


TASK_ROWS = 4096
"""Steps of a task above which its similarities are computed pair by pair, chunk by chunk (memory)."""


class _TaskSimilarities:
    """Text and argument similarities of every step of a task's runs with every other step.

    Computed at once (one sparse product per task instead of several per pair; the same numbers).
    """

    def __init__(self, encoded: dict[str, EncodedRun], ids: list[str]) -> None:
        self.offset: dict[str, int] = {}
        total = 0
        for t in ids:
            if t in encoded and len(encoded[t]) and t not in self.offset:
                self.offset[t] = total
                total += len(encoded[t])
        self.ok = 0 < total <= TASK_ROWS
        if self.ok:
            ordered = [encoded[t] for t in self.offset]
            text = sparse.vstack([r.text for r in ordered]).tocsr()
            args = sparse.vstack([r.args for r in ordered]).tocsr()
            self.sim = np.asarray((text @ text.T).todense(), dtype=np.float64)
            self.args_sim = np.asarray((args @ args.T).todense(), dtype=np.float64)

    def pair(self, f: str, s: str, a: EncodedRun, b: EncodedRun) -> Similarities | None:
        """Similarities of every step of ``a`` (run ``f``) with every step of ``b`` (run ``s``)."""
        if not self.ok or f not in self.offset or s not in self.offset:
            return None
        r, c = self.offset[f], self.offset[s]
        rows, cols = slice(r, r + len(a)), slice(c, c + len(b))
        return Similarities(a.cls[:, None], b.cls[None, :], self.sim[rows, cols], self.args_sim[rows, cols],
                            a.tool[:, None] == b.tool[None, :], a.args_id[:, None] == b.args_id[None, :])


def _align_row(f: str, s: str, encoded: dict[str, EncodedRun], params: ContrastParams,
               version: str, sim_cache: SimCache | None, task_sims: _TaskSimilarities | None = None,
               ) -> dict[str, Any] | None:
    a, b = encoded.get(f), encoded.get(s)
    if a is None or b is None or not len(a) or not len(b):
        return None
    res = contrast_pair(a, b, params, sim_cache, task_sims.pair(f, s, a, b) if task_sims is not None else None)
    d = res.divergence
    return {"failed_id": f, "success_id": s, "cost": res.alignment.total, "divergence_step": d.step,
            "divergence_success_step": d.success_step, "divergence_kind": None if d.kind is None else str(d.kind),
            "params": version}
