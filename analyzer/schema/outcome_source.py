"""Where a run's outcome came from: the values of ``Trajectory.outcome_source``.

An importer sets the specific source when it knows it (a sidecar's kind, an Inspect score, a
tau-bench reward); the loader fills in ``file`` for any other outcome an importer read from the run
itself and ``labels`` for a run whose only verdict is its failure labels (see
:func:`analyzer.loading.outcomes.settle_outcomes`).
"""

from __future__ import annotations

from enum import StrEnum


class OutcomeSource(StrEnum):
    """Where an outcome came from."""

    FILE = "file"
    """A field of the run in its own file (``exit_status``, ``success``, a root span status ...)."""
    LABELS = "labels"
    """Failure labels in the file (``mistake_step`` / ``mistake_agent`` exist only for failed runs)."""
    SWEBENCH_REPORT = "swebench-report"
    """A SWE-bench evaluation file beside the run (``report.json``, ``<id>.report.json``, ``results.json``)."""
    HARBOR_REWARD = "harbor-reward"
    """A Harbor trial's ``result.json`` (``verifier_result.rewards``, ``exception_info``) or ``verifier/reward.txt``."""
    CTRF = "ctrf"
    """A Common Test Report Format file of the run's verifier (``verifier/ctrf.json``)."""
    INSPECT_SCORE = "inspect-score"
    """The score of an Inspect sample."""
    TAU_BENCH_REWARD = "tau-bench-reward"
    """The reward of a tau-bench / tau2-bench simulation."""
    ANALYST = "analyst"
    """Set by the analyst."""
    ESTIMATE = "estimate"
    """Estimated by TrajScope when nothing recorded one."""


DECIDED_OUTCOMES = ("success", "failure", "error")
"""Outcome values that are a verdict (not ``unknown``)."""

FAILED_OUTCOMES = ("failure", "error")
"""Outcome values of runs that did not succeed (counted as failed in pass rates)."""
