"""Group the decisive failures of a corpus into insights (similar failures across runs).

Method (no fixed number of clusters):

1. :func:`failure_table` takes every failed run with a decisive step and collects its taxonomy
   category, the decisive step's text plus its evidence (quotes of findings on that step and the
   run's rationale, clipped), and the tool or action involved (the step's tool, else the next
   step's tool, else the step kind).
   The evidence without what repeats the step (:func:`new_evidence`: the step's own quotes
   emptied, step numbers and probabilities masked) is what gets embedded beside the step.
2. :func:`cluster_failures` embeds the texts and appends a one-hot of the tool, weighted by
   :attr:`InsightParams.tool_weight`. Runs are blocked by category (an insight has one category),
   and each block is clustered by average-linkage agglomerative clustering on Euclidean distance
   with a distance threshold (scikit-learn ``AgglomerativeClustering(distance_threshold=...)``).
   For unit vectors ``d^2 = 2(1 - cos) + 2 w^2 [tools differ]``. Blocks larger than
   :attr:`InsightParams.max_direct` are clustered by rounds (:func:`cluster_block`): a sample
   is clustered directly and the other rows join its clusters by the same average-linkage rule,
   so 10,000 runs stay fast and memory stays small (no pairwise matrix of the whole block).
3. :class:`analyzer.insights.model.InsightSet` summarises each cluster.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from analyzer.embedding.base import Embedder
from analyzer.jobs import Cancelled, CancelToken, NeverCancel, Progress, no_progress
from analyzer.metrics.model_names import model_group

FAILURE_COLUMNS = ("trace_id", "model", "raw_model", "category", "decisive_step", "n_steps", "rel_position", "tool",
                   "text", "task", "step_text", "evidence", "new_evidence")
"""Columns of :func:`failure_table`."""

UNCATEGORISED = "other"

EMBED_CHARS = 1500
"""Step and task texts are embedded clipped exactly as the analysis clips them
(``analyzer.pipeline.EMBED_CHARS``), so a cached embedder serves the analysis' vectors again."""


@dataclass(frozen=True)
class InsightParams:
    """Knobs of the clustering (documented in ``docs/insights.md``).

    Attributes:
        distance_threshold: Average-linkage distance above which clusters are not merged.
        tool_weight: Weight of the tool one-hot against the unit text embedding.
        step_chars: Characters of the decisive step's text kept for naming.
        evidence_chars: Characters of evidence (finding quotes, rationale) that are embedded and named from.
        evidence_weight: Weight of the evidence embedding added to the step embedding.
        max_direct: Largest block clustered directly; larger ones are clustered by rounds of a
            sample this large (see :func:`cluster_block`).
        remove_task: Project the embedding of the run's task out of the step embedding (and leave
            the task's words out of the names), so runs group by how they failed, not by which
            task they worked on (the same task run by several models would otherwise cluster).
        task_chars: Characters of the task statement that are embedded.
    """

    distance_threshold: float = 1.15
    tool_weight: float = 0.5
    step_chars: int = 600
    evidence_chars: int = 300
    evidence_weight: float = 0.5
    max_direct: int = 2500
    remove_task: bool = True
    task_chars: int = EMBED_CHARS


def _clip(text: object, limit: int) -> str:
    s = "" if text is None else str(text)
    return s[:limit]


UNKNOWN_MODEL = "unknown"
"""Model group of runs whose trace names no model."""


def model_column(raw: pl.Series, aliases: Mapping[str, str] | None = None) -> pl.Series:
    """The ``model`` column of :func:`failure_table`: each raw name's group, as the Compare tab groups.

    Provider prefixes are removed and the workspace's alias table is applied
    (:func:`analyzer.metrics.model_names.model_group`); a missing name is ``unknown``.
    """
    names = raw.cast(pl.Utf8).fill_null(UNKNOWN_MODEL).to_list()
    groups = {n: model_group(n, aliases) for n in set(names)}
    return pl.Series("model", [groups[n] for n in names], dtype=pl.Utf8)


