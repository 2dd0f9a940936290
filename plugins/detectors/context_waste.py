"""Context waste: tokens re-sent to the model that could have been dropped.

Every decision step is taken to be one model call whose input is the whole history before
it (the usual agent loop). A step's content becomes *droppable* once:

* ``reread``: the same content (whitespace-normalised, >= ``MIN_CHARS``) appears again in a
  later step (a file read again unchanged, a tool output repeated verbatim, an agent
  pasting an output again): the earlier copy is redundant from that later step on;
* ``fixed_error``: it is an error output (error flag, traceback, non-zero exit) and a later
  run of the same tool/action succeeded: the traceback of an already fixed error.

For each model call after that point the droppable step's tokens are counted as saveable.
Input tokens per call are the reported ``tokens_in`` when the step has them, else estimated
as the history's characters / 4; droppable content is always estimated as characters / 4.

Finding: one per run whose saveable share is at least ``MIN_SHARE``, on the step whose
content was re-sent the most, category ``other`` (a new finding kind, ``context_waste``;
see docs/detectors.md), source ``context_waste``, score = the saveable share.
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Any

import polars as pl

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.run import SignalDetector, SignalOutput
from analyzer.signals.steps import columns_of, table_for, table_of_steps
from analyzer.taxonomy import Category
from plugins.detectors._signals import est_tokens, has_traceback, normalised

SOURCE = "context_waste"
MIN_CHARS = 200  # shorter repeats are not worth dropping
MIN_SHARE = 0.2


def _is_error_output(s: Step) -> bool:
    """An observation (the caller checks) that errs or shows a traceback."""
    return s.is_error or has_traceback(s.text[:20000])


def _producer(t: dict[str, list[Any]], i: int) -> str | None:
    """Action signature (tool + arguments, or code) of the decision an observation answers.

    That decision is the table's ``source_decision`` (:func:`~analyzer.detection.text.source_decision`):
    a "please run it" between the code and its output does not answer for the output.
    """
    k = t["source_decision"][i]
    if k is None:
        return None
    sig: str | None = t["action_signature"][k]
    return sig if t["acting"][k] else None


def droppable_from(steps: list[Step], table: pl.DataFrame | None = None) -> dict[int, tuple[int, str]]:
    """Step -> (step from which it could be dropped, why).

    ``table`` is the run's step-signal table (:mod:`analyzer.signals.steps`; computed when None).
    """
    tab = table_of_steps(steps, table)
    t = columns_of(tab)
    observation = t["observation"]
    out: dict[int, tuple[int, str]] = {}
    first_seen: dict[str, int] = {}
    for s in steps:
        if len(s.text) < MIN_CHARS:
            continue
        h = hashlib.blake2b(normalised(s.text).encode("utf-8", "replace"), digest_size=16).hexdigest()
        if h in first_seen:
            out.setdefault(first_seen[h], (s.index, "reread"))
        first_seen[h] = s.index
    pending: dict[str, list[int]] = {}
    for s in steps:
        if not observation[s.index]:
            continue
        prod = _producer(t, s.index)
        if prod is None:
            continue
        if _is_error_output(s):
            pending.setdefault(prod, []).append(s.index)
        elif prod in pending:
            for j in pending.pop(prod):
                out.setdefault(j, (s.index, "fixed_error"))
    return out


class ContextWaste(SignalDetector):
    """The context-waste signal detector."""

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Droppable tokens per step, cumulative saveable tokens, and the run's totals."""
        steps = trajectory.steps
        n = len(steps)
        tab = table_for(trajectory, ctx)
        decision = columns_of(tab)["decision"]
        calls = [s.index for s in steps if decision[s.index]]
        tok = [est_tokens(s.text) for s in steps]
        prefix = [0]
        for t in tok:
            prefix.append(prefix[-1] + t)
        total_in = sum(int(steps[c].tokens_in or prefix[c]) for c in calls)
        drop = droppable_from(steps, tab)
        per_step: list[int | None] = [None] * n
        saved_at = [0] * n  # saveable tokens re-sent at the call of each step
        for j, (d, _why) in drop.items():
            k = bisect.bisect_right(calls, d)  # calls after the step that made j droppable
            later = calls[k:]
            if not later:
                continue
            per_step[j] = tok[j] * len(later)
            for c in later:
                saved_at[c] += tok[j]
        cum: list[int | None] = []
        run_sum = 0
        for i in range(n):
            run_sum += saved_at[i]
            cum.append(run_sum)
        saveable = min(run_sum, total_in) if total_in else run_sum
        share = round(saveable / total_in, 4) if total_in else None
        findings: list[Finding] = []
        if share is not None and share >= MIN_SHARE:
            worst = max((j for j in range(n) if per_step[j]), key=lambda j: per_step[j] or 0)
            d, why = drop[worst]
            findings.append(make_finding(
                trajectory, worst, Category.OTHER, share, SOURCE,
                f"context waste: about {saveable:,} of {total_in:,} input tokens ({share:.0%}) were re-sent content "
                f"that could have been dropped; most from step {worst} ({why} at step {d})",
                evidence=(worst, d), evidence_quote=quote(steps[worst].text, 160)))
        return SignalOutput(
            findings=findings,
            step_values={"droppable_tokens": per_step, "context_waste_cum": cum if calls else [None] * n},
            run_values={"context_tokens_in": total_in if calls else None,
                        "context_saveable_tokens": saveable if calls else None,
                        "context_saveable_share": share},
        )
