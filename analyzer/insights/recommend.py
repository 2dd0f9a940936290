"""What to change: a documented rule per insight suggests the kind of fix most likely to prevent it.

Rules, checked in order; the first that fires gives the recommendation, and its evidence says why:

1. ``model`` — the failure concentrates in one model: at least :data:`MODEL_SHARE` of the
   insight's runs come from one model, the corpus has failed runs of several models, and that
   model's share of its own failed runs is at least :data:`MODEL_RATIO` times the next model's.
2. ``infrastructure`` — the tool or infrastructure (timeouts, retries, rate limits): the
   category is ``environment_failure``, or the shared terms name an infrastructure fault
   (:data:`INFRA_TERMS`).
3. ``tool_description`` — a tool description or schema (the tool was misused or misread): at
   least :data:`TOOL_SHARE` of the runs fail at the same named tool, and the category is one of
   :data:`TOOL_CATEGORIES`, or the shared terms name an argument problem (:data:`SCHEMA_TERMS`).
4. ``verification`` — a verification checkpoint where a check would have caught it (at the
   insight's typical position): the category is ``false_success``, ``evidence_action_gap``,
   ``error_accumulation`` or ``hallucination``.
5. ``system_prompt`` — a missing constraint in the system prompt: everything else (planning
   errors, goal drift, repeated actions without a dominant tool, other).

The text and the evidence are message ids plus parameters (:mod:`analyzer.insights.messages`),
with their English rendering for ``insights.csv``. The analyst can replace the text in the app; the replacement is kept in the workspace and
exported (``recommended_by = analyst``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.insights.messages import english
from analyzer.messages import Message, Param

MODEL_SHARE = 0.7
MODEL_RATIO = 2.0
TOOL_SHARE = 0.6
INFRA_TERMS = frozenset({"timeout", "timed", "timeouts", "rate", "limit", "429", "500", "502", "503", "504",
                         "gateway", "connection", "unavailable", "refused", "quota", "network", "dns", "ssl"})
SCHEMA_TERMS = frozenset({"parameter", "parameters", "argument", "arguments", "schema", "invalid", "missing",
                          "required", "usage", "typeerror", "signature", "format"})
TOOL_CATEGORIES = frozenset({"planning_error", "hallucination", "repeated_action", "failed_recovery",
                             "evidence_action_gap"})
STEP_KINDS = frozenset({"user", "system", "thought", "action", "tool_call", "observation", "message", "step"})

KINDS = ("model", "infrastructure", "tool_description", "verification", "system_prompt")

KIND_TITLES: dict[str, str] = {"model": "the model", "infrastructure": "tool or infrastructure",
                               "tool_description": "tool description or schema",
                               "verification": "verification checkpoint", "system_prompt": "system prompt"}
"""What each kind of change reads as (English; the reports translate it, the app has its own ``tr``)."""


@dataclass(frozen=True)
class Recommendation:
    """A suggested kind of change.

    Attributes:
        kind: One of :data:`KINDS`.
        text: What to change (English; the analyst's own words when ``by`` is ``analyst``).
        evidence: Why (English, with the figures).
        by: ``rule`` or ``analyst``.
        message: ``text`` as a message id plus parameters (:mod:`analyzer.insights.messages`),
            rendered in the chosen language by the UI and the reports; None for the analyst's text.
        evidence_message: ``evidence`` as a message.
    """

    kind: str
    text: str
    evidence: str
    by: str = "rule"
    message: Message | None = None
    evidence_message: Message | None = None


def _rule(kind: str, message: Message, evidence: Message) -> Recommendation:
    return Recommendation(kind, english(message), english(evidence), "rule", message, evidence)


def recommend(category: str, size: int, members_per_model: dict[str, int], share_by_model: dict[str, float],
              n_models: int, tools: Sequence[tuple[str, int]], terms: Sequence[str],
              median_step: float | None) -> Recommendation:
    """The rule-based recommendation of one insight (see the module docstring).

    Args:
        category: The insight's category.
        size: Number of runs.
        members_per_model: Runs of the insight per model.
        share_by_model: Share of each model's failed runs in the insight.
        n_models: Models with failed runs in the corpus.
        tools: (tool, count), most common first.
        terms: Shared terms.
        median_step: Typical decisive step.
    """
    at: dict[str, Param] = {"step": int(f"{median_step:.0f}")} if median_step is not None else {}
    suffix = "_at" if at else ""
    if members_per_model and n_models > 1 and size >= 3:
        top, count = max(members_per_model.items(), key=lambda kv: (kv[1], kv[0]))
        others = sorted((s for m, s in share_by_model.items() if m != top), reverse=True)
        ratio_ok = not others or share_by_model.get(top, 0.0) >= MODEL_RATIO * others[0]
        if count / size >= MODEL_SHARE and ratio_ok:
            figures: dict[str, Param] = {"count": count, "size": size, "count_share": count / size, "model": top,
                                         "model_share": share_by_model.get(top, 0.0)}
            ev = (Message("ev_model_next", {**figures, "next_share": others[0]}) if others
                  else Message("ev_model", figures))
            return _rule("model", Message("rec_model", {"model": top}), ev)
    term_set = {t.casefold() for t in terms}
    infra = sorted(term_set & INFRA_TERMS)
    if category == "environment_failure" or infra:
        listed = {"terms": ", ".join(infra)}
        if category == "environment_failure":
            ev = (Message("ev_infra_category_terms", {"category": category, **listed}) if infra
                  else Message("ev_infra_category", {"category": category}))
        else:
            ev = Message("ev_infra_terms", listed)
        return _rule("infrastructure", Message("rec_infrastructure"), ev)
    named = [(t, n) for t, n in tools if t and t not in STEP_KINDS]
    schema = sorted(term_set & SCHEMA_TERMS)
    if named and ((named[0][1] / max(size, 1) >= TOOL_SHARE and category in TOOL_CATEGORIES) or schema):
        tool, n = named[0]
        fail: dict[str, Param] = {"n": n, "size": size, "tool": tool}
        ev = Message("ev_tool_terms", {**fail, "terms": ", ".join(schema)}) if schema else Message("ev_tool", fail)
        return _rule("tool_description", Message("rec_tool", {"tool": tool}), ev)
    if category in ("false_success", "evidence_action_gap", "error_accumulation", "hallucination"):
        return _rule("verification", Message("rec_verification" + suffix, at),
                     Message("ev_verification", {"category": category}))
    return _rule("system_prompt", Message("rec_system_prompt" + suffix, at),
                 Message("ev_system_prompt", {"category": category}))