def failure_table(runs: pl.DataFrame, traces: pl.DataFrame, steps: pl.DataFrame,
                  findings: pl.DataFrame | None = None, params: InsightParams | None = None,
                  aliases: Mapping[str, str] | None = None) -> pl.DataFrame:
    """One row per failed run with a decisive step: what the clustering looks at.

    Args:
        runs: Run attributions with ``trace_id``, ``decisive_step``, ``category`` and optionally
            ``rationale`` (the analysis result's runs frame, or ``traces.csv``'s effective labels).
        traces: Traces frame (``trace_id``, ``model``, ``n_steps``, ``outcome``).
        steps: Steps frame (``trace_id``, ``step``, ``text``, ``tool_name``, ``kind``).
        findings: Findings frame (``trace_id``, ``step``, ``evidence_quote``), or None.
        params: Text limits.
        aliases: The workspace's model alias table (name -> group), or None: ``model`` is the
            group of ``raw_model`` (provider prefixes removed, aliases applied).

    Returns:
        Frame with :data:`FAILURE_COLUMNS`, in the order of ``runs``. Only runs whose outcome is
        ``failure`` (or unknown to the traces frame, null) are kept.
    """
    p = params or InsightParams()
    cols = ["trace_id", "decisive_step", "category"] + (["rationale"] if "rationale" in runs.columns else [])
    missing = [c for c in ("trace_id", "decisive_step", "category") if c not in runs.columns]
    if missing:
        raise ValueError(f"runs frame lacks column(s) {missing}")
    base = (runs.select(cols).unique("trace_id", keep="last", maintain_order=True)
            .filter(pl.col("decisive_step").is_not_null()))
    tcols = [c for c in ("trace_id", "model", "n_steps", "outcome", "task") if c in traces.columns]
    base = base.join(traces.select(tcols).unique("trace_id", keep="last"), on="trace_id", how="left",
                     maintain_order="left")
    if "outcome" in base.columns:  # failed runs (a corpus without outcomes counts every attributed run)
        base = base.filter(pl.col("outcome").is_null() | (pl.col("outcome") == "failure"))
    st = steps.select("trace_id", "step", "text", "tool_name", "kind")
    at = st.rename({"text": "_text", "tool_name": "_tool", "kind": "_kind"})
    nxt = st.select("trace_id", (pl.col("step") - 1).alias("step"), pl.col("tool_name").alias("_next_tool"))
    base = (base.join(at, left_on=["trace_id", "decisive_step"], right_on=["trace_id", "step"], how="left",
                      maintain_order="left")
            .join(nxt, left_on=["trace_id", "decisive_step"], right_on=["trace_id", "step"], how="left",
                  maintain_order="left"))
    if findings is not None and findings.height and "evidence_quote" in findings.columns:
        quotes = (findings.filter(pl.col("evidence_quote").is_not_null())
                  .group_by(["trace_id", "step"], maintain_order=True)
                  .agg(pl.col("evidence_quote").str.join(" ").alias("_quotes"),
                       pl.col("evidence_quote").alias("_quote_list")))
        base = base.join(quotes, left_on=["trace_id", "decisive_step"], right_on=["trace_id", "step"], how="left",
                         maintain_order="left")
    else:
        base = base.with_columns(pl.lit(None, pl.Utf8).alias("_quotes"),
                                 pl.lit(None, pl.List(pl.Utf8)).alias("_quote_list"))
    if "rationale" not in base.columns:
        base = base.with_columns(pl.lit(None, pl.Utf8).alias("rationale"))
    for c, dtype in (("model", pl.Utf8), ("n_steps", pl.Int64), ("task", pl.Utf8)):
        if c not in base.columns:
            base = base.with_columns(pl.lit(None, dtype).alias(c))
    evidence = pl.concat_str([pl.col("_quotes").fill_null(""), pl.col("rationale").fill_null("")], separator=" ")
    fresh = [new_evidence(step, quotes, rationale)[:p.evidence_chars] for step, quotes, rationale in
             zip(base["_text"].to_list(), base["_quote_list"].to_list(), base["rationale"].to_list(), strict=True)]
    base = base.with_columns(pl.Series("_new_evidence", fresh, dtype=pl.Utf8),
                             model_column(base["model"], aliases).alias("_group"))
    return base.select(
        pl.col("trace_id").cast(pl.Utf8),
        pl.col("_group").alias("model"),
        pl.col("model").cast(pl.Utf8).alias("raw_model"),
        pl.col("category").cast(pl.Utf8).fill_null(UNCATEGORISED),
        pl.col("decisive_step").cast(pl.Int64),
        pl.col("n_steps").cast(pl.Int64),
        (pl.col("decisive_step") / pl.max_horizontal(pl.col("n_steps").fill_null(1) - 1, pl.lit(1)))
        .clip(0.0, 1.0).cast(pl.Float64).alias("rel_position"),
        pl.coalesce(pl.col("_tool"), pl.col("_next_tool"), pl.col("_kind"), pl.lit("step")).cast(pl.Utf8).alias("tool"),
        pl.concat_str([pl.col("_text").fill_null("").str.slice(0, p.step_chars),
                       evidence.str.slice(0, p.evidence_chars)], separator="\n").alias("text"),
        pl.col("task").cast(pl.Utf8).fill_null("").str.slice(0, p.task_chars).alias("task"),
        pl.col("_text").cast(pl.Utf8).fill_null("").str.slice(0, EMBED_CHARS).alias("step_text"),
        evidence.str.strip_chars().str.slice(0, p.evidence_chars).alias("evidence"),
        pl.col("_new_evidence").alias("new_evidence"),
    )


