"""Insights: planted failure patterns are recovered; summaries, edits and the failure table."""

from __future__ import annotations

import polars as pl
import pytest
from planted_insights import MODELS, PATTERNS, planted_corpus
from sklearn.metrics import adjusted_rand_score

from analyzer.analysis.result import RUN_COLUMNS
from analyzer.embedding import HashingEmbedder, load_embedder
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.insights import INSIGHT_COLUMNS, InsightSet, compute_insights, failure_table
from analyzer.jobs import CancelFlag, Cancelled


@pytest.fixture(scope="module")
def corpus():  # type: ignore[no-untyped-def]
    return planted_corpus(200, seed=0)


@pytest.fixture(scope="module")
def hashed(corpus) -> InsightSet:  # type: ignore[no-untyped-def]
    return compute_insights(corpus.runs, corpus.traces, corpus.steps, HashingEmbedder())


def _ari(corpus, iset: InsightSet) -> float:  # type: ignore[no-untyped-def]
    ids = iset.failures["trace_id"].to_list()
    return float(adjusted_rand_score([corpus.pattern[i] for i in ids], iset.labels))


def test_planted_corpus_shape(corpus) -> None:  # type: ignore[no-untyped-def]
    assert corpus.traces.height == 200
    assert set(corpus.traces["model"]) == set(MODELS)
    assert set(corpus.pattern.values()) == {p.name for p in PATTERNS}
    # neither category nor tool alone separates the patterns
    cats = {p.category for p in PATTERNS}
    tools = {p.tool for p in PATTERNS}
    assert len(cats) < len(PATTERNS) and len(tools) < len(PATTERNS)


def test_planted_patterns_recovered_with_hashing(corpus, hashed: InsightSet) -> None:  # type: ignore[no-untyped-def]
    assert hashed.failures.height == 200
    assert _ari(corpus, hashed) >= 0.8


@pytest.mark.slow
def test_planted_patterns_recovered_with_minilm(corpus) -> None:  # type: ignore[no-untyped-def]
    iset = compute_insights(corpus.runs, corpus.traces, corpus.steps, load_embedder(cache=False))
    assert _ari(corpus, iset) >= 0.8


def test_insight_summaries(corpus, hashed: InsightSet) -> None:  # type: ignore[no-untyped-def]
    biggest = hashed.insights[0]
    assert biggest.size == max(i.size for i in hashed.insights)
    assert sum(i.size for i in hashed.insights) == 200
    for ins in hashed.insights:
        assert len(ins.representatives) == min(3, ins.size)
        assert set(ins.representatives) <= set(ins.members)
        assert ins.median_position is not None and 0.0 <= ins.median_position <= 1.0
        assert all(0.0 < s <= 1.0 for s in ins.share_by_model.values())
        assert ins.name.startswith(("Environment failure", "False success", "Hallucination"))
        assert ins.terms
    # the timeout pattern is named from its shared words
    timeout = next(i for i in hashed.insights if i.category == "environment_failure" and i.size > 20)
    assert {"timeout", "gateway", "timed"} & set(timeout.terms)
    # per model shares add up to one over the insights
    for model in MODELS:
        assert sum(i.share_by_model.get(model, 0.0) for i in hashed.insights) == pytest.approx(1.0)


def test_insights_table_columns(hashed: InsightSet) -> None:
    table = hashed.table()
    assert table.columns == [c.name for c in INSIGHT_COLUMNS]
    assert table.height == len(hashed)
    assert table["size"].sum() == 200
    runs = hashed.run_column()
    assert runs.height == 200 and set(runs["insight"]) == set(table["insight"])


def test_rename_merge_split(hashed: InsightSet) -> None:
    a, b = hashed.insights[0], hashed.insights[1]
    renamed = hashed.rename(a.id, "  Spreadsheet inventions ")
    got = renamed.get(a.id)
    assert got is not None and got.name == "Spreadsheet inventions" and got.named_by == "analyst"
    assert renamed.rename(a.id, "").get(a.id).named_by == "auto"  # type: ignore[union-attr]

    merged = renamed.merge(a.id, b.id)
    assert len(merged) == len(hashed) - 1
    new = merged.insights[0]
    assert new.size == a.size + b.size and new.name == "Spreadsheet inventions"
    assert merged.get(a.id) is None and merged.get(b.id) is None

    split = merged.split(new.id)
    assert len(split) == len(hashed)
    sizes = sorted(i.size for i in split.insights)
    assert sorted(i.size for i in hashed.insights) == sizes  # the merge is undone by the split
    with pytest.raises(KeyError):
        hashed.split("ins-nope")
    with pytest.raises(ValueError):
        hashed.merge(a.id, a.id)


