"""Failure-insights benchmark: planted recovery, AgentErrorBench GAIA purity, and 10,000-run timing.

Run: ``HF_HUB_OFFLINE=1 python bench/insights_bench.py`` (``--skip-gaia``, ``--skip-timing``,
``--n 10000``, ``--no-minilm``, ``--skip-cold``, ``--baseline``). Prints figures; nothing is
asserted (tests assert quality on the planted corpus, never times). ``--baseline`` also runs the
computation as it was before the speed-up (``bench/insights_baseline.py``) on the same inputs in
the same run and prints the ratio and both ARIs (the machine is shared: compare within a run).

1. Planted corpus (``tests/analyzer/planted_insights.py``, 200 runs, 4 patterns, 3 models):
   adjusted Rand index of the insights against the patterns, hashing and MiniLM embedders.
2. AgentErrorBench GAIA development set (49 runs, read in place from
   ``/work/shared/datasets/agenterrorbench_gaia``): purity of the insights against the labelled
   ``critical_failure_module``. Two settings:
   - *gold steps*: the labelled decisive step (k-th assistant message) is the decisive step and
     every run gets the same category, so only the step text, evidence and tool group them
     (measures the clustering itself), with the task embedding kept and projected out;
   - *pipeline*: the cheap analysis (no judge, MiniLM) chooses the decisive step and the
     category, then insights group them (what the app shows).
   Purity rises with the number of clusters (singletons are pure), so the number of insights,
   the purity of random clusters of the same sizes, the majority-module baseline and the
   adjusted Rand index are printed beside it.
3. Timing: insight computation (failure table, features, clustering, summaries) on 10,000
   synthetic planted runs, without the judge; with the hashing embedder (clustering cost), with
   MiniLM and nothing cached (every text embedded; the model load itself is not timed), and with
   MiniLM after the analysis (its cached decisive-step and task vectors reused, as in the app).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "analyzer"))

from planted_insights import planted_corpus  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

from analyzer.embedding import HashingEmbedder, load_embedder  # noqa: E402
from analyzer.insights import InsightParams, InsightSet, compute_insights  # noqa: E402

GAIA = Path("/work/shared/datasets/agenterrorbench_gaia")


def purity(labels: list[str], truth: list[str]) -> float:
    """Share of runs whose cluster's majority truth label is their own."""
    groups: dict[str, Counter[str]] = {}
    for lab, t in zip(labels, truth, strict=True):
        groups.setdefault(lab, Counter())[t] += 1
    return sum(c.most_common(1)[0][1] for c in groups.values()) / max(len(truth), 1)


def planted(minilm: bool, baseline: bool) -> None:
    import insights_baseline

    c = planted_corpus(200, seed=0)
    embedders = [("hashing", HashingEmbedder())] + ([("minilm", load_embedder(cache=False))] if minilm else [])
    paths = [("", compute_insights)] + ([(" (baseline)", insights_baseline.compute_insights)] if baseline else [])
    for name, emb in embedders:
        for suffix, compute in paths:
            iset = compute(c.runs, c.traces, c.steps, emb)
            ids = iset.failures["trace_id"].to_list()
            ari = adjusted_rand_score([c.pattern[i] for i in ids], iset.labels)
            print(f"planted 200 runs, {name + suffix:19s}: {len(iset)} insights, ARI {ari:.3f}  "
                  f"sizes {[i.size for i in iset.insights]}")


_TOOL = re.compile(r"<action>\s*tool:\s*([\w.-]+)", re.IGNORECASE)


