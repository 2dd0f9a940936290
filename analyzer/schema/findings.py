"""Finding model: one detector (or human) claim about a step of a run."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from analyzer.taxonomy import Category


class FindingStatus(StrEnum):
    """Review status of a finding."""

    SUGGESTED = "suggested"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class Finding(BaseModel):
    """A claim that a step shows a failure category.

    Attributes mirror ``FINDING_COLUMNS`` in :mod:`analyzer.frames.columns`.
    """

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    trace_id: str
    step: int = Field(ge=0)
    agent: str = ""
    category: Category
    score: float = Field(ge=0.0, le=1.0)
    evidence_start: int | None = None
    evidence_end: int | None = None
    evidence_quote: str = ""
    rationale: str = ""
    source: str = ""
    status: FindingStatus = FindingStatus.SUGGESTED
