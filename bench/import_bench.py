"""Import benchmark: our loader next to polars.read_ndjson and a plain json.loads loop.

Generates a synthetic corpus (in a temporary folder, or ``--dir``):

* ``flat.jsonl``: >= 100 MB of generic flat JSONL (one step per line, many runs);
* ``long_trace.json``: one canonical trajectory with 5,000 steps.

and prints MB/s for each reader on the same files in the same run, plus the ratio
ours/polars (acceptance target: >= 0.5 on the JSONL corpus). ``load()`` runs with the shipped
settings (the path users get: a file of 16 MB or more is read in the bounded worker process),
first with the worker still to start (the first big file of a session), then with the worker the
previous load kept (``load_limits.worker_idle_seconds``); the in-process path (no worker,
``isolate_min_bytes = -1``) is printed beside them. The CPU time of all threads is printed too
(of this process; the worker's is not in it): on a shared machine wall-clock figures swing with
other load, CPU time less so. Polars and our loader alternate, so both see the same load.
The exit code is 0 whatever the figures (a benchmark reports, it does not gate).

Usage: ``python bench/import_bench.py [--dir DIR] [--mb 110] [--repeat 2]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import polars as pl

from analyzer.loading import load
from analyzer.loading.isolate import stop_kept_worker
from analyzer.settings import LoadLimits

_WORDS = (
    "the", "file", "config", "error", "retry", "value", "column", "table", "request", "latency", "agent",
    "tool", "result", "check", "output", "parse", "python", "bash", "grep", "sort", "count", "failed",
    "passed", "import", "module", "test", "schema", "index", "line", "step", "run", "task", "model",
    "answer", "because", "then", "next", "should", "could",
)


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _step_line(rng: random.Random, trace: int, step: int) -> dict[str, object]:
    kind = ("thought", "tool_call", "observation", "message")[step % 4]
    row: dict[str, object] = {
        "schema_version": "1.0", "trace_id": f"bench-{trace:06d}", "step": step,
        "agent": "assistant" if kind != "observation" else "tool",
        "role": "assistant" if kind != "observation" else "tool", "kind": kind,
        "text": _text(rng, rng.randint(20, 120)), "is_error": rng.random() < 0.05,
        "tokens_in": rng.randint(200, 4000), "tokens_out": rng.randint(10, 400),
        "timestamp": f"2024-11-02T10:{step % 60:02d}:{trace % 60:02d}Z",
    }
    if kind == "tool_call":
        row["tool_name"] = rng.choice(("bash", "python", "search"))
        row["tool_args"] = orjson.dumps({"command": _text(rng, 8)}).decode()
        row["tool_call_id"] = f"call_{trace}_{step}"
    if step == 0:
        row.update(task=_text(rng, 30), model=rng.choice(("model-a", "model-b")),
                   outcome=rng.choice(("success", "failure")), score=rng.random())
    return row


def make_flat(path: Path, target_mb: float, seed: int = 7) -> None:
    """Write a flat generic JSONL file of at least ``target_mb`` MB."""
    rng = random.Random(seed)
    target = int(target_mb * 1e6)
    size, trace = 0, 0
    with path.open("wb") as fh:
        while size < target:
            lines = [orjson.dumps(_step_line(rng, trace, s)) for s in range(rng.randint(20, 80))]
            block = b"\n".join(lines) + b"\n"
            fh.write(block)
            size += len(block)
            trace += 1


def make_long_trace(path: Path, n_steps: int = 5000, seed: int = 11) -> None:
    """Write one canonical trajectory with ``n_steps`` steps."""
    rng = random.Random(seed)
    steps = []
    for i in range(n_steps):
        row = _step_line(rng, 0, i)
        steps.append({"index": i, "agent": row["agent"], "role": row["role"], "kind": row["kind"],
                      "text": row["text"], "tool_name": row.get("tool_name"), "tool_args": row.get("tool_args"),
                      "is_error": row["is_error"], "tokens_in": row["tokens_in"], "tokens_out": row["tokens_out"]})
    doc = {"schema_version": "1.0", "task": _text(rng, 40), "model": "model-a", "outcome": "failure", "steps": steps}
    path.write_bytes(orjson.dumps(doc))


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU time (all threads) over ``repeat`` runs."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu


def _ours(path: Path, expect_steps: int | None = None, limits: LoadLimits | None = None) -> None:
    res = load([path], cache=None, limits=limits)
    if res.errors:
        raise SystemExit(f"our loader reported errors: {res.errors[:3]}")
    if expect_steps is not None and res.steps.height != expect_steps:
        raise SystemExit(f"our loader read {res.steps.height} steps, expected {expect_steps}")


def _json_loop(path: Path) -> None:
    with path.open("rb") as fh:
        for line in fh:
            json.loads(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, help="folder for the corpus (default: a temporary folder)")
    ap.add_argument("--mb", type=float, default=110.0, help="size of the JSONL corpus in MB (>= 100)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per reader; the best time is reported")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="trajscope-bench-") as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        flat, long_json = folder / "flat.jsonl", folder / "long_trace.json"
        t0 = time.perf_counter()
        if not flat.exists() or flat.stat().st_size < args.mb * 1e6:
            make_flat(flat, args.mb)
        if not long_json.exists():
            make_long_trace(long_json)
        print(f"corpus ready in {time.perf_counter() - t0:.1f}s in {folder}")
        mb = flat.stat().st_size / 1e6
        n_lines = sum(1 for _ in flat.open("rb"))
        print(f"\ngeneric flat JSONL: {mb:.1f} MB, {n_lines:,} lines (steps)")
        shipped = LoadLimits()
        in_process = LoadLimits(isolate_min_bytes=-1)
        stop_kept_worker()
        t_cold = _best(lambda: _ours(flat, n_lines, shipped), 1)  # the worker starts
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeat):  # interleaved: each reader sees the same machine load
            for name, fn in (("polars", lambda: pl.read_ndjson(flat)),
                             ("shipped", lambda: _ours(flat, n_lines, shipped)),
                             ("in-process", lambda: _ours(flat, n_lines, in_process))):
                got = _best(fn, 1)
                old = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(old[0], got[0]), min(old[1], got[1]))
        stop_kept_worker()
        t_pl, t_ours, t_in = best["polars"], best["shipped"], best["in-process"]
        t_json = _best(lambda: _json_loop(flat), 1)
        rows = [("load() shipped", t_ours), ("  first (cold worker)", t_cold), ("load() in-process", t_in),
                ("polars.read_ndjson", t_pl), ("json.loads loop", t_json)]
        print(f"  {'reader':<22} {'wall s':>7} {'MB/s':>8}   {'cpu s':>6} (this process, all threads)")
        for name, (wall, cpu) in rows:
            print(f"  {name:<22} {wall:7.2f} {mb / wall:8.1f}   {cpu:6.2f}")
        ratio = t_pl[0] / t_ours[0]
        print(f"  ratio ours/polars     {ratio:.2f}x MB/s with the shipped settings "
              f"(target >= 0.50x: {'PASS' if ratio >= 0.5 else 'FAIL'}); first load {t_pl[0] / t_cold[0]:.2f}x; "
              f"in-process {t_pl[0] / t_in[0]:.2f}x")
        mb_long = long_json.stat().st_size / 1e6
        print(f"\nsingle 5,000-step trace (canonical JSON): {mb_long:.1f} MB")
        t_long = _best(lambda: _ours(long_json, 5000), args.repeat)
        t_long_json = _best(lambda: json.loads(long_json.read_bytes()), args.repeat)
        print(f"  {'trajscope load()':<20} {t_long[0]:7.2f} {mb_long / t_long[0]:8.1f}   {t_long[1]:6.2f}")
        print(f"  {'json.loads':<20} {t_long_json[0]:7.2f} {mb_long / t_long_json[0]:8.1f}   {t_long_json[1]:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
