"""Translated display names of core vocabulary (taxonomy, outcomes, step kinds, columns).

The core (``analyzer``) holds English titles; these functions look up their translation.
The ``QT_TRANSLATE_NOOP`` markers let ``pyside6-lupdate`` extract the strings.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from analyzer.taxonomy import BY_ID

_CATEGORY_TITLES = (
    QT_TRANSLATE_NOOP("Taxonomy", "Planning error"),
    QT_TRANSLATE_NOOP("Taxonomy", "Goal drift"),
    QT_TRANSLATE_NOOP("Taxonomy", "Evidence-to-action gap"),
    QT_TRANSLATE_NOOP("Taxonomy", "Error accumulation"),
    QT_TRANSLATE_NOOP("Taxonomy", "Repeated action"),
    QT_TRANSLATE_NOOP("Taxonomy", "Failed recovery"),
    QT_TRANSLATE_NOOP("Taxonomy", "False success"),
    QT_TRANSLATE_NOOP("Taxonomy", "Hallucination"),
    QT_TRANSLATE_NOOP("Taxonomy", "Environment failure"),
    QT_TRANSLATE_NOOP("Taxonomy", "Other"),
)

_CATEGORY_DESCRIPTIONS = (
    QT_TRANSLATE_NOOP("Taxonomy", "The plan or decomposition was wrong, a needed constraint was ignored, or the wrong tool/approach was chosen."),
    QT_TRANSLATE_NOOP("Taxonomy", "The agent stops serving the stated task and serves a goal it invented or a side quest."),
    QT_TRANSLATE_NOOP("Taxonomy", "The needed fact was already in an observation, but the next actions ignore or contradict it."),
    QT_TRANSLATE_NOOP("Taxonomy", "An early mistake is carried forward and later steps build on it (self-conditioning)."),
    QT_TRANSLATE_NOOP("Taxonomy", "The same action (or a near-duplicate) is repeated without progress."),
    QT_TRANSLATE_NOOP("Taxonomy", "An error or unexpected observation is not handled: retried unchanged, ignored, or misdiagnosed."),
    QT_TRANSLATE_NOOP("Taxonomy", "The agent claims success or terminates without verification, while the outcome is a failure."),
    QT_TRANSLATE_NOOP("Taxonomy", "Invented facts, tool results or actions that did not happen."),
    QT_TRANSLATE_NOOP("Taxonomy", "Not the agent's fault: tool/API/infra error, timeout, rate limit, missing resource."),
    QT_TRANSLATE_NOOP("Taxonomy", "None of the above (free-text reason required)."),
)

_OUTCOMES = {
    "success": QT_TRANSLATE_NOOP("Outcome", "success"),
    "failure": QT_TRANSLATE_NOOP("Outcome", "failure"),
    "error": QT_TRANSLATE_NOOP("Outcome", "error"),
    "unknown": QT_TRANSLATE_NOOP("Outcome", "unknown"),
}

_KINDS = {
    "user": QT_TRANSLATE_NOOP("StepKind", "user"),
    "system": QT_TRANSLATE_NOOP("StepKind", "system"),
    "thought": QT_TRANSLATE_NOOP("StepKind", "thought"),
    "action": QT_TRANSLATE_NOOP("StepKind", "action"),
    "tool_call": QT_TRANSLATE_NOOP("StepKind", "tool call"),
    "observation": QT_TRANSLATE_NOOP("StepKind", "observation"),
    "message": QT_TRANSLATE_NOOP("StepKind", "message"),
}

_ROLES = {
    "system": QT_TRANSLATE_NOOP("Role", "system"),
    "user": QT_TRANSLATE_NOOP("Role", "user"),
    "assistant": QT_TRANSLATE_NOOP("Role", "assistant"),
    "tool": QT_TRANSLATE_NOOP("Role", "tool"),
    "environment": QT_TRANSLATE_NOOP("Role", "environment"),
}

_STATUSES = {
    "suggested": QT_TRANSLATE_NOOP("Status", "suggested"),
    "accepted": QT_TRANSLATE_NOOP("Status", "accepted"),
    "rejected": QT_TRANSLATE_NOOP("Status", "rejected"),
    "decisive": QT_TRANSLATE_NOOP("Status", "decisive"),
}


def category_title(category: str | None) -> str:
    """Translated short title of a taxonomy id (the id itself if unknown)."""
    info = BY_ID.get(category or "")
    if info is None:
        return category or ""
    return QCoreApplication.translate("Taxonomy", info.title)


def tag_label(tag: str) -> str:
    """What a tag shows: the translated title of a taxonomy id, a custom tag as typed."""
    tag = tag.strip()
    return category_title(tag) if tag in BY_ID else tag


def tags_text(tags: str | None) -> str:
    """A comma-separated tag list with each taxonomy id shown as its translated title."""
    return ", ".join(tag_label(t) for t in str(tags or "").split(",") if t.strip())


def category_description(category: str | None) -> str:
    """Translated description of a taxonomy id."""
    info = BY_ID.get(category or "")
    return QCoreApplication.translate("Taxonomy", info.description) if info else ""


def outcome_label(outcome: str | None) -> str:
    """Translated outcome."""
    src = _OUTCOMES.get(outcome or "unknown")
    return QCoreApplication.translate("Outcome", src) if src else (outcome or "")


def run_outcome_label(outcome: str | None, source: str | None = None, p_failed: float | None = None,
                      compact: bool = False) -> str:
    """A run's effective outcome as shown: "likely failed (0.82)" when it is an estimate.

    ``compact`` (the runs table's narrow column, whose tooltip gives the rest): "failure?" / "success?".
    """
    if source == "estimate" and p_failed is not None and compact:
        return QCoreApplication.translate("Outcome", "failure?") if outcome == "failure" \
            else QCoreApplication.translate("Outcome", "success?")
    if source == "estimate" and p_failed is not None:
        if outcome == "failure":
            return QCoreApplication.translate("Outcome", "likely failed ({p})").format(p=f"{p_failed:.2f}")
        return QCoreApplication.translate("Outcome", "likely passed ({p})").format(p=f"{1.0 - p_failed:.2f}")
    return outcome_label(outcome)


def outcome_source_text(source: str | None, recorded: str | None = None, p_failed: float | None = None) -> str:
    """Where a run's outcome comes from, in a sentence (tooltips, the inspector)."""
    if source == "estimate" and p_failed is not None:
        return QCoreApplication.translate(
            "Outcome", "No outcome is recorded; estimated from the run's cues: P(failed) = {p}. "
            "Shift+F / Shift+S set it.").format(p=f"{p_failed:.2f}")
    if source == "analyst":
        return QCoreApplication.translate("Outcome", "Set by the analyst; the file says: {recorded}").format(
            recorded=outcome_label(recorded))
    if source:
        return QCoreApplication.translate("Outcome", "Recorded ({source})").format(source=source)
    return QCoreApplication.translate("Outcome", "Not recorded; Shift+F / Shift+S / Shift+U set it.")


def kind_label(kind: str | None) -> str:
    """Translated step kind."""
    src = _KINDS.get(kind or "")
    return QCoreApplication.translate("StepKind", src) if src else (kind or "")


def role_label(role: str | None) -> str:
    """Translated role."""
    src = _ROLES.get(role or "")
    return QCoreApplication.translate("Role", src) if src else (role or "")


def status_label(status: str | None) -> str:
    """Translated annotation/finding status."""
    src = _STATUSES.get(status or "")
    return QCoreApplication.translate("Status", src) if src else (status or "")