_QUOTED = re.compile(r"“([^”]*)”|\"([^\"]*)\"")
_CLIP = re.compile(r"…|\.\.\.")
_DIGITS = re.compile(r"\d+")


def _squash(text: str) -> str:
    return " ".join(text.split())


def _is_from(quote: str, step: str) -> bool:
    """True when every clipped piece of ``quote`` occurs verbatim (whitespace aside) in ``step``."""
    pieces = [q.strip() for q in _CLIP.split(_squash(quote)) if q.strip()]
    return bool(pieces) and all(q in step for q in pieces)


def new_evidence(step_text: str | None, finding_quotes: Sequence[str] | None, rationale: str | None) -> str:
    """The evidence without what repeats the decisive step: what gets embedded beside the step.

    The findings' quotes that are not cut from the decisive step, then the rationale with its
    quoted spans (“…” or "…") of the decisive step emptied and the digits outside quotes
    masked (step numbers, probabilities). What is left is the rationale's wording (the same for
    many runs, so it is embedded once) and its quotes of other text (an error output, an earlier
    step), which is what the evidence adds to the step's own text.

    Args:
        step_text: The decisive step's full text.
        finding_quotes: Evidence quotes of the findings on the decisive step.
        rationale: The run's rationale.
    """
    step = _squash(step_text or "")
    out = [_squash(q) for q in dict.fromkeys(finding_quotes or ()) if q and q.strip() and not _is_from(q, step)]
    text = rationale or ""
    parts: list[str] = []
    last = 0
    for m in _QUOTED.finditer(text):
        parts.append(_DIGITS.sub("#", text[last:m.start()]))
        q = m.group(1) if m.group(1) is not None else m.group(2)
        parts.append('""' if _is_from(q, step) else m.group(0))
        last = m.end()
    parts.append(_DIGITS.sub("#", text[last:]))
    out.append(_squash("".join(parts)))
    return " ".join(o for o in out if o)


def feature_matrix(failures: pl.DataFrame, embedder: Embedder, params: InsightParams | None = None,
                   ) -> npt.NDArray[np.float32]:
    """Text embedding plus weighted tool one-hot, one row per failure.

    The text embedding is ``normalize(step + evidence_weight * new_evidence)``, with the task's
    direction projected out when ``remove_task``. Each distinct text is embedded once; the step
    and task texts are clipped as the analysis clips them, so a cached embedder serves its
    vectors again, and ``new_evidence`` repeats across runs far more than the whole evidence.
    """
    p = params or InsightParams()
    texts = failures["step_text"].fill_null("").to_list()
    emb = _embed_unique(embedder, texts)
    if p.evidence_weight:
        emb = emb + p.evidence_weight * _embed_unique(embedder, failures["new_evidence"].fill_null("").to_list())
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


