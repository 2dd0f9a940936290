"""The insight computation as it was before the speed work, kept for ``insights_bench.py --baseline``.

Two things differ from :func:`analyzer.insights.compute_insights` (commit 0871af9):

- the whole evidence (finding quotes and the rationale, which mostly quote the decisive step
  again) is embedded beside the step, not only what it adds (``new_evidence``);
- blocks larger than ``max_direct`` are reduced to ``max_direct // 2`` MiniBatchKMeans
  micro-clusters (k-means++ initialisation, quadratic in practice) whose centres are clustered.

Everything else (failure table, clustering of small blocks, summaries) is the current code, so
the ratio printed by the bench measures these two changes only.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from analyzer.embedding.base import Embedder
from analyzer.insights import InsightParams, InsightSet, failure_table
from analyzer.insights.cluster import _agglomerate, _embed_unique, _unit, insight_id


def feature_matrix(failures: pl.DataFrame, embedder: Embedder, p: InsightParams) -> npt.NDArray[np.float32]:
    """The old features: ``normalize(step + w * evidence)`` (the whole evidence), tool one-hot."""
    texts = failures["step_text"].fill_null("").to_list()
    emb = _embed_unique(embedder, texts)
    if p.evidence_weight:
        emb = emb + p.evidence_weight * _embed_unique(embedder, failures["evidence"].fill_null("").to_list())
    tools = failures["tool"].fill_null("").to_list()
    vocab = {t: i for i, t in enumerate(sorted(set(tools)))}
    onehot = np.zeros((len(tools), max(len(vocab), 1)), dtype=np.float32)
    for row, t in enumerate(tools):
        onehot[row, vocab[t]] = p.tool_weight
    emb = _unit(emb)
    if p.remove_task and len(texts):
        task_emb = _embed_unique(embedder, failures["task"].fill_null("").to_list())
        emb = _unit(emb - np.sum(emb * task_emb, axis=1, keepdims=True) * task_emb)
    return np.ascontiguousarray(np.hstack([emb, onehot]), dtype=np.float32)


def cluster_block(x: npt.NDArray[np.float32], p: InsightParams, seed: int = 0) -> npt.NDArray[np.int64]:
    """The old large-block path: k-means micro-clusters, then their centres agglomerated."""
    if len(x) <= p.max_direct:
        return _agglomerate(x, p.distance_threshold)
    from sklearn.cluster import MiniBatchKMeans

    k = max(2, p.max_direct // 2)
    km = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=1, batch_size=2048)
    micro = np.asarray(km.fit_predict(x), dtype=np.int64)
    centres = np.asarray(km.cluster_centers_, dtype=np.float32)
    used = np.unique(micro)
    top = _agglomerate(centres[used], p.distance_threshold)
    lookup = np.zeros(k, dtype=np.int64)
    lookup[used] = top
    return lookup[micro]


def compute_insights(runs: pl.DataFrame, traces: pl.DataFrame, steps: pl.DataFrame, embedder: Embedder,
                     findings: pl.DataFrame | None = None, params: InsightParams | None = None) -> InsightSet:
    """The old :func:`analyzer.insights.compute_insights`."""
    p = params or InsightParams()
    failures = failure_table(runs, traces, steps, findings, p)
    features = feature_matrix(failures, embedder, p)
    ids = failures["trace_id"].to_list()
    out = [""] * len(ids)
    blocks: dict[str, list[int]] = {}
    for i, c in enumerate(failures["category"].to_list()):
        blocks.setdefault(c, []).append(i)
    for cat, rows in sorted(blocks.items()):
        groups: dict[int, list[int]] = {}
        for r, lab in zip(rows, cluster_block(features[rows], p).tolist(), strict=True):
            groups.setdefault(int(lab), []).append(r)
        for members in groups.values():
            iid = insight_id(cat, [ids[r] for r in members])
            for r in members:
                out[r] = iid
    return InsightSet(failures, features, out, {}, p, {})
