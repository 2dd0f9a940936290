"""``native_step_id`` (the source's own step id) reaches steps.csv, steps.parquet and the reports."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analyzer.export.report_html import render_html
from analyzer.export.report_md import render_markdown
from analyzer.export.write import write_analysis
from analyzer.loading import load
from analyzer.pipeline import analyze

ROOT = Path(__file__).resolve().parents[2]
ADP = ROOT / "sample_traces" / "adp" / "sample_std.json"


def test_native_step_id_in_exports_and_reports(tmp_path: Path) -> None:
    res = load([ADP], cache=None)
    result = analyze(res.traces, res.steps)
    write_analysis(tmp_path, res.traces, res.steps, result, formats=("csv", "parquet"))
    for frame in (pl.read_csv(tmp_path / "steps.csv"), pl.read_parquet(tmp_path / "steps.parquet")):
        assert frame.height == res.steps.height
        assert frame["native_step_id"].null_count() == 0
        assert frame.filter(pl.col("step") == 0)["native_step_id"].unique().to_list() == ["content[0]"]
    md = render_markdown(res.traces, res.steps, result)
    html = render_html(res.traces, res.steps, result)
    assert "source id `content[" in md
    assert "source id content[" in html
