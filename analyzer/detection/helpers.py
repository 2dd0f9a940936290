"""Small helpers for detector authors: building findings and task alignment per step."""

from __future__ import annotations

import math
from collections.abc import Sequence

from analyzer.detection.text import content_words, quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.taxonomy import Category


def make_finding(
    trajectory: Trajectory,
    step: int,
    category: Category,
    score: float,
    source: str,
    rationale: str,
    *,
    evidence: tuple[int, int] | None = None,
    evidence_quote: str | None = None,
) -> Finding:
    """A finding on ``step`` of ``trajectory``, with the step's agent and a clipped score.

    Args:
        trajectory: The run.
        step: Step index the finding points at.
        category: Taxonomy category.
        score: Strength, clipped to 0-1.
        source: Detector id.
        rationale: Why the detector fired, in plain words.
        evidence: First and last step of the evidence span (default: the step itself).
        evidence_quote: Quoted evidence (default: the start of the step's text).
    """
    st = trajectory.steps[step]
    lo, hi = evidence if evidence is not None else (step, step)
    return Finding(
        trace_id=trajectory.id,
        step=step,
        agent=st.agent or str(st.role),
        category=category,
        score=round(min(1.0, max(0.0, float(score))), 4),
        evidence_start=lo,
        evidence_end=hi,
        evidence_quote=evidence_quote if evidence_quote is not None else quote(st.text),
        rationale=rationale,
        source=source,
    )


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na > 0 and nb > 0 else 0.0


def lexical_alignment(task: str, text: str) -> float:
    """Set-cosine of content words of the task and a text (0-1)."""
    tw, sw = content_words(task), content_words(text)
    if not tw or not sw:
        return 0.0
    return len(tw & sw) / math.sqrt(len(tw) * len(sw))


def step_alignment(trajectory: Trajectory, ctx: DetectionContext) -> tuple[list[float], bool]:
    """Alignment of every step with the task.

    Uses the embeddings in ``ctx`` (cosine) when both the task and every step have one,
    else the lexical set-cosine (the ``lexical_alignment`` column of the run's step-signal table
    when ``ctx`` carries one, :mod:`analyzer.signals.steps`).

    Returns:
        ``(values, from_embeddings)``.
    """
    n = len(trajectory.steps)
    emb, task_emb = ctx.step_embeddings, ctx.task_embedding
    if emb is not None and task_emb is not None and len(emb) == n:
        return [_cosine(e, task_emb) for e in emb], True
    table = ctx.step_table
    if table is not None and table.height == n and "lexical_alignment" in table.columns:
        return [float(v) for v in table.get_column("lexical_alignment").to_list()], False
    return [lexical_alignment(trajectory.task, s.text) for s in trajectory.steps], False
