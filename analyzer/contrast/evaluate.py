"""How well the divergence step finds what is known about a failed run (for the fit, tests and docs).

Two measures, both in messages of the source (a step's ``native_index``: an assistant message
with text and a tool call is one message):

- :func:`planted_scores`: runs with a planted divergence (``metadata.planted_divergence.message``):
  found when the divergence step lies in the planted message.
- :func:`expected_action_scores`: runs whose file records the task's expected actions (tau-bench
  ``info.task.actions``, tau2-bench ``evaluation_criteria.actions``): the first tool call whose
  tool and normalised arguments are not among the expected actions is where the run departs
  (a run that makes no such call departs where it stops: its last message); the divergence is
  near when it lies within two messages of it.

Not used at run time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import polars as pl

from analyzer.contrast.encode import normalise_args

NEAR_MESSAGES = 2
"""A divergence within this many messages of the departing call is near it (the issue's measure)."""


@dataclass(frozen=True)
class RunCheck:
    """One failed run checked against what is known about it.

    Attributes:
        trace_id: Run id.
        truth: Message index of the known point (planted message, or departing call).
        found: Message index of the divergence step (None: no divergence given).
        kind: Planted kind, or ``call`` / ``end`` for a departing call / a run that stopped.
    """

    trace_id: str
    truth: int
    found: int | None
    kind: str

    @property
    def exact(self) -> bool:
        """The divergence lies in the known message."""
        return self.found is not None and self.found == self.truth

    @property
    def near(self) -> bool:
        """The divergence lies within :data:`NEAR_MESSAGES` messages of the known one."""
        return self.found is not None and abs(self.found - self.truth) <= NEAR_MESSAGES


@dataclass(frozen=True)
class Scores:
    """Summary of checked runs."""

    runs: int
    given: int
    exact: int
    near: int

    @classmethod
    def of(cls, checks: list[RunCheck]) -> Scores:
        """Counts over ``checks``."""
        return cls(len(checks), sum(c.found is not None for c in checks), sum(c.exact for c in checks),
                   sum(c.near for c in checks))

    def rate(self, what: str) -> float:
        """``given``, ``exact`` or ``near`` as a fraction of the runs (0 without runs)."""
        return float(getattr(self, what)) / self.runs if self.runs else 0.0


def _meta(value: Any) -> dict[str, Any]:
    if not isinstance(value, str) or not value:
        return {}
    try:
        obj = json.loads(value)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _native_of(steps: pl.DataFrame | pl.LazyFrame, ids: list[str]) -> dict[tuple[str, int], int]:
    df = (steps.lazy().filter(pl.col("trace_id").is_in(ids)).select("trace_id", "step", "native_index")
          .collect())
    return {(str(t), int(s)): int(n if n is not None else s) for t, s, n in df.iter_rows()}


def planted_scores(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                   contrast: pl.DataFrame) -> list[RunCheck]:
    """Failed runs with a planted divergence whose task also succeeded, checked.

    Args:
        traces: Traces frame (``metadata_json`` holds ``planted_divergence``).
        steps: Steps frame (for ``native_index``).
        contrast: CONTRAST_COLUMNS of the runs.
    """
    by_run = {str(r["trace_id"]): r for r in contrast.iter_rows(named=True)}
    planted: dict[str, dict[str, Any]] = {}
    for tid, meta in traces.select("trace_id", "metadata_json").iter_rows():
        p = _meta(meta).get("planted_divergence")
        if isinstance(p, dict) and str(tid) in by_run:
            planted[str(tid)] = p
    native = _native_of(steps, list(planted))
    out = []
    for tid, p in planted.items():
        step = by_run[tid]["divergence_step"]
        found = native.get((tid, int(step))) if step is not None else None
        out.append(RunCheck(tid, int(p["message"]), found, str(p.get("kind"))))
    return out


def _expected(meta: dict[str, Any]) -> set[tuple[str, str]] | None:
    acts = meta.get("expected_actions")
    if not isinstance(acts, list):
        return None
    out: set[tuple[str, str]] = set()
    for a in acts:
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            continue
        args = a.get("kwargs", a.get("arguments", {}))
        out.add((a["name"].strip().casefold(), normalise_args(json.dumps(args))))
    return out


def expected_action_scores(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                           contrast: pl.DataFrame) -> list[RunCheck]:
    """Failed runs whose task also succeeded and whose file records expected actions, checked.

    Args:
        traces: Traces frame (``metadata_json`` holds ``expected_actions``).
        steps: Steps frame.
        contrast: CONTRAST_COLUMNS of the runs.
    """
    by_run = {str(r["trace_id"]): r for r in contrast.iter_rows(named=True)}
    expected: dict[str, set[tuple[str, str]]] = {}
    for tid, meta in traces.select("trace_id", "metadata_json").iter_rows():
        exp = _expected(_meta(meta))
        if exp is not None and str(tid) in by_run:
            expected[str(tid)] = exp
    if not expected:
        return []
    df = (steps.lazy().filter(pl.col("trace_id").is_in(list(expected)))
          .select("trace_id", "step", "kind", "tool_name", "tool_args", "native_index").collect()
          .sort("trace_id", "step"))
    native = {(str(t), int(s)): int(n if n is not None else s)
              for t, s, n in df.select("trace_id", "step", "native_index").iter_rows()}
    out = []
    for (tid,), part in df.group_by(["trace_id"], maintain_order=True):
        exp = expected[str(tid)]
        depart: tuple[int, str] | None = None
        for kind, tool, args, nat, step in part.select("kind", "tool_name", "tool_args", "native_index", "step").iter_rows():
            if kind in ("tool_call", "action") and ((tool or "").strip().casefold(), normalise_args(args)) not in exp:
                depart = (int(nat if nat is not None else step), "call")
                break
        if depart is None:
            last = part.filter(pl.col("kind").is_in(["message", "thought", "tool_call", "action"]))
            if last.height == 0:
                continue
            row = last.row(-1, named=True)
            depart = (int(row["native_index"] if row["native_index"] is not None else row["step"]), "end")
        step = by_run[str(tid)]["divergence_step"]
        found = native.get((str(tid), int(step))) if step is not None else None
        out.append(RunCheck(str(tid), depart[0], found, depart[1]))
    return out
