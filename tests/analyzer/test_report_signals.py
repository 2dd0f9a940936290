"""The report's "Beyond the decisive step" section."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analyzer.export.report_md import render_markdown
from analyzer.export.report_model import build_report
from analyzer.export.report_signals import signal_section
from analyzer.loading.loader import load
from analyzer.pipeline import analyze

SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "signals"


def test_section_lists_risky_runs_first_with_the_checkpoint_sentence() -> None:
    loaded = load([SAMPLE], cache=None)
    result = analyze(loaded.traces, loaded.steps)
    report = build_report(loaded.traces, loaded.steps, result)
    sec = report.signals
    assert sec is not None and sec.risky_runs == 2
    assert [r.native_id for r in sec.runs] == ["orders-export-leaky-failure", "orders-export-flailing-failure"]
    assert sec.runs[0].risk_score is not None and sec.runs[0].risk_score >= sec.runs[1].risk_score  # type: ignore[operator]
    md = render_markdown(loaded.traces, loaded.steps, result)
    assert "## Beyond the decisive step" in md and "after step 12: 100% of failures" in md
    assert md.index("## Beyond the decisive step") < md.index("## Failed runs")
    assert "secret\\_exfiltration" in md


def test_no_section_without_an_analysis() -> None:
    loaded = load([SAMPLE], cache=None)
    assert build_report(loaded.traces, loaded.steps, None).signals is None
    assert "Beyond the decisive step" not in render_markdown(loaded.traces, loaded.steps, None)
    assert signal_section(pl.DataFrame({"trace_id": ["x"]}), pl.DataFrame()) is None
