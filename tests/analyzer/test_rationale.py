"""Rationales that explain: planted evidence, the structured form, and every failed sample run."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import markupsafe
import polars as pl
import pytest

from analyzer.analysis.result import AnalysisResult
from analyzer.attribution.attribute import choose_category
from analyzer.attribution.features import FEATURE_NAMES, step_features
from analyzer.attribution.quotes import QUOTE_LIMIT, clip, key_segment, recurring_prompt_text
from analyzer.attribution.rationale import (
    RATIONALE_MESSAGES,
    Rationale,
    explain,
    iter_quotes,
    ranking_tail,
    simple,
)
from analyzer.detection.text import quote
from analyzer.export import ReportOptions, export_tables, render_html, render_markdown, render_pdf
from analyzer.export.report_md import md_escape
from analyzer.loading import LoadResult, load
from analyzer.messages import Message
from analyzer.pipeline import analyze
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
STEP_REF = re.compile(r"\bstep \d+\b")
OLD_TEMPLATE = re.compile(r"^step \d+ \(.*\) ranked first with p=")


def _user(i: int, text: str) -> Step:
    return Step(index=i, role=Role.USER, kind=StepKind.USER, agent="user", text=text)


def _say(i: int, text: str, agent: str = "analyst") -> Step:
    return Step(index=i, role=Role.ASSISTANT, kind=StepKind.MESSAGE, agent=agent, text=text)


def _call(i: int, tool: str, args: str, text: str = "", agent: str = "analyst") -> Step:
    return Step(index=i, role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, agent=agent, tool_name=tool,
                tool_args=args, text=text)


def _obs(i: int, text: str, tool: str | None = None, error: bool = False) -> Step:
    return Step(index=i, role=Role.TOOL, kind=StepKind.OBSERVATION, agent="tool", tool_name=tool, text=text,
                is_error=error)


def _run(task: str, steps: list[Step]) -> Trajectory:
    return Trajectory(id="planted", task=task, outcome=Outcome.FAILURE, steps=steps)


def _trace_texts(t: Trajectory) -> list[str]:
    out = [t.task]
    for s in t.steps:
        out.extend(x for x in (s.text, s.tool_args, s.error_text) if x)
    return out


def _assert_explains(r: Rationale, t: Trajectory) -> str:
    """Common guarantees: verbatim quotes (≤ 200 chars, one ≥ 15), step references, not a template."""
    text = r.render()
    texts = _trace_texts(t)
    quotes = list(iter_quotes(r))
    assert quotes, text
    for q in r.quotes():
        assert len(q) <= QUOTE_LIMIT and "\n" not in q, q
    for q in quotes:
        assert any(q in x for x in texts), f"not verbatim trace text: {q!r}"
        assert q in text
    assert any(len(q) >= 15 for q in quotes), text
    assert STEP_REF.search(text), text
    assert all(0 <= s < len(t.steps) for s in r.steps()), r.steps()
    assert not OLD_TEMPLATE.match(text)
    return text


def test_unsupported_number_is_quoted_with_the_observation_that_contradicts_it() -> None:
    t = _run("What was the unemployment rate of Freedonia in 2022?", [
        _user(0, "What was the unemployment rate of Freedonia in 2022?"),
        _call(1, "web_search", '{"query": "Freedonia unemployment rate 2022"}'),
        _obs(2, "Freedonia Statistics Office, annual report.\nThe unemployment rate in 2022 was 3.9 percent, "
                "down from 4.4 percent in 2021.", tool="web_search"),
        _say(3, "I found the figure. According to the search, the 2022 unemployment rate of Freedonia was 4.1%."),
    ])
    r = explain(t, 3, "hallucination")
    text = _assert_explains(r, t)
    assert text.startswith("Hallucination: step 3 ")
    assert "“According to the search, the 2022 unemployment rate of Freedonia was 4.1%.”" in text
    assert "no earlier observation shows 4.1%" in text
    assert ("the web_search output at step 2 reads “The unemployment rate in 2022 was 3.9 percent, "
            "down from 4.4 percent in 2021.”") in text
    assert r.steps()[:2] == [3, 2]


def test_a_rounded_copy_of_an_observed_number_is_not_unsupported() -> None:
    t = _run("Find the limit of the sequence.", [
        _user(0, "Find the limit of the sequence."),
        _call(1, "python", '{"code": "print(limit())"}'),
        _obs(2, "limit: -4.9361047573920285", tool="python"),
        _say(3, "The sequence converges to about -4.9361 after three iterations, so the limit is -4.94."),
    ])
    r = explain(t, 3, "hallucination")
    _assert_explains(r, t)
    assert not any(p.id.startswith("unsupported_number") for p in r.parts), r.render()


def _error_run() -> Trajectory:
    return _run("Report the average order value in data.csv.", [
        _user(0, "Report the average order value in data.csv."),
        _call(1, "bash", '{"cmd": "python load.py data.csv"}', text="Load the orders first."),
        _obs(2, "Traceback (most recent call last):\n  File \"load.py\", line 3, in <module>\n"
                "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'", tool="bash", error=True),
        _say(3, "The data is loaded. The average order value is 52.3 dollars."),
    ])


def test_error_output_after_the_step_and_what_the_agent_did_next() -> None:
    t = _error_run()
    r = explain(t, 1, "failed_recovery")
    text = _assert_explains(r, t)
    assert ("the action at step 1 fails: the output at step 2 reads “FileNotFoundError: [Errno 2] No such file "
            "or directory: 'data.csv'”") in text
    assert ("the agent's next step, step 3, goes on without addressing it: “The data is loaded.”" in text
            or "step 3, goes on without addressing it: “The average order value is 52.3 dollars.”" in text)
    assert [p.id for p in r.parts][-2:] == ["error_after", "next_ignores"]


def test_a_changed_script_after_the_error_responds_to_it_and_the_run_request_is_not_the_failing_step() -> None:
    # a Magentic-One-style team: the orchestrator asks to run the Coder's script; the output answers the script
    script = "import pandas as pd\ndf = pd.read_csv('listings.csv')\nprint(round(df['{col}'].median(), 2))"
    t = _run("Median nightly price in listings.csv?", [
        _user(0, "Median nightly price in listings.csv?"),
        _say(1, "Here is the script:\n```python\n" + script.format(col="Price") + "\n```", agent="Coder"),
        _say(2, "Please run the script the Coder wrote.", agent="Orchestrator"),
        _obs(3, "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
                "    print(round(df['Price'].median(), 2))\nKeyError: 'Price'", error=True),
        _say(4, "Coder, the column is called nightly_price.", agent="Orchestrator"),
        _say(5, "```python\n" + script.format(col="nightly_price") + "\n```", agent="Coder"),
    ])
    text = _assert_explains(explain(t, 1, "planning_error"), t)
    assert "the action at step 1 fails: the output at step 3 reads “KeyError: 'Price'”" in text
    assert "it says “print(round(df['Price'].median(), 2))”" in text  # the line the traceback shows
    # no word about the error, but the failing line is changed: that is a response, and the changed line is quoted
    assert "the agent's next step, step 5, responds: “print(round(df['nightly_price'].median(), 2))”" in text
    assert "the action at step 2 fails" not in explain(t, 2, "planning_error").render()
    retry = _run(t.task, [*t.steps[:5], _say(5, t.steps[1].text, agent="Coder")])
    assert "step 5, goes on without addressing it" in explain(retry, 1, "planning_error").render()


def test_ignored_error_before_the_step() -> None:
    t = _error_run()
    r = explain(t, 3, "hallucination")
    text = _assert_explains(r, t)
    assert "step 3 goes on as if the error at step 2 had not happened: “FileNotFoundError:" in text
    assert "no earlier observation shows 52.3" in text


def test_finding_evidence_quote_is_found_back_verbatim() -> None:
    obs_text = ("deploy/production/billing.yaml:\n   port:    8443\n   tls:  true\n"
                "The billing service listens on port 8443 in production.")
    t = _run("Which port does the billing service use in production?", [
        _user(0, "Which port does the billing service use in production?"),
        _call(1, "shell", '{"cmd": "cat deploy/production/billing.yaml"}'),
        _obs(2, obs_text, tool="shell"),
        _say(3, "Checking the defaults as well."),
        _say(4, "The billing service uses port 8080 in production."),
    ])
    f = Finding(trace_id="planted", step=4, category="evidence_action_gap", score=0.7, evidence_start=2,
                evidence_end=4, evidence_quote=quote(obs_text[50:], 160), source="evidence_action_gap",
                rationale="the observation at step 2 matches the task; step 4 does not use it")
    assert f.evidence_quote not in obs_text  # the detector collapsed the whitespace
    r = explain(t, 4, "evidence_action_gap", [f])
    text = _assert_explains(r, t)
    assert text.startswith("Evidence-to-action gap: step 4 ignores or contradicts a fact an observation already gave")
    assert ("it states “The billing service uses port 8080 in production.”, but no earlier observation "
            "shows 8080") in text
    assert "the shell output at step 2 reads “The billing service listens on port 8443 in production.”" in text


def test_repeated_action_names_the_first_occurrence() -> None:
    args = '{"cmd": "pip install psycopg2"}'
    t = _run("Install the dependencies.", [
        _user(0, "Install the dependencies."),
        _call(1, "bash", args),
        _obs(2, "Error: pg_config executable not found.", tool="bash", error=True),
        _call(3, "bash", args),
        _obs(4, "Error: pg_config executable not found.", tool="bash", error=True),
    ])
    f = Finding(trace_id="planted", step=3, category="repeated_action", score=0.8, evidence_start=1,
                evidence_end=3, evidence_quote="bash {\"cmd\": \"pip install psycopg2\"}", source="repeated_action")
    text = _assert_explains(explain(t, 3, "repeated_action", [f]), t)
    assert "it calls bash with “{\"cmd\": \"pip install psycopg2\"}”" in text
    assert "the same action first ran at step 1" in text
    assert "the output at step 4 reads “Error: pg_config executable not found.”" in text


def test_key_sentence_is_the_most_specific_one() -> None:
    t = _run("Plan the migration.", [
        _user(0, "Plan the migration."),
        _say(1, "Okay.\nHere is some context about the repository layout and conventions.\n"
                "I will drop the orders table and recreate it from the CSV backup."),
        _say(2, "Done."),
    ])
    text = _assert_explains(explain(t, 1, "planning_error"), t)
    assert "it says “I will drop the orders table and recreate it from the CSV backup.”" in text


def _prompt(goal: str) -> str:
    """A role prompt logged as the agent's message, the way MetaGPT logs one per model call."""
    return (f"Engineer thinking: \n# Current Plan\n[GOAL] {goal}\n\n# Instruction\n"
            "If you finish current task, you will automatically take the next task in the existing plan.\n"
            "Some text indicating your thoughts before JSON is required, such as what tasks have been completed.\n"
            "Output should adhere to the following format.\n```json\n[\n"
            '    {"command_name": "ClassName.method_name", "args": {"arg_name": arg_value, ...}},\n    ...\n]\n```\n')


