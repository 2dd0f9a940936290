"""Annotated reports: HTML (escaped, script-free), Markdown (escaped), PDF, and the CLI."""

from __future__ import annotations

import base64
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest
from markdown_it import MarkdownIt
from report_fixtures import IMG, SCRIPT, hostile_frames

from analyzer.cli import main
from analyzer.export import (
    CSP,
    ReportOptions,
    build_report,
    render_html,
    render_markdown,
    render_pdf,
)
from analyzer.export.report_md import code_block, md_escape
from analyzer.loading import load
from analyzer.schema.models import Outcome, Step, Trajectory

FORBIDDEN_TAGS = {"script", "iframe", "object", "embed", "link", "base", "form", "input", "svg", "math", "frame"}


class TagCollector(HTMLParser):
    """Every start tag with its attributes, and all text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> TagCollector:
    p = TagCollector()
    p.feed(html)
    p.close()
    return p


def assert_inert(html: str) -> TagCollector:
    """No script, no event handler, no external resource, no link out of the page."""
    doc = parse(html)
    names = {t for t, _ in doc.tags}
    assert not names & FORBIDDEN_TAGS, names & FORBIDDEN_TAGS
    for tag, attrs in doc.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        if tag == "img":
            assert (attrs.get("src") or "").startswith("data:image/svg+xml;base64,"), attrs
        if tag == "a":
            assert (attrs.get("href") or "").startswith("#run-"), attrs
        for value in attrs.values():
            assert "javascript:" not in (value or "").lower()
    return doc


OPTS = ReportOptions(generated="2026-11-29 10:00 UTC")


# -- HTML ---------------------------------------------------------------------------------

def test_html_escapes_hostile_trace_text() -> None:
    traces, steps, result, annotations = hostile_frames()
    html = render_html(traces, steps, result, annotations, OPTS, problems=[f"bad file {IMG}"])
    doc = assert_inert(html)
    assert "&lt;script&gt;document.title=" in html
    assert "&lt;img src=x onerror=" in html
    text = "".join(doc.text)
    # the payloads are shown as text, literally
    assert SCRIPT in text and IMG in text
    assert "</pre><script>alert(1)</script>" in text
    metas = [a for t, a in doc.tags if t == "meta"]
    assert metas[0] == {"charset": "utf-8"}
    assert metas[1] == {"http-equiv": "Content-Security-Policy", "content": CSP}
    assert "script-src" not in CSP and "default-src 'none'" in CSP


def test_html_plots_are_clean_svg_images() -> None:
    traces, steps, result, annotations = hostile_frames()
    html = render_html(traces, steps, result, annotations, OPTS)
    imgs = [a["src"] for t, a in parse(html).tags if t == "img"]
    assert len(imgs) == 3  # category chart + two failed runs
    for src in imgs:
        svg = base64.b64decode(src.split(",", 1)[1]).decode("utf-8")
        root = ET.fromstring(svg)  # well-formed XML even with a hostile model name
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert not [e for e in root.iter() if e.tag.split("}")[-1] in ("script", "foreignObject", "a", "image")]
        assert not any(k.startswith("on") for e in root.iter() for k in e.attrib)
    chart = base64.b64decode(imgs[0].split(",", 1)[1]).decode("utf-8")
    assert "&lt;script" in chart


def test_html_shows_summary_models_failed_runs_and_analyst_work() -> None:
    traces, steps, result, annotations = hostile_frames()
    html = render_html(traces, steps, result, annotations, OPTS)
    text = " ".join("".join(parse(html).text).split())
    assert "Generated 2026-11-29 10:00 UTC" in text
    assert html.count('<article class="run"') == 2  # the two failed runs, not the success
    assert "Model comparison" in text and "claude" in text
    assert "Planning error" in text and "set by analyst" in text  # analyst override of f1
    assert "needs-review" in text and "flaky-env" in text
    assert "Analyst note" in text and "=1+2 run-level note" in text
    # decisive step excerpt around the analyst's step 2: steps 1..3
    assert "Step 1" in text and "Step 2" in text and "Step 3" in text and "Step 5" not in text
    assert "Findings" in text and "claims" in text
    one = render_html(traces, steps, result, annotations, ReportOptions(max_runs=1))
    assert one.count('<article class="run"') == 1
    assert "1 more failed runs are not shown" in one


def test_report_without_analysis_shows_what_the_loader_knows() -> None:
    traces, steps, _, _ = hostile_frames()
    report = build_report(traces, steps, None, None, OPTS)
    assert report.summary["failures"] == 2 and report.summary["analysed"] == 0
    assert [r.trace_id for r in report.runs] == ["f1", "f2"]
    assert report.runs[0].excerpt[-1].index == 5  # no decisive step: the last steps
    assert_inert(render_html(traces, steps, None, None, OPTS))
    empty = render_html(traces.clear(), steps.clear(), None, None, OPTS)
    assert "No failed runs." in empty
    assert_inert(empty)


# -- Markdown -----------------------------------------------------------------------------

def _md_html(md: str) -> str:
    # worst case: a renderer that allows raw HTML
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(md)


def test_markdown_escapes_hostile_text() -> None:
    traces, steps, result, annotations = hostile_frames()
    md = render_markdown(traces, steps, result, annotations, OPTS)
    html = _md_html(md)
    doc = parse(html)
    names = {t for t, _ in doc.tags}
    assert not names & (FORBIDDEN_TAGS | {"img", "a"}), names
    text = "".join(doc.text)
    assert SCRIPT in text and IMG in text
    assert "[click](javascript:alert(1))" in text
    assert "</pre><script>alert(1)</script>" in text
    assert "## Model comparison" in md and "### 1. task-1" in md


@pytest.mark.parametrize("payload", [
    SCRIPT, IMG, "[x](javascript:alert(1))", "![x](http://evil.example/x.png)", "<http://evil.example>",
    "http://evil.example", "www.evil.example", "a | b | c", "# title", "- item", "1. item", "**bold** _it_",
    "`code` ``more``", "&lt;script&gt;", "\\<script>", "line\nbreak <b>x</b>", "$x^2$",
])
def test_md_escape_renders_literally(payload: str) -> None:
    for md in (f"Text: {md_escape(payload)}", md_escape(payload, line_start=True),
               f"> {md_escape(payload, line_start=True)}", f"| {md_escape(payload)} |\n|---|\n"):
        html = _md_html(md)
        doc = parse(html)
        assert not {t for t, _ in doc.tags} & {"script", "img", "a", "b", "em", "strong", "code", "h1", "li",
                                             "ul", "ol"}, (payload, html)
        assert " ".join(payload.split()) in "".join(doc.text).replace("\n", " "), (payload, html)


def test_code_fences_cannot_be_closed_by_the_text() -> None:
    payload = "before\n```\n<script>alert(1)</script>\n````\nafter"
    html = _md_html(code_block(payload) + "\n\nafterwards")
    assert html.count("<pre>") == 1
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert html.rstrip().endswith("<p>afterwards</p>")


# -- PDF ----------------------------------------------------------------------------------

def test_pdf_has_the_report_content(tmp_path: Path) -> None:
    traces, steps, result, annotations = hostile_frames()
    pdf = render_pdf(traces, steps, result, annotations, OPTS)
    assert pdf.startswith(b"%PDF-")
    path = tmp_path / "r.pdf"
    path.write_bytes(pdf)
    assert shutil.which("pdftoppm") and shutil.which("pdftotext"), "install poppler-utils"
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", str(path), str(tmp_path / "page")],
                   check=True, timeout=60)
    pages = list(tmp_path.glob("page*.png"))
    assert len(pages) == 1 and pages[0].read_bytes().startswith(b"\x89PNG")
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True,
                          text=True, timeout=60).stdout
    flat = " ".join(text.split())
    assert "TrajScope failure report" in flat and "Model comparison" in flat
    assert "Analyst note" in flat and "needs-review" in flat
    assert "document.title='PWNED'" in flat  # shown as text


# -- CLI ----------------------------------------------------------------------------------

def _write_runs(folder: Path) -> None:
    folder.mkdir()
    failed = Trajectory(
        native_id="cli-fail", task=f"Summarise the report {SCRIPT}", model="model-a", outcome=Outcome.FAILURE,
        steps=[Step(index=0, agent="user", role="user", kind="user", text="Summarise the report"),
               Step(index=1, agent="coder", kind="tool_call", tool_name="bash", tool_args='{"cmd": "cat r.txt"}'),
               Step(index=2, agent="tool", role="tool", kind="observation", is_error=True,
                    text=f"cat: r.txt: No such file {IMG}", error_text="No such file"),
               Step(index=3, agent="coder", kind="message", text="The report says revenue grew 40%. TERMINATE")])
    passed = Trajectory(native_id="cli-pass", task="Say hi", model="model-b", outcome=Outcome.SUCCESS,
                        steps=[Step(index=0, agent="coder", text="hi")])
    (folder / "runs.json").write_bytes(orjson.dumps([failed.model_dump(mode="json"),
                                                     passed.model_dump(mode="json")]))


def test_cli_report_writes_html_md_pdf_with_workspace(tmp_path: Path) -> None:
    from analyzer.workspace import Workspace

    _write_runs(tmp_path / "runs")
    loaded = load([tmp_path / "runs"], cache=None)
    fail_id = loaded.traces.filter(loaded.traces["outcome"] == "failure")["trace_id"][0]
    ws = Workspace(tmp_path / "ws.sqlite", author="mei")
    ws.mark_decisive(fail_id, 3, "hallucination")
    ws.add_tag([(fail_id, None)], "invented-number")
    ws.set_note((fail_id, 3), f"made up the 40% {SCRIPT}")
    ws.close()
    out = tmp_path / "out"
    rc = main(["report", str(tmp_path / "runs"), "--workspace", str(tmp_path / "ws.sqlite"), "--no-judge",
               "--html", str(out / "r.html"), "--md", str(out / "r.md"), "--pdf", str(out / "r.pdf")])
    html = (out / "r.html").read_text(encoding="utf-8")
    doc = assert_inert(html)
    text = " ".join("".join(doc.text).split())
    assert "cli-fail" in text and "invented-number" in text and "set by analyst" in text
    assert f"made up the 40% {SCRIPT}" in text and "Hallucination" in text
    md = (out / "r.md").read_text(encoding="utf-8")
    assert "invented\\-number" in md or "invented-number" in md
    assert (out / "r.pdf").read_bytes().startswith(b"%PDF-")
    assert rc == 0


def test_cli_report_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_runs(tmp_path / "runs")
    runs = str(tmp_path / "runs")
    assert main(["report", runs]) == 2
    assert "--html" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope"), "--html", str(tmp_path / "r.html")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["report", runs, "--workspace", str(tmp_path / "none.sqlite"), "--html", "x.html"]) == 2
    assert "no such workspace" in capsys.readouterr().err
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a database")
    assert main(["report", runs, "--workspace", str(bad), "--html", str(tmp_path / "r.html")]) == 2
    assert "cannot read workspace" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_runs_say_where_their_outcome_came_from() -> None:
    res = load([Path(__file__).resolve().parents[2] / "sample_traces" / "harbor_job"], cache=None)
    report = build_report(res.traces, res.steps, None, None, OPTS)
    assert report.summary["failures"] == 3 and report.summary["passes"] == 2 and report.summary["unknown"] == 0
    by_id = {r.native_id: r for r in report.runs}
    assert (by_id["db-migrate__Tk8pQ1z"].outcome, by_id["db-migrate__Tk8pQ1z"].outcome_source) == \
        ("error", "harbor-reward")
    md = render_markdown(res.traces, res.steps, None, None, OPTS)
    assert "**Outcome:** error (outcome from harbor-reward)" in md
    html = render_html(res.traces, res.steps, None, None, OPTS)
    assert "outcome from harbor-reward" in html
    assert_inert(html)
