"""The signal detectors on the committed sample and through the pipeline, exports and models.csv."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.export.tables import run_table, step_table
from analyzer.loading.loader import load
from analyzer.metrics import model_metrics
from analyzer.pipeline import AnalyzeOptions, analyze
from analyzer.plugin_host import default_host
from analyzer.schema.models import Trajectory
from analyzer.signals.run import SIGNALS_PHASE, SignalOutput, apply_signals

SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "signals" / "orders_export_runs.jsonl"
SIGNALS = ("risky_combination", "missed_check", "wasted_steps", "context_waste", "tool_answer")


@pytest.fixture(scope="module")
def analysed() -> tuple[pl.DataFrame, pl.DataFrame, AnalysisResult]:
    loaded = load([SAMPLE], cache=None)
    assert not loaded.errors and loaded.traces.height == 3
    return loaded.traces, loaded.steps, analyze(loaded.traces, loaded.steps)


def _by_id(traces: pl.DataFrame, result: AnalysisResult) -> dict[str, dict[str, Any]]:
    runs = result.runs.join(traces.select("trace_id", "native_id"), on="trace_id")
    return {r["native_id"]: r for r in runs.to_dicts()}


def test_each_signal_shows_on_the_sample(analysed: tuple[pl.DataFrame, pl.DataFrame, AnalysisResult]) -> None:
    traces, _steps, result = analysed
    runs = _by_id(traces, result)
    flail, leak, short = (runs["orders-export-flailing-failure"], runs["orders-export-leaky-failure"],
                          runs["orders-export-short-success"])
    assert "download_and_execute" in flail["risk_rules"] and flail["risk_predictable_step"] == 18
    assert {"secret_exfiltration", "destructive_outside_scope"} <= set(leak["risk_rules"].split(";"))
    assert flail["check_kind"] == "test_run" and flail["check_lead"] > 0
    assert leak["check_kind"] == "count_vs_plan"
    assert flail["wasted_steps"] >= 1 and flail["context_saveable_share"] > 0.2
    assert flail["understood_mean"] < 1.0
    assert short["risk_rules"] is None and short["check_step"] is None and short["wasted_steps"] == 0
    by_source = result.findings.group_by("source").len()
    assert set(SIGNALS) <= set(by_source["source"].to_list())
    mine = result.findings.filter(pl.col("source").is_in(SIGNALS))
    assert mine.filter(pl.col("trace_id") == short["trace_id"]).height == 0  # the clean run: no finding


def test_signals_never_move_the_decisive_step(analysed: tuple[pl.DataFrame, pl.DataFrame, AnalysisResult]) -> None:
    traces, steps, result = analysed
    host = default_host()
    others = [d.id for d in host.detectors() if getattr(host.load_detector(d.id), "phase", None) != SIGNALS_PHASE]
    without = analyze(traces, steps, options=AnalyzeOptions(detectors=others))
    cols = ["trace_id", "decisive_step", "category", "confidence", "top_steps"]
    assert without.runs.select(cols).equals(result.runs.select(cols))
    assert without.runs["risk_score"].null_count() == 3  # switched off: columns stay empty


def test_exports_and_models_csv_carry_the_columns(analysed: tuple[pl.DataFrame, pl.DataFrame, AnalysisResult]) -> None:
    traces, steps, result = analysed
    rt = run_table(traces, result, None, steps)
    flail = rt.filter(pl.col("native_id") == "orders-export-flailing-failure").row(0, named=True)
    assert flail["shortest_success_steps"] == 13 and flail["extra_steps"] == 10 and flail["extra_wall_s"] > 0
    assert flail["risk_score"] > 0.9
    st = step_table(steps, result)
    assert {"risk_cum", "check_point", "wasted", "droppable_tokens", "context_waste_cum", "understood", "used"} <= \
        set(st.columns)
    assert st["risk_cum"].max() > 0.9 and st["wasted"].drop_nulls().len() >= 1
    m = model_metrics(traces, result.runs).filter(pl.col("model") == "gpt-4o-mini").row(0, named=True)
    assert m["risky_runs"] == 1 and m["check_caught"] == 1 and m["check_caught_share"] == 1.0
    assert m["checkpoint_k"] == 12 and m["checkpoint_share"] == 1.0
    assert m["median_step_overhead"] == pytest.approx(10 / 13 / 2)  # median of 0 and 10/13
    assert m["wasted_share_failed"] > m["wasted_share_passed"] == 0.0
    fam = model_metrics(traces, result.runs, group_by=("task_family",)).row(0, named=True)
    assert fam["check_caught"] == 2 and fam["failures"] == 2


class _Broken:
    phase = SIGNALS_PHASE

    def analyse(self, trajectory: Trajectory, ctx: object) -> SignalOutput:
        return SignalOutput(step_values={"no_such_column": [None] * len(trajectory.steps)})


def test_a_bad_signal_detector_is_an_error_not_a_crash(monkeypatch: pytest.MonkeyPatch,
                                                       analysed: tuple[pl.DataFrame, pl.DataFrame, AnalysisResult]) -> None:
    traces, steps, _ = analysed
    host = default_host()
    real = host.load_detector
    monkeypatch.setattr(host, "load_detector", lambda i: _Broken() if i == "tool_answer" else real(i))
    from analyzer.frames.build import trajectories_from_frames
    traj = trajectories_from_frames(traces, steps)[0]
    ra = RunAnalysis(run={"trace_id": traj.id, "n_findings": 0},
                     steps=[{"trace_id": traj.id, "step": s.index} for s in traj.steps])
    apply_signals(traj, ra, host)
    assert "tool_answer: ValueError: unknown step column 'no_such_column'" in str(ra.run["error"])
    assert "risk_score" in ra.run  # the other signal detectors still ran
