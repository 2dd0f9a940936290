"""Crash-safe SQLite workspace for annotations, tags, statuses, notes and adapted rankers."""

from analyzer.workspace.agreement import Agreement, judge_analyst_agreement
from analyzer.workspace.store import (
    Annotation,
    ImportReport,
    MergeConflict,
    RankerVersion,
    Target,
    Workspace,
    WorkspaceError,
)

__all__ = [
    "Agreement",
    "Annotation",
    "ImportReport",
    "MergeConflict",
    "RankerVersion",
    "Target",
    "Workspace",
    "WorkspaceError",
    "judge_analyst_agreement",
]
