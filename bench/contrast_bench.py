"""Contrast benchmark: banded alignment against the naive full dynamic program, in one run.

1. **Two 5,000-step runs** (a success and a failure of one long task, tau-bench format, read by
   the importer): encode + banded alignment + divergence (:func:`analyzer.contrast.corpus.contrast_pair`)
   against :func:`analyzer.contrast.align.full_align` (every cell, plain Python) on the same
   encoded runs; the two costs must agree.
2. **A corpus of 10,000 runs in 2,000 tasks** (5 trials each, planted failures):
   :func:`analyzer.contrast.corpus.contrast_corpus` over all of it, against the full dynamic
   program on the pairs of the first ``--baseline-tasks`` tasks (its time per pair is scaled
   to every pair); then the same call again with the pairs of the first call as its cache.

Wall and CPU seconds are both printed, with the load average: on a shared machine the wall
time of the same work varies several-fold with the other processes.

Usage::

    python bench/contrast_bench.py [--steps 5000] [--tasks 2000] [--trials 5] [--baseline-tasks 50]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def long_records(steps: int) -> list[dict[str, Any]]:
    """A success and a failure of one task, each about ``steps`` steps long."""
    from analyzer.contrast.synthetic import task_records

    recs = task_records("retail", 400, 2, seed=7, extra_lookup=0.0)
    win = [r for r in recs if r["reward"] >= 1]
    lose = [r for r in recs if r["reward"] < 1]

    def grow(pool: list[dict[str, Any]], other: list[dict[str, Any]]) -> list[dict[str, Any]]:
        msgs: list[dict[str, Any]] = []
        k = 0
        while len(msgs) < steps * 0.95:
            src = pool[k % len(pool)] if k % 7 == 3 else other[k % len(other)]
            msgs.extend(m for m in src["traj"] if m["role"] != "system")
            k += 1
        return [recs[0]["traj"][0], *msgs]

    base = {"task_id": 0, "info": {"task": {"instruction": "long task"}, "env": "retail"}}
    return [{**base, "reward": 1.0, "traj": grow(win, win), "trial": 0},
            {**base, "reward": 0.0, "traj": grow(lose, win), "trial": 1}]


def bench_pair(steps: int, tmp: Path) -> dict[str, Any]:
    from analyzer.contrast.align import full_align
    from analyzer.contrast.corpus import contrast_pair
    from analyzer.contrast.encode import encode_frame
    from analyzer.contrast.params import load_params
    from analyzer.loading.loader import load

    path = tmp / "long.json"
    path.write_text(json.dumps(long_records(steps)), encoding="utf-8")
    res = load([path], cache=None)
    params = load_params()
    ok = res.traces.filter(res.traces["outcome"] == "success")["trace_id"][0]
    bad = res.traces.filter(res.traces["outcome"] == "failure")["trace_id"][0]
    t0, c0 = time.perf_counter(), time.process_time()
    enc = encode_frame(res.steps)
    got = contrast_pair(enc[bad], enc[ok], params)
    banded, banded_cpu = time.perf_counter() - t0, time.process_time() - c0
    t1, c1 = time.perf_counter(), time.process_time()
    full = full_align(enc[bad], enc[ok], params)
    naive, naive_cpu = time.perf_counter() - t1, time.process_time() - c1
    return {"steps": [len(enc[bad]), len(enc[ok])], "banded_s": round(banded, 3), "banded_cpu_s": round(banded_cpu, 3),
            "full_dp_s": round(naive, 2), "full_dp_cpu_s": round(naive_cpu, 2), "ratio": round(naive / banded, 1),
            "cost_banded": round(got.alignment.total, 4), "cost_full": round(full.total, 4),
            "divergence_step": got.divergence.step, "load_average": round(os.getloadavg()[0], 1)}


def bench_corpus(tasks: int, trials: int, baseline_tasks: int, tmp: Path) -> dict[str, Any]:
    from analyzer.contrast.align import full_align
    from analyzer.contrast.corpus import contrast_corpus, task_groups
    from analyzer.contrast.encode import encode_frame
    from analyzer.contrast.params import load_params
    from analyzer.contrast.synthetic import task_records
    from analyzer.loading.loader import load

    path = tmp / "corpus.json"
    path.write_text(json.dumps(task_records("retail", tasks, trials, seed=11)), encoding="utf-8")
    t0 = time.perf_counter()
    res = load([path], cache=None)
    load_s = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    out = contrast_corpus(res.traces, res.steps)
    corpus_s, corpus_cpu = time.perf_counter() - t1, time.process_time() - c1
    t2 = time.perf_counter()
    again = contrast_corpus(res.traces, res.steps, cached=out.pairs)
    cached_s = time.perf_counter() - t2
    assert again.runs.equals(out.runs)
    groups = list(task_groups(res.traces).values())[:baseline_tasks]
    pairs = [(f, s) for failed, won in groups for f in failed for s in won]
    params = load_params()
    t3 = time.perf_counter()
    enc = encode_frame(res.steps.filter(res.steps["trace_id"].is_in([t for p in pairs for t in p])))
    for f, s in pairs:
        full_align(enc[f], enc[s], params)
    per_pair = (time.perf_counter() - t3) / max(1, len(pairs))
    naive_est = per_pair * out.pairs.height
    return {"runs": res.traces.height, "tasks": int(res.traces["task_key"].n_unique()), "pairs": out.pairs.height,
            "failed_contrasted": out.runs.height, "load_s": round(load_s, 1), "contrast_s": round(corpus_s, 2),
            "contrast_cpu_s": round(corpus_cpu, 2), "load_average": round(os.getloadavg()[0], 1),
            "cached_again_s": round(cached_s, 2), "full_dp_estimated_s": round(naive_est, 1),
            "baseline_pairs_measured": len(pairs), "ratio": round(naive_est / corpus_s, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--baseline-tasks", type=int, default=50)
    ap.add_argument("--skip", choices=["pair", "corpus"], default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.skip != "pair":
            print("pair:", json.dumps(bench_pair(args.steps, Path(tmp))), flush=True)
        if args.skip != "corpus":
            print("corpus:", json.dumps(bench_corpus(args.tasks, args.trials, args.baseline_tasks, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
