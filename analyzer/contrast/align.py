"""Banded Needleman-Wunsch alignment of two encoded runs.

A match of two steps costs :func:`costs_of` (only steps of one class match: actions by tool and
normalised arguments, decisions by text similarity, inputs and observations weakly); a step left
unmatched costs its class's gap. :func:`align` fills only a band around the diagonal (scaled to
the two lengths), row by row with numpy; :func:`full_align` is the plain full dynamic program in
Python it is checked against (and the baseline of ``bench/contrast_bench.py``). Both break ties
the same way (match, then a step of the first run alone, then a step of the second).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analyzer.contrast.encode import EncodedRun, StepClass
from analyzer.contrast.params import ContrastParams

_CHUNK = 128  # rows whose match costs are computed in one block
_EPS = 1e-9
_DIAG, _UP, _LEFT = 0, 1, 2


@dataclass(frozen=True)
class Alignment:
    """An alignment path of runs ``a`` (the failed run) and ``b`` (the success).

    Attributes:
        a: Row of ``a`` at each position of the path (-1: a step of ``b`` alone).
        b: Row of ``b`` at each position (-1: a step of ``a`` alone).
        cost: Cost of each position (a match's cost or a gap's).
        total: Sum of the costs.
    """

    a: np.ndarray
    b: np.ndarray
    cost: np.ndarray
    total: float


@dataclass(frozen=True)
class Similarities:
    """What match costs are made of, for a block of rows of ``a`` and ``b`` (params-free)."""

    ca: np.ndarray
    cb: np.ndarray
    sim: np.ndarray
    args_sim: np.ndarray
    same_tool: np.ndarray
    same_args: np.ndarray


SimCache = dict[tuple[int, int, int, int, int, int], Similarities]
"""Similarity blocks by (run ids, rows, columns): lets a fit try many params on the same pairs."""


def gap_costs(run: EncodedRun, params: ContrastParams) -> np.ndarray:
    """Cost of leaving each step of ``run`` unmatched."""
    out = np.full(len(run), params.gap_other, dtype=np.float64)
    out[run.cls == StepClass.ACTION] = ContrastParams.GAP_ACTION
    out[run.cls == StepClass.DECISION] = params.gap_decision
    return out


def similarities(a: EncodedRun, b: EncodedRun, rows: slice, cols: slice) -> Similarities:
    """Class, text and argument similarities of rows ``rows`` of ``a`` with rows ``cols`` of ``b``."""
    ca = a.cls[rows][:, None]
    cb = b.cls[cols][None, :]
    sim = np.asarray((a.text[rows] @ b.text[cols].T).todense(), dtype=np.float64)
    if ((ca == StepClass.ACTION) & (cb == StepClass.ACTION)).any():
        args_sim = np.asarray((a.args[rows] @ b.args[cols].T).todense(), dtype=np.float64)
    else:
        args_sim = np.zeros_like(sim)
    same_tool = a.tool[rows][:, None] == b.tool[cols][None, :]
    same_args = a.args_id[rows][:, None] == b.args_id[cols][None, :]
    return Similarities(ca, cb, sim, args_sim, same_tool, same_args)


def slice_similarities(s: Similarities, rows: slice, cols: slice) -> Similarities:
    """The block ``rows`` × ``cols`` of similarities computed for whole runs."""
    return Similarities(s.ca[rows], s.cb[:, cols], s.sim[rows, cols], s.args_sim[rows, cols], s.same_tool[rows, cols],
                        s.same_args[rows, cols])


def costs_of(s: Similarities, params: ContrastParams) -> np.ndarray:
    """Match costs from similarities (inf across classes)."""
    act = np.where(s.same_tool, np.where(s.same_args, 0.0, params.args_cost * (1.0 - s.args_sim)), params.tool_cost)
    text = 1.0 - s.sim
    cost = np.where(s.ca == StepClass.ACTION, act,
                    np.where(s.ca == StepClass.DECISION, params.decision_cost * text, params.other_cost * text))
    return np.where(s.ca == s.cb, np.maximum(cost, 0.0), np.inf)


def match_costs(a: EncodedRun, b: EncodedRun, rows: slice, cols: slice, params: ContrastParams,
                cache: SimCache | None = None, whole: Similarities | None = None) -> np.ndarray:
    """Cost of matching rows ``rows`` of ``a`` with rows ``cols`` of ``b`` (inf across classes).

    ``whole``: the similarities of every row of ``a`` with every row of ``b``, when the caller
    computed them (a corpus computes them once per task); ``cache``: see :func:`align`.
    """
    if whole is not None:
        return costs_of(slice_similarities(whole, rows, cols), params)
    if cache is None:
        return costs_of(similarities(a, b, rows, cols), params)
    key = (id(a), id(b), rows.start or 0, rows.stop or 0, cols.start or 0, cols.stop or 0)
    sims = cache.get(key)
    if sims is None:
        sims = cache[key] = similarities(a, b, rows, cols)
    return costs_of(sims, params)


def band_limits(n: int, m: int, params: ContrastParams) -> tuple[np.ndarray, np.ndarray]:
    """First and last column (0..m) of the band in each row (0..n) of the dynamic program."""
    slope = m / n if n else 0.0
    half = max(float(params.band_min), params.band_frac * max(n, m), 2.0 * slope + 2.0)
    centre = np.arange(n + 1, dtype=np.float64) * slope
    lo = np.clip(np.floor(centre - half), 0, m).astype(np.int64)
    hi = np.clip(np.ceil(centre + half), 0, m).astype(np.int64)
    lo[0], hi[n] = 0, m
    return lo, hi


def align(a: EncodedRun, b: EncodedRun, params: ContrastParams, cache: SimCache | None = None,
          whole: Similarities | None = None) -> Alignment:
    """Banded alignment of ``a`` with ``b`` (see :func:`band_limits` for the band).

    Args:
        a: The failed run.
        b: The successful run.
        params: Costs and band width.
        cache: Similarity blocks kept between calls (a fit trying many params), or None.
        whole: Similarities of every row of ``a`` with every row of ``b``, if already computed.

    Returns:
        The cheapest path inside the band.
    """
    n, m = len(a), len(b)
    ga, gb = gap_costs(a, params), gap_costs(b, params)
    gcum = np.concatenate([[0.0], np.cumsum(gb)])  # cost of leaving b[:j] unmatched
    lo, hi = band_limits(n, m, params)
    ptrs: list[np.ndarray] = [np.full(hi[0] - lo[0] + 1, _LEFT, dtype=np.int8)]
    prev = np.full(m + 1, np.inf)  # the last row's band, inf elsewhere
    prev[lo[0]: hi[0] + 1] = gcum[lo[0]: hi[0] + 1]
    pj0, pj1 = int(lo[0]), int(hi[0])
    block = np.zeros((0, 0))
    block_row = block_col = 0
    blocks: list[tuple[int, np.ndarray]] = []  # (first column, costs) of each chunk of rows
    for i in range(1, n + 1):
        if (i - 1) % _CHUNK == 0:
            r1 = min(n, i - 1 + _CHUNK)
            block_col = max(int(lo[i]) - 1, 0)
            block_row = i - 1
            block = match_costs(a, b, slice(i - 1, r1), slice(block_col, int(hi[r1])), params, cache, whole)
            blocks.append((block_col, block))
        j0, j1 = int(lo[i]), int(hi[i])
        up = prev[j0: j1 + 1] + ga[i - 1]
        r = i - 1 - block_row
        if j0 >= 1:
            diag = prev[j0 - 1: j1] + block[r, j0 - 1 - block_col: j1 - block_col]
        else:  # column 0 has no match
            diag = np.empty(j1 + 1)
            diag[0] = np.inf
            diag[1:] = prev[0: j1] + block[r, 0 - block_col: j1 - block_col]
        x = np.minimum(diag, up)
        g = gcum[j0: j1 + 1]
        t = x - g
        np.minimum.accumulate(t, out=t)
        cur = t + g  # equals x where no step of b alone does better (within rounding)
        ptr = (diag > up).astype(np.int8)  # _DIAG (0) on ties, else _UP (1)
        ptr[cur < x - _EPS] = _LEFT
        ptrs.append(ptr)
        prev[pj0: pj1 + 1] = np.inf
        prev[j0: j1 + 1] = cur
        pj0, pj1 = j0, j1

    def cost_at(x: int, y: int) -> float:
        col, blk = blocks[x // _CHUNK]
        return float(blk[x % _CHUNK, y - col])

    return _trace(ptrs, lo, n, m, ga, gb, cost_at, float(prev[m]))


def _trace(ptrs: list[np.ndarray], lo: np.ndarray, n: int, m: int, ga: np.ndarray, gb: np.ndarray,
           cost_at: Callable[[int, int], float], total: float) -> Alignment:
    pa: list[int] = []
    pb: list[int] = []
    i, j = n, m
    while i > 0 or j > 0:
        move = _LEFT if i == 0 else _UP if j == 0 else int(ptrs[i][j - lo[i]])
        if move == _DIAG:
            i, j = i - 1, j - 1
            pa.append(i)
            pb.append(j)
        elif move == _UP:
            i -= 1
            pa.append(i)
            pb.append(-1)
        else:
            j -= 1
            pa.append(-1)
            pb.append(j)
    pa.reverse()
    pb.reverse()
    cost = np.array([cost_at(x, y) if x >= 0 and y >= 0 else float(ga[x] if x >= 0 else gb[y])
                     for x, y in zip(pa, pb, strict=True)], dtype=np.float64)
    return Alignment(np.array(pa, dtype=np.int64), np.array(pb, dtype=np.int64), cost,
                     total if math.isfinite(total) else float(cost.sum()))


def full_align(a: EncodedRun, b: EncodedRun, params: ContrastParams) -> Alignment:
    """The full dynamic program over every cell, in plain Python (reference and benchmark baseline).

    Same costs and tie-breaking as :func:`align`; it gives the same path whenever the best path
    lies inside :func:`align`'s band.
    """
    n, m = len(a), len(b)
    ga, gb = gap_costs(a, params).tolist(), gap_costs(b, params).tolist()
    sub: list[list[float]] = match_costs(a, b, slice(0, n), slice(0, m), params).tolist() if n and m else []
    inf = math.inf
    score = [[inf] * (m + 1) for _ in range(n + 1)]
    move = [[_LEFT] * (m + 1) for _ in range(n + 1)]
    score[0][0] = 0.0
    for j in range(1, m + 1):
        score[0][j] = score[0][j - 1] + gb[j - 1]
    for i in range(1, n + 1):
        row, last, sub_row = score[i], score[i - 1], sub[i - 1]
        mrow = move[i]
        row[0] = last[0] + ga[i - 1]
        mrow[0] = _UP
        for j in range(1, m + 1):
            d = last[j - 1] + sub_row[j - 1]
            u = last[j] + ga[i - 1]
            x, p = (d, _DIAG) if d <= u else (u, _UP)
            left = row[j - 1] + gb[j - 1]
            if left < x - _EPS:
                x, p = left, _LEFT
            row[j] = x
            mrow[j] = p
    ptrs = [np.array(r, dtype=np.int8) for r in move]
    return _trace(ptrs, np.zeros(n + 1, dtype=np.int64), n, m, gap_costs(a, params), gap_costs(b, params),
                  lambda x, y: float(sub[x][y]), score[n][m])
