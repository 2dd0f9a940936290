"""Running detectors: failures become error strings while the other detectors finish."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from analyzer.detection import DECISIVE_PHASE, run_detectors
from analyzer.detection.text import (
    action_signature,
    briefing_steps,
    echoes_prompt,
    entities,
    format_templates,
    is_empty_output,
    is_termination_only,
    next_observation,
    normalise_number,
    output_sources,
    significant_numbers,
    source_decision,
)
from analyzer.plugin_host import DetectionContext, PluginHost
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory


def _traj() -> Trajectory:
    return Trajectory(id="run-1", task="count the bugs", outcome=Outcome.FAILURE, steps=[
        Step(index=0, role=Role.USER, kind=StepKind.USER, text="count the bugs"),
        Step(index=1, agent="a", kind=StepKind.MESSAGE, text="There are 12 bugs."),
    ])


def _good(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    return [Finding(trace_id="wrong-id", step=1, category="hallucination", score=0.5)]


def _boom(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    raise RuntimeError("detector exploded")


def _not_a_list(trajectory: Trajectory, ctx: DetectionContext) -> object:
    return "nope"


def _out_of_range(trajectory: Trajectory, ctx: DetectionContext) -> list[dict[str, object]]:
    return [{"trace_id": trajectory.id, "step": 99, "category": "other", "score": 0.1}]


def _bad_category(trajectory: Trajectory, ctx: DetectionContext) -> list[dict[str, object]]:
    return [{"trace_id": trajectory.id, "step": 0, "category": "not-a-category", "score": 0.1}]


class _Decisive:
    phase = "decisive"

    def __call__(self, trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
        step = ctx.settings["decisive_step"]
        return [Finding(trace_id=trajectory.id, step=step, category="other", score=0.3)]


@pytest.fixture()
def host() -> Iterator[PluginHost]:
    mod = types.ModuleType("tsdet_fixture")
    for name, obj in {"good": _good, "boom": _boom, "not_a_list": _not_a_list,
                      "out_of_range": _out_of_range, "bad_category": _bad_category, "Decisive": _Decisive}.items():
        setattr(mod, name, obj)
    sys.modules["tsdet_fixture"] = mod
    h = PluginHost()
    h.register_manifest({"plugin": {"name": "fixture"}, "detectors": [
        {"id": "boom", "callable": "tsdet_fixture:boom"},
        {"id": "good", "callable": "tsdet_fixture:good"},
        {"id": "not_a_list", "callable": "tsdet_fixture:not_a_list"},
        {"id": "out_of_range", "callable": "tsdet_fixture:out_of_range"},
        {"id": "bad_category", "callable": "tsdet_fixture:bad_category"},
        {"id": "missing", "callable": "tsdet_fixture_missing_module:detect"},
        {"id": "decisive", "callable": "tsdet_fixture:Decisive"},
    ]})
    yield h
    del sys.modules["tsdet_fixture"]


def test_raising_detector_becomes_an_error_and_the_others_finish(host: PluginHost) -> None:
    res = run_detectors(_traj(), DetectionContext(), host)
    assert [f.source for f in res.findings] == ["good"]
    assert res.findings[0].trace_id == "run-1"  # normalised to the run
    errors = "\n".join(res.errors)
    assert "boom: RuntimeError: detector exploded" in errors
    assert "not_a_list:" in errors and "expected a list" in errors
    assert "out_of_range:" in errors and "step 99" in errors
    assert "bad_category:" in errors and "invalid finding" in errors
    assert "missing:" in errors
    assert len(res.errors) == 5


def test_decisive_phase_runs_only_decisive_detectors(host: PluginHost) -> None:
    steps_phase = run_detectors(_traj(), DetectionContext(), host, only=["decisive", "good"])
    assert [f.source for f in steps_phase.findings] == ["good"]
    res = run_detectors(_traj(), DetectionContext(settings={"decisive_step": 1}), host, phase=DECISIVE_PHASE)
    assert [(f.source, f.step) for f in res.findings] == [("decisive", 1)]
    assert res.errors == []


def test_text_helpers() -> None:
    assert normalise_number("$1,200.50") == "1200.5"
    assert normalise_number("12%") == "12"
    assert significant_numbers("1. item 2. item 737,015 and 4.5") == {"737015", "4.5"}
    assert is_termination_only("TERMINATE") and not is_termination_only("") and not is_termination_only(
        "The fix is complete because the parser now handles offsets.")
    assert is_empty_output("exitcode: 0 (execution succeeded)\nCode output: ")
    assert not is_empty_output("exitcode: 0 (execution succeeded)\nCode output: 42 rows")
    assert "orion-2" in entities("We compare Orion-2 prices.")
    assert "model" not in entities("Model | Input\nOrion-2 | $1.20")
    call = Step(index=0, kind=StepKind.TOOL_CALL, tool_name="bash", tool_args='{"cmd": "ls"}')
    code = Step(index=1, kind=StepKind.MESSAGE, text="Run this:\n```python\nprint(1)\n```")
    assert action_signature(call) == 'bash {"cmd": "ls"}'
    assert action_signature(code) == "print(1)"
    assert action_signature(Step(index=2, kind=StepKind.MESSAGE, text="plain words")) is None
    template = ("Output should adhere to the following format.\n```json\n[\n"
                '    {"command_name": "ClassName.method_name", "args": {"arg_name": arg_value, ...}},\n    ...\n]\n```')
    prompt = Step(index=3, kind=StepKind.MESSAGE, text="# Current Plan\nNo Plan\n" + template)
    assert format_templates(prompt.text) and echoes_prompt(prompt)
    assert action_signature(prompt) is None  # a format template is not an action
    both = Step(index=4, kind=StepKind.MESSAGE, text=template + "\nNow:\n```bash\nls -la\n```")
    assert action_signature(both) == "ls -la" and echoes_prompt(both)
    # an ellipsis in real code, or a format cue without placeholders, is not a template
    assert not format_templates("Here is the fix:\n```python\nitems = [1, 2, ...]\n```")
    assert not format_templates("Save it in the following format.\n```json\n{\"rate\": 3.9}\n```")
    assert not echoes_prompt(code)
    t = Trajectory(task="Count the open bug issues per component in the widgets repository", steps=[
        Step(index=0, kind=StepKind.SYSTEM, text="You are helpful."),
        Step(index=1, kind=StepKind.MESSAGE, text="Task: count the open bug issues per component in widgets repository."),
        Step(index=2, kind=StepKind.MESSAGE, text="I will query the API."),
    ])
    assert briefing_steps(t.steps, t.task) == {0, 1}


def _team_run() -> Trajectory:
    """A Magentic-One-style team: the Coder writes a script, the orchestrator asks to run it, it fails."""
    task = "What is the median nightly price in data/listings.csv? Round it to two decimals."
    return Trajectory(task=task, steps=[
        Step(index=0, role=Role.USER, kind=StepKind.USER, text=task),
        Step(index=1, agent="Orchestrator", kind=StepKind.MESSAGE,
             text="We are working to address the following user request: " + task),
        Step(index=2, agent="Coder", kind=StepKind.MESSAGE,
             text="Here is the script for the median nightly price, rounded to two decimals:\n```python\n"
                  "import pandas as pd\ndf = pd.read_csv('data/listings.csv')\nprint(round(df['Price'].median(), 2))\n```"),
        Step(index=3, agent="Orchestrator", kind=StepKind.MESSAGE, text="Please run the script the Coder wrote."),
        Step(index=4, agent="ComputerTerminal", role=Role.TOOL, kind=StepKind.OBSERVATION, is_error=True,
             text="KeyError: 'Price'"),
        Step(index=5, agent="Orchestrator", kind=StepKind.MESSAGE, text="Coder, the column is nightly_price."),
        Step(index=6, agent="Orchestrator", kind=StepKind.MESSAGE, text="Please check the file first."),
        Step(index=7, agent="ComputerTerminal", role=Role.TOOL, kind=StepKind.OBSERVATION, text="id,nightly_price"),
    ])


def test_an_output_answers_the_code_not_the_request_to_run_it() -> None:
    steps = _team_run().steps
    assert source_decision(steps, 4) == 2  # the script, not "Please run the script"
    assert next_observation(steps, 2) is steps[4]
    assert next_observation(steps, 3) is None
    # no decision acts since the last output: the output answers the latest decision
    assert source_decision(steps, 7) == 6
    assert next_observation(steps, 6) is steps[7] and next_observation(steps, 5) is None
    # a decision directly before its output, as in tool-calling runs
    call = [Step(index=0, kind=StepKind.TOOL_CALL, tool_name="ls"), Step(index=1, kind=StepKind.OBSERVATION, text="a")]
    assert source_decision(call, 1) == 0 and next_observation(call, 0) is call[1]
    assert source_decision(call, 0) is None


def test_output_sources_is_source_decision_in_one_pass() -> None:
    steps = [*_team_run().steps, Step(index=8, kind=StepKind.OBSERVATION, role=Role.TOOL, text="again")]
    pairs = list(output_sources(steps))
    assert [o.index for o, _ in pairs] == [s.index for s in steps if s.kind == StepKind.OBSERVATION]
    for o, src in pairs:
        assert (src.index if src is not None else None) == source_decision(steps, o.index)


def test_a_first_script_that_restates_the_task_commits() -> None:
    t = _team_run()
    assert briefing_steps(t.steps, t.task) == {0, 1}  # the Coder's script (step 2) is a commitment
    # a JSON block or a logged prompt that restates the task still only restates it
    json_step = Step(index=2, agent="Lead", kind=StepKind.MESSAGE,
                     text="The median nightly price in data/listings.csv, round to two decimals:\n"
                          '```json\n{"to": "Coder", "task": "median nightly price"}\n```')
    template = ("Output should adhere to the following format.\n```python\n"
                "# the median nightly price in data/listings.csv, round to two decimals\n...\n```")
    prompt = Step(index=2, agent="Lead", kind=StepKind.MESSAGE, text=template)
    assert echoes_prompt(prompt)
    # text after the JSON block (MetaGPT logs the terminal output there): its closing fence opens nothing
    json_then_text = json_step.model_copy(update={"text": json_step.text + "\n\nTerminal output: [command]: pwd"})
    for step in (json_step, json_then_text, prompt):
        assert briefing_steps([*t.steps[:2], step], t.task) == {0, 1, 2}
    # a runnable block after a JSON block, or cut off by the end of the text, still commits
    for tail in ("\n```bash\npython median.py\n```", "\n```python\nimport pandas as pd"):
        mixed = json_step.model_copy(update={"text": json_step.text + tail})
        assert briefing_steps([*t.steps[:2], mixed], t.task) == {0, 1}