def test_with_saved_overlay(hashed: InsightSet) -> None:
    a = hashed.insights[0]
    moved = a.members[:5]
    saved = hashed.with_saved({m: "ins-saved" for m in moved} | {"not-in-corpus": "ins-x"}, {"ins-saved": "Mine"})
    got = saved.get("ins-saved")
    assert got is not None and got.size == 5 and got.name == "Mine"
    assert saved.get("ins-x") is None
    assert saved.get(a.id).size == a.size - 5  # type: ignore[union-attr]


def test_decisive_targets(hashed: InsightSet) -> None:
    ins = hashed.insights[0]
    targets = hashed.decisive_targets(ins.id)
    assert len(targets) == ins.size and all(isinstance(s, int) for _, s in targets)


def test_failure_table_rules() -> None:
    traces = frame_from_rows([
        {"trace_id": "a", "model": "m", "outcome": "failure", "n_steps": 3},
        {"trace_id": "b", "model": "m", "outcome": "success", "n_steps": 3},
        {"trace_id": "c", "model": None, "outcome": "failure", "n_steps": 1},
        {"trace_id": "d", "model": "m", "outcome": "unknown", "n_steps": 1},
    ], TRACE_COLUMNS)
    steps = frame_from_rows([
        {"trace_id": "a", "step": 0, "text": "think", "kind": "thought"},
        {"trace_id": "a", "step": 1, "text": "I will search", "kind": "thought"},
        {"trace_id": "a", "step": 2, "text": "call", "kind": "tool_call", "tool_name": "search"},
        {"trace_id": "b", "step": 0, "text": "x", "kind": "thought"},
        {"trace_id": "c", "step": 0, "text": "only", "kind": "message"},
        {"trace_id": "d", "step": 0, "text": "?", "kind": "message"},
    ], STEP_COLUMNS)
    runs = frame_from_rows([
        {"trace_id": "a", "decisive_step": 1, "category": "planning_error", "rationale": "chose search"},
        {"trace_id": "b", "decisive_step": 0, "category": "other"},
        {"trace_id": "c", "decisive_step": 0, "category": None},
        {"trace_id": "d", "decisive_step": 0, "category": "other"},
    ], RUN_COLUMNS)
    ft = failure_table(runs, traces, steps)
    assert ft["trace_id"].to_list() == ["a", "c"]  # the successful and the unknown-outcome runs are left out
    row = ft.row(0, named=True)
    assert row["tool"] == "search"  # the decisive thought's next tool call
    assert row["rel_position"] == pytest.approx(0.5)
    assert "I will search" in row["text"] and "chose search" in row["text"]
    c = ft.row(1, named=True)
    assert c["tool"] == "message" and c["category"] == "other" and c["model"] == "unknown"
    assert c["rel_position"] == 0.0
    with pytest.raises(ValueError, match="decisive_step"):
        failure_table(runs.drop("decisive_step"), traces, steps)


def test_empty_corpus() -> None:
    empty = pl.DataFrame(schema={"trace_id": pl.Utf8, "decisive_step": pl.Int64, "category": pl.Utf8})
    iset = compute_insights(empty, frame_from_rows([], TRACE_COLUMNS), frame_from_rows([], STEP_COLUMNS),
                            HashingEmbedder())
    assert len(iset) == 0 and iset.table().height == 0 and iset.run_column().height == 0


def test_cancel(corpus) -> None:  # type: ignore[no-untyped-def]
    flag = CancelFlag()
    flag.cancel()
    with pytest.raises(Cancelled):
        compute_insights(corpus.runs, corpus.traces, corpus.steps, HashingEmbedder(), cancel=flag)


def test_recommendations_follow_the_documented_rules(hashed: InsightSet) -> None:
    kinds = {i.category: i.recommendation.kind for i in hashed.insights if i.size > 20}
    assert kinds["environment_failure"] == "infrastructure"
    assert kinds["false_success"] == "verification"
    # invented file contents at read_file: the tool dominates a hallucination -> its description
    hall = [i for i in hashed.insights if i.category == "hallucination" and i.size > 20]
    assert {i.recommendation.kind for i in hall} == {"tool_description"}
    assert all(i.recommendation.evidence and i.recommendation.by == "rule" for i in hashed.insights)
    edited = hashed.recommend_text(hall[0].id, "Make read_file say it returns raw text")
    got = edited.get(hall[0].id)
    assert got is not None and got.recommendation.by == "analyst" and got.recommendation.kind == "tool_description"
    row = edited.table().filter(pl.col("insight") == hall[0].id).row(0, named=True)
    assert row["recommendation"] == "Make read_file say it returns raw text" and row["recommended_by"] == "analyst"
    assert edited.recommend_text(hall[0].id, "").get(hall[0].id).recommendation.by == "rule"  # type: ignore[union-attr]


