"""Cost of the table of step signals (issue 28 item 7) against the steps that read it.

Loads runs in place (default: the committed ``sample_traces/``; ``--data`` also takes a
development set such as ``/work/shared/datasets/who_and_when/Algorithm-Generated``), blinds them,
then times, each the best of ``--repeat`` rounds with the text caches cleared before each:

* ``table``: :func:`analyzer.signals.steps.step_signals` of every run (the one classification pass);
* ``features``: :func:`analyzer.attribution.features.step_features` given that table, and
  ``features standalone`` (no table: it builds its own, what a caller without the pipeline pays);
* ``detectors``: the steps-phase detectors given the table, and without it (each ``run_detectors``
  call then builds the run's table once itself);
* ``analyze_run``: the whole cheap analysis of every run (no judge, no embedder), per run.

Times are CPU seconds of this process (``--wall`` for wall time). Prints each time, per run, and the ratios measured in this process (table / features, table /
analyze_run). The per-run time of ``analyze_run`` before the table is measured by running the
``analyze_run`` part of this script on the older code (``--analyze-only``, which imports nothing new).

Usage: ``python bench/step_signals_bench.py [--data DIR] [--repeat 3] [--analyze-only]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def clear_caches() -> None:
    """Forget every cached per-text result, so each round pays for its own text scans."""
    from analyzer.detection import text

    text._content_words_cached.cache_clear()
    try:
        from plugins.detectors._signals import clear_caches as clear_detector_caches
    except ImportError:
        return
    clear_detector_caches()


CLOCK = time.process_time
"""The clock: CPU time of this process (``--wall``: wall time). On a machine shared with other work the
CPU time varies far less than the wall time."""


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best time of ``repeat`` calls of ``fn`` on :data:`CLOCK` (caches cleared before each)."""
    times = []
    for _ in range(repeat):
        clear_caches()
        t = CLOCK()
        fn()
        times.append(CLOCK() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "sample_traces")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--analyze-only", action="store_true", help="time analyze_run only (runs on older code too)")
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    args = ap.parse_args(argv)
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    if not args.data.exists():
        print(f"{args.data}: not found", file=sys.stderr)
        return 2
    from analyzer.attribution.ranker import Ranker
    from analyzer.frames.build import trajectories_from_frames
    from analyzer.loading.loader import load
    from analyzer.pipeline import analyze_run, blind
    from analyzer.plugin_host.registry import default_host

    loaded = load([args.data], cache=None)
    host = default_host()
    ranker = Ranker.load()
    raw = trajectories_from_frames(loaded.traces, loaded.steps)
    runs = [blind(t) for t in raw]
    n_steps = sum(len(t.steps) for t in runs)
    print(f"{args.data}: {len(runs)} runs, {n_steps} steps")
    per_run = best(lambda: [analyze_run(t, host=host, ranker=ranker) for t in raw], args.repeat)
    line = f"analyze_run: {per_run:.2f} s, {per_run / len(runs) * 1000:.1f} ms per run"
    if args.analyze_only:
        print(line)
        return 0

    from analyzer.attribution.features import step_features
    from analyzer.detection.runner import STEPS_PHASE, run_detectors
    from analyzer.plugin_host.protocols import DetectionContext
    from analyzer.signals.steps import step_signals

    tables = [step_signals(t) for t in runs]
    findings = [run_detectors(t, DetectionContext(step_table=tab), host, phase=STEPS_PHASE).findings
                for t, tab in zip(runs, tables, strict=True)]
    pairs: list[tuple[Any, Any, Any]] = list(zip(runs, tables, findings, strict=True))

    table = best(lambda: [step_signals(t) for t in runs], args.repeat)
    feats = best(lambda: [step_features(t, f, table=tab) for t, tab, f in pairs], args.repeat)
    alone = best(lambda: [step_features(t, f) for t, _tab, f in pairs], args.repeat)
    det = best(lambda: [run_detectors(t, DetectionContext(step_table=tab), host, phase=STEPS_PHASE)
                        for t, tab, _f in pairs], args.repeat)
    det_alone = best(lambda: [run_detectors(t, DetectionContext(), host, phase=STEPS_PHASE) for t in runs],
                     args.repeat)
    print(f"table (one pass per run):        {table:.3f} s ({table / n_steps * 1e6:.0f} us per step)")
    print(f"features given the table:        {feats:.3f} s  (table / features = {table / feats:.2f}x)")
    print(f"features standalone (own table): {alone:.3f} s  (= {alone / feats:.2f}x the features given it)")
    print(f"steps-phase detectors, table given: {det:.3f} s; building it themselves: {det_alone:.3f} s")
    print(line + f"; the table is {table / per_run:.1%} of it")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
