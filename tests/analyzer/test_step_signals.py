"""The table of step signals (issue 28 item 7): documented columns, the helpers' values, computed once."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from analyzer.detection import text as T
from analyzer.detection.helpers import lexical_alignment
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.pipeline import blind
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.models import Role, Step, StepKind, Trajectory
from analyzer.signals.steps import (
    STEP_SIGNAL_COLUMNS,
    STEP_SIGNAL_NAMES,
    columns_of,
    step_signals,
    steps_markdown,
    table_for,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_column_list_is_generated_from_the_specs() -> None:
    doc = (ROOT / "docs" / "step_signals.md").read_text("utf-8")
    assert doc == steps_markdown(), (
        "docs/step_signals.md is stale: run `PYTHONPATH=$PWD python -m analyzer.signals.steps > docs/step_signals.md`")
    for c in STEP_SIGNAL_COLUMNS:
        assert c.doc.strip() and f"| `{c.name}` |" in doc


@pytest.fixture(scope="module")
def sample_runs() -> list[Trajectory]:
    res = load([ROOT / "sample_traces"])
    return [blind(t) for t in trajectories_from_frames(res.traces, res.steps)]


def test_the_table_holds_the_helpers_values_on_every_sample_run(sample_runs: list[Trajectory]) -> None:
    checked = 0
    for t in sample_runs:
        st = t.steps
        tab = step_signals(t)
        assert tab.columns == list(STEP_SIGNAL_NAMES) and tab.height == len(st)
        assert columns_of(tab) == {name: tab[name].to_list() for name in tab.columns}  # the lists the builder kept
        assert dict(tab.schema) == {c.name: c.dtype for c in STEP_SIGNAL_COLUMNS}
        brief = T.briefing_steps(st, t.task)
        for i, s in enumerate(st):
            row = tab.row(i, named=True)
            nxt = T.next_observation(st, i) if T.is_decision(s) else None
            want = {
                "step": i, "decision": T.is_decision(s), "observation": T.is_observation(s), "input": T.is_input(s),
                "agent": T.agent_identity(s), "acts": T.acts(s), "acting": T.is_acting(s),
                "runs_code": T.runs_code(s), "handoff": T.is_handoff(s), "echoes_prompt": T.echoes_prompt(s),
                "briefing": i in brief, "action_signature": T.action_signature(s),
                "next_observation": nxt.index if nxt is not None else None,
                "source_decision": T.source_decision(st, i) if T.is_observation(s) else None,
                "unresolved_error": T.unresolved_error(st, i),
                "task_containment": T.task_containment(t.task, s.text) if t.task else 0.0,
                "lexical_alignment": lexical_alignment(t.task, s.text), "text_len": len(s.text),
            }
            assert {k: row[k] for k in want} == want, (t.source_file, i)
            checked += 1
    assert checked > 1000


def _run() -> Trajectory:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="Count the rows of data.csv"),
             Step(index=1, agent="coder", kind=StepKind.MESSAGE, text="```python\nprint(len(open('data.csv')))\n```"),
             Step(index=2, role=Role.TOOL, kind=StepKind.OBSERVATION, text="Traceback: FileNotFoundError",
                  is_error=True),
             Step(index=3, agent="coder (thought)", kind=StepKind.THOUGHT, text="The file is missing; I assume 1200 rows."),
             Step(index=4, agent="coder", kind=StepKind.TOOL_CALL, tool_name="transfer_to_critic", text="")]
    return Trajectory(id="t", task="Count the rows of data.csv", steps=steps)


def test_columns_on_a_small_run() -> None:
    tab = step_signals(_run())
    assert tab["briefing"].to_list() == [True, False, False, False, False]
    assert tab["next_observation"].to_list() == [None, 2, None, None, None]
    assert tab["source_decision"].to_list() == [None, None, 1, None, None]
    assert tab["unresolved_error"].to_list() == [None, None, None, 2, 2]
    assert tab["agent"].to_list()[3] == "coder" and tab["handoff"].to_list()[4]
    assert tab["assume"].to_list()[3] and tab["new_numbers"].to_list()[3] == 1


def test_table_for_uses_a_consistent_table_and_computes_one_otherwise() -> None:
    run = _run()
    tab = step_signals(run)
    assert table_for(run, DetectionContext(step_table=tab)) is tab
    assert table_for(run, None, tab) is tab
    stale = tab.head(3)
    got = table_for(run, DetectionContext(step_table=stale))
    assert got is not stale and got.equals(tab)
    assert table_for(run, DetectionContext(step_table=tab.drop("agent"))).equals(tab)
    assert table_for(run).equals(tab)


def test_an_empty_run_has_an_empty_table_with_every_column() -> None:
    tab = step_signals(Trajectory(id="e", task="", steps=[]))
    assert tab.height == 0 and tab.columns == list(STEP_SIGNAL_NAMES)
    assert isinstance(tab, pl.DataFrame)


def test_columns_of_is_made_once_per_table_and_follows_its_table() -> None:
    run = _run()
    tab = step_signals(run)
    assert columns_of(tab) is columns_of(tab)
    copy = tab.clone()
    assert columns_of(copy) == columns_of(tab) and columns_of(copy) is not columns_of(tab)
