"""Each run's steps are classified once (issue 28 item 7).

The classification helpers of :mod:`analyzer.detection.text` (and the lexical alignment) are
counted wherever a module of ``analyzer`` or ``plugins`` bound them; ``analyze_run`` with the
shipped detectors (steps, decisive and signals phases) must evaluate each at most once per step,
and the helpers that scan other steps (briefing, the output answering a decision, its source,
unresolved errors) not at all: the step-signal table derives them from its own columns.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from analyzer.attribution.features import step_features
from analyzer.attribution.ranker import Ranker
from analyzer.detection import helpers as detection_helpers
from analyzer.detection import text as T
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.pipeline import analyze_run, blind
from analyzer.plugin_host.registry import default_host
from analyzer.schema.models import Step, Trajectory

ROOT = Path(__file__).resolve().parents[2]

PER_STEP = ("is_decision", "is_observation", "is_input", "agent_identity", "acts", "is_acting", "runs_code",
            "is_handoff", "action_signature", "echoes_prompt")
"""Helpers of one step: at most one call per step."""

PER_TEXT = ("task_containment", "lexical_alignment")
"""Helpers of the task and one step's text: at most one call per step."""

SCANS = ("briefing_steps", "next_observation", "source_decision", "unresolved_error", "output_sources")
"""Helpers that scan the run: never called (the table derives them)."""


class Counts:
    """Calls of every counted helper: per step object, and in total."""

    def __init__(self) -> None:
        self.by_step: Counter[tuple[str, int]] = Counter()
        self.total: Counter[str] = Counter()

    def reset(self) -> None:
        self.by_step.clear()
        self.total.clear()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.total[name] += 1
            if args and isinstance(args[0], Step):
                self.by_step[(name, id(args[0]))] += 1
            return fn(*args, **kwargs)

        return counted


@pytest.fixture(scope="module")
def host() -> Any:
    h = default_host()
    for spec in h.detectors():
        h.load_detector(spec.id)  # import every shipped detector module before the helpers are wrapped
    return h


@pytest.fixture
def counts(host: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counts]:
    c = Counts()
    originals = {name: getattr(T, name) for name in (*PER_STEP, *SCANS, "task_containment")}
    originals["lexical_alignment"] = detection_helpers.lexical_alignment
    patched = 0
    for mod in list(sys.modules.values()):
        name = getattr(mod, "__name__", "") or ""
        if not name.startswith(("analyzer", "plugins")):
            continue
        for fname, fn in originals.items():
            if getattr(mod, fname, None) is fn:
                monkeypatch.setattr(mod, fname, c.wrap(fname, fn))
                patched += 1
    assert patched >= 20  # the table builder's, the consumers' that remain, and the defining modules'
    yield c


@pytest.fixture(scope="module")
def runs() -> list[Trajectory]:
    res = load([ROOT / "sample_traces"])
    return list(trajectories_from_frames(res.traces, res.steps))


def test_analyze_run_classifies_each_step_once(runs: list[Trajectory], host: Any, counts: Counts) -> None:
    ranker = Ranker.load()
    multi = 0
    for t in runs:
        counts.reset()
        analyze_run(t, host=host, ranker=ranker)
        n = len(t.steps)
        over = {k: v for k, v in counts.by_step.items() if v > 1}
        assert not over, f"{t.source_file}: helpers evaluated more than once on a step: {sorted(over.items())[:5]}"
        for name in (*PER_STEP, *PER_TEXT):
            assert counts.total[name] <= n, (t.source_file, name, counts.total[name], n)
        for name in SCANS:
            assert counts.total[name] == 0, (t.source_file, name, counts.total[name])
        if n:
            assert counts.total["is_decision"] == n  # the table builder's one call per step
        multi += len({s.agent for s in t.steps if s.agent}) >= 2 and n >= 10
    assert multi >= 3  # multi-agent, multi-step samples among them


def test_the_count_sees_a_consumer_that_classifies_again(runs: list[Trajectory], counts: Counts) -> None:
    t = blind(max(runs, key=lambda r: len(r.steps)))
    step_features(t)  # standalone: builds its own table
    assert counts.total["is_decision"] == len(t.steps)
    T.is_decision(t.steps[0])
    T.briefing_steps(t.steps, t.task)
    assert counts.by_step[("is_decision", id(t.steps[0]))] == 2 and counts.total["briefing_steps"] == 1
