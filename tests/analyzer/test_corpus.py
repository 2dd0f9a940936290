"""The corpus on disk: a Parquet dataset partitioned by source file, opened lazily."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from analyzer.cli import main
from analyzer.corpus import Corpus, CorpusError, source_key, write_corpus
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import LoadResult, load

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


@pytest.fixture(scope="module")
def loaded() -> LoadResult:
    return load([SAMPLES], cache=None)


def test_corpus_round_trip_partitioned_by_source(loaded: LoadResult, tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "c", loaded.traces, loaded.steps)
    c = Corpus(root)
    files = loaded.traces["source_file"].unique().to_list()
    assert sorted(p.name for p in (root / "runs").iterdir()) == sorted(f"source={source_key(f)}" for f in files)
    assert c.count() == loaded.traces.height
    assert c.stats()["sources"] == len(files)
    runs = c.runs().drop("source").collect().sort("trace_id")
    assert runs.equals(loaded.traces.sort("trace_id"), null_equal=True)
    for tid in loaded.traces["trace_id"].to_list()[:10]:
        want = loaded.steps.filter(pl.col("trace_id") == tid).sort("step")
        assert c.steps_of(tid).equals(want, null_equal=True)
        run = loaded.traces.filter(pl.col("trace_id") == tid)
        assert c.trajectory(tid) == trajectories_from_frames(run, want)[0]
    with pytest.raises(KeyError):
        c.steps_of("no-such-run")


def test_runs_table_filters_and_sorts_like_polars(loaded: LoadResult, tmp_path: Path) -> None:
    c = Corpus(write_corpus(tmp_path / "c", loaded.traces, loaded.steps))
    got = c.runs_table(["trace_id", "n_steps"], where=pl.col("outcome") == "failure", sort="n_steps",
                       descending=True, limit=5)
    want = (loaded.traces.filter(pl.col("outcome") == "failure")
            .sort("n_steps", descending=True, nulls_last=True, maintain_order=True)
            .select("trace_id", "n_steps").head(5))
    assert got["n_steps"].to_list() == want["n_steps"].to_list()
    assert c.runs_table(["trace_id"], offset=60).height == loaded.traces.height - 60


def test_opening_a_run_reads_only_its_partition(loaded: LoadResult, tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "c", loaded.traces, loaded.steps)
    tid = loaded.traces["trace_id"][0]
    mine = source_key(loaded.traces["source_file"][0])
    for part in (root / "steps").iterdir():  # every other steps file is garbage now
        if part.name != f"source={mine}":
            (part / "part-0.parquet").write_bytes(b"not parquet")
    c = Corpus(root)
    assert c.runs_table(["trace_id"], sort="trace_id").height == loaded.traces.height  # no step read
    assert c.steps_of(tid).height == loaded.steps.filter(pl.col("trace_id") == tid).height


def test_analyze_writes_results_into_the_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = SAMPLES / "who_and_when"
    assert main(["analyze", str(folder), "--no-judge", "--no-embed", "--quiet", "--out", str(tmp_path / "out"),
                 "--corpus", str(tmp_path / "c")]) == 0
    c = Corpus(tmp_path / "c")
    table = c.runs_table(["trace_id", "outcome", "decisive_step", "category"], sort="trace_id")
    exported = pl.read_parquet(tmp_path / "out" / "traces.parquet").select(
        "trace_id", "outcome", "decisive_step", "category").sort("trace_id")
    assert table.equals(exported, null_equal=True)
    capsys.readouterr()
    assert main(["corpus", "runs", str(tmp_path / "c"), "--where", "outcome=failure", "--sort", "n_steps",
                 "--csv", "--columns", "trace_id,category"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "trace_id,category" and len(out) > 1
    tid = out[1].split(",")[0]
    assert main(["corpus", "steps", str(tmp_path / "c"), tid, "--csv"]) == 0
    assert capsys.readouterr().out.startswith("trace_id,step,")


def test_corpus_cli_build_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["corpus", "build", str(SAMPLES / "tau_bench"), "--to", str(tmp_path / "c")]) == 0
    assert "runs" in capsys.readouterr().err
    assert main(["corpus", "build", str(SAMPLES / "tau_bench"), "--to", str(tmp_path / "c")]) == 0  # same again
    assert Corpus(tmp_path / "c").count() == 3
    assert main(["corpus", "runs", str(tmp_path)]) == 2
    assert "not a corpus" in capsys.readouterr().err
    assert main(["corpus", "runs", str(tmp_path / "c"), "--sort", "nope"]) == 2
    assert "no such column: nope" in capsys.readouterr().err
    assert main(["corpus", "steps", str(tmp_path / "c"), "missing"]) == 2
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("mine")
    with pytest.raises(CorpusError, match="not a corpus"):
        write_corpus(tmp_path / "busy", pl.DataFrame(), pl.DataFrame())
