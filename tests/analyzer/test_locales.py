"""Text made in analyzer/ reaches the CLI and the reports as message ids rendered in the chosen language."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.attribution.rationale import RATIONALE_MESSAGES, Rationale, rationale_text
from analyzer.errors import ImportFailure, LoadError
from analyzer.loading import load
from analyzer.locales import (
    catalogue,
    load_error_text,
    normalise_language,
    param_formatter,
    reason_text,
    zh_CN,
)
from analyzer.messages import Message
from analyzer.reasons import LOAD_MESSAGES, reason
from analyzer.taxonomy import CATEGORY_IDS

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
GOOD_LINE = (ROOT / "sample_traces" / "generic" / "ops_runs.jsonl").read_text(encoding="utf-8").splitlines(True)[0]


@pytest.mark.parametrize(("english", "chinese"), [(RATIONALE_MESSAGES, zh_CN.RATIONALE), (LOAD_MESSAGES, zh_CN.LOAD)])
def test_every_message_has_a_chinese_template_with_the_same_placeholders(english, chinese):
    assert set(chinese) == set(english)
    for mid, template in english.items():
        assert sorted(PLACEHOLDER.findall(chinese[mid])) == sorted(PLACEHOLDER.findall(template)), mid
        words = re.search("[a-z]{3}", PLACEHOLDER.sub("", template))
        assert re.search(r"[\u4e00-\u9fff]", chinese[mid]) or not words, mid  # prose is translated
    assert set(zh_CN.TAXONOMY) == set(CATEGORY_IDS)


def test_report_translations_keep_their_placeholders():
    for source, text in zh_CN.REPORT.items():
        if source != "models_note":
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), source


def test_load_reasons_keep_their_english_text_and_carry_a_message(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(GOOD_LINE + '{"a": 1,,}\n', encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    res = load([bad, empty, tmp_path / "missing.json"])
    by_file = {Path(e.file).name: e for e in res.errors}
    assert by_file["missing.json"].reason == "file not found"
    assert by_file["missing.json"].message == Message("file_not_found", {})
    assert by_file["empty.json"].reason == "file is empty" and by_file["empty.json"].message is not None
    line = by_file["bad.jsonl"]
    assert line.record == "line 2" and line.reason.startswith("line is not valid JSON (")
    assert line.message is not None and line.message.id == "json_invalid" and line.message.params["where"] == "line"
    assert line.to_dict() == {"file": str(bad), "record": "line 2", "importer": line.importer, "reason": line.reason}
    zh = reason_text(line.message, line.reason, "zh_CN")
    assert zh.startswith("该行不是有效的 JSON（") and zh.endswith("）")
    assert reason_text(line.message, line.reason, "en") == line.reason
    assert load_error_text(line, "en") == str(line)
    assert load_error_text(line, "zh_CN") == f"{bad} [line 2] ({line.importer}): {zh}"
    # a reason in an importer's own words has no message and stays as written
    own = LoadError("f", None, None, "looks like Who&When but has no `history`")
    assert load_error_text(own, "zh_CN") == str(own)


def test_import_failure_with_a_message_and_the_cache_keep_it(tmp_path, monkeypatch):
    exc = ImportFailure(reason("json_empty", where="file"))
    assert exc.reason == "file is empty" and exc.message is not None and str(exc) == "file is empty"
    from analyzer.loading import ParsedCache

    bad = tmp_path / "bad.jsonl"
    bad.write_text(GOOD_LINE + '{"a": 1,,}\n', encoding="utf-8")
    cache = ParsedCache(tmp_path / "cache")
    first = load([bad], cache=cache)
    again = load([bad], cache=cache)
    assert [e.message for e in again.errors] == [e.message for e in first.errors] and first.errors[0].message


def test_rationale_renders_in_chinese_and_english_is_unchanged():
    r = Rationale("failed_recovery",
                  (Message("what.failed_recovery", {"step": 4}),
                   Message("error_at", {"step": 4, "quote": "HTTP 500"}),
                   Message("next_ignores", {"next_step": 5, "next_quote": "Done."})),
                  (Message("rank_runner_up", {"p": 0.5, "runner_step": 2, "runner_p": 0.25}),
                   Message("agent_share", {"agent": "coder", "share": 0.75})))
    en = r.render()
    assert r.render_in("en") == en
    assert en.startswith("Failed recovery: step 4 leaves an error unhandled")
    zh = r.render_in("zh_CN")
    assert zh.startswith("恢复失败：步骤 4 没有处理错误") and "“HTTP 500”" in zh and "（p=0.50，次优候选 步骤 2 p=0.25；" in zh
    assert "75%" in zh and "coder" in zh
    assert rationale_text(r.to_json(), en, "zh_CN") == zh
    assert rationale_text(r.to_json(), en, "en") == en
    assert rationale_text("{not json", "fallback", "zh_CN") == "fallback"


def test_language_codes_and_fallbacks():
    assert normalise_language("zh") == normalise_language("zh-CN") == normalise_language("zh_CN.UTF-8") == "zh_CN"
    assert normalise_language(None) == normalise_language("de") == "en"
    cat = catalogue({"x": "only English", **LOAD_MESSAGES}, "load", "zh_CN")
    assert cat["x"] == "only English" and cat["no_runs"] == "文件中没有运行"
    fmt = param_formatter("zh_CN")
    assert fmt("where", "file") == "文件" and fmt("where", "line 7") == "第 7 行" and fmt("where", "line") == "该行" and fmt("category", "goal_drift") == "目标漂移"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from analyzer.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_cli_import_speaks_the_chosen_language(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1,,}\n', encoding="utf-8")
    (tmp_path / "empty.json").write_bytes(b"")
    en = _cli("import", str(bad), str(tmp_path / "empty.json"), "--no-cache")
    zh = _cli("import", str(bad), str(tmp_path / "empty.json"), "--no-cache", "--lang", "zh_CN")
    assert en.returncode == zh.returncode == 1
    assert f"  {tmp_path / 'empty.json'}: file is empty" in en.stdout
    assert f"  {tmp_path / 'empty.json'}: 文件为空" in zh.stdout
    assert "line 1 is not valid JSON" in en.stdout and "第 1 行不是有效的 JSON" in zh.stdout
    assert _cli("import", str(bad), "--lang", "fr").returncode == 2


def test_chinese_html_and_pdf_reports(tmp_path):
    from analyzer.export import ReportOptions, build_report, render_report_html, render_report_pdf
    from analyzer.pipeline import analyze

    res = load([ROOT / "sample_traces" / "tau_bench", ROOT / "sample_traces" / "generic"])
    result = analyze(res.traces, res.steps)
    opts = {"generated": "2026-12-01 18:00 UTC"}
    en = render_report_html(build_report(res.traces, res.steps, result, None, ReportOptions(**opts)))
    assert '<html lang="en">' in en and "Noto Sans CJK SC\", \"Noto Sans SC" not in en and "<h2>Summary</h2>" in en
    report = build_report(res.traces, res.steps, result, None, ReportOptions(lang="zh_CN", **opts))
    html = render_report_html(report)
    assert '<html lang="zh-CN">' in html and "Noto Sans CJK SC" in html
    for heading in ("概要", "模型比较", "失败的运行", "决定性步骤摘录"):
        assert f">{heading}<" in html
    assert "<h2>Summary</h2>" not in html and "TrajScope 失败分析报告" in html
    # rationales from their message ids, category titles from the Chinese taxonomy
    rationales = re.findall(r'<p class="rationale">([^<]*)</p>', html)
    assert rationales and all(re.match(r"[\u4e00-\u9fff]", r) for r in rationales)
    from analyzer.export import render_report_markdown

    md = render_report_markdown(report)
    assert "## 概要" in md and "## 模型比较" in md and "## Summary" not in md
    assert "## Summary" in render_report_markdown(build_report(res.traces, res.steps, result, None, ReportOptions(**opts)))
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(render_report_pdf(report))
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "CJK" in fonts or "WenQuanYi" in fonts  # a CJK font is embedded
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "概要" in text and "第 1 页" in text
    png = tmp_path / "page"
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", "-singlefile", str(pdf), str(png)], check=True)
    assert png.with_suffix(".png").stat().st_size > 5000


def test_finding_templates_parse_back_to_their_own_id():
    from analyzer.detection.messages import (
        FINDING_MESSAGES,
        FINDING_PIECES,
        parse_finding,
        parse_piece,
    )

    def filled(template: str) -> tuple[str, dict[str, str]]:
        values = {name: f"v{i}x" for i, name in enumerate(PLACEHOLDER.findall(template))}
        return template.format_map(values), values

    for mid, template in FINDING_MESSAGES.items():
        text, values = filled(template)
        parsed = parse_finding(text)
        assert parsed is not None and parsed.id == mid and parsed.params == values, (mid, parsed)
    for pid, template in FINDING_PIECES.items():
        text, values = filled(template)
        got = parse_piece(text)
        assert got is not None and got.params == values, (pid, got)
        # distinct phrases must not share a text (the inverse would be ambiguous)
    texts = [filled(t)[0] for t in FINDING_PIECES.values()]
    assert len(set(texts)) == len(texts)
    assert set(zh_CN.FINDINGS) == set(FINDING_MESSAGES) and set(zh_CN.FINDING_PIECES) == set(FINDING_PIECES)
    for mid, template in FINDING_MESSAGES.items():
        assert sorted(PLACEHOLDER.findall(zh_CN.FINDINGS[mid])) == sorted(PLACEHOLDER.findall(template)), mid


def test_every_builtin_finding_on_the_samples_reads_in_chinese(sample_analysis_result):
    from analyzer.detection.messages import parse_finding
    from analyzer.locales import finding_text

    findings = sample_analysis_result.findings
    assert findings.height > 100 and findings["source"].n_unique() >= 10
    for source, text in findings.select("source", "rationale").iter_rows():
        assert parse_finding(text) is not None, (source, text)
        zh = finding_text(text, "zh_CN")
        assert zh != text and re.search(r"[\u4e00-\u9fff]", zh), (source, text, zh)
        assert finding_text(text, "en") == text
    assert finding_text("a third-party detector's own words", "zh_CN") == "a third-party detector's own words"


@pytest.fixture(scope="module")
def sample_analysis_result():
    from analyzer.pipeline import analyze

    res = load([ROOT / "sample_traces"])
    return analyze(res.traces, res.steps)


def test_value_curve_notes_read_in_chinese(sample_analysis_result):
    from analyzer.attribution.hazards import TERM_LABELS
    from analyzer.detection.messages import NOTE_MESSAGES, NOTE_PIECES, parse_note
    from analyzer.locales import note_text

    assert NOTE_PIECES == TERM_LABELS
    assert set(zh_CN.NOTES) == set(NOTE_MESSAGES) and set(zh_CN.NOTE_PIECES) == set(NOTE_PIECES)
    notes = [n for n in sample_analysis_result.runs["drop_note"].to_list() if n]
    assert len(notes) >= 5
    for n in notes:
        assert parse_note(n) is not None, n
        zh = note_text(n, "zh_CN")
        assert zh.startswith("价值") and not re.search("[a-z]{4,}", zh.replace("evidence", "")), zh
        assert note_text(n, "en") == n
    finding_note = "the value falls most at step 36 (a finding: false success), after the decisive decision at step 1; " \
                   "at step 1 itself it falls by 0.04"
    assert note_text(finding_note, "zh_CN") == "价值在步骤 36（发现：虚假成功）降幅最大，晚于决定性决策所在的步骤 1；步骤 1 本身下降了 0.04"
