"""Analysis results kept in the workspace, the analysis version, and the model alias table."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from analyzer.analysis.version import (
    analysis_version,
    current_analysis_version,
    detector_versions,
    judge_part,
)
from analyzer.attribution import Ranker
from analyzer.embedding import HashingEmbedder
from analyzer.export import write_analysis
from analyzer.loading import LoadResult, load
from analyzer.pipeline import analyze
from analyzer.plugin_host import default_host
from analyzer.workspace import Workspace
from analyzer.workspace.aliases import merge_models, model_aliases, reset_aliases, split_models
from analyzer.workspace.results import (
    KEEP_VERSIONS,
    analyze_with_workspace,
    load_results,
    save_result,
    save_run,
    step_counts,
    stored_versions,
)
from analyzer.workspace.store import WORKSPACE_SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "who_and_when"


@pytest.fixture(scope="module")
def samples() -> LoadResult:
    res = load([SAMPLES])
    assert res.traces.height >= 3
    return res


def _frame_eq(a: pl.DataFrame, b: pl.DataFrame, key: list[str]) -> None:
    assert a.columns == b.columns
    assert a.sort(key).equals(b.sort(key), null_equal=True)


def test_version_names_ranker_detectors_and_judge() -> None:
    ranker = Ranker.load()
    dets = detector_versions(default_host())
    v = analysis_version(ranker.params, dets, None)
    assert v.startswith(f"{ranker.params.version}#") and v.endswith("|judge:none")
    assert v == current_analysis_version()
    assert judge_part(v) is None
    with_judge = analysis_version(ranker.params, dets, "gemma3-270m@abc")
    assert with_judge != v and judge_part(with_judge) == "gemma3-270m@abc"
    assert analysis_version(ranker.params, dets[:-1], None) != v  # a detector fewer
    bumped = [d.replace("@", "@9") if i == 0 else d for i, d in enumerate(dets)]
    assert analysis_version(ranker.params, bumped, None) != v  # a detector version changed
    params = Ranker.load().params
    params.weights = [w + 0.5 for w in params.weights]
    assert analysis_version(params, dets, None) != v  # same params version, other weights
    params.meta = {"note": "training notes do not change results"}
    assert analysis_version(params, dets, None) == analysis_version(params, dets, None)


def test_new_attribution_rules_make_stored_results_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.analysis.version as version

    before = current_analysis_version()
    monkeypatch.setattr(version, "ATTRIBUTION_RULES", version.ATTRIBUTION_RULES + 1)
    assert current_analysis_version() != before


def test_results_round_trip_per_run(tmp_path: Path, samples: LoadResult) -> None:
    seen = []
    res = analyze(samples.traces, samples.steps, embedder=HashingEmbedder(), on_run=seen.append)
    ws = Workspace(tmp_path / "ws.trajscope")
    for ra in seen:
        save_run(ws, ra, "v1")
    ws.close()
    ws = Workspace(tmp_path / "ws.trajscope", read_only=True)
    stored = load_results(ws, "v1")
    assert stored.stale == set() and set(stored.versions) == set(samples.traces["trace_id"])
    _frame_eq(stored.result.runs, res.runs, ["trace_id"])
    _frame_eq(stored.result.step_values, res.step_values, ["trace_id", "step"])
    _frame_eq(stored.result.findings, res.findings, ["trace_id", "step", "source", "category"])
    assert sorted(stored.result.errors) == sorted(res.errors)
    # another current version: every run is shown, marked stale
    other = load_results(ws, "v2")
    assert other.stale == set(stored.versions)
    _frame_eq(other.result.runs, res.runs, ["trace_id"])
    only = load_results(ws, "v1", [seen[0].run["trace_id"]])
    assert only.result.runs.height == 1
    ws.close()


def test_current_version_wins_and_old_versions_are_pruned(tmp_path: Path, samples: LoadResult) -> None:
    res = analyze(samples.traces.head(1), samples.steps, embedder=None)
    tid = str(res.runs["trace_id"][0])
    ws = Workspace(tmp_path / "ws.trajscope")
    for i in range(KEEP_VERSIONS + 2):
        assert save_result(ws, res, f"v{i}") == 1
    versions = stored_versions(ws)[tid]
    assert versions == [f"v{i}" for i in reversed(range(2, KEEP_VERSIONS + 2))]
    assert load_results(ws, "v2").versions[tid] == "v2"  # the current one, though older
    assert load_results(ws, "gone").versions[tid] == f"v{KEEP_VERSIONS + 1}"  # else the newest
    ws.close()


def _counting_analyze(calls: list[int]) -> Callable[..., object]:
    """The pipeline's ``analyze``, recording how many runs each call analysed."""

    def counting(traces: pl.DataFrame, steps: pl.DataFrame, **kw: object) -> object:
        calls.append(traces.height)
        return analyze(traces, steps, **kw)  # type: ignore[arg-type]

    return counting


