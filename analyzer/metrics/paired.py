"""Paired comparison of two models on the tasks both attempted (McNemar's exact test)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from analyzer.metrics.stats import mcnemar_exact

TASK_KEYS = ("native_id", "task")


@dataclass(frozen=True)
class PairedComparison:
    """Outcome of comparing two models task by task.

    Attributes:
        model_a: First model.
        model_b: Second model.
        key: Column that identified a task (``native_id`` or ``task``).
        shared: Tasks with a known outcome for both models.
        both: Tasks both models passed.
        only_a: Tasks only A passed.
        only_b: Tasks only B passed.
        neither: Tasks neither passed.
        p_value: Two-sided exact McNemar p-value (1.0 with no discordant task).
        repeated: Tasks attempted more than once by a model (majority vote used, ties fail).
    """

    model_a: str
    model_b: str
    key: str
    shared: int
    both: int
    only_a: int
    only_b: int
    neither: int
    p_value: float
    repeated: int = 0

    @property
    def pass_rate_a(self) -> float | None:
        """A's pass rate on the shared tasks."""
        return (self.both + self.only_a) / self.shared if self.shared else None

    @property
    def pass_rate_b(self) -> float | None:
        """B's pass rate on the shared tasks."""
        return (self.both + self.only_b) / self.shared if self.shared else None


def _per_task(traces: pl.DataFrame, model: str, key: str) -> tuple[dict[str, bool], int]:
    rows = traces.filter((pl.col("model") == model) & pl.col("outcome").is_in(["success", "failure"])
                         & pl.col(key).is_not_null() & (pl.col(key).str.strip_chars() != ""))
    agg = rows.group_by(key).agg(
        (pl.col("outcome") == "success").sum().alias("wins"), pl.len().alias("n"))
    out = {str(r[0]): 2 * int(r[1]) > int(r[2]) for r in agg.iter_rows()}
    return out, int((agg["n"] > 1).sum()) if agg.height else 0


def paired_comparison(traces: pl.DataFrame, model_a: str, model_b: str,
                      key: str | None = None) -> PairedComparison:
    """Compare two models on the tasks both attempted.

    A task is identified by ``native_id`` (the framework's task/run id); when no
    ``native_id`` is shared by both models, the task text is used instead. Only runs with a
    known outcome count. A task attempted several times by one model counts as passed when
    most attempts passed.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        model_a: First model name.
        model_b: Second model name.
        key: Force the task key (``native_id`` or ``task``).

    Returns:
        The 2x2 table and McNemar's exact p-value.

    Raises:
        ValueError: For an unknown key or identical models.
    """
    if key is not None and key not in TASK_KEYS:
        raise ValueError(f"key must be one of {TASK_KEYS}, got {key!r}")
    if model_a == model_b:
        raise ValueError("compare two different models")
    chosen = key or TASK_KEYS[0]
    a, rep_a = _per_task(traces, model_a, chosen)
    b, rep_b = _per_task(traces, model_b, chosen)
    if key is None and not (a.keys() & b.keys()):
        chosen = TASK_KEYS[1]
        a, rep_a = _per_task(traces, model_a, chosen)
        b, rep_b = _per_task(traces, model_b, chosen)
    shared = sorted(a.keys() & b.keys())
    both = sum(1 for t in shared if a[t] and b[t])
    only_a = sum(1 for t in shared if a[t] and not b[t])
    only_b = sum(1 for t in shared if b[t] and not a[t])
    return PairedComparison(
        model_a=model_a, model_b=model_b, key=chosen, shared=len(shared), both=both, only_a=only_a,
        only_b=only_b, neither=len(shared) - both - only_a - only_b,
        p_value=mcnemar_exact(only_a, only_b), repeated=rep_a + rep_b,
    )
