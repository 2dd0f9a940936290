"""Cost of reading files in the bounded worker process, and the zip-bomb refusal.

1. Loads ``sample_traces/`` (about 40 small files) three ways, in fresh interpreters, and prints
   the wall time of ``load()``:

   * ``in-process``: no file isolated (``isolate_min_bytes = -1``);
   * ``default``: the shipped rule (files >= 16 MB and compressed files >= 256 KB isolated;
     no sample is that big, so this equals in-process);
   * ``all isolated``: every file in the worker (``isolate_min_bytes = 0``).

2. Writes an Inspect ``.eval`` whose one member inflates to 500 MB (about 490 KB on disk)
   and loads it in a fresh interpreter with the default caps (refused before inflating,
   from the directory's declared size) and with the member cap raised to 1 GB (refused while
   inflating, by the ratio cap), printing the time, the error and the peak RSS of the
   interpreter (``VmHWM``: ``ru_maxrss`` of a process keeps its launcher's peak across exec)
   and of its worker (``getrusage`` children max RSS).

Usage: ``python bench/isolation_bench.py [--repeat 3]``. Exit code 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import fuzzing  # noqa: E402

_CHILD = textwrap.dedent("""
    import json, resource, sys, time
    from pathlib import Path
    from analyzer.loading import load
    from analyzer.settings import LoadLimits
    t0 = time.perf_counter()
    kw = {**json.loads(sys.argv[2]), "worker_idle_seconds": 0}  # the worker ends with the load: its peak counts
    res = load([Path(p) for p in json.loads(sys.argv[1])], cache=None, limits=LoadLimits(**kw))
    dt = time.perf_counter() - t0
    hwm = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
    rss = max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(json.dumps({"seconds": dt, "runs": res.traces.height, "files": len(res.files),
                      "errors": [[e.record, e.reason] for e in res.errors], "rss_mb": rss}))
""")


def _run(paths: list[Path], limits: dict[str, int]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([str(p) for p in paths]), json.dumps(limits)],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    samples = [ROOT / "sample_traces"]
    print("load(sample_traces/), seconds (best of repeats; each in a fresh interpreter)")
    for label, limits in (("in-process", {"isolate_min_bytes": -1}), ("default", {}),
                          ("all isolated", {"isolate_min_bytes": 0})):
        runs = [_run(samples, limits) for _ in range(args.repeat)]
        best = min(float(str(r["seconds"])) for r in runs)
        print(f"  {label:<14}{best:>7.2f} s   files {runs[0]['files']}, runs {runs[0]['runs']}, "
              f"errors {len(runs[0]['errors'])}")  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as tmp:
        bomb = fuzzing.write_bomb_eval(Path(tmp) / "bomb.eval")
        print(f"\n500 MB-inflating member, {bomb.stat().st_size / 1024:.0f} KB on disk")
        for label, limits in (("default caps", {}), ("member cap 1 GB", {"max_member_bytes": 1 << 30}),
                              ("member cap 1 GB, in-process", {"max_member_bytes": 1 << 30,
                                                               "isolate_compressed_min_bytes": -1})):
            r = _run([bomb], limits)
            errors = r["errors"]
            assert isinstance(errors, list)
            print(f"  {label:<30}{float(str(r['seconds'])):>6.2f} s  peak RSS {float(str(r['rss_mb'])):>5.0f} MB  "
                  f"{errors[0][1] if errors else 'loaded'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
