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

The analyst can replace the text in the app; the replacement is kept in the workspace and
exported (``recommended_by = analyst``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Recommendation:
    """A suggested kind of change.

    Attributes:
        kind: One of :data:`KINDS`.
        text: What to change (English).
        evidence: Why (English, with the figures).
        by: ``rule`` or ``analyst``.
    """

    kind: str
    text: str
    evidence: str
    by: str = "rule"


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
    where = f"around step {median_step:.0f}" if median_step is not None else "at the decisive step"
    if members_per_model and n_models > 1 and size >= 3:
        top, count = max(members_per_model.items(), key=lambda kv: (kv[1], kv[0]))
        others = sorted((s for m, s in share_by_model.items() if m != top), reverse=True)
        ratio_ok = not others or share_by_model.get(top, 0.0) >= MODEL_RATIO * others[0]
        if count / size >= MODEL_SHARE and ratio_ok:
            return Recommendation("model", f"Change or fine-tune the model: this failure concentrates in {top}.",
                                  f"{count} of its {size} runs ({count / size:.0%}) are {top}; {top} fails this way "
                                  f"in {share_by_model.get(top, 0.0):.0%} of its failed runs"
                                  + (f", the next model in {others[0]:.0%}." if others else "."))
    term_set = {t.casefold() for t in terms}
    infra = sorted(term_set & INFRA_TERMS)
    if category == "environment_failure" or infra:
        why = "the category is environment failure" if category == "environment_failure" else ""
        if infra:
            why += ("; " if why else "") + "its runs share the terms " + ", ".join(infra)
        return Recommendation("infrastructure", "Fix the tool or infrastructure: add timeouts with retries and "
                              "back-off, respect rate limits, and surface the error to the agent.", why + ".")
    named = [(t, n) for t, n in tools if t and t not in STEP_KINDS]
    schema = sorted(term_set & SCHEMA_TERMS)
    if named and ((named[0][1] / max(size, 1) >= TOOL_SHARE and category in TOOL_CATEGORIES) or schema):
        tool, n = named[0]
        why = f"{n} of its {size} runs fail at the tool {tool}"
        if schema:
            why += "; they share the terms " + ", ".join(schema)
        return Recommendation("tool_description", f"Rewrite the description or schema of the tool {tool}: say what "
                              "it returns, its arguments, and when not to use it.", why + ".")
    if category in ("false_success", "evidence_action_gap", "error_accumulation", "hallucination"):
        return Recommendation("verification", f"Add a verification checkpoint {where}: check the claim or the "
                              "intermediate result against the observations before going on or submitting.",
                              f"the category is {category.replace('_', ' ')}, which a check would have caught.")
    return Recommendation("system_prompt", "Add the missing constraint to the system prompt (the plan, the goal "
                          f"or when to stop), aimed at what the agent does {where}.",
                          f"the category is {category.replace('_', ' ')} and no tool or model dominates.")
