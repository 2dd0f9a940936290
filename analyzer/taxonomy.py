"""The shared failure vocabulary (``shared/design/TAXONOMY.md``) as code.

Every finding, tag, CSV column and report uses these ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    """Failure category ids."""

    PLANNING_ERROR = "planning_error"
    GOAL_DRIFT = "goal_drift"
    EVIDENCE_ACTION_GAP = "evidence_action_gap"
    ERROR_ACCUMULATION = "error_accumulation"
    REPEATED_ACTION = "repeated_action"
    FAILED_RECOVERY = "failed_recovery"
    FALSE_SUCCESS = "false_success"
    HALLUCINATION = "hallucination"
    ENVIRONMENT_FAILURE = "environment_failure"
    OTHER = "other"


@dataclass(frozen=True)
class CategoryInfo:
    """Description of one category.

    Attributes:
        id: Category id.
        key: Keyboard key (``"1"``..``"9"``, ``"0"``) that tags with it.
        title: Short human title.
        description: What happened.
        evidence: Typical evidence.
        maps_to: Mapping to published taxonomies.
    """

    id: Category
    key: str
    title: str
    description: str
    evidence: str
    maps_to: str


CATEGORIES: tuple[CategoryInfo, ...] = (
    CategoryInfo(Category.PLANNING_ERROR, "1", "Planning error",
                 "The plan or decomposition was wrong, a needed constraint was ignored, or the wrong tool/approach was chosen.",
                 "First action that commits to a wrong approach.",
                 "MAST 1.1, 1.5; TRAIL decision making, task orchestration; HORIZON planning error"),
    CategoryInfo(Category.GOAL_DRIFT, "2", "Goal drift",
                 "The agent stops serving the stated task and serves a goal it invented or a side quest.",
                 "Falling semantic alignment between actions and the task; task restated wrongly.",
                 "MAST 2.3; TRAIL goal deviation"),
    CategoryInfo(Category.EVIDENCE_ACTION_GAP, "3", "Evidence-to-action gap",
                 "The needed fact was already in an observation, but the next actions ignore or contradict it.",
                 "An observation matching the task/answer followed by actions that do not use it.",
                 "MAST 2.5, 2.6; TRAIL tool-output misinterpretation, poor retrieval; CodeTracer"),
    CategoryInfo(Category.ERROR_ACCUMULATION, "4", "Error accumulation",
                 "An early mistake is carried forward and later steps build on it (self-conditioning).",
                 "Error rate rising after the first error; wrong value reused.",
                 "MAST 1.4, 2.1; TRAIL context handling; HORIZON history error accumulation"),
    CategoryInfo(Category.REPEATED_ACTION, "5", "Repeated action",
                 "The same action (or a near-duplicate) is repeated without progress.",
                 "Near-identical tool calls/arguments in a window.",
                 "MAST 1.3; TRAIL resource abuse"),
    CategoryInfo(Category.FAILED_RECOVERY, "6", "Failed recovery",
                 "An error or unexpected observation is not handled: retried unchanged, ignored, or misdiagnosed.",
                 "Error observation followed by no change of strategy.",
                 "AgentDebug reflection errors"),
    CategoryInfo(Category.FALSE_SUCCESS, "7", "False success",
                 "The agent claims success or terminates without verification, while the outcome is a failure.",
                 "'done'/submit/TERMINATE with a failed outcome; unverified answer.",
                 "MAST 3.1, 3.2, 3.3"),
    CategoryInfo(Category.HALLUCINATION, "8", "Hallucination",
                 "Invented facts, tool results or actions that did not happen.",
                 "Claims unsupported by any observation.",
                 "TRAIL hallucinations; AgentRx invention of new information"),
    CategoryInfo(Category.ENVIRONMENT_FAILURE, "9", "Environment failure",
                 "Not the agent's fault: tool/API/infra error, timeout, rate limit, missing resource.",
                 "Error observation from the environment.",
                 "TRAIL system execution errors"),
    CategoryInfo(Category.OTHER, "0", "Other",
                 "None of the above (free-text reason required).", "", ""),
)

BY_ID: dict[str, CategoryInfo] = {c.id.value: c for c in CATEGORIES}
BY_KEY: dict[str, CategoryInfo] = {c.key: c for c in CATEGORIES}
CATEGORY_IDS: tuple[str, ...] = tuple(c.id.value for c in CATEGORIES)
