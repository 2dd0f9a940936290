"""Model names grouped the way people name them (issue 31 item 5).

Provider prefixes, date stamps and ``-latest`` fold into one model automatically; version
numbers, four-digit tags and fine-tunes do not. The analyst's split wins over the folding and
survives a workspace reopen. ``models.csv`` on the samples groups dated variants and never ranks
"(unknown)" (the runs with no recorded model).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import TRACE_COLUMNS
from analyzer.metrics import model_metrics
from analyzer.metrics.model_names import group_members, model_group, normalise_model
from analyzer.metrics.models import UNKNOWN_GROUP, rank_groups, split_unknown
from analyzer.workspace import Workspace
from analyzer.workspace.aliases import merge_models, model_aliases, reset_aliases, split_models

ROOT = Path(__file__).resolve().parents[2]

FOLDS = [
    # OpenAI: -YYYY-MM-DD snapshots
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("gpt-4.1-2025-04-14", "gpt-4.1"),
    ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
    ("o1-2024-12-17", "o1"),
    ("o3-mini-2025-01-31", "o3-mini"),
    ("o4-mini-2025-04-16", "o4-mini"),
    ("gpt-4-turbo-2024-04-09", "gpt-4-turbo"),
    ("gpt-4o-audio-preview-2024-12-17", "gpt-4o-audio-preview"),
    ("openai/gpt-4o-2024-11-20", "gpt-4o"),
    # Anthropic: -YYYYMMDD snapshots and -latest
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("claude-3-7-sonnet-20250219", "claude-3-7-sonnet"),
    ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
    ("claude-3-opus-20240229", "claude-3-opus"),
    ("claude-opus-4-1-20250805", "claude-opus-4-1"),
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
    ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
    ("anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    # Vertex AI: @date, and the -v2 that names the same dated snapshot
    ("claude-3-5-sonnet@20240620", "claude-3-5-sonnet"),
    ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),
    ("vertex_ai/claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
    ("projects/p1/locations/us-central1/publishers/google/models/gemini-2.0-flash-001", "gemini-2.0-flash-001"),
    # Bedrock: region, vendor, revision, and a -vN next to a date stamp
    ("anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku"),
    ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet"),
    ("eu.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
    ("bedrock/anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"),
    ("meta.llama3-1-70b-instruct-v1:0", "llama3-1-70b-instruct-v1"),
    # Google: models/ prefix, preview dates in both spellings
    ("models/gemini-2.5-flash", "gemini-2.5-flash"),
    ("google/gemini-2.5-flash", "gemini-2.5-flash"),
    ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash-preview"),
    ("gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash-preview"),
    ("gemini-2.0-flash-thinking-exp-01-21", "gemini-2.0-flash-thinking-exp"),
    ("gemini-1.5-pro-latest", "gemini-1.5-pro"),
    # Mistral and Ollama moving aliases; LiteLLM / OpenRouter routing
    ("mistral-large-latest", "mistral-large"),
    ("mistral/mistral-small-latest", "mistral-small"),
    ("ollama/llama3.1:latest", "llama3.1"),
    ("litellm/openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("openrouter/anthropic/claude-3.5-sonnet", "claude-3.5-sonnet"),
    ("  gpt-4o-mini-2024-07-18 ", "gpt-4o-mini"),
]

STAYS = [
    # version numbers are part of the name
    "claude-sonnet-4-5", "claude-3-5-sonnet", "claude-2.1", "gpt-3.5-turbo", "gpt-4.1", "gpt-5.2-codex",
    "gemini-1.5-pro-002", "gemini-2.0-flash-001", "claude-v2", "llama-3.1-70b-instruct", "qwen2.5-32b-instruct",
    "text-embedding-3-large",
    # four-digit tags are versions or release names as often as dates
    "gpt-4-0613", "gpt-3.5-turbo-0125", "gpt-4-1106-preview", "gpt-4-0125-preview", "mistral-large-2407",
    "codestral-2405", "deepseek-r1-0528", "deepseek-v3-0324", "qwen3-235b-a22b-instruct-2507", "grok-2-1212",
    "gemini-exp-1206",
    # fine-tunes, sizes, hub organisations, impossible dates, names that would vanish
    "ft:gpt-4o-mini-2024-07-18:acme::A1b2C3", "llama3.1:8b", "Qwen/Qwen2.5-7B-Instruct",
    "meta-llama/Llama-3.1-8B-Instruct", "gpt-4o-2024-13-01", "model-20991231", "2024-07-18", "latest",
]


@pytest.mark.parametrize(("raw", "folded"), FOLDS)
def test_date_stamps_and_provider_prefixes_fold(raw: str, folded: str) -> None:
    assert normalise_model(raw) == folded


@pytest.mark.parametrize("raw", STAYS)
def test_versions_and_other_tags_do_not_fold(raw: str) -> None:
    assert normalise_model(raw) == raw


def test_folding_groups_names_and_distinct_models_stay_apart() -> None:
    names = ["gpt-4o-mini", "gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini", "gpt-4o", "gpt-4o-2024-08-06",
             "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-20250514", "claude-3-5-sonnet-20241022"]
    groups = group_members(names)
    assert groups["gpt-4o-mini"] == ["gpt-4o-mini", "gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini"]
    assert groups["gpt-4o"] == ["gpt-4o", "gpt-4o-2024-08-06"]
    assert groups["claude-sonnet-4-5"] == ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"]
    assert groups["claude-sonnet-4"] == ["claude-sonnet-4-20250514"]  # 4 and 4.5 are different models
    assert sorted(groups) == ["claude-3-5-sonnet", "claude-sonnet-4", "claude-sonnet-4-5", "gpt-4o", "gpt-4o-mini"]


def _traces(models: list[str | None]) -> pl.DataFrame:
    return frame_from_rows([
        {"trace_id": f"t{i}", "model": m, "outcome": "success" if i % 2 else "failure", "n_steps": 3}
        for i, m in enumerate(models)], TRACE_COLUMNS)


def test_a_split_wins_over_the_folding_and_survives_a_reopen(tmp_path: Path) -> None:
    traces = _traces(["gpt-4o-mini"] * 3 + ["gpt-4o-mini-2024-07-18"] * 2 + ["claude-3-5-sonnet-20240620",
                                                                            "claude-3-5-sonnet-20241022"])
    runs = dict(model_metrics(traces).select("model", "runs").iter_rows())
    assert runs == {"claude-3-5-sonnet": 2, "gpt-4o-mini": 5}
    path = tmp_path / "ws.trajscope"
    ws = Workspace(path)
    split_models(ws, ["gpt-4o-mini", "gpt-4o-mini-2024-07-18"])
    merge_models(ws, ["claude-3-5-sonnet-20241022"], "claude-3-5-sonnet (new)")  # an alias wins too
    ws.close()
    ws = Workspace(path)
    aliases = model_aliases(ws)
    assert aliases["gpt-4o-mini-2024-07-18"] == "gpt-4o-mini-2024-07-18"
    m = model_metrics(traces, aliases=aliases)
    assert dict(m.select("model", "runs").iter_rows()) == {
        "claude-3-5-sonnet": 1, "claude-3-5-sonnet (new)": 1, "gpt-4o-mini": 3, "gpt-4o-mini-2024-07-18": 2}
    assert model_group("openai/gpt-4o-mini-2024-07-18", aliases) == "gpt-4o-mini-2024-07-18"  # prefix still folds
    # merging a dated name into itself keeps it apart from the folding
    merge_models(ws, ["claude-3-5-sonnet-20240620"], "claude-3-5-sonnet-20240620")
    assert model_group("claude-3-5-sonnet-20240620", model_aliases(ws)) == "claude-3-5-sonnet-20240620"
    reset_aliases(ws)  # back to the automatic folding
    assert dict(model_metrics(traces, aliases=model_aliases(ws)).select("model", "runs").iter_rows()) == runs
    ws.close()


def test_unknown_is_listed_apart_and_never_ranked() -> None:
    traces = _traces([None] * 12 + ["gpt-4o-mini"] * 10 + ["o3-mini"] * 10 + ["o1"] * 2)
    m = model_metrics(traces, min_runs=10)
    assert m["model"].to_list() == ["gpt-4o-mini", "o1", "o3-mini", UNKNOWN_GROUP]
    unknown = m.filter(pl.col("model") == UNKNOWN_GROUP).row(0, named=True)
    assert unknown["runs"] == 12 and not unknown["too_few_runs"] and unknown["rank"] is None
    assert m.filter(pl.col("model") == "o1")["rank"][0] is None  # too few runs: not ranked either
    assert sorted(m.drop_nulls("rank")["rank"].to_list()) == [1, 1]  # a tie shares the place
    ranked = rank_groups(m, 10)
    assert ranked["model"].to_list()[-1] == UNKNOWN_GROUP  # after the small groups, whatever its n
    known, apart = split_unknown(ranked)
    assert UNKNOWN_GROUP not in known["model"].to_list() and apart["runs"].to_list() == [12]


def test_models_csv_on_the_samples_groups_dated_variants_and_does_not_rank_unknown(tmp_path: Path) -> None:
    from analyzer.export.write import write_analysis
    from analyzer.loading.loader import load

    res = load([ROOT / "sample_traces"])
    raw = set(res.traces["model"].drop_nulls().to_list())
    assert {"gpt-4o-mini", "gpt-4o-mini-2024-07-18", "claude-sonnet-4-5-20250929"} <= raw  # what the samples hold
    write_analysis(tmp_path, res.traces, res.steps, None, formats=("csv",))
    csv = pl.read_csv(tmp_path / "models.csv")
    rows = {r["model"]: r for r in csv.iter_rows(named=True)}
    assert rows["gpt-4o-mini"]["names"] == "gpt-4o-mini; gpt-4o-mini-2024-07-18"
    assert rows["gpt-4o-mini"]["runs"] == 18 and rows["gpt-4o-mini"]["rank"] == 1
    assert set(rows["claude-sonnet-4-5"]["names"].split("; ")) == {
        "anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"}
    assert rows["o4-mini"]["names"] == "o4-mini-2025-04-16; openai/o4-mini-2025-04-16"
    assert not [m for m in rows if m != UNKNOWN_GROUP and normalise_model(m) != m]  # every dated variant folded
    # "(unknown)": the 14 runs with no recorded model, the last row, with its n and no rank
    assert csv["model"].to_list()[-1] == UNKNOWN_GROUP
    unknown = rows[UNKNOWN_GROUP]
    assert unknown["runs"] == 14 and unknown["rank"] is None and unknown["names"] is None
    assert csv.filter(pl.col("rank").is_not_null())["model"].to_list() == ["gpt-4o-mini"]