def _unit(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(x / norms, dtype=np.float32)


def _embed_unique(embedder: Embedder, texts: list[str]) -> npt.NDArray[np.float32]:
    """Embeddings of ``texts`` (each distinct non-blank text once; blank texts get zero rows)."""
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    unique = sorted({t for t in texts if t.strip()})
    if not unique:
        return out
    vecs = np.asarray(embedder.embed(unique), dtype=np.float32)
    index = {t: i for i, t in enumerate(unique)}
    rows = [r for r, t in enumerate(texts) if t.strip()]
    out[rows] = vecs[[index[texts[r]] for r in rows]]
    return out


def _agglomerate(x: npt.NDArray[np.float32], threshold: float) -> npt.NDArray[np.int64]:
    from sklearn.cluster import AgglomerativeClustering

    if len(x) < 2:
        return np.zeros(len(x), dtype=np.int64)
    model = AgglomerativeClustering(n_clusters=None, distance_threshold=threshold, linkage="average",
                                    metric="euclidean")
    return np.asarray(model.fit_predict(x), dtype=np.int64)


def cluster_block(x: npt.NDArray[np.float32], params: InsightParams | None = None, seed: int = 0,
                  ) -> npt.NDArray[np.int64]:
    """Cluster labels (0..k-1) of one block of feature rows.

    Blocks up to ``params.max_direct`` rows are clustered directly. Larger ones are clustered
    by rounds, so time and memory grow linearly with the block: a random sample of
    ``max_direct`` rows is clustered directly, every other row joins the sample cluster whose
    average distance to it is smallest when that distance is within the threshold (the
    average-linkage merge rule, for one row against a cluster), and the rows left over go to
    the next round; the last few are clustered directly.
    """
    p = params or InsightParams()
    n = len(x)
    if n <= p.max_direct:
        return _agglomerate(x, p.distance_threshold)
    rng = np.random.default_rng(seed)
    labels = np.full(n, -1, dtype=np.int64)
    rest = np.arange(n)
    offset = 0
    while len(rest) > p.max_direct:
        pick = np.zeros(len(rest), dtype=bool)
        pick[rng.choice(len(rest), p.max_direct, replace=False)] = True
        sample, others = rest[pick], rest[~pick]
        lab = _agglomerate(x[sample], p.distance_threshold)
        labels[sample] = lab + offset
        best, dist = _nearest_cluster(x[others], x[sample], lab)
        joined = dist <= p.distance_threshold
        labels[others[joined]] = best[joined] + offset
        offset += int(lab.max()) + 1
        rest = others[~joined]
    if len(rest):
        labels[rest] = _agglomerate(x[rest], p.distance_threshold) + offset
    _, dense = np.unique(labels, return_inverse=True)
    return np.asarray(dense, dtype=np.int64)


def _nearest_cluster(rows: npt.NDArray[np.float32], members: npt.NDArray[np.float32],
                     labels: npt.NDArray[np.int64], chunk: int = 1024,
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Per row, the cluster of ``members`` with the smallest average Euclidean distance, and that distance."""
    k = int(labels.max()) + 1
    onehot = np.zeros((len(members), k), dtype=np.float64)
    onehot[np.arange(len(members)), labels] = 1.0
    onehot /= onehot.sum(axis=0, keepdims=True)
    m = members.astype(np.float64)
    m_sq = np.einsum("ij,ij->i", m, m)
    best = np.zeros(len(rows), dtype=np.int64)
    dist = np.zeros(len(rows), dtype=np.float64)
    for i in range(0, len(rows), chunk):
        r = rows[i:i + chunk].astype(np.float64)
        d2 = np.einsum("ij,ij->i", r, r)[:, None] + m_sq[None, :] - 2.0 * (r @ m.T)
        mean = np.sqrt(np.maximum(d2, 0.0)) @ onehot
        best[i:i + chunk] = np.argmin(mean, axis=1)
        dist[i:i + chunk] = mean[np.arange(len(r)), best[i:i + chunk]]
    return best, dist


def insight_id(category: str, members: Sequence[str]) -> str:
    """Stable id of a group of runs: ``ins-`` plus a hash of its category and sorted member ids."""
    h = hashlib.blake2b(digest_size=5)
    h.update(category.encode("utf-8", "surrogatepass"))
    for m in sorted(members):
        h.update(b"\x00" + m.encode("utf-8", "surrogatepass"))
    return "ins-" + h.hexdigest()


def cluster_failures(failures: pl.DataFrame, features: npt.NDArray[np.float32],
                     params: InsightParams | None = None, progress: Progress = no_progress,
                     cancel: CancelToken | None = None) -> list[str]:
    """Insight id of every failure row (clusters within each category block).

    Args:
        failures: :func:`failure_table` output.
        features: :func:`feature_matrix` rows of the same failures.
        params: Clustering knobs.
        progress: Called once per category block.
        cancel: Checked between blocks.

    Returns:
        One insight id per row of ``failures``.

    Raises:
        Cancelled: When ``cancel`` asks to stop.
    """
    if len(features) != failures.height:
        raise ValueError(f"{len(features)} feature rows for {failures.height} failures")
    token = cancel or NeverCancel()
    ids = failures["trace_id"].to_list()
    cats = failures["category"].to_list()
    out: list[str] = [""] * len(ids)
    blocks: dict[str, list[int]] = {}
    for i, c in enumerate(cats):
        blocks.setdefault(c, []).append(i)
    for done, (cat, rows) in enumerate(sorted(blocks.items())):
        if token.cancelled:
            raise Cancelled()
        progress(done, len(blocks), cat)
        labels = cluster_block(features[rows], params)
        groups: dict[int, list[int]] = {}
        for r, lab in zip(rows, labels.tolist(), strict=True):
            groups.setdefault(int(lab), []).append(r)
        for members in groups.values():
            iid = insight_id(cat, [ids[r] for r in members])
            for r in members:
                out[r] = iid
    progress(len(blocks), len(blocks), "done")
    return out


def split_labels(features: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """Two-way split of one insight's members (average linkage, two clusters)."""
    from sklearn.cluster import AgglomerativeClustering

    if len(features) < 2:
        raise ValueError("an insight with fewer than two runs cannot be split")
    model = AgglomerativeClustering(n_clusters=2, linkage="average", metric="euclidean")
    return np.asarray(model.fit_predict(features), dtype=np.int64)
