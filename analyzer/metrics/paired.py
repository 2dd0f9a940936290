"""Paired comparison of two models on the tasks both attempted (McNemar's exact test).

Wins, losses and ties are counted on the shared tasks; the exact McNemar p-value is the
two-sided binomial test of the discordant pairs against 1/2; the pass-rate difference gets a
percentile bootstrap interval over tasks (fixed seed, so the same data give the same interval).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from analyzer.metrics.model_names import apply_model_groups
from analyzer.metrics.stats import mcnemar_exact

TASK_KEYS = ("native_id", "task")
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20261201
"""Seed of the bootstrap (the interval is reproducible)."""


@dataclass(frozen=True)
class TaskDifference:
    """A shared task where exactly one model passed.

    Attributes:
        task: The task key value (``native_id`` or task text).
        a_passed: True when A passed (then B failed), False when only B passed.
        a_runs: Run ids of A on this task.
        b_runs: Run ids of B on this task.
    """

    task: str
    a_passed: bool
    a_runs: tuple[str, ...]
    b_runs: tuple[str, ...]


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
        diff_low: Lower bound of the bootstrap interval of pass rate A minus pass rate B.
        diff_high: Upper bound of that interval.
        confidence: Level of the interval.
        differences: The discordant tasks, A's wins first, each with both models' runs.
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
    diff_low: float | None = None
    diff_high: float | None = None
    confidence: float = 0.95
    differences: tuple[TaskDifference, ...] = field(default_factory=tuple)

    @property
    def wins(self) -> int:
        """Shared tasks A passed and B failed."""
        return self.only_a

    @property
    def losses(self) -> int:
        """Shared tasks B passed and A failed."""
        return self.only_b

    @property
    def ties(self) -> int:
        """Shared tasks both passed or both failed."""
        return self.both + self.neither

    @property
    def difference(self) -> float | None:
        """Pass rate of A minus pass rate of B on the shared tasks."""
        a, b = self.pass_rate_a, self.pass_rate_b
        return None if a is None or b is None else a - b

    @property
    def pass_rate_a(self) -> float | None:
        """A's pass rate on the shared tasks."""
        return (self.both + self.only_a) / self.shared if self.shared else None

    @property
    def pass_rate_b(self) -> float | None:
        """B's pass rate on the shared tasks."""
        return (self.both + self.only_b) / self.shared if self.shared else None


def _per_task(traces: pl.DataFrame, model: str, key: str) -> tuple[dict[str, bool], int, dict[str, tuple[str, ...]]]:
    rows = traces.filter((pl.col("model") == model) & pl.col("outcome").is_in(["success", "failure"])
                         & pl.col(key).is_not_null() & (pl.col(key).str.strip_chars() != ""))
    agg = rows.group_by(key, maintain_order=True).agg(
        (pl.col("outcome") == "success").sum().alias("wins"), pl.len().alias("n"), pl.col("trace_id"))
    out = {str(r[0]): 2 * int(r[1]) > int(r[2]) for r in agg.iter_rows()}
    runs = {str(r[0]): tuple(str(t) for t in r[3]) for r in agg.iter_rows()}
    return out, int((agg["n"] > 1).sum()) if agg.height else 0, runs


def bootstrap_difference(a: list[bool], b: list[bool], confidence: float = 0.95,
                         samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """Percentile bootstrap interval of mean(a) - mean(b) over paired tasks.

    Each of ``samples`` resamples draws ``len(a)`` task indices with replacement
    (``numpy.random.default_rng(seed).integers(0, n, size=(samples, n))``); the interval is the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles (numpy's linear rule) of the
    resampled differences.

    Args:
        a: Per task, did A pass.
        b: Per task, did B pass (same order).
        confidence: Interval level.
        samples: Bootstrap resamples.
        seed: Random seed.

    Returns:
        ``(low, high)``, or None without tasks.
    """
    n = len(a)
    if n == 0:
        return None
    if len(b) != n:
        raise ValueError("a and b must have one entry per task")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    idx = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    means = d[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def paired_comparison(traces: pl.DataFrame, model_a: str, model_b: str,
                      key: str | None = None, aliases: Mapping[str, str] | None = None,
                      confidence: float = 0.95) -> PairedComparison:
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
        aliases: Model alias table (``model_a``/``model_b`` are then group names).
        confidence: Level of the bootstrap interval of the pass-rate difference.

    Returns:
        The 2x2 table, McNemar's exact p-value, the bootstrap interval and the discordant tasks.

    Raises:
        ValueError: For an unknown key or identical models.
    """
    if key is not None and key not in TASK_KEYS:
        raise ValueError(f"key must be one of {TASK_KEYS}, got {key!r}")
    if model_a == model_b:
        raise ValueError("compare two different models")
    traces = apply_model_groups(traces, aliases)
    chosen = key or TASK_KEYS[0]
    a, rep_a, runs_a = _per_task(traces, model_a, chosen)
    b, rep_b, runs_b = _per_task(traces, model_b, chosen)
    if key is None and not (a.keys() & b.keys()):
        chosen = TASK_KEYS[1]
        a, rep_a, runs_a = _per_task(traces, model_a, chosen)
        b, rep_b, runs_b = _per_task(traces, model_b, chosen)
    shared = sorted(a.keys() & b.keys())
    both = sum(1 for t in shared if a[t] and b[t])
    only_a = sum(1 for t in shared if a[t] and not b[t])
    only_b = sum(1 for t in shared if b[t] and not a[t])
    ci = bootstrap_difference([a[t] for t in shared], [b[t] for t in shared], confidence)
    diffs = sorted((TaskDifference(t, a[t], runs_a[t], runs_b[t]) for t in shared if a[t] != b[t]),
                   key=lambda d: (not d.a_passed, d.task))
    return PairedComparison(
        model_a=model_a, model_b=model_b, key=chosen, shared=len(shared), both=both, only_a=only_a,
        only_b=only_b, neither=len(shared) - both - only_a - only_b,
        p_value=mcnemar_exact(only_a, only_b), repeated=rep_a + rep_b,
        diff_low=None if ci is None else ci[0], diff_high=None if ci is None else ci[1],
        confidence=confidence, differences=tuple(diffs),
    )
