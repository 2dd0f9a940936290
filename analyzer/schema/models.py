"""Pydantic models of the canonical trace schema.

Every importer produces :class:`Trajectory` objects (or frames with the same columns,
see :mod:`analyzer.frames.columns`). Nothing else crosses the layer boundary.

The JSON Schema for plugin authors is written by ``trajscope schema`` and lives in
``docs/trajectory.schema.json``.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.2"
"""Version of the canonical schema. Bump the minor for added optional fields, the major
for anything that changes the meaning of an existing field."""


class Outcome(StrEnum):
    """Normalised outcome of a run; the raw value is kept in ``Trajectory.outcome_raw``."""

    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"
    """The run errored before it could be judged (e.g. a Harbor trial that left no trajectory, only its
    exception). Counted with the failed runs (it did not succeed) wherever pass rates are counted."""
    UNKNOWN = "unknown"


class Role(StrEnum):
    """Who produced a step, normalised across formats."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    ENVIRONMENT = "environment"


class StepKind(StrEnum):
    """What a step is.

    ``observation`` is tool/environment output; ``action`` and ``tool_call`` are agent
    decisions that act on the world; ``message`` is agent text.
    """

    USER = "user"
    SYSTEM = "system"
    THOUGHT = "thought"
    ACTION = "action"
    TOOL_CALL = "tool_call"
    OBSERVATION = "observation"
    MESSAGE = "message"


AGENT_DECISION_KINDS = frozenset({StepKind.THOUGHT, StepKind.ACTION, StepKind.TOOL_CALL, StepKind.MESSAGE})
"""Step kinds that are decisions of an agent (as opposed to inputs and tool output)."""


class Step(BaseModel):
    """One step of a trajectory.

    Attributes:
        index: 0-based position in the trajectory (the unit every finding points at).
        agent: Name of the agent that produced the step (multi-agent runs) or the role.
        role: Normalised producer role.
        kind: What the step is.
        text: Main text (message, thought, or observation content).
        tool_name: Name of the tool called, if any.
        tool_args: Tool arguments as a JSON string (raw string kept if it did not parse).
        tool_call_id: Id linking a call to its observation.
        is_error: True when the step reports an error (tool failure, exception, non-zero exit).
        error_text: Short error description, if any.
        tokens_in: Prompt tokens of the model call behind this step.
        tokens_out: Completion tokens of the model call behind this step.
        timestamp: ISO-8601 start time, if known.
        duration_s: Duration in seconds, if known.
        span_id: Span id (span-based formats).
        parent_span_id: Parent span id (span-based formats).
        native_index: Index of the record in the source file (e.g. Who&When ``history`` index).
        native_step_id: The source's own id of the step, as the producing tool shows it (OTel /
            Phoenix / Langfuse span or observation id, LangSmith run id, Inspect event id,
            OpenHands event id, ``messages[3]`` for a message list), so an analyst can find the
            step back in that tool. Reaches ``steps.csv``, the Parquet files, the inspector and
            the reports.
        metadata: Anything else the importer wants to keep.
    """

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    index: int = Field(ge=0)
    agent: str = ""
    role: Role = Role.ASSISTANT
    kind: StepKind = StepKind.MESSAGE
    text: str = ""
    tool_name: str | None = None
    tool_args: str | None = None
    tool_call_id: str | None = None
    is_error: bool = False
    error_text: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    timestamp: str | None = None
    duration_s: float | None = None
    span_id: str | None = None
    parent_span_id: str | None = None
    native_index: int | None = None
    native_step_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Trajectory(BaseModel):
    """One run of an agent on one task.

    Attributes:
        schema_version: Canonical schema version the object follows.
        id: Stable content-derived run id (see :func:`trajectory_content_id`); survives moving files.
        native_id: The id the producing framework gave the run, if any.
        source_file: Path of the file the run was read from.
        source_format: Id of the importer that read it.
        record: Locator of the run inside the file (``line 3``, ``samples/x.json``, ``$``).
        task: Task / goal statement given to the agent.
        model: Model name, if known.
        framework: Agent framework (``swe-agent``, ``inspect``, ``ag2`` ...), if known.
        outcome: Normalised outcome.
        outcome_raw: The raw success value as found in the file (stringified).
        outcome_source: Where the outcome came from: ``file`` (a field of the run), a sidecar's
            kind (``swebench-report``, ``harbor-reward``, ``ctrf`` ...), ``labels`` (failure labels
            in the file), ``analyst`` or ``estimate``; ``None`` while unknown.
        score: Numeric score/reward, if any.
        final_answer: The run's final answer/submission, if any.
        ground_truth: Expected answer, if the file has one (never shown to the analysis).
        gold_decisive_step: Decisive step labelled in the file (e.g. Who&When), never shown to the analysis.
        gold_decisive_agent: Agent labelled as responsible in the file.
        gold_reason: Label explanation from the file.
        task_family: Task family / dataset / level, for grouping.
        task_key: Identity of the task across runs (the source's task, sample or instance id, else
            a hash of the normalised task text), so reruns of one task can be compared.
        metadata: Anything else the importer wants to keep.
        steps: The steps, in order.
    """

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    schema_version: str = SCHEMA_VERSION
    id: str = ""
    native_id: str | None = None
    source_file: str = ""
    source_format: str = ""
    record: str = "$"
    task: str = ""
    model: str | None = None
    framework: str | None = None
    outcome: Outcome = Outcome.UNKNOWN
    outcome_raw: str | None = None
    outcome_source: str | None = None
    score: float | None = None
    final_answer: str | None = None
    ground_truth: str | None = None
    gold_decisive_step: int | None = None
    gold_decisive_agent: str | None = None
    gold_reason: str | None = None
    task_family: str | None = None
    task_key: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)

    def with_id(self) -> Trajectory:
        """Return the trajectory with ``id`` set from its content when it is empty."""
        if not self.id:
            self.id = trajectory_content_id(self.task, [(s.agent, s.kind, s.text, s.tool_args) for s in self.steps])
        return self


def trajectory_content_id(task: str, steps: list[tuple[Any, ...]]) -> str:
    """Stable 16-hex id derived from the task and the steps' content.

    Args:
        task: Task statement.
        steps: One tuple per step of its identifying fields (agent, kind, text, tool args).

    Returns:
        A hex digest prefix that does not depend on file path or name.
    """
    h = hashlib.blake2b(digest_size=8)
    h.update(task.encode("utf-8", "replace"))
    for st in steps:
        h.update(b"\x1e")
        h.update(orjson.dumps([str(x) if x is not None else None for x in st]))
    return h.hexdigest()


def json_schema() -> dict[str, Any]:
    """JSON Schema of :class:`Trajectory` for plugin authors."""
    return Trajectory.model_json_schema()