def load_gaia() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, tuple[int, str]]]:
    """GAIA runs (imported with the app's loader) and, per trace id, (decisive step, module).

    The generic chat importer keeps neither ``metadata.model`` nor ``metadata.won`` nor the tool
    named in an ``<action>`` block, so this small reader adds them (every run of the set failed).
    """
    from analyzer.loading import load

    files = sorted(glob.glob(str(GAIA / "GAIA" / "*.json")))
    res = load(files)
    if res.errors:
        print(f"  load problems: {[str(e) for e in res.errors]}")
    models = {}
    for f in files:
        meta = json.loads(Path(f).read_text(encoding="utf-8")).get("metadata") or {}
        models[f] = str(meta.get("model") or Path(f).stem.split("_")[0])
    traces = res.traces.with_columns(
        pl.lit("failure").alias("outcome"),
        pl.col("source_file").replace_strict(models, default=None).alias("model"))
    steps = res.steps.with_columns(
        pl.coalesce(pl.col("tool_name"), pl.col("text").str.extract(_TOOL.pattern, 1)).alias("tool_name"))
    labels = {d["trajectory_id"]: d for d in json.loads((GAIA / "gaia_labels.json").read_text(encoding="utf-8"))}
    gold: dict[str, tuple[int, str]] = {}
    for t in traces.iter_rows(named=True):
        stem = Path(str(t["source_file"])).stem
        lab = labels.get(stem)
        if lab is None:
            continue
        assistant = (steps.filter((pl.col("trace_id") == t["trace_id"]) & (pl.col("role") == "assistant"))
                     .sort("step")["step"].to_list())
        k = int(lab["critical_failure_step"])
        if 1 <= k <= len(assistant):
            gold[str(t["trace_id"])] = (int(assistant[k - 1]), str(lab["critical_failure_module"]).strip().casefold())
    return traces, steps, gold


def _report(name: str, iset: InsightSet, gold: dict[str, tuple[int, str]], seconds: float) -> None:
    ids = iset.failures["trace_id"].to_list()
    keep = [i for i, t in enumerate(ids) if t in gold]
    labels = [iset.labels[i] for i in keep]
    truth = [gold[ids[i]][1] for i in keep]
    base = Counter(truth).most_common(1)[0][1] / len(truth)
    rng = random.Random(0)
    shuffled = []
    for _ in range(500):  # the same cluster sizes, members drawn at random: what purity chance gives
        perm = list(truth)
        rng.shuffle(perm)
        shuffled.append(purity(labels, perm))
    chance = sum(shuffled) / len(shuffled)
    print(f"GAIA {name}: {len(truth)} runs, {len(set(labels))} insights, purity {purity(labels, truth):.3f} "
          f"(random clusters of the same sizes: {chance:.3f}; one cluster: {base:.3f}), "
          f"ARI {adjusted_rand_score(truth, labels):.3f}, {seconds:.1f} s")
    for ins in iset.insights[:8]:
        mods = Counter(gold[m][1] for m in ins.members if m in gold)
        print(f"    {ins.size:3d}  {ins.name[:70]:70s} modules {dict(mods.most_common())}")


def gaia(baseline: bool) -> None:
    traces, steps, gold = load_gaia()
    print(f"GAIA: {traces.height} runs loaded, {len(gold)} with a usable label; modules "
          f"{dict(Counter(m for _, m in gold.values()).most_common())}")
    emb = load_embedder(cache=False)
    runs = pl.DataFrame({"trace_id": list(gold), "decisive_step": [s for s, _ in gold.values()],
                         "category": ["other"] * len(gold)})
    for remove_task in (False, True):
        t0 = time.perf_counter()
        iset = compute_insights(runs, traces, steps, emb, params=InsightParams(remove_task=remove_task))
        _report("gold steps" + (" (task projected out)" if remove_task else " (task kept)"), iset, gold,
                time.perf_counter() - t0)

    from analyzer.pipeline import analyze

    t0 = time.perf_counter()
    result = analyze(traces, steps, embedder=emb)
    t1 = time.perf_counter()
    iset = compute_insights(result.runs, traces, steps, emb, result.findings)
    print(f"  (cheap analysis of {traces.height} runs: {t1 - t0:.1f} s)")
    _report("pipeline", iset, gold, time.perf_counter() - t1)
    if baseline:
        import insights_baseline

        t1 = time.perf_counter()
        iset = insights_baseline.compute_insights(result.runs, traces, steps, emb, result.findings)
        _report("pipeline (baseline)", iset, gold, time.perf_counter() - t1)


