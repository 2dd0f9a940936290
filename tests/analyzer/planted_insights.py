"""A planted corpus for insight clustering: failed runs made from known failure patterns.

``planted_corpus(n_runs=200, seed=0)`` makes ``n_runs`` failed runs across 3 models, each built
around one of 4 failure patterns. Patterns overlap on purpose: two share a category
(hallucination), two share a tool (web_search), so neither the category nor the tool alone
recovers them, and one decisive step in five calls a random tool instead of the pattern's own; the
text of the decisive step (slot-filled templates with varied wording) and the tool together do. Every run has filler steps before and after the decisive one, drawn from a pool
shared by all patterns. The bench (``bench/insights_bench.py``) uses it for 10,000 runs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import polars as pl

from analyzer.analysis.result import RUN_COLUMNS
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS

MODELS = ("gpt-4o", "claude-3.5", "llama-3-70b")

SITES = ["api.weather.gov", "en.wikipedia.org", "arxiv.org", "data.worldbank.org", "github.com", "pubmed.gov"]
TOPICS = ["the 1998 census", "penguin population", "the Nile length", "GDP of Chile", "the Apollo 11 crew",
          "carbon emissions in 2010", "the tallest building", "Olympic medal counts", "bridge construction dates"]
PEOPLE = ["Marie Curie", "Alan Turing", "Ada Lovelace", "Niels Bohr", "Grace Hopper", "Emmy Noether"]
FILES = ["results", "sales_2021", "inventory", "measurements", "survey_data", "ledger"]


@dataclass(frozen=True)
class Pattern:
    """One planted failure pattern."""

    name: str
    category: str
    tool: str
    templates: tuple[str, ...]


PATTERNS: tuple[Pattern, ...] = (
    Pattern("search_timeout", "environment_failure", "web_search", (
        "The request to {site} timed out after {n} seconds: 504 gateway timeout while searching {topic}.",
        "Search for {topic} on {site} failed: connection timed out (504 gateway timeout) after {n} s.",
        "Error: gateway timeout 504 from {site}; the search on {topic} timed out after {n} seconds.",
    )),
    Pattern("unverified_submit", "false_success", "final_answer", (
        "I am confident the answer is {num}. Submitting {num} as the final answer without verifying it.",
        "Final answer: {num}. Task complete, no need to double-check the result, submitting now.",
        "The task is done; I submit {num} as the final answer and terminate without verification.",
    )),
    Pattern("invented_file_content", "hallucination", "read_file", (
        "According to {file}.csv, which I opened earlier, the total for {topic} is {num} rows.",
        "The file {file}.csv shows that {topic} adds up to {num}; I read this from the spreadsheet columns.",
        "Reading {file}.csv gives a column total of {num} for {topic}, as the spreadsheet rows show.",
    )),
    Pattern("invented_biography", "hallucination", "web_search", (
        "{person} was born in {year} and won the Nobel prize in {year2}, the biography page says.",
        "The biography of {person} states a birth year of {year} and a prize awarded in {year2}.",
        "Per the biography page, {person} (born {year}) received the award in {year2}.",
    )),
)

TOOLS = ("web_search", "read_file", "python", "final_answer")

FILLER = (
    "Let me think about how to approach this task step by step.",
    "I will look up the relevant information first.",
    "Observation received; continuing with the plan.",
    "Next I should check the intermediate result.",
    "Planning the next action based on what I know so far.",
)

MODEL_MIX = {  # pattern weights per model: the share per model differs
    "gpt-4o": (0.4, 0.3, 0.2, 0.1),
    "claude-3.5": (0.1, 0.2, 0.3, 0.4),
    "llama-3-70b": (0.25, 0.25, 0.25, 0.25),
}


@dataclass
class PlantedCorpus:
    """Frames of a planted corpus and the pattern of every run."""

    traces: pl.DataFrame
    steps: pl.DataFrame
    runs: pl.DataFrame
    pattern: dict[str, str]


def _fill(rng: random.Random, template: str) -> str:
    return template.format(site=rng.choice(SITES), topic=rng.choice(TOPICS), n=rng.randint(10, 120),
                           num=rng.randint(3, 99999), file=rng.choice(FILES), person=rng.choice(PEOPLE),
                           year=rng.randint(1820, 1960), year2=rng.randint(1900, 2000))


def planted_corpus(n_runs: int = 200, seed: int = 0) -> PlantedCorpus:
    """Make ``n_runs`` failed runs with 4 planted failure patterns across 3 models."""
    rng = random.Random(seed)
    traces: list[dict[str, object]] = []
    steps: list[dict[str, object]] = []
    runs: list[dict[str, object]] = []
    pattern: dict[str, str] = {}
    for i in range(n_runs):
        model = MODELS[i % len(MODELS)]
        pat = rng.choices(PATTERNS, weights=MODEL_MIX[model])[0]
        tid = f"run-{i:05d}"
        n_steps = rng.randint(6, 14)
        decisive = rng.randint(2, n_steps - 2)
        decisive_text = ""
        for s in range(n_steps):
            if s == decisive:
                tool = pat.tool if rng.random() < 0.8 else rng.choice(TOOLS)
                text, kind = _fill(rng, rng.choice(pat.templates)), "tool_call"
                decisive_text = text
            else:
                text, tool, kind = rng.choice(FILLER), rng.choice([None, "web_search", "python"]), "thought"
                if tool is not None:
                    kind = "tool_call"
            steps.append({"trace_id": tid, "step": s, "agent": "assistant", "role": "assistant", "kind": kind,
                          "text": text, "tool_name": tool})
        traces.append({"trace_id": tid, "native_id": tid, "model": model, "outcome": "failure",
                       "n_steps": n_steps, "task": f"Answer a question about {rng.choice(TOPICS)}."})
        runs.append({"trace_id": tid, "decisive_step": decisive, "category": pat.category,
                     "rationale": f"Step {decisive} is where the run went wrong: \"{decisive_text[:60]}\"",
                     "confidence": 0.7})
        pattern[tid] = pat.name
    return PlantedCorpus(frame_from_rows(traces, TRACE_COLUMNS), frame_from_rows(steps, STEP_COLUMNS),
                         frame_from_rows(runs, RUN_COLUMNS), pattern)