def test_analyze_with_workspace_reuses_current_results(tmp_path: Path, samples: LoadResult) -> None:
    ws = Workspace(tmp_path / "ws.trajscope")
    calls: list[int] = []
    counting = _counting_analyze(calls)

    first, n1 = analyze_with_workspace(samples.traces, samples.steps, ws, "v1", counting)
    assert n1 == samples.traces.height and calls == [samples.traces.height]
    again, n2 = analyze_with_workspace(samples.traces, samples.steps, ws, "v1", counting)
    assert n2 == 0 and len(calls) == 1  # nothing analysed again
    _frame_eq(again.runs, first.runs, ["trace_id"])
    kept, n3 = analyze_with_workspace(samples.traces, samples.steps, ws, "v2", counting, refresh_stale=False)
    assert n3 == 0 and kept.runs.height == samples.traces.height
    _fresh, n4 = analyze_with_workspace(samples.traces, samples.steps, ws, "v2", counting)
    assert n4 == samples.traces.height and load_results(ws, "v2").stale == set()
    ws.close()


def test_a_run_parsed_into_other_steps_since_is_stale(tmp_path: Path, samples: LoadResult) -> None:
    ws = Workspace(tmp_path / "ws.trajscope")
    calls: list[int] = []
    counting = _counting_analyze(calls)

    analyze_with_workspace(samples.traces, samples.steps, ws, "v1", counting)
    tid = str(samples.traces["trace_id"][0])
    counts = step_counts(samples.traces)
    assert load_results(ws, "v1", n_steps=counts).stale == set()
    # a changed importer now gives this run one step fewer: its stored row no longer fits it
    fewer = samples.steps.filter(~((pl.col("trace_id") == tid) & (pl.col("step") == pl.col("step").max().over("trace_id"))))
    traces = samples.traces.with_columns(
        pl.when(pl.col("trace_id") == tid).then(pl.col("n_steps") - 1).otherwise(pl.col("n_steps")).alias("n_steps"))
    assert load_results(ws, "v1", n_steps=step_counts(traces)).stale == {tid}
    result, n = analyze_with_workspace(traces, fewer, ws, "v1", counting)
    assert n == 1 and calls[-1] == 1
    assert result.step_values.filter(pl.col("trace_id") == tid).height == traces.filter(
        pl.col("trace_id") == tid)["n_steps"][0]
    ws.close()


def test_migration_from_schema_1_keeps_annotations(tmp_path: Path) -> None:
    path = tmp_path / "old.trajscope"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    db.execute("""CREATE TABLE annotations (trace_id TEXT NOT NULL, step INTEGER NOT NULL, author TEXT NOT NULL,
        category TEXT, tags TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'accepted', timestamp TEXT NOT NULL, PRIMARY KEY (trace_id, step, author))""")
    db.execute("INSERT INTO annotations VALUES ('r1', 2, 'ana', 'goal_drift', '', '', 'accepted', '2026-01-01')")
    db.commit()
    db.close()
    ro = Workspace(path, read_only=True)  # not migrated: no results table yet, and that is fine
    assert load_results(ro, "v").result.runs.height == 0 and model_aliases(ro) == {}
    ro.close()
    ws = Workspace(path)
    assert ws.get("r1", 2, "ana") is not None
    version = ws._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    assert int(version) == WORKSPACE_SCHEMA_VERSION == 5
    assert load_results(ws, "v").result.runs.height == 0
    ws.close()


