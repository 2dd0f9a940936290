"""Canonical, versioned trace schema shared by every importer, detector and view."""

from analyzer.schema.findings import Finding, FindingStatus
from analyzer.schema.models import (
    AGENT_DECISION_KINDS,
    SCHEMA_VERSION,
    Outcome,
    Role,
    Step,
    StepKind,
    Trajectory,
    json_schema,
    trajectory_content_id,
)

__all__ = [
    "AGENT_DECISION_KINDS",
    "SCHEMA_VERSION",
    "Finding",
    "FindingStatus",
    "Outcome",
    "Role",
    "Step",
    "StepKind",
    "Trajectory",
    "json_schema",
    "trajectory_content_id",
]
