"""The built-in detectors' finding descriptions as message ids plus parameters.

The detectors write each finding's ``rationale`` in English (``findings.csv``, the reports and
the workspace store that text, unchanged). Every description follows one of the templates
below, so :func:`parse_finding` recovers its message id and parameters from the text exactly
(the inverse of the detector's f-string), and the app, ``--lang`` and the reports render the
same id in the analyst's language (:func:`analyzer.locales.finding_text`). A description that
fits no template (a third-party detector's own words) is shown as written. A test renders
every built-in detector on the sample traces and checks that each description parses.

Parameters named ``why``, ``what``, ``text``, ``kind``, ``how`` are phrases from the detectors'
own vocabularies (:data:`FINDING_PIECES`); ``parts`` is a ``"; "``-joined list of such phrases.
Every other parameter is trace text or a number and is kept as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

FINDING_MESSAGES: dict[str, str] = {
    "failed_recovery.retries": "after the error at step {error_step}, step {step} retries the failed action of step "
                               "{first_step} unchanged ({sim} same)",
    "failed_recovery.same_error": "after the error at step {error_step}, step {step} the same error comes back at step "
                                  "{next_step} ({sim} same words)",
    "failed_recovery.ignores": "after the error at step {error_step}, step {step} does not address the error at all",
    "environment_failure": "{why} in the environment's output ({token})",
    "error_accumulation.rate": "the first error (step {first_step}) is followed by {n} more errors ({share} of later "
                               "tool outputs fail)",
    "error_accumulation.reused": "value(s) {values} stated at step {step} without a supporting observation are reused "
                                 "by later steps",
    "error_accumulation.assumption": "works from an unverified assumption; the value(s) {values} it produced reach the "
                                     "final answer (step {step}) unrevised",
    "evidence_action_gap": "step {obs_step} returned task-relevant output ({n} distinctive items, e.g. {items}) that "
                           "step {step} and every later step ignore",
    "false_success.claims": "claims the work is verified or complete, but the run failed",
    "false_success.first_claim": "first claim that the work is verified or complete; the run failed",
    "false_success.terminates": "terminates/submits without verification, but the run failed",
    "false_success.claims_unresolved": "claims the work is verified or complete, but the last tool output is an error "
                                       "(outcome not recorded)",
    "false_success.first_claim_unresolved": "first claim that the work is verified or complete; the last tool output "
                                            "is an error (outcome not recorded)",
    "false_success.terminates_unresolved": "terminates/submits without verification, but the last tool output is an "
                                           "error (outcome not recorded)",
    "false_success.claims_error": "claims the work is verified or complete, but the run failed; the error at step "
                                  "{error_step} was never resolved",
    "false_success.first_claim_error": "first claim that the work is verified or complete; the run failed; the error "
                                       "at step {error_step} was never resolved",
    "false_success.claims_unresolved_error": "claims the work is verified or complete, but the last tool output is an "
                                             "error (outcome not recorded); the error at step {error_step} was never "
                                             "resolved",
    "false_success.first_claim_unresolved_error": "first claim that the work is verified or complete; the last tool "
                                                  "output is an error (outcome not recorded); the error at step "
                                                  "{error_step} was never resolved",
    "goal_drift.irreversible": "irreversible action {action} that neither the task nor the user asked for",
    "goal_drift.alignment": "task alignment ({how}) falls from {start} to {end} from step {step} on and stays low for "
                            "{n} agent steps",
    "hallucination.unsupported": "{parts} (unsupported: {values})",
    "repeated_action.same_unchanged": "step {step} repeats the same {what} of step {first_step}; the output did not change",
    "repeated_action.same": "step {step} repeats the same {what} of step {first_step}",
    "repeated_action.near_unchanged": "step {step} repeats a near-duplicate ({sim} overlap) of the {what} of step "
                                      "{first_step}; the output did not change",
    "repeated_action.near": "step {step} repeats a near-duplicate ({sim} overlap) of the {what} of step {first_step}",
    "planning_error": "step {step} commits to the approach; then {parts}",
    "tool_answer": "step {step} misreads the tool output of step {tool_step}: {why}",
    "wasted_steps": "wasted step ({kind}): step {step} {text}",
    "missed_check": "a {kind} check after step {step} would have shown the divergence {n} step(s) before the failure: "
                    "{why}",
    "context_waste": "context waste: about {saveable} of {total} input tokens ({share}) were re-sent content that could "
                     "have been dropped; most from step {step} ({why} at step {at_step})",
    "risky_combination": "risky combination '{rule}': {title}: {chain}; predictable from step {step}",
    "judge_category": "{model} classifies the decisive step as {label} ({scores})",
}
"""Message id -> English template of the built-in detectors' descriptions."""

