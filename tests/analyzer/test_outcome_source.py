"""Where each run's outcome came from (``outcome_source``): set by the loader for every importer,
kept in ``traces.csv``, and an errored run counted with the failed ones."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analyzer.export.tables import run_table
from analyzer.frames.build import traces_frame
from analyzer.loading import load
from analyzer.loading.outcomes import settle_outcomes
from analyzer.metrics.models import model_metrics
from analyzer.schema.models import Outcome, Step, Trajectory

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


def _run(i: int, **kw: object) -> Trajectory:
    return Trajectory(id=f"r{i}", task=f"t{i}", model="m", steps=[Step(index=0, text="x")], **kw)  # type: ignore[arg-type]


def test_settle_fills_file_and_labels_and_keeps_named_sources() -> None:
    frame = traces_frame([
        _run(0, outcome=Outcome.SUCCESS),
        _run(1, outcome=Outcome.FAILURE, outcome_source="swebench-report"),
        _run(2, gold_decisive_step=3, gold_decisive_agent="Coder"),  # labels exist only for failed runs
        _run(3),
        _run(4, outcome=Outcome.SUCCESS, gold_decisive_agent="Coder"),  # an outcome in the file wins
    ])
    got = settle_outcomes(frame).select("trace_id", "outcome", "outcome_source").rows()
    assert got == [("r0", "success", "file"), ("r1", "failure", "swebench-report"), ("r2", "failure", "labels"),
                   ("r3", "unknown", None), ("r4", "success", "file")]
    assert settle_outcomes(settle_outcomes(frame)).equals(settle_outcomes(frame))


def test_every_sample_run_with_an_outcome_names_its_source() -> None:
    res = load([SAMPLES], cache=None)
    decided = res.traces.filter(pl.col("outcome") != "unknown")
    assert decided.height > 30 and decided["outcome_source"].null_count() == 0
    assert res.traces.filter(pl.col("outcome") == "unknown")["outcome_source"].null_count() == \
        res.traces.filter(pl.col("outcome") == "unknown").height
    by_format = dict(decided.group_by("source_format").agg(pl.col("outcome_source").unique().sort())
                     .select("source_format", pl.col("outcome_source").list.join(",")).rows())
    assert by_format["tau_bench"] == "tau-bench-reward"
    assert by_format["mini_swe_agent"] == "swebench-report" and by_format["swe_agent"] == "swebench-report"
    assert by_format["harbor_trial"] == "harbor-reward"
    assert "inspect-score" in by_format["inspect_eval"]
    assert "file" in by_format["who_and_when"]


def test_traces_csv_has_the_outcome_source_column() -> None:
    res = load([SAMPLES / "harbor_job"], cache=None)
    table = run_table(res.traces)
    assert table.columns.index("outcome_source") == table.columns.index("outcome") + 1
    assert set(table["outcome_source"].to_list()) == {"harbor-reward"}


def test_an_errored_run_counts_as_failed_in_pass_rates() -> None:
    res = load([SAMPLES / "harbor_job"], cache=None)
    row = model_metrics(res.traces).row(0, named=True)
    assert (row["runs"], row["passes"], row["failures"], row["unknown"]) == (5, 2, 3, 0)
    assert abs(row["pass_rate"] - 0.4) < 1e-9
