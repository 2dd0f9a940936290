"""Embedding benchmark: steps/s of the real embedder, cold (computing) and cached (from disk).

Generates ``--steps`` synthetic step texts (20-120 words, like tool calls, thoughts and
observations), embeds them with the packaged all-MiniLM-L6-v2 through the disk cache in a
fresh temporary cache folder (cold), then again with a new embedder instance on the same
cache (cached: no model load, no model call), and prints steps/s for both plus the model
load time. The hashing fake is shown for reference.

Usage: ``python bench/embed_bench.py [--steps 2000] [--batch 64]``
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from analyzer.embedding import (
    CachedEmbedder,
    EmbeddingCache,
    HashingEmbedder,
    SentenceTransformerEmbedder,
)

_WORDS = ("the", "file", "config", "error", "retry", "value", "column", "table", "request", "latency",
          "agent", "tool", "result", "check", "output", "parse", "python", "bash", "grep", "sort", "count",
          "failed", "passed", "import", "module", "test", "schema", "index", "line", "step", "run", "task",
          "model", "answer", "because", "then", "next", "should", "could", "population", "city", "search")


def step_texts(n: int, seed: int = 3) -> list[str]:
    """``n`` distinct synthetic step texts."""
    rng = random.Random(seed)
    return [f"[{i}] " + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 120))) for i in range(n)]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = step_texts(args.steps)
    print(f"embedding benchmark: {len(texts)} steps, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "emb.sqlite"
        inner = SentenceTransformerEmbedder(batch_size=args.batch)
        t0 = time.perf_counter()
        inner.embed(["warm-up"])
        load_s = time.perf_counter() - t0
        cold = CachedEmbedder(inner, EmbeddingCache(store))
        t0 = time.perf_counter()
        v1 = cold.embed(texts)
        cold_s = time.perf_counter() - t0
        warm = CachedEmbedder(SentenceTransformerEmbedder(batch_size=args.batch), EmbeddingCache(store))
        t0 = time.perf_counter()
        v2 = warm.embed(texts)
        warm_s = time.perf_counter() - t0
        assert warm.misses == 0 and np.array_equal(v1, v2)
        fake = HashingEmbedder()
        t0 = time.perf_counter()
        fake.embed(texts)
        fake_s = time.perf_counter() - t0
    print(f"model load (first call): {load_s:.2f} s")
    print(f"{'':28}{'seconds':>9}{'steps/s':>10}")
    print(f"{'MiniLM cold (compute+store)':28}{cold_s:>9.2f}{len(texts) / cold_s:>10.0f}")
    print(f"{'MiniLM cached (from disk)':28}{warm_s:>9.2f}{len(texts) / warm_s:>10.0f}")
    print(f"{'hashing fake (reference)':28}{fake_s:>9.2f}{len(texts) / fake_s:>10.0f}")
    print(f"cached / cold speed-up: {cold_s / warm_s:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
