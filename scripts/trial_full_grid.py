"""Trial T22 (``docs/eval/trials.md``): an exhaustive search of the main tunables instead of coordinate ascent.

For each held-out system, the selection on the other four tries every combination of feature
set, L2, group-robust tau and structural-prior weight (:data:`analyzer.evaluation.selection.GRID`,
96 combinations, the plainest first: ties keep the earlier), then runs the usual coordinate ascent
over the remaining tunables from the best of them; the held-out system is scored once.

Usage (PREP_DIR: the prepared sets of ``trajscope eval suite --cache PREP_DIR``)::

    python scripts/trial_full_grid.py PREP_DIR
"""

from __future__ import annotations

import json
import pickle
import sys
from dataclasses import replace
from itertools import product
from pathlib import Path

from analyzer.evaluation import selection as S

NAMES = ["who-and-when", "tracertraj-code", "agenterrorbench-gaia", "trail-gaia", "trail-swe"]
MAIN = ("features", "l2", "tau", "prior_weight")


def select_grid(selector: S.Selector, names: list[str]) -> S.StepConfig:
    """The step configuration chosen on the systems ``names`` only (see the module doc)."""
    names = sorted(names)
    tried: dict[S.StepConfig, S.Candidate] = {}

    def evaluate(cfg: S.StepConfig) -> S.Candidate:
        cfg = cfg.canonical
        if cfg not in tried:
            tried[cfg] = selector.candidate(names, cfg)
        return tried[cfg]

    best = evaluate(S.START)
    for values in product(*(S.GRID[d] for d in MAIN)):  # plainest first: ties keep the earlier
        cand = evaluate(replace(S.START, **dict(zip(MAIN, values, strict=True))))
        if cand.key > best.key:
            best = cand
    best = S.coordinate_ascent(evaluate, best, [d for d in S.GRID if d not in MAIN])
    print(f"  {len(tried)} candidates; inner key {best.key}", flush=True)
    return best.config


def main() -> None:
    """Print each held-out system's choice and its nested step@1 and step@3, then all as JSON."""
    prep = Path(sys.argv[1])
    sets = [pickle.loads((prep / f"{n}.pickle").read_bytes())[0] for n in NAMES]
    selector = S.Selector(sets)
    out: dict[str, list[float]] = {}
    for target in NAMES:
        others = [n for n in NAMES if n != target]
        cfg = select_grid(selector, others)
        s1, s3 = selector.hits(target, selector.held_logits(NAMES, target, cfg), "pooled")
        out[target] = [round(100 * s1, 1), round(100 * s3, 1)]
        print(target, cfg, out[target], flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
