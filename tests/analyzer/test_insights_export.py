"""insights.csv, the insight column of traces.csv, and the reports' insights section."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
from planted_insights import planted_corpus
from report_fixtures import SCRIPT, hostile_frames

from analyzer.analysis.result import AnalysisResult
from analyzer.embedding import HashingEmbedder
from analyzer.export import build_report, render_html, render_markdown, write_analysis
from analyzer.export.report_html import render_report_html
from analyzer.export.report_md import render_report_markdown
from analyzer.insights import INSIGHT_COLUMNS, compute_insights


def test_insights_csv_and_traces_column(tmp_path: Path) -> None:
    c = planted_corpus(60, seed=3)
    iset = compute_insights(c.runs, c.traces, c.steps, HashingEmbedder())
    result = AnalysisResult(runs=c.runs)
    written = write_analysis(tmp_path, c.traces, c.steps, result, formats=("csv",), insights=iset)
    assert tmp_path / "insights.csv" in written
    with (tmp_path / "insights.csv").open(encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == [col.name for col in INSIGHT_COLUMNS]
    table = pl.read_csv(tmp_path / "insights.csv")
    assert table.height == len(iset) and table["size"].sum() == 60
    traces = pl.read_csv(tmp_path / "traces.csv")
    assert traces["insight"].null_count() == 0
    assert set(traces["insight"]) == set(table["insight"])
    # without insights: no insights.csv, an empty insight column
    write_analysis(tmp_path / "plain", c.traces, c.steps, result, formats=("csv",))
    assert not (tmp_path / "plain" / "insights.csv").exists()
    assert pl.read_csv(tmp_path / "plain" / "traces.csv")["insight"].null_count() == 60


def test_report_insights_section_escapes() -> None:
    traces, steps, result, annotations = hostile_frames()
    iset = compute_insights(result.runs, traces, steps, HashingEmbedder())
    assert len(iset) == 2
    # two runs alone: no group of one, one "not grouped" row that names both runs
    alone = build_report(traces, steps, result, annotations, insights=iset)
    assert alone.insights == [] and len(alone.insights_ungrouped) == 2
    assert "Not grouped (2)" in render_report_html(alone) and "Not grouped (2)" in render_report_markdown(alone)
    merged = iset.merge(iset.insights[0].id, iset.insights[1].id)
    renamed = merged.rename(merged.insights[0].id, SCRIPT)
    report = build_report(traces, steps, result, annotations, insights=renamed)
    assert [i.size for i in report.insights] == [2] and report.insights_ungrouped == []
    html = render_report_html(report)
    assert 'id="insights"' in html and SCRIPT not in html and "&lt;script&gt;" in html
    md = render_report_markdown(report)
    section = md[md.index("## Insights"):md.index("## Failed runs")]
    assert "<script>" not in section and "&lt;script&gt;" in section
    # no insights: no section
    assert 'id="insights"' not in render_html(traces, steps, result, annotations)
    assert "## Insights" not in render_markdown(traces, steps, result, annotations)


def test_insights_csv_and_report_group_models_by_the_aliases(tmp_path: Path) -> None:
    c = planted_corpus(60, seed=3)
    iset = compute_insights(c.runs, c.traces, c.steps, HashingEmbedder())
    result = AnalysisResult(runs=c.runs)
    aliases = {"gpt-4o": "frontier", "claude-3.5": "frontier"}
    write_analysis(tmp_path, c.traces, c.steps, result, formats=("csv",), aliases=aliases, insights=iset)
    table = pl.read_csv(tmp_path / "insights.csv")
    models = pl.read_csv(tmp_path / "models.csv")
    groups = {m.split("=")[0] for cell in table["share_by_model"] for m in cell.split("; ")}
    assert groups <= set(models["model"]) == {"frontier", "llama-3-70b"}
    assert set(table["top_model"]) <= {"frontier", "llama-3-70b"}
    plain = iset.table()
    assert plain["share_by_model"].str.contains("gpt-4o").any()  # the set itself is not changed
    report = build_report(c.traces, c.steps, result, aliases=aliases, insights=iset)
    assert {m for i in report.insights for m, _ in i.shares} <= {"frontier", "llama-3-70b"}