def test_a_logged_prompt_is_quoted_by_what_differs_from_the_run_s_other_prompts() -> None:
    """The prompt's instructions recur in every logged prompt; its goal is what the quote shows,
    and words of the instructions ("what tasks have been completed") name no category."""
    goal = "Write parse_dates so that it returns UTC datetimes for the 2,400 legacy records."
    t = _run("Implement parse_dates.", [
        _user(0, "Implement parse_dates."),
        _say(1, _prompt("Create a plan for the parse_dates task.")),
        _say(2, "I will assign the task to the Engineer.\n```json\n[{\"command_name\": \"Plan.append_task\"}]\n```"),
        _say(3, _prompt(goal)),
        _say(4, "I will write the function now.\n```json\n[{\"command_name\": \"Editor.write\"}]\n```"),
    ])
    assert recurring_prompt_text(t.steps)
    assert key_segment(t.steps[3], recurring_prompt_text(t.steps)).text == f"[GOAL] {goal}"
    text = _assert_explains(explain(t, 3, None), t)
    assert f"[GOAL] {goal}" in text and "what tasks have been completed" not in text
    feats = step_features(t)
    col = FEATURE_NAMES.index("done")
    assert feats[3, col] > 0  # the instructions' "finish current task" reads as a done claim ...
    assert choose_category(t, 3, [], feats)[0] != "false_success"  # ... but it is the prompt's, not the agent's
    # one prompt re-sent unchanged: nothing differs, so nothing is boilerplate
    assert recurring_prompt_text([t.steps[3], t.steps[3].model_copy(update={"index": 5})]) == frozenset()


