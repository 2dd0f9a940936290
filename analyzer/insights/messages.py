"""Insight names and recommendations as message ids plus parameters (English catalogue).

:mod:`analyzer.insights.naming` and :mod:`analyzer.insights.recommend` state their text as
:class:`analyzer.messages.Message` objects with ids from :data:`INSIGHT_MESSAGES`; the English
text (``insights.csv``) is the rendering of this catalogue, other languages come from the
``INSIGHT`` dictionary of :mod:`analyzer.locales` (``zh_CN``) and are rendered by the UI and the
reports with :func:`analyzer.locales.render_message` (domain ``"insight"``). Parameters follow
:mod:`analyzer.messages`: ``category`` is a taxonomy id (its title), ``step`` a step reference,
``*_share`` a percentage; ``terms``, ``tool`` and ``model`` are trace text, shown as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from analyzer.messages import Message, Param, format_param_en, is_category_param

DOMAIN = "insight"
"""Domain of these messages for :func:`analyzer.locales.render_message`."""

TERM_SEPARATOR = " · "
"""Between the shared terms of an insight name."""

INSIGHT_MESSAGES: dict[str, str] = {
    "model_unknown": "unknown",
    "name": "{category}",
    "name_terms": "{category}: {terms}",
    "name_uncategorised": "Uncategorised",
    "name_uncategorised_terms": "Uncategorised: {terms}",
    "rec_model": "Change or fine-tune the model: this failure concentrates in {model}.",
    "ev_model": "{count} of its {size} runs ({count_share}) are {model}; {model} fails this way in {model_share} "
                "of its failed runs.",
    "ev_model_next": "{count} of its {size} runs ({count_share}) are {model}; {model} fails this way in "
                     "{model_share} of its failed runs, the next model in {next_share}.",
    "rec_infrastructure": "Fix the tool or infrastructure: add timeouts with retries and back-off, respect rate "
                          "limits, and surface the error to the agent.",
    "ev_infra_category": "the category is {category}.",
    "ev_infra_terms": "its runs share the terms {terms}.",
    "ev_infra_category_terms": "the category is {category}; its runs share the terms {terms}.",
    "rec_tool": "Rewrite the description or schema of the tool {tool}: say what it returns, its arguments, and "
                "when not to use it.",
    "ev_tool": "{n} of its {size} runs fail at the tool {tool}.",
    "ev_tool_terms": "{n} of its {size} runs fail at the tool {tool}; they share the terms {terms}.",
    "rec_verification_at": "Add a verification checkpoint around {step}: check the claim or the intermediate result "
                           "against the observations before going on or submitting.",
    "rec_verification": "Add a verification checkpoint at the decisive step: check the claim or the intermediate "
                        "result against the observations before going on or submitting.",
    "ev_verification": "the category is {category}, which a check would have caught.",
    "rec_system_prompt_at": "Add the missing constraint to the system prompt (the plan, the goal or when to stop), "
                            "aimed at what the agent does around {step}.",
    "rec_system_prompt": "Add the missing constraint to the system prompt (the plan, the goal or when to stop), "
                         "aimed at what the agent does at the decisive step.",
    "ev_system_prompt": "the category is {category} and no tool or model dominates.",
}
"""Message id -> English template."""


def terms_param(terms: Sequence[str], separator: str = TERM_SEPARATOR) -> str:
    """The value of a ``terms`` parameter (trace words, shown as written)."""
    return separator.join(terms)


def english(message: Message) -> str:
    """A message of this catalogue in English (a category inside a sentence in lower case)."""
    if message.id.startswith("name"):
        return message.render(INSIGHT_MESSAGES)

    def fmt(name: str, value: Param) -> str:
        text = format_param_en(name, value)
        return text.lower() if is_category_param(name) else text

    return message.render(INSIGHT_MESSAGES, fmt)