def test_alias_merge_and_split_change_models_csv(tmp_path: Path) -> None:
    traces = pl.DataFrame({
        "trace_id": [f"t{i}" for i in range(6)],
        "model": ["anthropic/claude-3-7-sonnet-20250219", "claude-3-7-sonnet-20250219", "openai/o4-mini",
                  "o4-mini", "gpt-4.1", "openrouter/openai/gpt-4.1-mini"],
        "outcome": ["success", "failure", "success", "success", "failure", "success"],
        "n_steps": [3, 4, 5, 6, 7, 8],
    })
    from analyzer.frames.build import frame_from_rows
    from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS

    traces = frame_from_rows(traces.to_dicts(), TRACE_COLUMNS)
    steps = frame_from_rows([], STEP_COLUMNS)

    def models_csv(aliases: dict[str, str]) -> dict[str, dict[str, object]]:
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        write_analysis(out, traces, steps, None, aliases=aliases, formats=("csv",))
        return {r["model"]: r for r in pl.read_csv(out / "models.csv").iter_rows(named=True)}

    # provider prefixes and date stamps are folded: 4 groups, not 6, and each says which names it holds
    m = models_csv({})
    assert sorted(m) == ["claude-3-7-sonnet", "gpt-4.1", "gpt-4.1-mini", "o4-mini"]
    assert m["o4-mini"]["runs"] == 2 and m["o4-mini"]["names"] == "o4-mini; openai/o4-mini"
    assert all(r["too_few_runs"] for r in m.values())  # n below the default minimum of 10
    ws = Workspace(tmp_path / "ws.trajscope")
    assert merge_models(ws, ["gpt-4.1", "gpt-4.1-mini"], "gpt-4.1 family") == 2
    merged = models_csv(model_aliases(ws))
    assert sorted(merged) == ["claude-3-7-sonnet", "gpt-4.1 family", "o4-mini"]
    fam = merged["gpt-4.1 family"]
    assert (fam["runs"], fam["passes"], fam["failures"]) == (2, 1, 1)
    assert fam["names"] == "gpt-4.1; openrouter/openai/gpt-4.1-mini"
    # split the prefix merge: openai/o4-mini becomes its own row again
    split_models(ws, ["openai/o4-mini"])
    split = models_csv(model_aliases(ws))
    assert split["o4-mini"]["runs"] == 1 and split["openai/o4-mini"]["runs"] == 1
    # renaming a merged group moves every member
    merge_models(ws, ["gpt-4.1 family"], "GPT-4.1")
    assert models_csv(model_aliases(ws))["GPT-4.1"]["runs"] == 2
    reset_aliases(ws)
    assert model_aliases(ws) == {}
    ws.close()


def test_cli_analyze_and_report_use_the_stored_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main

    ws_path = tmp_path / "cli.trajscope"
    runs = ROOT / "sample_traces" / "openai_chat"
    args = ["analyze", str(runs), "--no-judge", "--no-embed", "--quiet", "--workspace", str(ws_path)]
    assert main([*args, "--out", str(tmp_path / "one")]) == 0
    n = pl.read_csv(tmp_path / "one" / "traces.csv").height
    assert f"0 runs read from {ws_path}, {n} analysed now" in capsys.readouterr().err
    ws = Workspace(ws_path)
    assert len(stored_versions(ws)) == n
    merge_models(ws, ["gpt-4o-mini-2024-07-18", "gpt-4o-2024-08-06"], "gpt-4o family")
    ws.close()
    assert main([*args, "--out", str(tmp_path / "two")]) == 0
    assert f"{n} runs read from {ws_path}, 0 analysed now" in capsys.readouterr().err
    one = pl.read_csv(tmp_path / "one" / "traces.csv").sort("trace_id")
    two = pl.read_csv(tmp_path / "two" / "traces.csv").sort("trace_id")
    assert one.select("trace_id", "decisive_step", "category", "confidence").equals(
        two.select("trace_id", "decisive_step", "category", "confidence"), null_equal=True)
    models = dict(pl.read_csv(tmp_path / "two" / "models.csv").select("model", "runs").iter_rows())
    assert models["gpt-4o family"] == 2 and "gpt-4o-2024-08-06" not in models
    html = tmp_path / "r.html"
    assert main(["report", str(runs), "--no-judge", "--workspace", str(ws_path), "--html", str(html)]) == 0
    assert f"{n} runs from the workspace, 0 analysed now" in capsys.readouterr().err
    assert "gpt-4o family" in html.read_text(encoding="utf-8")
