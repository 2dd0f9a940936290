"""Fit the contrast costs and thresholds on development data: ``python -m analyzer.contrast.fit``.

Development data: planted reruns of the ``airline`` and ``bank`` domains
(:mod:`analyzer.contrast.synthetic`, seeds below), read through the tau-bench importer like any
file. The committed check set ``sample_reruns/`` is the ``retail`` domain, which the fit never sees.

Selection: coordinate descent over the grid :data:`GRID`, starting from each grid's middle value,
maximising the share of failed runs whose divergence lies in the planted message (ties: the
smaller mean distance in messages, then the value tried first); passes repeat until nothing
improves. The band is then the narrowest of :data:`BANDS` whose banded alignment has the same
cost as the full dynamic program on every development pair. Everything is written, with the
scores, to ``analyzer/contrast/contrast_params.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.contrast.align import SimCache, align, full_align
from analyzer.contrast.corpus import contrast_corpus, task_groups
from analyzer.contrast.encode import encode_frame
from analyzer.contrast.evaluate import Scores, planted_scores
from analyzer.contrast.params import PARAMS_PATH, ContrastParams
from analyzer.contrast.synthetic import task_records
from analyzer.loading.loader import load

DEV_SETS: tuple[tuple[str, int, int, int], ...] = (("airline", 40, 3, 101), ("bank", 40, 3, 202),
                                                   ("airline", 20, 4, 303), ("bank", 20, 4, 404))
"""(domain, tasks, runs per task, seed) of the development data."""

GRID: dict[str, tuple[float, ...]] = {
    "gap_decision": (0.25, 0.5, 0.75, 1.0, 1.5),
    "gap_other": (0.1, 0.25, 0.5, 0.75, 1.0),
    "tool_cost": (1.0, 1.5, 2.0, 2.5, 3.0),
    "args_cost": (0.5, 1.0, 1.5, 2.0, 2.5),
    "decision_cost": (0.5, 1.0, 1.5, 2.0, 2.5),
    "other_cost": (0.1, 0.25, 0.5, 0.75, 1.0),
    "match_action": (0.1, 0.25, 0.5, 0.75, 0.95),
    "match_decision": (0.25, 0.5, 0.75, 1.0, 1.5),
}
"""Values tried for each cost and threshold."""

BANDS: tuple[tuple[float, int], ...] = ((0.05, 16), (0.1, 32), (0.2, 64), (0.5, 128))
"""(band_frac, band_min) candidates, narrowest first. None is narrower than 16 steps: the short,
evenly paced development runs would accept any band, while real reruns differ more in length."""


def dev_frames(workdir: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The development runs, written as tau-bench files under ``workdir`` and loaded."""
    paths = []
    for domain, tasks, runs, seed in DEV_SETS:
        p = workdir / f"dev_{domain}_{seed}.json"
        p.write_text(json.dumps(task_records(domain, tasks, runs, seed)), encoding="utf-8")
        paths.append(p)
    res = load(paths, cache=None)
    if res.errors:
        raise RuntimeError(f"development data did not load: {res.errors[0]}")
    return res.traces, res.steps


class DevData:
    """The development runs, encoded once, with the similarity blocks kept across params."""

    def __init__(self, traces: pl.DataFrame, steps: pl.DataFrame) -> None:
        self.traces, self.steps = traces, steps
        self.encoded = encode_frame(steps)
        self.cache: SimCache = {}


def score(data: DevData, params: ContrastParams) -> tuple[float, float, Scores]:
    """(share found, -mean distance in messages, counts) of ``params`` on the runs."""
    traces, steps = data.traces, data.steps
    result = contrast_corpus(traces, steps, params=params, encoded=data.encoded,
                             sim_cache=data.cache if params.band_frac == BANDS[-1][0] else None)
    checks = planted_scores(traces, steps, result.runs)
    counts = Scores.of(checks)
    dists = [abs(c.found - c.truth) if c.found is not None else 99 for c in checks]
    return counts.rate("exact"), -(sum(dists) / len(dists) if dists else 0.0), counts


def _middle(values: tuple[float, ...]) -> float:
    return values[len(values) // 2]


def fit_costs(data: DevData, band: tuple[float, int]) -> tuple[ContrastParams, list[dict[str, Any]]]:
    """Coordinate descent over :data:`GRID` (see the module docstring); returns the params and the trail."""
    cur = ContrastParams(**{k: _middle(v) for k, v in GRID.items()}, band_frac=band[0], band_min=band[1])
    best = score(data, cur)
    trail: list[dict[str, Any]] = [{"params": cur.to_json(), "found": best[0], "neg_distance": best[1]}]
    for _ in range(4):
        improved = False
        for name, values in GRID.items():
            for v in values:
                if v == getattr(cur, name):
                    continue
                cand = ContrastParams.from_json({**cur.to_json(), name: v})
                got = score(data, cand)
                if got[:2] > best[:2]:
                    cur, best, improved = cand, got, True
                    trail.append({"set": name, "to": v, "found": got[0], "neg_distance": got[1]})
        if not improved:
            break
    return cur, trail


def fit_band(data: DevData, params: ContrastParams) -> tuple[float, int]:
    """The narrowest band of :data:`BANDS` that keeps every development pair's full-DP cost."""
    enc = data.encoded
    pairs = [(f, s) for failed, won in task_groups(data.traces).values() for f in failed for s in won]
    full = {p: full_align(enc[p[0]], enc[p[1]], params).total for p in pairs}
    for frac, lo in BANDS:
        cand = replace(params, band_frac=frac, band_min=lo)
        if all(abs(align(enc[f], enc[s], cand).total - full[(f, s)]) < 1e-6 for f, s in pairs):
            return frac, lo
    return BANDS[-1]


def main(argv: list[str] | None = None) -> int:
    """Fit and write the params file."""
    ap = argparse.ArgumentParser(prog="python -m analyzer.contrast.fit", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=PARAMS_PATH, help="params file to write")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = DevData(*dev_frames(Path(tmp)))
    params, trail = fit_costs(data, BANDS[-1])
    band = fit_band(data, params)
    params = replace(params, band_frac=band[0], band_min=band[1])
    found, neg_dist, counts = score(data, params)
    doc = {
        "written_by": "python -m analyzer.contrast.fit",
        "params": params.to_json(),
        "fit": {
            "dev_sets": [{"domain": d, "tasks": t, "runs_per_task": r, "seed": s} for d, t, r, s in DEV_SETS],
            "failed_runs_checked": counts.runs, "divergence_given": counts.given, "found_in_planted_message": counts.exact,
            "found_share": round(found, 4), "mean_message_distance": round(-neg_dist, 4),
            "grid": {k: list(v) for k, v in GRID.items()}, "bands": [list(b) for b in BANDS],
            "selection": "coordinate descent from the grid middles: share found, then mean distance; "
                         "band = narrowest with the full-DP cost on every development pair",
            "trail": trail,
        },
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"found {counts.exact}/{counts.runs} planted divergences ({found:.1%}); given {counts.given}; "
          f"band {band}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
