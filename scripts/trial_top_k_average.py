"""Trial T21 (``docs/eval/trials.md``): average the top-K distinct candidates instead of one winner.

For each held-out system the selection runs on the other four as in
:func:`analyzer.evaluation.selection.nested_leave_one_system_out`; then, instead of the one best
configuration, the K best *distinct* ones of its inner ranking (candidates whose logits on the
held-out runs coincide count once: the labels are never read for that) are fitted on the other
four and their log-probabilities averaged. K = 1 is the nested figure of the suite.

Usage (PREP_DIR: the prepared sets of ``trajscope eval suite --cache PREP_DIR``)::

    python scripts/trial_top_k_average.py PREP_DIR 3 5
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

from analyzer.attribution.ranker import softmax
from analyzer.evaluation.selection import Candidate, Selector, select

NAMES = ["who-and-when", "tracertraj-code", "agenterrorbench-gaia", "trail-gaia", "trail-swe"]


def main() -> None:
    """Print each held-out system's step@1 and step@3 for K = 1 and each K given, then all as JSON."""
    prep = Path(sys.argv[1])
    ks = [int(k) for k in sys.argv[2:]] or [3]
    sets = [pickle.loads((prep / f"{n}.pickle").read_bytes())[0] for n in NAMES]
    selector = Selector(sets)
    out: dict[str, dict[str, list[float]]] = {}
    for target in NAMES:
        others = [n for n in NAMES if n != target]
        sel = select(selector, others)
        ranked = sorted(sel.tried, key=lambda c: c.key, reverse=True)
        # distinct models only: candidates whose logits on the target's runs (no labels read) are the same count once
        distinct: list[tuple[Candidate, dict[str, np.ndarray]]] = []
        for cand in ranked:
            if len(distinct) >= max(ks):
                break
            fitted = selector.fit(others, cand.config)
            lps = {r.key: np.log(np.maximum(softmax(fitted.logits(r.features)), 1e-300))
                   for r in selector.set(target, cand.config).runs}
            if any(all(np.allclose(lps[k], d[k], atol=1e-9) for k in lps) for _, d in distinct):
                continue
            distinct.append((cand, lps))
        for k in [1, *ks]:
            top = distinct[:k]
            logps: dict[str, np.ndarray] = {}
            for _cand, lps in top:
                for key, lp in lps.items():
                    logps[key] = logps.get(key, np.zeros_like(lp)) + lp / len(top)
            s1, s3 = selector.hits(target, logps, "pooled")
            out.setdefault(str(k), {})[target] = [round(100 * s1, 1), round(100 * s3, 1)]
            print(target, "K", k, [c.config for c, _ in top], round(100 * s1, 1), round(100 * s3, 1), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
