"""Export benchmark: the tables of a corpus opened in the app, read lazily vs read into the session.

Prints, measured in one run on one synthetic corpus (:mod:`analyzer.corpus.synthetic`), each
path in a fresh process (time and peak RSS):

- **baseline** (the export dialog before): every corpus run's steps read into the session
  (``Session.steps_for``, texts included), then ``write_analysis`` (CSV);
- **lazy** (the export dialog now): ``Session.export_sources``: the steps stay a lazy frame and
  each table reads only the columns it uses.

Both write the same tables; the script checks that they hold the same rows (the baseline reads
each partition's runs sorted by id, the lazy path keeps the partition's order) and prints the
ratios lazy / baseline.

Usage::

    python bench/export_bench.py [--runs 20000] [--steps 100] [--sources 40] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(root: Path, out: Path, mode: str) -> dict[str, Any]:
    """Run in a fresh process: open the corpus in a session and export its tables as CSV."""
    from analyzer.corpus import Corpus
    from analyzer.export import write_analysis
    from analyzer.session import Session

    s = Session()
    s.open_corpus(Corpus(root))
    start_mb = rss_mb()
    t0 = time.perf_counter()
    if mode == "baseline":
        steps: Any = s.steps_for(s.traces["trace_id"].to_list())
        result = s.analysis
    else:
        steps, read = s.export_sources()
        result = read()
    written = write_analysis(out, s.traces, steps, result if result.runs.height else None,
                             annotations=s.annotations, formats=["csv"])
    return {"seconds": time.perf_counter() - t0, "rss_peak_mb": rss_mb(), "rss_open_mb": start_mb,
            "files": [p.name for p in written], "session_steps": s.steps.height}


def _rows(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[:1] + sorted(lines[1:])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=20_000)
    p.add_argument("--steps", type=int, default=100, help="mean steps per run")
    p.add_argument("--sources", type=int, default=40)
    p.add_argument("--dir", type=Path, help="work folder (default: a temporary folder)")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(child(Path(a.child[0]), Path(a.child[1]), a.child[2])))
        return 0
    from analyzer.corpus.synthetic import generate_corpus

    with tempfile.TemporaryDirectory() as tmp:
        work = a.dir or Path(tmp)
        t0 = time.perf_counter()
        root = generate_corpus(work / "corpus", a.runs, a.steps, a.sources)
        print(f"corpus: {a.runs:,} runs x {a.steps} steps in {a.sources} sources, written in "
              f"{time.perf_counter() - t0:.1f} s")
        res: dict[str, dict[str, Any]] = {}
        for mode in ("baseline", "lazy"):
            proc = subprocess.run([sys.executable, __file__, "--child", str(root), str(work / mode), mode],
                                  capture_output=True, text=True, check=True)
            res[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
            r = res[mode]
            print(f"{mode:>8}: export {r['seconds']:.2f} s, peak RSS {r['rss_peak_mb']:.0f} MB "
                  f"(after opening the corpus {r['rss_open_mb']:.0f} MB); steps left in the session: "
                  f"{r['session_steps']:,}")
        same = all(_rows(work / "baseline" / f) == _rows(work / "lazy" / f) for f in res["lazy"]["files"])
        b, lz = res["baseline"], res["lazy"]
        print(f"lazy / baseline: time {lz['seconds'] / b['seconds']:.2f}x, peak RSS "
              f"{lz['rss_peak_mb'] / b['rss_peak_mb']:.2f}x; same rows in every table: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
