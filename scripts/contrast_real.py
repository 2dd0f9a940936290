"""Contrast figures on the real multi-trial sample (``sample_reruns/real_tau_bench/``).

Prints, for the failed runs whose task also succeeded: the share with a divergence and the share
whose divergence lies within two messages of the first tool call that departs from the task's
expected actions (``analyzer.contrast.evaluate.expected_action_scores``), with Wilson 95 %
intervals, and one line per run.

    PYTHONPATH=$PWD .venv/bin/python scripts/contrast_real.py [files or folders]
"""

from __future__ import annotations

import sys
from pathlib import Path

from analyzer.contrast.corpus import contrast_corpus
from analyzer.contrast.evaluate import Scores, expected_action_scores
from analyzer.evaluation.scoring import wilson
from analyzer.loading.loader import load

DEFAULT = Path(__file__).resolve().parents[1] / "sample_reruns" / "real_tau_bench"


def main(argv: list[str]) -> int:
    """Print the figures for ``argv`` (default: the committed real sample)."""
    paths = [Path(a) for a in argv] or [DEFAULT]
    res = load(paths, cache=None)
    for err in res.errors:
        print("load problem:", err)
    out = contrast_corpus(res.traces, res.steps)
    checks = expected_action_scores(res.traces, res.steps, out.runs)
    counts = Scores.of(checks)
    print(f"runs {res.traces.height}, failed runs whose task also succeeded {out.runs.height}, "
          f"with expected actions {counts.runs}")
    for what in ("given", "near", "exact"):
        k = getattr(counts, what)
        p, lo, hi = wilson(k, counts.runs)
        print(f"{what:>5}: {k} / {counts.runs} = {p:.0%} (Wilson 95 % {lo:.0%}-{hi:.0%})")
    kinds = dict(out.runs.select("trace_id", "divergence_kind").iter_rows())
    for c in sorted(checks, key=lambda c: c.trace_id):
        print(f"  {c.trace_id}: departs at message {c.truth} ({c.kind}), divergence at {c.found} "
              f"({kinds.get(c.trace_id)}), near={c.near}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