def test_model_rule_and_system_prompt_fallback() -> None:
    from analyzer.insights.recommend import recommend

    rec = recommend("planning_error", 10, {"a": 9, "b": 1}, {"a": 0.6, "b": 0.05}, 3, [("thought", 10)], [], 4.0)
    assert rec.kind == "model" and "a" in rec.text and "9 of its 10" in rec.evidence
    rec = recommend("goal_drift", 10, {"a": 5, "b": 5}, {"a": 0.3, "b": 0.3}, 2, [("thought", 10)], ["plan"], 4.0)
    assert rec.kind == "system_prompt" and "step 4" in rec.text
    rec = recommend("planning_error", 6, {"a": 3, "b": 3}, {"a": 0.3, "b": 0.3}, 2, [("search", 2)],
                    ["invalid", "argument"], None)
    assert rec.kind == "tool_description" and "search" in rec.text


def test_step_texts_are_clipped_like_the_analysis() -> None:
    """The analysis' cached step and task embeddings serve the insights again (same text keys)."""
    from analyzer.insights.cluster import EMBED_CHARS
    from analyzer.pipeline import EMBED_CHARS as PIPELINE_CHARS

    assert EMBED_CHARS == PIPELINE_CHARS


def test_aliases_regroup_the_per_model_figures(corpus, hashed: InsightSet) -> None:  # type: ignore[no-untyped-def]
    """The workspace's alias table merges models in the insights as in the Compare tab."""
    aliases = {"gpt-4o": "gpt", "claude-3.5": "gpt"}
    merged = hashed.with_aliases(aliases)
    assert merged.labels == hashed.labels and [i.id for i in merged.insights] == [i.id for i in hashed.insights]
    raw = dict(zip(hashed.failures["trace_id"], hashed.failures["raw_model"], strict=True))
    failed = {m: sum(1 for v in raw.values() if v == m) for m in MODELS}
    changed = 0
    for before, after in zip(hashed.insights, merged.insights, strict=True):
        assert set(after.share_by_model) <= {"gpt", "llama-3-70b"}
        members = [raw[t] for t in before.members]
        n_gpt = sum(1 for m in members if m in aliases)
        if n_gpt:
            want = n_gpt / (failed["gpt-4o"] + failed["claude-3.5"])
            assert after.share_by_model["gpt"] == pytest.approx(want)
            changed += after.share_by_model != before.share_by_model
    assert changed  # the figures moved
    table = merged.table()
    assert not table["share_by_model"].str.contains("gpt-4o|claude").any()
    assert set(table["top_model"]) <= {"gpt", "llama-3-70b"}
    # computed with the aliases from the start: the same figures; None goes back to the plain names
    direct = compute_insights(corpus.runs, corpus.traces, corpus.steps, HashingEmbedder(), aliases=aliases)
    assert direct.table().equals(table)
    assert merged.with_aliases(None).table().equals(hashed.table())
    # edits keep the grouping
    renamed = merged.rename(merged.insights[0].id, "renamed")
    assert renamed.insights[0].share_by_model == merged.insights[0].share_by_model


def test_provider_prefixes_and_aliases_in_the_failure_table() -> None:
    traces = frame_from_rows([
        {"trace_id": "a", "model": "openai/gpt-4o", "outcome": "failure", "n_steps": 2},
        {"trace_id": "b", "model": "gpt-4o", "outcome": "failure", "n_steps": 2},
        {"trace_id": "c", "model": "gpt-4o-2024-08-06", "outcome": "failure", "n_steps": 2},
    ], TRACE_COLUMNS)
    steps = frame_from_rows([{"trace_id": t, "step": 0, "text": "x", "kind": "thought"} for t in "abc"], STEP_COLUMNS)
    runs = frame_from_rows([{"trace_id": t, "decisive_step": 0, "category": "other"} for t in "abc"], RUN_COLUMNS)
    ft = failure_table(runs, traces, steps)  # the date stamp folds as the prefix does
    assert ft["model"].to_list() == ["gpt-4o"] * 3
    assert ft["raw_model"].to_list() == ["openai/gpt-4o", "gpt-4o", "gpt-4o-2024-08-06"]
    split = failure_table(runs, traces, steps, aliases={"gpt-4o-2024-08-06": "gpt-4o-2024-08-06"})
    assert split["model"].to_list() == ["gpt-4o", "gpt-4o", "gpt-4o-2024-08-06"]