def test_step_without_text_borrows_a_neighbour_or_the_task() -> None:
    t = _run("Summarise the quarterly sales figures.", [
        _user(0, "Summarise the quarterly sales figures."),
        _say(1, ""),
    ])
    text = _assert_explains(explain(t, 1, None), t)
    assert "step 1 has no text" in text and "step 0 says “Summarise the quarterly sales figures.”" in text


def test_long_sentences_are_clipped_verbatim() -> None:
    long = "word " * 30 + "the rate was 12.75 percent according to the report " + "filler " * 40
    c = clip(long.strip(), focus=long.index("12.75"), limit=120)
    assert len(c) <= 120 and c.startswith("…") and c.endswith("…")
    assert c.strip("…") in long and "12.75" in c


def test_structured_form_round_trips_and_renders_the_same_text() -> None:
    t = _error_run()
    r = explain(t, 1, "failed_recovery", tail=ranking_tail(0.31, 8, 0.12, agent="Coder", agent_share=0.6))
    again = Rationale.from_json(r.to_json())
    assert again == r and again.render() == r.render()
    assert r.render().endswith("(p=0.31, runner-up step 8 p=0.12; responsible agent Coder, 60% of the candidate mass)")
    data = json.loads(r.to_json())
    assert data["v"] == 1 and data["category"] == "failed_recovery"
    assert all(p["id"] in RATIONALE_MESSAGES for p in data["parts"] + data["tail"])
    assert simple("run_succeeded").render() == "run succeeded"
    with pytest.raises(ValueError, match="not a version-1 rationale"):
        Rationale.from_json('{"parts": []}')
    with pytest.raises(ValueError, match="not JSON"):
        Rationale.from_json("{")
    with pytest.raises(ValueError, match="not scalars"):
        Message.from_dict({"id": "rank", "params": {"p": [1]}})