FINDING_PIECES: dict[str, str] = {
    # environment_failure
    "infra": "infrastructure error",
    "resource": "missing or inaccessible resource",
    # hallucination (joined by "; ")
    "results": "states results no earlier observation contains",
    "numbers": "states many numbers no earlier observation contains",
    "placeholder": "works from assumed/placeholder data",
    "reported_result": "reports a result ({result}) no tool output shows",
    # planning_error (joined by "; ")
    "later_errors": "{n} later tool error(s) (first at step {first_step})",
    "revised": "the approach is revised at step(s) {steps}",
    "judge_p": "judge P(planning_error) = {p}",
    # repeated_action
    "action": "action",
    "message": "message",
    # goal_drift
    "embedding": "embedding",
    "word-overlap": "word-overlap",
    # tool_answer
    "empty_found": "the output was empty / matched nothing, but the step says it was found or shown",
    "error_success": "the output is an error, but the step describes a success",
    "content_empty": "the output has content, but the step says it was empty / nothing was found",
    # wasted_steps
    "repeated_read_kind": "repeated_read",
    "rerun_unchanged_kind": "rerun_unchanged",
    "repeated_read": "reads again what an earlier step read, unchanged since",
    "rerun_unchanged": "re-runs an earlier action with nothing changed in between, same output",
    # missed_check
    "test_run_kind": "test run",
    "count_vs_plan_kind": "count vs plan",
    "reread_constraints_kind": "reread constraints",
    "result_exists_kind": "result exists",
    "plan_count": "the plan says {planned} but step {step}'s output reports {got}",
    "forbidden": "the task forbids {doing} {name} and step {step} {how} it",
    "changing": "changing",
    "using": "using",
    "changes": "changes",
    "uses": "uses",
    "no_test": "step {step} changes the code and no test ran after it",
    "produced": "step {step} says {path} was produced, and no tool output shows it",
    "after_error": "step {step} claims a result right after an error output (step {error_step})",
    # context_waste
    "reread": "reread",
    "fixed_error": "fixed_error",
}
"""Phrase id -> English phrase (or template) used inside the descriptions."""

NOTE_MESSAGES: dict[str, str] = {
    "never_falls": "the value curve never falls: no step shows evidence of failure, so nothing on the curve confirms "
                   "the decisive step {step}",
    "last_step.drop": "the value falls most at the last step {at}, where the run's recorded failure closes the curve: "
                      "no step before it shows enough evidence of failure; at step {step} itself it falls by {drop}",
    "last_step.flat": "the value falls most at the last step {at}, where the run's recorded failure closes the curve: "
                      "no step before it shows enough evidence of failure; step {step} itself shows no evidence the "
                      "value curve reads",
    "after.why.drop": "the value falls most at step {at} ({why}), after the decisive decision at step {step}; at step "
                      "{step_again} itself it falls by {drop}",
    "after.why.flat": "the value falls most at step {at} ({why}), after the decisive decision at step {step}; step "
                      "{step_again} itself shows no evidence the value curve reads",
    "before.why.drop": "the value falls most at step {at} ({why}), before the decisive decision at step {step}; at step "
                       "{step_again} itself it falls by {drop}",
    "before.why.flat": "the value falls most at step {at} ({why}), before the decisive decision at step {step}; step "
                       "{step_again} itself shows no evidence the value curve reads",
    "after.drop": "the value falls most at step {at}, after the decisive decision at step {step}; at step {step_again} "
                  "itself it falls by {drop}",
    "after.flat": "the value falls most at step {at}, after the decisive decision at step {step}; step {step_again} "
                  "itself shows no evidence the value curve reads",
    "before.drop": "the value falls most at step {at}, before the decisive decision at step {step}; at step "
                   "{step_again} itself it falls by {drop}",
    "before.flat": "the value falls most at step {at}, before the decisive decision at step {step}; step {step_again} "
                   "itself shows no evidence the value curve reads",
}
"""The value curve's note on a largest drop away from the decisive step (``drop_note``,
:func:`analyzer.attribution.value_curve.drop_note`): message id -> English template."""

