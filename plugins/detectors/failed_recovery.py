"""Failed recovery: an error observation followed by no change of strategy.

For each error observation, the next agent decision is checked: an unchanged retry of the
action that failed, the same error coming back after it, or a reply that does not engage
with the error at all.

Two responses are recoveries, not failures: another action than the one that failed (a
``wait`` after a rate limit, a different query) is a change of strategy, and one unchanged
retry after an infrastructure failure (a timeout, a 5xx, a rate limit:
:data:`~analyzer.detection.text.ENV_STRONG_RE`) is how such failures are meant to be met. A
second unchanged retry of an action that has already failed that way is flagged.
"""

from __future__ import annotations

from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import (
    ENV_STRONG_RE,
    UNCHANGED_ACTION,
    content_words,
    error_text,
    is_termination_only,
    jaccard,
    quote,
    responds_to_error,
    shingles,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "failed_recovery"


def _prev_action(steps: list[Step], i: int, t: dict[str, list[Any]]) -> Step | None:
    for s in reversed(steps[:i]):
        if t["decision"][s.index] and t["action_signature"][s.index] is not None:
            return s
    return None


def _next_decision(steps: list[Step], i: int, t: dict[str, list[Any]]) -> Step | None:
    return next((s for s in steps[i + 1:] if t["decision"][s.index]), None)


def _next_observation(steps: list[Step], i: int, t: dict[str, list[Any]]) -> Step | None:
    for s in steps[i + 1:]:
        if t["observation"][s.index]:
            return s
    return None


def _failures_so_far(steps: list[Step], t: dict[str, list[Any]]) -> dict[int, int]:
    """Error observation -> how many error observations, it included, came from its action so far.

    The action is the latest acting decision before the error (:func:`_prev_action`), compared by
    its :func:`~analyzer.detection.text.action_signature`; one pass over the run.
    """
    counts: dict[str, int] = {}
    out: dict[int, int] = {}
    last_sig: str | None = None
    for s in steps:
        if t["decision"][s.index]:
            last_sig = t["action_signature"][s.index] or last_sig
        elif s.is_error and t["observation"][s.index] and last_sig is not None:
            counts[last_sig] = counts.get(last_sig, 0) + 1
            out[s.index] = counts[last_sig]
    return out


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on the decision steps that fail to recover from an error."""
    steps = trajectory.steps
    t = columns_of(table_for(trajectory, ctx))
    out: list[Finding] = []
    done: set[int] = set()
    failures = _failures_so_far(steps, t)
    for e in steps:
        if not (e.is_error and t["observation"][e.index]):
            continue
        d = _next_decision(steps, e.index, t)
        if d is None or d.index in done:
            continue
        before = _prev_action(steps, e.index, t)
        sig_d, sig_b = t["action_signature"][d.index], (t["action_signature"][before.index] if before else None)
        score, why = 0.0, ""
        retry_ok = False  # a first unchanged retry after an infrastructure failure
        if sig_d is not None and sig_b is not None:
            sim = 1.0 if sig_d == sig_b else jaccard(shingles(sig_d), shingles(sig_b))
            if sim >= UNCHANGED_ACTION:
                transient = bool(ENV_STRONG_RE.search(error_text(e)[:2000]))
                retry_ok = transient and failures.get(e.index, 0) < 2
                if not retry_ok:
                    score, why = 0.85, f"retries the failed action of step {before.index if before else '?'} unchanged ({sim:.0%} same)"
        if not score:
            nxt = _next_observation(steps, d.index, t)
            if nxt is not None and nxt.is_error:
                same = jaccard(content_words(error_text(e)), content_words(error_text(nxt)))
                if same >= 0.6:
                    score, why = 0.65, f"the same error comes back at step {nxt.index} ({same:.0%} same words)"
        if not score and not retry_ok and not is_termination_only(f"{d.text}\n{d.tool_args or ''}") \
                and not responds_to_error(d, e, before, (sig_b, sig_d)):
            score, why = 0.5, "does not address the error at all"
        if score:
            done.add(d.index)
            out.append(make_finding(
                trajectory, d.index, Category.FAILED_RECOVERY, score, SOURCE,
                f"after the error at step {e.index}, step {d.index} {why}",
                evidence=(e.index, d.index), evidence_quote=quote(error_text(e), 160)))
    return out
