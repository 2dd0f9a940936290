"""False success: the agent claims success, verification or termination while the run failed.

Only fires when the run's outcome is a failure (or unknown, when the claim follows an
error the agent never resolved). The last success/verification claim (the one the run
ends on) scores highest; the first one, if earlier, is reported too; a bare
termination/submission without any claim scores lower.
"""

from __future__ import annotations

import re

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import (
    DONE_RE,
    VERIFY_RE,
    asserted,
    is_termination_only,
    match_quote,
    quote_around,
    strip_code,
    strip_headings,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "false_success"
FAILED = "the run failed"
UNRESOLVED = "the last tool output is an error (outcome not recorded)"
"""Why a claim is suspect on a run without a recorded outcome (the detector fires there only then)."""
_FINISH_TOOL_RE = re.compile(r"submit|finish|done|final|answer|terminate|complete", re.IGNORECASE)


def _claim_text(s: Step) -> str:
    text = strip_code(s.text)
    if s.tool_name and s.tool_args:  # e.g. submit/answer tools carry the claim in their arguments
        text = f"{text}\n{s.tool_args[:4000]}"
    return text


def _claim(prose: str) -> tuple[str, re.Match[str]] | None:
    """The text and match of the step's verification claim, else of its completion claim.

    A capitalised heading ("1. GIVEN OR VERIFIED FACTS") claims nothing, nor does a sentence
    that only announces, conditions or asks ("once you have it, we can verify and conclude
    the task"; see :func:`~analyzer.detection.text.asserted`).
    """
    body = strip_headings(prose)
    m = asserted(VERIFY_RE, body)
    if m is not None:
        return body, m
    m = asserted(DONE_RE, prose)
    return (prose, m) if m is not None else None


def _quote(prose: str) -> str:
    found = _claim(prose)
    return quote_around(*found) if found is not None else match_quote(prose, DONE_RE)


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on success claims of a failed run."""
    steps = trajectory.steps
    if trajectory.outcome == Outcome.SUCCESS or not steps:
        return []
    t = columns_of(table_for(trajectory, ctx))
    if trajectory.outcome != Outcome.FAILURE:
        obs = [s for s in steps if t["observation"][s.index]]
        if not obs or not obs[-1].is_error:
            return []
    factor = 1.0 if trajectory.outcome == Outcome.FAILURE else 0.6
    claims: list[Step] = []
    terminations: list[Step] = []
    for s in steps:
        if not t["decision"][s.index]:
            continue
        prose = _claim_text(s)
        if _claim(prose) is not None and not is_termination_only(prose):
            claims.append(s)
        elif is_termination_only(prose) or (s.tool_name and _FINISH_TOOL_RE.search(s.tool_name)):
            terminations.append(s)
    out: list[Finding] = []
    # a failed run "failed"; on a run without a recorded outcome the claim follows an unresolved error
    why = FAILED if trajectory.outcome == Outcome.FAILURE else UNRESOLVED
    if claims:
        last = claims[-1]
        err = t["unresolved_error"][last.index]
        seen = f"; the error at step {err} was never resolved" if err is not None else ""
        out.append(make_finding(trajectory, last.index, Category.FALSE_SUCCESS, 0.75 * factor, SOURCE,
                                f"claims the work is verified or complete, but {why}{seen}",
                                evidence=(err, last.index) if err is not None else None,
                                evidence_quote=_quote(_claim_text(last))))
        first = claims[0]
        if first.index != last.index:
            err = t["unresolved_error"][first.index]
            seen = f"; the error at step {err} was never resolved" if err is not None else ""
            out.append(make_finding(trajectory, first.index, Category.FALSE_SUCCESS, 0.55 * factor, SOURCE,
                                    f"first claim that the work is verified or complete; {why}{seen}",
                                    evidence=(err, first.index) if err is not None else None,
                                    evidence_quote=_quote(_claim_text(first))))
    elif terminations:
        term = terminations[0]
        out.append(make_finding(trajectory, term.index, Category.FALSE_SUCCESS, 0.45 * factor, SOURCE,
                                f"terminates/submits without verification, but {why}",
                                evidence_quote=match_quote(_claim_text(term), DONE_RE)))
    return out
