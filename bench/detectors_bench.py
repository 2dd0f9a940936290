"""Runtime of the signal detectors against the cheap pipeline, on the Who&When dev set.

Loads the Who&When Algorithm-Generated split in place (never copied), then times:

* ``baseline``: :func:`analyzer.pipeline.analyze` with no judge and no embedder, and the
  signals-phase detectors switched off (the cheap pipeline as it was);
* ``signals``: each signal detector alone, over every run (``analyse`` on the blinded run);
* ``full``: the cheap pipeline with the signal detectors (what ``trajscope analyze`` runs now).

Each timing is the best of ``--repeat`` rounds. Prints one line per part and the extra
share (signals / baseline); the target is < 20%.

Usage: ``python bench/detectors_bench.py [--data DIR] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from analyzer.frames.build import trajectories_from_frames
from analyzer.loading.loader import load
from analyzer.pipeline import AnalyzeOptions, analyze, blind
from analyzer.plugin_host import DetectionContext, default_host
from analyzer.signals.run import SIGNALS_PHASE
from plugins.detectors._signals import clear_caches

DEFAULT_DATA = Path("/work/shared/datasets/who_and_when/Algorithm-Generated")


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls of ``fn`` (the detectors' text caches cleared before each)."""
    times = []
    for _ in range(repeat):
        clear_caches()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"{args.data}: not found", file=sys.stderr)
        return 2
    loaded = load([args.data], cache=None)
    traces, steps = loaded.traces, loaded.steps
    host = default_host()
    signal_ids = [d.id for d in host.detectors() if getattr(host.load_detector(d.id), "phase", None) == SIGNALS_PHASE]
    other_ids = [d.id for d in host.detectors() if d.id not in signal_ids]
    runs = [blind(t) for t in trajectories_from_frames(traces, steps)]
    print(f"{args.data}: {traces.height} runs, {steps.height} steps; signal detectors: {', '.join(signal_ids)}")
    base = best(lambda: analyze(traces, steps, options=AnalyzeOptions(detectors=other_ids)), args.repeat)
    print(f"baseline (cheap pipeline, no signals): {base:.2f} s")
    dets = [host.load_detector(d) for d in signal_ids]
    for did, det in zip(signal_ids, dets, strict=True):
        t = best(lambda det=det: [det.analyse(r, DetectionContext()) for r in runs], args.repeat)
        print(f"  {did:<20} {t * 1000:8.1f} ms alone ({t / base:6.1%} of baseline)")
    total = best(lambda: [d.analyse(r, DetectionContext()) for r in runs for d in dets], args.repeat)
    print(f"signals together (shared text caches): {total:.2f} s = {total / base:.1%} of the cheap pipeline "
          "(target < 20%)")
    full = best(lambda: analyze(traces, steps), args.repeat)
    print(f"full (cheap pipeline with signals): {full:.2f} s = +{full / base - 1:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
