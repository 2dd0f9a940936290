"""An insight's name, recommendation and evidence in a chosen language (pure Python, no Qt).

Automatic names and the rules' recommendations are messages (:mod:`analyzer.insights.messages`);
the analyst's own name or recommendation is shown as typed. The UI passes its current language,
the reports theirs; ``insights.csv`` keeps the English text stored on the insight.
"""

from __future__ import annotations

from analyzer.insights.cluster import UNKNOWN_MODEL
from analyzer.insights.messages import DOMAIN, INSIGHT_MESSAGES
from analyzer.insights.model import AUTO, Insight
from analyzer.insights.naming import insight_message
from analyzer.insights.recommend import Recommendation
from analyzer.locales import render_message
from analyzer.messages import Message


def model_name(model: str, lang: str) -> str:
    """A model's name as grouped for insights (the group of runs with no model in ``lang``)."""
    return message_text(Message("model_unknown"), lang) if model == UNKNOWN_MODEL else model


def message_text(message: Message, lang: str) -> str:
    """One insight message in ``lang`` (English for an id the language lacks)."""
    if message.params.get("model") == UNKNOWN_MODEL:
        message = Message(message.id, {**message.params, "model": model_name(UNKNOWN_MODEL, lang)})
    return render_message(message, INSIGHT_MESSAGES, DOMAIN, lang)


def insight_name(insight: Insight, lang: str) -> str:
    """The insight's name: the automatic one in ``lang``, the analyst's as typed."""
    if insight.named_by != AUTO:
        return insight.name
    return message_text(insight_message(insight.category, insight.terms), lang)


def recommendation_text(rec: Recommendation, lang: str) -> str:
    """What to change: the rule's text in ``lang``, the analyst's as typed."""
    return message_text(rec.message, lang) if rec.message is not None and rec.by != "analyst" else rec.text


def evidence_text(rec: Recommendation, lang: str) -> str:
    """Why the rule suggests it, in ``lang``."""
    return message_text(rec.evidence_message, lang) if rec.evidence_message is not None else rec.evidence
