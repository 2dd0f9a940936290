"""Short insight names from the terms their members share (class-based TF-IDF).

Each insight is one "class". A term's weight in an insight is the share of its members whose
text contains the term (so a word one long member repeats does not win), times
``log(1 + total members / members containing the term anywhere)``, BERTopic's c-TF-IDF idea with
binary term counts. The name is the insight's category title plus its top terms, a message
(:func:`insight_message`) the UI and the reports render in the chosen language.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from analyzer.insights.messages import english, terms_param
from analyzer.messages import Message
from analyzer.taxonomy import BY_ID

_TOKEN = re.compile(r"[^\W\d_][\w'-]{2,}", re.UNICODE)
_STOP_TEXT = """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each few for from further had has have
having he her here hers him his how i if in into is it its itself just me more most my no nor not now of
off on once only or other our out over own same she should so some such than that the their them then
there these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours step steps decisive run runs agent assistant user tool
quote quotes evidence value one two three let call called using used use get got make made see
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""Words too common to name anything (English function words and the rationale's own vocabulary)."""

def terms_of(text: str) -> set[str]:
    """Distinct lower-cased word terms of a text (letters first, 3+ characters, no stop words)."""
    return {t.casefold().strip("'-") for t in _TOKEN.findall(text or "")} - STOP_WORDS


def top_terms(groups: Sequence[Sequence[set[str]]], k: int = 3) -> list[list[str]]:
    """The ``k`` most distinctive shared terms of each group.

    Args:
        groups: Per group, the term sets of its members.
        k: Terms per group.

    Returns:
        Per group, up to ``k`` terms, best first (ties broken alphabetically, so names are stable).
    """
    total = sum(len(g) for g in groups)
    anywhere: Counter[str] = Counter()
    per_group: list[Counter[str]] = []
    for members in groups:
        c: Counter[str] = Counter()
        for terms in members:
            c.update(terms)
        per_group.append(c)
        anywhere.update(c)
    out: list[list[str]] = []
    for members, counts in zip(groups, per_group, strict=True):
        n = max(len(members), 1)
        scored = sorted(((counts[t] / n) * math.log(1.0 + total / anywhere[t]), t) for t in counts
                        if counts[t] >= min(2, n))
        scored.sort(key=lambda st: (-st[0], st[1]))
        out.append([t for _, t in scored[:k]])
    return out


def insight_message(category: str | None, terms: Sequence[str]) -> Message:
    """The automatic name of an insight as a message: its category's title and its top terms.

    A taxonomy id is a ``category`` parameter (rendered as its title in the chosen language); a
    category outside the taxonomy is kept as written, with the terms.
    """
    t = {"terms": terms_param(terms)} if terms else {}
    if category in BY_ID:
        return Message("name_terms" if terms else "name", {"category": category, **t})
    if not category:
        return Message("name_uncategorised_terms" if terms else "name_uncategorised", t)
    return Message("name_terms" if terms else "name",
                   {"category": category.replace("_", " ").capitalize(), **t})


def insight_name(category: str | None, terms: Sequence[str]) -> str:
    """``"<category title>: term · term · term"`` (only the title when there are no terms), in English."""
    return english(insight_message(category, terms))