def test_every_template_uses_only_typed_placeholders() -> None:
    allowed = {"step", "steps", "quote", "category", "body", "tail", "tool", "value", "p", "n", "agent", "share"}
    for mid, template in RATIONALE_MESSAGES.items():
        for name in re.findall(r"{(\w+)}", template):
            assert name in allowed or name.endswith(("_step", "_steps", "_quote", "_p")), (mid, name)


# -- every failed run of the sample traces ------------------------------------------------------


@pytest.fixture(scope="module")
def analysis() -> tuple[LoadResult, AnalysisResult]:
    loaded = load([SAMPLES])
    assert not loaded.errors, loaded.errors
    return loaded, analyze(loaded.traces, loaded.steps)  # no judge, no embedder


@pytest.fixture(scope="module")
def analysed(analysis: tuple[LoadResult, AnalysisResult]) -> tuple[LoadResult, pl.DataFrame]:
    loaded, res = analysis
    runs = loaded.traces.select("trace_id", "task", "outcome", "source_file").join(res.runs, on="trace_id")
    return loaded, runs


def _texts_of(loaded: LoadResult, row: dict[str, object]) -> list[str]:
    st = loaded.steps.filter(pl.col("trace_id") == row["trace_id"])
    out = [str(row["task"] or "")]
    for col in ("text", "tool_args", "error_text"):
        out.extend(str(x) for x in st[col].to_list() if x)
    return out


