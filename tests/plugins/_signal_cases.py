"""Builders shared by the signal-detector tests."""

from __future__ import annotations

import json
from typing import Any

from analyzer.plugin_host import DetectionContext, default_host
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.signals.run import SignalOutput

USER, SYSTEM, THOUGHT, MESSAGE, CALL, OBS = (StepKind.USER, StepKind.SYSTEM, StepKind.THOUGHT,
                                             StepKind.MESSAGE, StepKind.TOOL_CALL, StepKind.OBSERVATION)


def bash(cmd: str) -> dict[str, Any]:
    """A bash tool call."""
    return {"kind": CALL, "tool": "bash", "args": {"command": cmd}}


def out(text: str, error: bool = False) -> dict[str, Any]:
    """A tool output."""
    return {"kind": OBS, "text": text, "error": error}


def say(text: str, kind: StepKind = MESSAGE) -> dict[str, Any]:
    """An agent message or thought."""
    return {"kind": kind, "text": text}


def run(task: str, steps: list[dict[str, Any]], outcome: Outcome = Outcome.FAILURE, tid: str = "t1",
        tokens_in: int | None = None) -> Trajectory:
    """A trajectory from short step specs; the task is stated in a first user step."""
    specs = [{"kind": USER, "text": task}, *steps]
    built = []
    for i, sp in enumerate(specs):
        kind = sp.get("kind", MESSAGE)
        role = {USER: Role.USER, SYSTEM: Role.SYSTEM, OBS: Role.TOOL}.get(kind, Role.ASSISTANT)
        args = sp.get("args")
        built.append(Step(index=i, agent=str(role), role=role, kind=kind, text=sp.get("text", ""),
                          tool_name=sp.get("tool"), tool_args=json.dumps(args) if args is not None else None,
                          is_error=sp.get("error", False),
                          tokens_in=tokens_in if role == Role.ASSISTANT else None))
    return Trajectory(id=tid, task=task, outcome=outcome, steps=built)


def analyse(detector_id: str, traj: Trajectory, **settings: Any) -> SignalOutput:
    """The detector's full output, checked for shape."""
    det = default_host().load_detector(detector_id)
    res = det.analyse(traj, DetectionContext(settings=settings))
    assert isinstance(res, SignalOutput)
    n = len(traj.steps)
    assert all(len(v) == n for v in res.step_values.values())
    assert all(f.source == detector_id and 0 <= f.step < n and 0 <= f.score <= 1 for f in res.findings)
    assert det(traj, DetectionContext(settings=settings)) == res.findings
    return res
