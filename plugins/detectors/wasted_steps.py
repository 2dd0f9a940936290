"""Steps with no effect on the outcome (the per-run half of "efficiency against the shortest success").

A decision step is *wasted* when:

* ``repeated_read``: it reads (cat/head/grep/ls/view/read_file ...) exactly what an earlier
  read in the run read, no step that may change files came in between, and it got the same
  output (or no output to compare);
* ``rerun_unchanged``: it runs exactly the same action as an earlier step, nothing that may
  change files came in between, and its output is the same as before;
* ``unused_output``: it called a tool whose (non-error, non-empty) output has salient tokens
  (names, numbers, quoted strings) of which none reappear in any later decision step.

The corpus-level comparison with the shortest success of the same task (extra steps, tokens,
wall time) is :mod:`analyzer.metrics.efficiency`, because a detector only sees one run.
Findings: ``repeated_action`` (TRAIL resource abuse) for the first two, source
``wasted_steps``, score 0.3 (waste, not necessarily a failure); unused outputs are flagged in
the ``wasted`` column only (they are common, and a finding each would bury the others).
"""

from __future__ import annotations

from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import entities, quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.run import SignalDetector, SignalOutput
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category
from plugins.detectors._signals import (
    EDIT_RE,
    READ_RE,
    action_text,
    has_traceback,
    normalised,
    observation_after,
)

SOURCE = "wasted_steps"
MIN_SALIENT = 4  # salient tokens an output needs before "never used" is judged
_OBS_CHARS = 6000


def _out(trajectory: Trajectory, i: int, t: dict[str, list[Any]]) -> str | None:
    o = observation_after(trajectory.steps, i, t)
    return normalised(o.text[:_OBS_CHARS]) if o is not None else None


class WastedSteps(SignalDetector):
    """The wasted-steps signal detector."""

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Per-step ``wasted`` reason, per-run count and share."""
        steps = trajectory.steps
        n = len(steps)
        t = columns_of(table_for(trajectory, ctx))
        reason: list[str | None] = [None] * n
        last_by_sig: dict[str, tuple[int, str | None]] = {}
        last_change = -1
        for s in steps:
            if not t["acting"][s.index]:
                continue
            sig = t["action_signature"][s.index]
            text = action_text(s)
            out = _out(trajectory, s.index, t)
            if sig is not None and sig in last_by_sig:
                j, prev_out = last_by_sig[sig]
                same_out = out is None or prev_out is None or out == prev_out
                if j > last_change and same_out:
                    reason[s.index] = "repeated_read" if READ_RE.search(text) else "rerun_unchanged"
            if sig is not None:
                last_by_sig[sig] = (s.index, out)
            if EDIT_RE.search(text):
                last_change = s.index
        parts: list[str] = []
        offset = [0] * (n + 1)  # where the decisions from step i on start in ``decided``
        pos = 0
        for i, st in enumerate(steps):
            offset[i] = pos
            if t["decision"][st.index]:
                parts.append(st.text[:_OBS_CHARS].lower() + "\n")
                pos += len(parts[-1])
        offset[n] = pos
        decided = "".join(parts)
        for s in steps:
            if reason[s.index] is not None or not t["acting"][s.index]:
                continue
            o = observation_after(steps, s.index, t)
            if o is None or o.is_error or has_traceback(o.text[:_OBS_CHARS]):
                continue
            salient = entities(o.text[:_OBS_CHARS])
            if len(salient) < MIN_SALIENT:
                continue
            start = offset[o.index + 1]
            if start < len(decided) and not any(decided.find(tok.lower(), start) >= 0 for tok in salient):
                reason[s.index] = "unused_output"
        findings: list[Finding] = []
        for s in steps:
            why = reason[s.index]
            if why is None or why == "unused_output":  # unused outputs: the column only (too common to list)
                continue
            text = {"repeated_read": "reads again what an earlier step read, unchanged since",
                    "rerun_unchanged": "re-runs an earlier action with nothing changed in between, same output"}[why]
            findings.append(make_finding(trajectory, s.index, Category.REPEATED_ACTION, 0.3, SOURCE,
                                         f"wasted step ({why}): step {s.index} {text}",
                                         evidence_quote=quote(action_text(s), 160)))
        decisions = sum(1 for s in steps if t["decision"][s.index])
        wasted = sum(1 for r in reason if r)
        return SignalOutput(
            findings=findings, step_values={"wasted": reason},
            run_values={"wasted_steps": wasted, "wasted_share": round(wasted / decisions, 4) if decisions else None},
        )