def test_new_evidence_leaves_out_what_repeats_the_step() -> None:
    from analyzer.insights.cluster import new_evidence

    step = "The request to api.example.org timed out after 30 s.\nRetrying later."
    rationale = ("Environment failure: Step 4 meets a tool failure: it says “The request to api.example.org…”; "
                 "the output at Step 5 reads “Error 504 after 30 s” (p=0.41)")
    got = new_evidence(step, ["The request to api.example.org timed", "HTTP 504 at step 3"], rationale)
    assert got.startswith("HTTP 504 at step 3 ")  # a finding quote of other text is kept whole
    assert "api.example.org" not in got  # the step's own quotes are emptied
    assert "“Error 504 after 30 s”" in got  # a quote of another step keeps its digits
    assert "Step # meets" in got and "p=#.#" in got  # step numbers and probabilities are masked
    # the planted rationales only quote their step: one text for every run
    assert new_evidence("I read a.csv and got 5.", None, 'Step 3 is where it went wrong: "I read a.csv and"') == \
        new_evidence("Totally different text 9.", None, 'Step 7 is where it went wrong: "Totally different"')
    assert new_evidence("x", None, None) == ""


def test_large_blocks_are_clustered_by_rounds() -> None:
    """A block above max_direct gives the partition the direct clustering gives (well-separated groups)."""
    import numpy as np

    from analyzer.insights import InsightParams
    from analyzer.insights.cluster import cluster_block

    rng = np.random.default_rng(0)
    centres = np.eye(8, dtype=np.float32)[:5] * 3.0
    truth = rng.integers(0, 5, 900)
    x = (centres[truth] + rng.normal(0, 0.08, (900, 8))).astype(np.float32)
    x[-3:] = np.eye(8, dtype=np.float32)[5:8] * 3.0  # three far-off rows: none joins a sample cluster
    truth[-3:] = [5, 6, 7]
    direct = cluster_block(x, InsightParams(max_direct=1000))
    rounds = cluster_block(x, InsightParams(max_direct=200))
    assert adjusted_rand_score(truth, direct) == 1.0
    assert adjusted_rand_score(truth, rounds) == 1.0
    assert sorted(set(rounds.tolist())) == list(range(8))


def test_runs_alone_are_not_grouped_not_groups_of_one(hashed: InsightSet, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from analyzer.analysis.result import AnalysisResult
    from analyzer.export import write_analysis
    from analyzer.insights import NOT_GROUPED

    ids = hashed.failures["trace_id"].to_list()
    solo = [ids[0], ids[7]]
    iset = hashed.with_saved({solo[0]: "ins-solo-a", solo[1]: "ins-solo-b"}, {})
    assert {i.size for i in iset.insights if i.id.startswith("ins-solo")} == {1}  # kept for edits ...
    assert all(i.size >= 2 for i in iset.groups) and len(iset.groups) == len(iset) - 2  # ... but not listed
    assert iset.ungrouped == tuple(solo)
    assert iset.grouped_share == pytest.approx(198 / 200)
    assert hashed.ungrouped == () and hashed.grouped_share == 1.0

    table = iset.table()
    assert table.height == len(iset.groups) + 1 and table["size"].sum() == 200  # every run counted once
    assert (table["size"][:-1] >= 2).all()
    last = table.row(-1, named=True)
    assert last["insight"] is None and last["name"] == NOT_GROUPED and last["size"] == 2
    assert last["representatives"].split(";") == solo  # every ungrouped run is named
    assert last["share_failed"] == pytest.approx(0.01)
    runs = iset.run_column()
    assert runs.filter(pl.col("trace_id").is_in(solo))["insight"].null_count() == 2
    assert runs["insight"].drop_nulls().is_in(table["insight"].drop_nulls().implode()).all()

    c = planted_corpus(200, seed=0)  # the CSV: a null group id and a "not grouped" name
    write_analysis(tmp_path, c.traces, c.steps, AnalysisResult(runs=c.runs), formats=("csv",), insights=iset)
    csv = pl.read_csv(tmp_path / "insights.csv")
    assert csv.filter(pl.col("name") == NOT_GROUPED)["insight"].to_list() == [None]
    assert pl.read_csv(tmp_path / "traces.csv").filter(pl.col("trace_id").is_in(solo))["insight"].null_count() == 2