def _timed(label: str, run: object, c: object) -> tuple[float, float]:
    t0 = time.perf_counter()
    iset = run()  # type: ignore[operator]
    dt = time.perf_counter() - t0
    ids = iset.failures["trace_id"].to_list()
    ari = adjusted_rand_score([c.pattern[i] for i in ids], iset.labels)  # type: ignore[attr-defined]
    print(f"  {label:34s}: {dt:6.1f} s for {iset.failures.height} runs -> {len(iset):3d} insights "
          f"(ARI {ari:.3f}); target <= 60 s: {'met' if dt <= 60 else 'NOT met'}", flush=True)
    return dt, ari


def timing(n: int, minilm: bool, baseline: bool, cold: bool) -> None:
    import shutil
    import tempfile

    import insights_baseline

    from analyzer.embedding import CachedEmbedder, EmbeddingCache
    from analyzer.insights.cluster import EMBED_CHARS

    t0 = time.perf_counter()
    c = planted_corpus(n, seed=7)
    print(f"timing: {n} synthetic failed runs, {c.steps.height} steps generated in {time.perf_counter() - t0:.1f} s; "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    embedders: list[tuple[str, object, object]] = [("hashing", HashingEmbedder(), HashingEmbedder())]
    if minilm:
        model = load_embedder(cache=False)
        model.embed(["load the model"])  # the model load is not timed (either path pays it once)
        if cold:
            embedders.append(("minilm cold", model, model))
        # in the app the analysis has embedded every step and task (same clip) into the cache
        tmp = Path(tempfile.mkdtemp(prefix="insights-bench-"))
        warm = CachedEmbedder(model, EmbeddingCache(tmp / "embeddings.sqlite"))
        decisive = c.runs.select("trace_id", "decisive_step").join(
            c.steps.select("trace_id", "step", "text"), left_on=["trace_id", "decisive_step"],
            right_on=["trace_id", "step"])
        t0 = time.perf_counter()
        warm.embed(sorted({str(t)[:EMBED_CHARS] for t in decisive["text"]} | {str(t)[:EMBED_CHARS] for t in c.traces["task"]}))
        print(f"  (warming the cache with the decisive steps and tasks, as the analysis does: {time.perf_counter() - t0:.1f} s)")
        warm.cache.close()
        shutil.copy(tmp / "embeddings.sqlite", tmp / "baseline.sqlite")  # each path gets the same warm cache
        embedders.append(("minilm after analysis",
                          CachedEmbedder(model, EmbeddingCache(tmp / "embeddings.sqlite")),
                          CachedEmbedder(model, EmbeddingCache(tmp / "baseline.sqlite"))))
    for name, emb, base_emb in embedders:
        new_s, new_ari = _timed(name, lambda e=emb: compute_insights(c.runs, c.traces, c.steps, e), c)
        if baseline:
            old_s, old_ari = _timed(name + " (baseline)", lambda e=base_emb: insights_baseline.compute_insights(
                c.runs, c.traces, c.steps, e), c)
            print(f"  {name}: baseline / new = {old_s / max(new_s, 1e-9):.1f}x faster; ARI {old_ari:.3f} -> {new_ari:.3f}; "
                  f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--skip-gaia", action="store_true")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--no-minilm", action="store_true")
    ap.add_argument("--baseline", action="store_true",
                    help="also run the pre-speed-up computation (bench/insights_baseline.py) and print the ratios")
    ap.add_argument("--skip-cold", action="store_true", help="time MiniLM only after the analysis (warm cache)")
    args = ap.parse_args()
    planted(not args.no_minilm, args.baseline)
    if not args.skip_gaia:
        if GAIA.is_dir():
            gaia(args.baseline)
        else:
            print(f"GAIA: {GAIA} not found; skipped")
    if not args.skip_timing:
        timing(args.n, not args.no_minilm, args.baseline, not args.skip_cold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
