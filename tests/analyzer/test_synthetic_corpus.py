"""The synthetic corpus generator (bench/scale_bench.py uses it at 100k runs; here at small size)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analyzer.corpus import Corpus
from analyzer.corpus.synthetic import generate_corpus, synthetic_frames
from analyzer.frames.build import trajectories_from_frames
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.pipeline import analyze


def test_generated_corpus_has_the_asked_shape_and_is_deterministic(tmp_path: Path) -> None:
    a = Corpus(generate_corpus(tmp_path / "a", 50, steps_per_run=10, n_sources=3, seed=4))
    b = Corpus(generate_corpus(tmp_path / "b", 50, steps_per_run=10, n_sources=3, seed=4))
    stats = a.stats()
    assert stats["runs"] == 50 and stats["sources"] == 3
    assert 5 * 50 <= stats["steps"] <= 15 * 50
    ra, rb = (c.runs().drop("source").collect().sort("trace_id") for c in (a, b))
    assert ra.equals(rb, null_equal=True)
    assert ra["trace_id"].n_unique() == 50
    assert ra.columns == [c.name for c in TRACE_COLUMNS]
    tid = ra["trace_id"][7]
    st = a.steps_of(tid)
    assert st.columns == [c.name for c in STEP_COLUMNS]
    assert st["step"].to_list() == list(range(int(ra.filter(pl.col("trace_id") == tid)["n_steps"][0])))
    assert st.equals(b.steps_of(tid), null_equal=True)
    other = Corpus(generate_corpus(tmp_path / "c", 50, steps_per_run=10, n_sources=3, seed=5))
    assert set(other.runs().collect()["trace_id"].to_list()).isdisjoint(ra["trace_id"].to_list())


def test_synthetic_runs_analyse_and_failures_are_attributed() -> None:
    traces, steps = synthetic_frames(0, 12, 12, "synthetic/x.jsonl", seed=1)
    assert len(trajectories_from_frames(traces, steps)) == 12
    assert steps.group_by("trace_id").len()["len"].sum() == traces["n_steps"].sum()
    result = analyze(traces, steps)
    assert not result.errors
    runs = traces.select("trace_id", "outcome").join(result.runs, on="trace_id")
    failed = runs.filter(pl.col("outcome") == "failure")
    assert failed.height > 0
    assert failed["decisive_step"].null_count() == 0
    assert runs.filter(pl.col("outcome") == "success")["decisive_step"].null_count() == runs.height - failed.height
