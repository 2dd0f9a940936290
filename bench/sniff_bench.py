"""Time to claim a file holding one long string of escapes: sniffing must be linear.

For each size (default 1, 2, 4, 8 and 16 million escaped backslashes, i.e. 2-32 MB of
``\\\\``), writes ``{"a": "<escapes>", "b": 1}`` (``.json``) and times the loader's
:func:`analyzer.loading.loader.claim` of it with every registered importer (which streams
the structure with ijson for the outline-based importers and parses it whole for the
shape-based ones), plus :func:`plugins.importers._outline.outline` alone. Each is the best of
``--repeat`` runs with the caches cleared.

Printed per size: seconds for ``claim`` and ``outline``, and seconds per million escapes
relative to the smallest size (``ratio``): about 1.0 everywhere means linear time; it grew
with the size before ijson was fed 8 MB pieces (16 M escapes took 40-49 s in ``outline``).

Usage: ``python bench/sniff_bench.py [--sizes 1,2,4,8,16] [--repeat 3] [--json out.json]``.
Exit code 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _best(fn: object, repeat: int, clear: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        clear()  # type: ignore[operator]
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1,2,4,8,16", help="millions of escapes, comma-separated")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", help="also write the figures to this JSON file")
    args = p.parse_args(argv)

    from analyzer.loading.loader import claim
    from analyzer.plugin_host.registry import default_host
    from plugins.importers import _outline

    host = default_host()

    def clear() -> None:
        _outline._cached.cache_clear()
        _outline._cached_view.cache_clear()

    rows = []
    base: tuple[float, float] | None = None
    print(f"{'escapes':>10}{'MB':>7}{'claim s':>10}{'outline s':>11}{'claim ratio':>13}{'outline ratio':>15}")
    with tempfile.TemporaryDirectory(prefix="trajscope-sniff-") as tmp:
        for millions in (float(s) for s in args.sizes.split(",")):
            n = int(millions * 1_000_000)
            path = Path(tmp) / f"escapes_{n}.json"
            path.write_bytes(b'{"a": "' + b"\\\\" * n + b'", "b": 1}')
            t_claim = _best(lambda path=path: claim(path, host), args.repeat, clear)
            t_outline = _best(lambda path=path: _outline.outline(path), args.repeat, clear)
            per = (t_claim / millions, t_outline / millions)
            base = base or per
            ratio = (per[0] / base[0], per[1] / base[1])
            rows.append({"escapes": n, "mb": round(path.stat().st_size / 1e6, 1), "claim_seconds": round(t_claim, 3),
                         "outline_seconds": round(t_outline, 3), "claim_ratio": round(ratio[0], 2),
                         "outline_ratio": round(ratio[1], 2)})
            print(f"{n:>10}{path.stat().st_size / 1e6:>7.1f}{t_claim:>10.3f}{t_outline:>11.3f}"
                  f"{ratio[0]:>13.2f}{ratio[1]:>15.2f}", flush=True)
            path.unlink()
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
