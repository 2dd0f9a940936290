"""A corpus folder opened in the session: runs now, each run's rows from disk when it is used."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from analyzer.analysis.result import AnalysisResult
from analyzer.cli import main
from analyzer.corpus import Corpus, source_key, write_corpus
from analyzer.loading import LoadResult, load
from analyzer.metrics.self_conditioning import self_conditioning
from analyzer.pipeline import analyze
from analyzer.search import search_runs
from analyzer.session import RunFilter, Session

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


@pytest.fixture(scope="module")
def loaded() -> LoadResult:
    return load([SAMPLES], cache=None)


@pytest.fixture(scope="module")
def analysis(loaded: LoadResult) -> AnalysisResult:
    return analyze(loaded.traces, loaded.steps)


@pytest.fixture
def corpus(loaded: LoadResult, analysis: AnalysisResult, tmp_path: Path) -> Corpus:
    return Corpus(write_corpus(tmp_path / "c", loaded.traces, loaded.steps, analysis.runs,
                               findings=analysis.findings, step_values=analysis.step_values))


def _run(df: pl.DataFrame, tid: str) -> pl.DataFrame:
    return df.filter(pl.col("trace_id") == tid).sort("step")


def test_opening_reads_runs_and_analysis_rows_but_no_step(corpus: Corpus, loaded: LoadResult,
                                                          analysis: AnalysisResult) -> None:
    s = Session()
    assert s.open_corpus(corpus) == loaded.traces.height
    assert s.traces.sort("trace_id").equals(loaded.traces.sort("trace_id"), null_equal=True)
    assert s.steps.height == 0 and s.analysis.findings.height == 0 and s.analysis.step_values.height == 0
    view = s.runs_view().sort("trace_id")
    want = analysis.runs.sort("trace_id")
    assert view.select(want.columns).equals(want, null_equal=True)


def test_selecting_a_run_reads_its_steps_findings_and_value_curve(corpus: Corpus, loaded: LoadResult,
                                                                  analysis: AnalysisResult) -> None:
    s = Session()
    s.open_corpus(corpus)
    with_findings = analysis.findings["trace_id"].value_counts().sort("count", descending=True)["trace_id"][0]
    seen: list[int] = []
    s.selection_changed.connect(lambda _sel: seen.append(s.steps.height))
    s.select(trace_id=with_findings, trace_ids=(with_findings,))
    assert seen and seen[0] > 0  # read before the views hear of the selection
    assert s.run_steps(with_findings).equals(_run(loaded.steps, with_findings), null_equal=True)
    assert s.run_step_values(with_findings).equals(_run(analysis.step_values, with_findings), null_equal=True)
    got = s.run_findings(with_findings).drop("finding")
    assert got.equals(analysis.findings.filter(pl.col("trace_id") == with_findings).sort("step", maintain_order=True),
                      null_equal=True)
    assert set(s.steps["trace_id"].unique().to_list()) == {with_findings}  # only that run was read
    other = loaded.traces["trace_id"][1]
    assert s.steps_for([other, with_findings]).height == (_run(loaded.steps, other).height
                                                         + _run(loaded.steps, with_findings).height)
    s.run_steps(with_findings)  # read once only
    assert s.steps.height == _run(loaded.steps, other).height + _run(loaded.steps, with_findings).height


def test_a_run_analysed_again_keeps_the_new_findings(corpus: Corpus, loaded: LoadResult,
                                                     analysis: AnalysisResult) -> None:
    s = Session()
    s.open_corpus(corpus)
    tid = analysis.findings["trace_id"][0]
    fresh = analyze(loaded.traces.filter(pl.col("trace_id") == tid), _run(loaded.steps, tid))
    s.merge_analysis(fresh)
    s.select(trace_id=tid, trace_ids=(tid,))
    assert s.run_findings(tid).height == fresh.findings.height  # not doubled with the corpus's copy


def test_text_filter_search_and_aggregates_see_runs_still_on_disk(corpus: Corpus, loaded: LoadResult,
                                                                  analysis: AnalysisResult) -> None:
    s = Session()
    s.open_corpus(corpus)
    tid = loaded.traces["trace_id"][5]
    words = [w for w in " ".join(_run(loaded.steps, tid)["text"].drop_nulls().to_list()).split() if len(w) > 8]
    needle = words[0]
    s.set_filter(RunFilter(text=needle))
    assert tid in s.filtered_runs()["trace_id"].to_list()
    assert s.steps.height == 0  # the search read no step into memory
    full = search_runs(loaded.traces, loaded.steps, needle)
    lazy = search_runs(s.traces, s.steps_scan(), needle)
    assert lazy.total == full.total
    assert sorted(lazy.hits["trace_id"].to_list()) == sorted(full.hits["trace_id"].to_list())
    assert s.steps_scan().select(pl.len()).collect().item() == loaded.steps.height
    s.select(trace_id=tid, trace_ids=(tid,))  # some in memory, the rest on disk: still every step once
    assert s.steps_scan().select(pl.len()).collect().item() == loaded.steps.height
    assert s.findings_scan().select(pl.len()).collect().item() == analysis.findings.height
    a = self_conditioning(s.steps_scan(), s.findings_scan(), traces=s.traces, group_by=("model",))
    b = self_conditioning(loaded.steps, analysis.findings, traces=loaded.traces, group_by=("model",))
    assert a.equals(b, null_equal=True)


def test_opening_twice_or_after_its_files_adds_nothing(corpus: Corpus, loaded: LoadResult) -> None:
    s = Session()
    s.add_load_result(load([SAMPLES / "who_and_when"], cache=None))
    before = s.traces.height
    added = s.open_corpus(corpus)
    assert added == loaded.traces.height - before
    assert s.open_corpus(corpus) == 0
    assert s.traces["trace_id"].n_unique() == s.traces.height == loaded.traces.height
    files = loaded.traces["source_file"].n_unique()
    assert len([e for e in s.load_notices if "duplicate" in e.reason]) >= files  # one grouped line per file
    assert not [e for e in s.load_errors if "duplicate" in e.reason]  # notes, not load problems


def test_corpus_analyze_writes_value_curves_the_session_reads(loaded: LoadResult, tmp_path: Path) -> None:
    folder = SAMPLES / "who_and_when"
    assert main(["corpus", "build", str(folder), "--to", str(tmp_path / "c")]) == 0
    assert main(["corpus", "analyze", str(tmp_path / "c"), "--no-judge", "--no-embed", "--quiet"]) == 0
    c = Corpus(tmp_path / "c")
    values = c.step_values()
    assert values is not None and values.select(pl.len()).collect().item() == c.stats()["steps"]
    s = Session()
    s.open_corpus(c)
    tid = s.runs_view().filter(pl.col("outcome") == "failure")["trace_id"][0]
    assert s.run_step_values(tid).height == s.run_steps(tid).height > 0
    src = source_key(s.traces.filter(pl.col("trace_id") == tid)["source_file"][0])
    assert (tmp_path / "c" / "step_values" / f"source={src}" / "part-0.parquet").is_file()


def _brute_self_conditioning(steps: pl.DataFrame, findings: pl.DataFrame, traces: pl.DataFrame,
                             max_k: int) -> dict[tuple[str, int], tuple[int, int]]:
    """The definition, step by step in Python: (group, bucket) -> (steps at risk, errors)."""
    flagged = {(t, s) for t, s, st in findings.select("trace_id", "step", "status").iter_rows() if st != "rejected"}
    model = {t: (m if m is not None else "(unknown)") for t, m in traces.select("trace_id", "model").iter_rows()}
    out: dict[tuple[str, int], tuple[int, int]] = {}
    for (tid,), run in steps.sort("trace_id", "step").group_by("trace_id", maintain_order=True):
        k = 0
        for step, err in run.select("step", "is_error").iter_rows():
            e = bool(err) or (tid, step) in flagged
            key = (model.get(str(tid), "(unknown)"), min(k, max_k))
            n, x = out.get(key, (0, 0))
            out[key] = (n + 1, x + int(e))
            k += int(e)
    return out


@pytest.mark.parametrize("max_k", [1, 2, 4])
def test_self_conditioning_counts_match_the_definition(loaded: LoadResult, analysis: AnalysisResult,
                                                       max_k: int) -> None:
    from analyzer.metrics.self_conditioning import pooled

    traces = loaded.traces.filter(pl.col("trace_id") != loaded.traces["trace_id"][0])  # one run unknown
    findings = analysis.findings.with_columns(  # some rejected findings do not count
        pl.when(pl.int_range(pl.len()) % 3 == 0).then(pl.lit("rejected")).otherwise(pl.col("status")).alias("status"))
    got = self_conditioning(loaded.steps, findings, traces=traces, group_by=("model",), max_k=max_k)
    want = _brute_self_conditioning(loaded.steps, findings, traces, max_k)
    seen = {(m, int(k.rstrip("+"))): (n, e) for m, k, n, e in got.select("model", "k", "steps", "errors").iter_rows()
            if n}
    assert seen == want
    flat = self_conditioning(loaded.steps, findings, max_k=max_k)
    assert pooled(got, ("model",)).equals(flat, null_equal=True)
    lazy = self_conditioning(loaded.steps.lazy(), findings.lazy(), traces=traces, group_by=("model",), max_k=max_k)
    assert lazy.equals(got, null_equal=True)


def test_an_unreadable_partition_is_a_load_problem_and_the_rest_opens(corpus: Corpus, loaded: LoadResult) -> None:
    s = Session()
    s.open_corpus(corpus)
    bad = loaded.traces["trace_id"][0]
    src = source_key(loaded.traces["source_file"][0])
    (corpus.root / "steps" / f"source={src}" / "part-0.parquet").write_bytes(b"not parquet")
    s.select(trace_id=bad, trace_ids=(bad,))  # no exception out of the selection
    assert s.run_steps(bad).height == 0
    problem = next(e for e in s.load_errors if e.record == bad)
    assert f"source={src}" in problem.file and "cannot read this run from the corpus" in problem.reason
    good = loaded.traces.filter(pl.col("source_file") != loaded.traces["source_file"][0])["trace_id"][0]
    assert s.run_steps(good).equals(_run(loaded.steps, good), null_equal=True)
    assert s.traces.height == loaded.traces.height  # nothing lost


def test_runs_come_in_source_path_order_whatever_the_partition_names(loaded: LoadResult, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # partitions are named by a hash of the source file's absolute path, so their order depends on
    # the folder a corpus was built from; the runs table (and the run selected first) must not
    import hashlib

    from analyzer.corpus import store

    orders: list[list[str]] = []
    on_disk: list[list[str]] = []
    for salt in ("", "/another/checkout"):
        monkeypatch.setattr(store, "source_key", lambda f, salt=salt: hashlib.blake2b(
            (salt + (f or "")).encode("utf-8"), digest_size=8).hexdigest())
        corpus = Corpus(write_corpus(tmp_path / f"c{len(orders)}", loaded.traces, loaded.steps))
        on_disk.append(corpus.runs().collect()["trace_id"].to_list())
        s = Session()
        s.open_corpus(corpus)
        orders.append(s.traces["trace_id"].to_list())
        files = s.traces["source_file"].to_list()
        assert files == sorted(files)
    assert on_disk[0] != on_disk[1]  # the partitions came in another order ...
    assert orders[0] == orders[1]  # ... the session's runs did not
    by_file = loaded.traces.sort("source_file", maintain_order=True)["trace_id"].to_list()
    assert orders[0] == by_file  # each file's runs in record order