def _check_run(loaded: LoadResult, row: dict[str, object]) -> None:
    text = str(row["rationale"])
    r = Rationale.from_json(str(row["rationale_json"]))
    assert r.render() == text
    texts = _texts_of(loaded, row)
    verbatim = [q for q in iter_quotes(r) if any(q in x for x in texts)]
    assert list(iter_quotes(r)) == verbatim, f"{row['source_file']}: a quote is not trace text: {text}"
    assert any(len(q) >= 15 and q in text for q in verbatim), f"{row['source_file']}: no quote ≥ 15 chars: {text}"
    assert all(len(q) <= QUOTE_LIMIT for q in r.quotes())
    assert STEP_REF.search(text), f"{row['source_file']}: no step reference: {text}"
    assert row["decisive_step"] in r.steps()
    assert r.category == row["category"]
    assert not OLD_TEMPLATE.match(text), text


def test_every_failed_sample_run_quotes_its_evidence(analysed: tuple[LoadResult, pl.DataFrame]) -> None:
    loaded, runs = analysed
    failed = runs.filter(pl.col("decisive_step").is_not_null())
    assert failed.height >= 20
    acted = loaded.steps.filter(pl.col("kind") != "observation")["trace_id"].unique()
    # every run that did not succeed and in which the agent acted (a Harbor trial that errored before the
    # agent acted has only its exception: nothing to attribute)
    assert failed.height == runs.filter((pl.col("outcome") != "success") & pl.col("trace_id").is_in(acted)).height
    for row in failed.iter_rows(named=True):
        _check_run(loaded, row)
    ok = runs.filter(pl.col("outcome") == "success")
    assert ok.height and set(ok["rationale"].to_list()) == {"run succeeded"}
    assert all(json.loads(x)["parts"][0]["id"] == "run_succeeded" for x in ok["rationale_json"].to_list())


def test_who_and_when_development_runs_quote_their_evidence(analysed: tuple[LoadResult, pl.DataFrame]) -> None:
    loaded, runs = analysed
    ww = runs.filter(pl.col("source_file").str.contains("who_and_when"))
    assert ww.height == 4 and ww["decisive_step"].null_count() == 0
    for row in ww.iter_rows(named=True):
        _check_run(loaded, row)


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_csv_and_reports_show_the_same_rationale(analysis: tuple[LoadResult, AnalysisResult],
                                                 tmp_path: Path) -> None:
    loaded, res = analysis
    ids = loaded.traces.filter(pl.col("source_file").str.contains("who_and_when|evidence_action_gap"))["trace_id"]
    traces = loaded.traces.filter(pl.col("trace_id").is_in(ids.implode()))
    steps = loaded.steps.filter(pl.col("trace_id").is_in(ids.implode()))
    runs = res.runs.filter(pl.col("trace_id").is_in(ids.implode()))
    sub = AnalysisResult(runs=runs, step_values=res.step_values.filter(pl.col("trace_id").is_in(ids.implode())),
                         findings=res.findings.filter(pl.col("trace_id").is_in(ids.implode())))
    table = export_tables(traces, steps, sub)["traces"]
    assert dict(table.select("trace_id", "rationale").iter_rows()) == dict(runs.select("trace_id", "rationale").iter_rows())
    opts = ReportOptions(title="Rationales", generated="2026-01-01 00:00 UTC")
    page = render_html(traces, steps, sub, options=opts)
    md = render_markdown(traces, steps, sub, options=opts)
    (tmp_path / "r.pdf").write_bytes(render_pdf(traces, steps, sub, options=opts))
    pdf_text = _squash(subprocess.run(["pdftotext", str(tmp_path / "r.pdf"), "-"], check=True,
                                      capture_output=True, text=True).stdout)
    assert runs.height == 5
    for text in runs["rationale"].to_list():
        assert str(markupsafe.escape(text)) in page  # autoescaped: a quote of trace text cannot inject HTML
        assert md_escape(text) in md
        # pdftotext joins a word hyphenated at a line end ("re-" / "run" -> "rerun") and splits a path wrapped
        # at a slash ("/srv/ platform-config"): compare without hyphens and spaces
        assert _squash(text).replace("-", "").replace(" ", "") in pdf_text.replace("-", "").replace(" ", "")
