"""Honest reports: every tag count comes from the workspace, and the page fits a 1,280 px window."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from paired_fixture import paired_frames
from test_report_chromium import chromium, console_lines

from analyzer.export import ReportOptions, build_report, render_report_html, render_report_markdown
from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ANNOTATION_COLUMNS
from analyzer.workspace import Workspace

LONG = "anthropic/" + "claude37sonnet20250219thinkingbudget32000extendedoutput" * 2


def _tagged_workspace(path: Path) -> pl.DataFrame:
    """6 runs tagged at run level, 2 steps tagged (one with a category, one with a custom tag), one rejection."""
    ws = Workspace(path, author="ana")
    ws.set_category([("a1", None), ("a2", None), ("a3", None)], "goal_drift")
    ws.set_category([("b2", None), ("b3", None), ("b4", None)], "failed_recovery")
    ws.set_category([("a5", 1)], "false_success")
    ws.add_tag([("b5", 0)], "flaky env")
    ws.reject([("b6", 1)])
    ws.set_note(("a1", None), "drifts after the first tool error")
    frame = ws.annotations_frame()
    ws.close()
    return frame


def test_report_counts_every_tag_from_the_workspace(tmp_path: Path) -> None:
    traces, steps = paired_frames()
    annotations = _tagged_workspace(tmp_path / "ws.trajscope")
    # a tag on a run that is not in the report is said so, not counted in
    annotations = pl.concat([annotations, frame_from_rows([
        {"trace_id": "elsewhere", "step": None, "author": "bo", "category": "other", "tags": "", "note": "x",
         "status": "accepted", "timestamp": "2026-01-01T00:00:00"}], ANNOTATION_COLUMNS)], how="vertical_relaxed")
    report = build_report(traces, steps, None, annotations, ReportOptions(title="Tags"))
    t = report.tags
    assert (t.runs, t.steps, t.run_level, t.decisive, t.rejected, t.labelled, t.tags, t.notes) == (
        9, 3, 6, 0, 1, 7, 1, 1)
    assert t.authors == ["ana"] and t.other_runs == 1
    assert [(c.id, n) for c, n in t.by_category] == [("failed_recovery", 3), ("goal_drift", 3), ("false_success", 1)]
    assert t.by_tag == [("flaky env", 1)]
    assert report.summary["tagged"] == 9 and report.summary["tagged_steps"] == 3
    html = render_report_html(report)
    cards = dict((lbl, int(num)) for num, lbl in re.findall(
        r'<div class="num">(\d+)</div><div class="lbl">([^<]+)</div>', html.split('id="tag-counts"')[1].split("</div>\n</div>")[0]))
    assert cards == {"runs tagged": 9, "steps tagged": 3, "run-level labels": 6, "decisive steps marked": 0,
                     "suggestions rejected": 1, "category labels": 7, "custom tags": 1, "notes": 1}
    assert "9 runs and 3 steps tagged" in html and "0 runs tagged" not in html
    assert "1 runs that are not in this report" in html
    md = render_report_markdown(report)
    assert "9 runs tagged · 3 steps tagged · 6 run-level labels" in md


def _wide_report(tmp_path: Path) -> Path:
    traces, steps = paired_frames()
    names = {f"a{i}": f"{LONG}{i}" for i in range(1, 8)}
    traces = traces.with_columns(pl.col("trace_id").replace_strict(names, default=pl.col("model")).alias("model"))
    annotations = _tagged_workspace(tmp_path / "wide.trajscope")
    report = build_report(traces, steps, None, annotations, ReportOptions(title="Wide report"))
    assert len(report.models) >= 8
    path = tmp_path / "wide.html"
    path.write_text(render_report_html(report), encoding="utf-8")
    return path


@pytest.mark.chromium
def test_report_fits_a_1280_px_window(tmp_path: Path) -> None:
    path = _wide_report(tmp_path)
    # the report itself runs no script (strict CSP); a measuring copy without the CSP reports the layout
    page = path.read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace(
        "</body>", "<script>const w = innerWidth; const wraps = [...document.querySelectorAll('.table-wrap, "
        "section, article, header, footer, figure')].map(e => Math.ceil(e.getBoundingClientRect().right)); document.title = JSON.stringify("
        "{inner: w, scroll: document.documentElement.scrollWidth, right: Math.max(...wraps)});</script></body>"),
        encoding="utf-8")
    run = chromium(tmp_path, "--window-size=1280,900", "--dump-dom", probe.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    m = re.search(r"<title>(.*?)</title>", run.stdout, re.S)
    assert m, run.stdout[:500]
    size = json.loads(m.group(1).replace("&quot;", '"'))
    assert size["inner"] <= 1280
    assert size["scroll"] <= size["inner"], size  # no horizontal page scroll
    assert size["right"] <= size["inner"], size  # every table wrapper ends inside the window
    shot = tmp_path / "report-1280.png"
    run = chromium(tmp_path, "--window-size=1280,900", f"--screenshot={shot}", path.as_uri())
    assert run.returncode == 0 and shot.read_bytes().startswith(b"\x89PNG")
    assert console_lines(run.stderr) == [], console_lines(run.stderr)