TERM_LABELS: dict[str, str] = {
    "error": "an error output",
    "recurring": "the same error again",
    "error_text": "error text in the output",
    "finding": "a finding: {category}",
    "alignment": "falling task alignment",
    "judge": "the judge's value falls",
    "outcome": "the run's recorded failure",
    "outcome_success": "the run's recorded success",
    "retry": "the failed action now succeeds",
    "no_recurrence": "the error stops recurring",
    "tests_pass": "tests pass",
    "judge_up": "the judge's value rises",
}
"""Plain words for the evidence terms (used in ``drop_note`` and the docs)."""

NOTE_PIECES: dict[str, str] = TERM_LABELS
"""The evidence terms inside a note: :data:`TERM_LABELS` itself."""

PHRASE_PARAMS = frozenset({"why", "what", "text", "kind", "how", "doing"})
"""Parameters holding one phrase of :data:`FINDING_PIECES`."""

LIST_PARAMS = frozenset({"parts"})
"""Parameters holding ``"; "``-joined phrases of :data:`FINDING_PIECES`."""

SEPARATOR = "; "


@dataclass(frozen=True)
class Parsed:
    """A description recognised as a message: its id and its parameters (as written)."""

    id: str
    params: dict[str, str]


def _compile(template: str) -> re.Pattern[str]:
    out = []
    for part in re.split(r"(\{\w+\})", template):
        if re.fullmatch(r"\{\w+\}", part):
            out.append(f"(?P<{part[1:-1]}>.+?)")
        elif part:
            out.append(re.escape(part))
    return re.compile("".join(out) + r"\Z", re.DOTALL)


@cache
def _patterns(kind: str) -> list[tuple[str, re.Pattern[str]]]:
    table = {"message": FINDING_MESSAGES, "piece": FINDING_PIECES, "note": NOTE_MESSAGES,
             "note_piece": NOTE_PIECES}[kind]
    # the most literal text first, so a specific template wins over a looser one
    items = sorted(table.items(), key=lambda kv: -len(re.sub(r"\{\w+\}", "", kv[1])))
    return [(k, _compile(v)) for k, v in items]


def _match(text: str, kind: str) -> Parsed | None:
    for mid, pat in _patterns(kind):
        m = pat.match(text)
        if m is not None:
            return Parsed(mid, {k: v for k, v in m.groupdict().items()})
    return None


def parse_piece(text: str) -> Parsed | None:
    """A phrase of :data:`FINDING_PIECES` recognised in ``text`` (None if it is none of them)."""
    return _match(text, "piece")


def parse_finding(text: str) -> Parsed | None:
    """The message id and parameters of a built-in detector's description, or None.

    A bare ``"; "``-joined list of phrases (the hallucination detector without numbers) is
    reported as the id ``"pieces"`` with the list in ``parts``.
    """
    found = _match(text, "message")
    if found is not None:
        return found
    pieces = text.split(SEPARATOR)
    if pieces and all(parse_piece(p) is not None for p in pieces):
        return Parsed("pieces", {"parts": text})
    return None


def parse_note(text: str) -> Parsed | None:
    """The message id and parameters of a value-curve ``drop_note``, or None."""
    return _match(text, "note")


def parse_note_piece(text: str) -> Parsed | None:
    """An evidence term of :data:`NOTE_PIECES` recognised in ``text``, or None."""
    return _match(text, "note_piece")
