"""Rationales in the analyst's language: plain text, or HTML whose step references select steps.

The analysis stores each rationale twice: rendered in English (``rationale``, what the CSV
and the reports show) and as message ids plus parameters (``rationale_json``, see
:mod:`analyzer.attribution.rationale`). The app renders the structured form through Qt's
translator (context ``Rationale``; translations in ``ui/i18n/zh_CN_rationale.py``) and falls
back to the English text when the structured form is missing or from a newer version.

In the HTML form every step reference is ``<a href='step:N'>step N</a>`` (in a list of steps,
each number is a link) and every piece of trace text (quotes, tool and agent names) is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from analyzer.attribution.rationale import Rationale
from analyzer.messages import (
    Message,
    Param,
    is_category_param,
    is_quote_param,
    is_share_param,
    is_step_param,
    is_steps_param,
    step_list,
)
from ui.i18n.labels import category_title

CONTEXT = "Rationale"

TEMPLATES: dict[str, str] = {
    "layout.lead": QT_TRANSLATE_NOOP("Rationale", "{category}: {body}"),
    "layout.separator": QT_TRANSLATE_NOOP("Rationale", "; "),
    "layout.tail": QT_TRANSLATE_NOOP("Rationale", "{body} ({tail})"),
    "what.planning_error": QT_TRANSLATE_NOOP("Rationale", "{step} commits to an approach that is later revised or fails"),
    "what.goal_drift": QT_TRANSLATE_NOOP("Rationale", "{step} turns away from the stated task to a goal nobody asked for"),
    "what.evidence_action_gap": QT_TRANSLATE_NOOP("Rationale", "{step} ignores or contradicts a fact an observation already gave"),
    "what.error_accumulation": QT_TRANSLATE_NOOP("Rationale", "{step} makes a mistake that later steps build on and carry forward"),
    "what.repeated_action": QT_TRANSLATE_NOOP("Rationale", "{step} repeats an earlier action without progress"),
    "what.failed_recovery": QT_TRANSLATE_NOOP("Rationale", "{step} leaves an error unhandled (retried unchanged, ignored or misdiagnosed)"),
    "what.false_success": QT_TRANSLATE_NOOP("Rationale", "{step} claims success without verification, yet the run failed"),
    "what.hallucination": QT_TRANSLATE_NOOP("Rationale", "{step} claims facts or results that no observation supports"),
    "what.environment_failure": QT_TRANSLATE_NOOP("Rationale", "{step} meets a tool, API or infrastructure failure"),
    "what.other": QT_TRANSLATE_NOOP("Rationale", "{step} is where the run most likely went wrong"),
    "says_here": QT_TRANSLATE_NOOP("Rationale", "it says {quote}"),
    "step_says": QT_TRANSLATE_NOOP("Rationale", "{quote_step} says {quote}"),
    "output_reads": QT_TRANSLATE_NOOP("Rationale", "the output at {quote_step} reads {quote}"),
    "tool_output_reads": QT_TRANSLATE_NOOP("Rationale", "the {tool} output at {quote_step} reads {quote}"),
    "calls_here": QT_TRANSLATE_NOOP("Rationale", "it calls {tool} with {quote}"),
    "step_calls": QT_TRANSLATE_NOOP("Rationale", "{quote_step} calls {tool} with {quote}"),
    "revised_at": QT_TRANSLATE_NOOP("Rationale", "{quote_step} revises it: {quote}"),
    "repeat_of": QT_TRANSLATE_NOOP("Rationale", "the same action first ran at {first_step}"),
    "unsupported_number": QT_TRANSLATE_NOOP("Rationale", "{step} states {quote}, but no earlier observation shows {value}"),
    "unsupported_number_here": QT_TRANSLATE_NOOP("Rationale", "it states {quote}, but no earlier observation shows {value}"),
    "error_after": QT_TRANSLATE_NOOP("Rationale", "the action at {step} fails: the output at {error_step} reads {error_quote}"),
    "error_at": QT_TRANSLATE_NOOP("Rationale", "{step} reports an error: {quote}"),
    "error_ignored": QT_TRANSLATE_NOOP("Rationale", "{step} goes on as if the error at {error_step} had not happened: {error_quote}"),
    "after_error": QT_TRANSLATE_NOOP("Rationale", "{step} follows the error at {error_step}: {error_quote}"),
    "next_ignores": QT_TRANSLATE_NOOP("Rationale", "the agent's next step, {next_step}, goes on without addressing it: {next_quote}"),
    "next_handles": QT_TRANSLATE_NOOP("Rationale", "the agent's next step, {next_step}, responds: {next_quote}"),
    "next_step": QT_TRANSLATE_NOOP("Rationale", "next, {next_step} says {next_quote}"),
    "no_text": QT_TRANSLATE_NOOP("Rationale", "{step} has no text; the task reads {quote}"),
    "empty": QT_TRANSLATE_NOOP("Rationale", "{step} has no text"),
    "rank": QT_TRANSLATE_NOOP("Rationale", "p={p}"),
    "rank_runner_up": QT_TRANSLATE_NOOP("Rationale", "p={p}, runner-up {runner_step} p={runner_p}"),
    "uncertain": QT_TRANSLATE_NOOP("Rationale", "uncertain: no step stands out (p={p}); the likeliest are {steps}"),
    "agent_share": QT_TRANSLATE_NOOP("Rationale", "responsible agent {agent}, {share} of the candidate mass"),
    "agent_actor": QT_TRANSLATE_NOOP("Rationale", "responsible agent {agent}, which made {share} of the run's actions"),
    "agent_first_runner": QT_TRANSLATE_NOOP("Rationale", "responsible agent {agent}, the first to run code ({step})"),
    "judge_reranked": QT_TRANSLATE_NOOP("Rationale", "judge re-ranked the top {n}"),
    "judge_category": QT_TRANSLATE_NOOP("Rationale", "category from the judge"),
    "run_succeeded": QT_TRANSLATE_NOOP("Rationale", "run succeeded"),
    "outcome_unknown": QT_TRANSLATE_NOOP("Rationale", "outcome not recorded: the likeliest decisive step if the run failed"),
    "outcome_unknown_no_evidence": QT_TRANSLATE_NOOP("Rationale", "outcome not recorded and nothing in the run shows a failure: the likeliest decisive step only if it failed"),
    "outcome_likely_failed": QT_TRANSLATE_NOOP("Rationale", "outcome not recorded, likely failed (estimated from the run): the likeliest decisive step if it failed"),
    "run_no_steps": QT_TRANSLATE_NOOP("Rationale", "run has no steps"),
    "run_no_agent_steps": QT_TRANSLATE_NOOP("Rationale", "run has no agent step (only the task, context or tool output)"),
}
"""Message id -> English template, marked for translation (kept equal to
``analyzer.attribution.rationale.RATIONALE_MESSAGES`` by a test)."""

_STEP = QT_TRANSLATE_NOOP("Rationale", "step {n}")
_STEPS = QT_TRANSLATE_NOOP("Rationale", "steps {list}")
_LIST_SEPARATOR = QT_TRANSLATE_NOOP("Rationale", ", ")


def _tr(source: str) -> str:
    return QCoreApplication.translate(CONTEXT, source)


def steps_text(steps: Sequence[int]) -> str:
    """``steps 3, 7, 12`` in the current language."""
    return _tr(_STEPS).format(list=_tr(_LIST_SEPARATOR).join(str(int(s)) for s in steps))


def steps_html(steps: Sequence[int]) -> str:
    """``steps 3, 7, 12`` in the current language, each number a ``step:N`` link."""
    links = _tr(_LIST_SEPARATOR).join(f"<a href='step:{int(s)}'>{int(s)}</a>" for s in steps)
    head, _, tail = _tr(_STEPS).partition("{list}")
    return f"{html.escape(head)}{links}{html.escape(tail)}"


def _plain_param(name: str, value: Param) -> str:
    if value is None:
        return ""
    if is_step_param(name) and isinstance(value, int) and not isinstance(value, bool):
        return _tr(_STEP).format(n=value)
    if is_steps_param(name):
        return steps_text(step_list(value))
    if is_quote_param(name):
        return f"“{value}”"
    if is_category_param(name):
        return category_title(str(value))
    if isinstance(value, float):
        return f"{value:.0%}" if is_share_param(name) else f"{value:.2f}"
    return str(value)


def _html_param(name: str, value: Param) -> str:
    if is_step_param(name) and isinstance(value, int) and not isinstance(value, bool):
        return f"<a href='step:{value}'>{html.escape(_plain_param(name, value))}</a>"
    if is_steps_param(name):
        return steps_html(step_list(value))
    return html.escape(_plain_param(name, value), quote=True)


def _render(r: Rationale, fmt: Callable[[str, Param], str], text: Callable[[str], str]) -> str:
    """Fill the translated templates; ``text`` escapes template text (identity for plain text)."""
    catalogue: Mapping[str, str] = {k: text(_tr(v)) for k, v in TEMPLATES.items()}

    def one(m: Message) -> str:
        return m.render(catalogue, fmt)

    sep = catalogue["layout.separator"]
    body = sep.join(one(p) for p in r.parts)
    if r.category:
        body = catalogue["layout.lead"].format(category=fmt("category", r.category), body=body)
    if r.tail:
        body = catalogue["layout.tail"].format(body=body, tail=sep.join(one(t) for t in r.tail))
    return body


def _parse(structured: str | None) -> Rationale | None:
    if not structured:
        return None
    try:
        r = Rationale.from_json(structured)
    except ValueError:
        return None
    known = all(m.id in TEMPLATES for m in (*r.parts, *r.tail))
    return r if known else None


def rationale_text(structured: str | None, fallback: str | None) -> str:
    """The rationale as plain text in the current language (the English text if it cannot be rendered)."""
    r = _parse(structured)
    if r is not None:
        try:
            return _render(r, _plain_param, lambda s: s)
        except (KeyError, IndexError, ValueError):
            pass
    return fallback or ""


def rationale_html(structured: str | None, fallback: str | None) -> str:
    """The rationale as HTML with step links, in the current language; escaped English text as fallback."""
    r = _parse(structured)
    if r is not None:
        try:
            return _render(r, _html_param, lambda s: html.escape(s, quote=False))
        except (KeyError, IndexError, ValueError):
            pass
    return html.escape(fallback or "", quote=True)
