"""Share of failed runs in insights of two or more runs, on the samples and the real files.

Run: ``HF_HUB_OFFLINE=1 python bench/insights_grouping.py`` (``--hashing`` for the hashing
embedder instead of the app's MiniLM). For each corpus: load -> analyze (no judge, the embedder
the app uses) -> insights with the shipped ``InsightParams`` (as the Insights tab and
``trajscope analyze`` compute them), then prints the failed runs clustered, the groups of two or
more, the runs not grouped and the share of failed runs in groups. Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPORA = {
    "sample_traces/": [ROOT / "sample_traces"],
    "tests/data/real/": [ROOT / "tests" / "data" / "real"],
    "tests/data/real_agents/": [ROOT / "tests" / "data" / "real_agents"],
    "real + real_agents (one mixed folder)": [ROOT / "tests" / "data" / "real", ROOT / "tests" / "data" / "real_agents"],
}


def main() -> None:
    """Print one line per corpus."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hashing", action="store_true", help="hashing embedder instead of MiniLM")
    args = ap.parse_args()
    from analyzer.embedding import HashingEmbedder, load_embedder
    from analyzer.insights import compute_insights
    from analyzer.loading import load
    from analyzer.pipeline import analyze

    embedder = HashingEmbedder() if args.hashing else load_embedder()
    print(f"embedder: {getattr(embedder, 'model_id', type(embedder).__name__)}")
    print("| corpus | runs | failed runs clustered | groups (≥ 2 runs) | not grouped | share in groups |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, paths in CORPORA.items():
        res = load(paths, cache=None)
        result = analyze(res.traces, res.steps, judge=None, embedder=embedder)
        iset = compute_insights(result.runs, res.traces, res.steps, embedder, result.findings)
        share = iset.grouped_share
        print(f"| {name} | {res.traces.height} | {iset.failures.height} | {len(iset.groups)} "
              f"(sizes {', '.join(str(i.size) for i in iset.groups) or '–'}) | {len(iset.ungrouped)} | "
              f"{'–' if share is None else f'{share:.0%}'} |")


if __name__ == "__main__":
    main()
