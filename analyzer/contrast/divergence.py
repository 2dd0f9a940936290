"""Where the failed run left the path of the success: the divergence step and its kind.

The rule (thresholds from the params file):

1. Walk the alignment path in order. A decision of the failed run (an action or an agent
   message/thought) has a good match when its cost on the path (its match cost, or its gap
   cost when it is unmatched) is at most the threshold of its class (``match_action``,
   ``match_decision``). Inputs and observations are never the divergence. Order is not a
   difference: an action the other run also makes somewhere (same tool, same normalised
   arguments) is never extra, different or missing.
2. An action of the success left unmatched (its gap costs more than ``match_action``) is a
   *missing action* when the failed run's decision just before it lies in the same turn (no input
   or observation between them: the agent spoke where the success acted; that decision is the
   divergence), or when the failed run's next decision has no good match either (that decision
   is the divergence) or never comes (its last step is). A turn of the success the failed run
   skips before going on along the success's path (its next decision matches) is no divergence.
3. The divergence is the first decision without a good match: an action matched with a call of
   another tool is a *different action* (a decision matched with a different one too), the same
   tool with other arguments *different arguments*, a decision left unmatched an *extra action*.
4. A failed run whose every decision has a good match has no divergence.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from analyzer.contrast.align import Alignment
from analyzer.contrast.encode import DECISION_CLASSES, EncodedRun, StepClass
from analyzer.contrast.params import ContrastParams


class DivergenceKind(StrEnum):
    """How the failed run left the success's path (the ``divergence_kind`` column)."""

    DIFFERENT_ACTION = "different_action"
    DIFFERENT_ARGUMENTS = "different_arguments"
    MISSING_ACTION = "missing_action"
    EXTRA_ACTION = "extra_action"


@dataclass(frozen=True)
class Divergence:
    """The divergence of a failed run from one success.

    Attributes:
        step: Step index of the failed run (None: no divergence).
        success_step: Step index of the success at that point (None when the failed step is unmatched).
        kind: What differs (None: no divergence).
        position: Position on the alignment path (None: no divergence).
    """

    step: int | None
    success_step: int | None
    kind: DivergenceKind | None
    position: int | None


NO_DIVERGENCE = Divergence(None, None, None, None)


def threshold(cls: int, params: ContrastParams) -> float:
    """Highest cost of a good match for a step of class ``cls``."""
    return params.match_action if cls == StepClass.ACTION else params.match_decision


def _call(run: EncodedRun, row: int) -> tuple[int, int]:
    return int(run.tool[row]), int(run.args_id[row])


def _calls(run: EncodedRun) -> set[tuple[int, int]]:
    """(tool, normalised arguments) of every action of a run."""
    rows = (run.cls == StepClass.ACTION).nonzero()[0]
    return {_call(run, int(r)) for r in rows}


def good_positions(al: Alignment, a: EncodedRun, b: EncodedRun, params: ContrastParams) -> list[bool]:
    """For each position of the path: is it no difference? The view dims these rows.

    No difference: an input or observation, a decision matched well or left out cheaply, or a call
    the other run makes elsewhere.
    """
    calls_a, calls_b = _calls(a), _calls(b)
    out: list[bool] = []
    for x, y, c in zip(al.a.tolist(), al.b.tolist(), al.cost.tolist(), strict=True):
        cls = int(a.cls[x]) if x >= 0 else int(b.cls[y])
        elsewhere = cls == StepClass.ACTION and (_call(a, x) in calls_b if x >= 0 else _call(b, y) in calls_a)
        out.append(cls not in DECISION_CLASSES or elsewhere or c <= threshold(cls, params))
    return out


def find_divergence(al: Alignment, a: EncodedRun, b: EncodedRun, params: ContrastParams) -> Divergence:
    """The divergence of failed run ``a`` from success ``b`` on their alignment (see the module rule)."""
    missing: tuple[int, int] | None = None  # (path position, success row) of the first missing action
    same_turn: tuple[int, int] | None = None  # (position, row) of the failed decision just before, in this turn
    calls_a, calls_b = _calls(a), _calls(b)
    ai, bi, cost = al.a.tolist(), al.b.tolist(), al.cost.tolist()
    for k, (x, y, c) in enumerate(zip(ai, bi, cost, strict=True)):
        cls = int(a.cls[x]) if x >= 0 else int(b.cls[y])
        if cls not in DECISION_CLASSES:
            same_turn = None  # an input or an observation ends the turn
            continue
        if x < 0:
            if cls == StepClass.ACTION and c > params.match_action and _call(b, y) not in calls_a:
                if same_turn is not None:
                    pos, row = same_turn
                    return Divergence(int(a.steps[row]), int(b.steps[y]), DivergenceKind.MISSING_ACTION, pos)
                if missing is None:
                    missing = (k, y)
            continue
        same_turn = (k, x)
        good = c <= threshold(cls, params) or (cls == StepClass.ACTION and _call(a, x) in calls_b)
        if missing is not None:
            if good and y >= 0:  # the run skipped a turn of the success and is back on its path
                missing = None
                continue
            return Divergence(int(a.steps[x]), int(b.steps[missing[1]]), DivergenceKind.MISSING_ACTION, k)
        if good:
            continue
        if y < 0:
            return Divergence(int(a.steps[x]), None, DivergenceKind.EXTRA_ACTION, k)
        kind = (DivergenceKind.DIFFERENT_ARGUMENTS if cls == StepClass.ACTION and a.tool[x] == b.tool[y]
                else DivergenceKind.DIFFERENT_ACTION)
        return Divergence(int(a.steps[x]), int(b.steps[y]), kind, k)
    if missing is not None and len(a):
        return Divergence(int(a.steps[-1]), int(b.steps[missing[1]]), DivergenceKind.MISSING_ACTION, missing[0])
    return NO_DIVERGENCE
