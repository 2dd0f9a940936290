"""The inspector's rationale: translated from its message ids, escaped, step references are links."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor

from analyzer.attribution.rationale import RATIONALE_MESSAGES, Rationale, ranking_tail
from analyzer.messages import Message

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _links(browser) -> list[tuple[int, int, str, str]]:  # type: ignore[no-untyped-def]
    """(start, end, href, text) of every anchor in the browser's document."""
    doc = browser.document()
    out: list[tuple[int, int, str, str]] = []
    c = QTextCursor(doc)
    start, href = -1, ""
    for pos in range(doc.characterCount()):
        c.setPosition(pos + 1)
        fmt = c.charFormat()
        h = fmt.anchorHref() if fmt.isAnchor() else ""
        if h != href:
            if href:
                out.append((start, pos, href, "".join(doc.characterAt(i) for i in range(start, pos))))
            start, href = pos, h
    return out


def test_the_ui_marks_every_rationale_template_for_translation() -> None:
    from ui.views.rationale_html import TEMPLATES

    assert TEMPLATES == RATIONALE_MESSAGES


def test_rationale_html_escapes_trace_text_and_links_steps(app) -> None:
    from ui.views.rationale_html import rationale_html, rationale_text

    r = Rationale("hallucination", (
        Message("what.hallucination", {"step": 4}),
        Message("says_here", {"quote": "<b>4.1%</b> & \"more\""}),
        Message("tool_output_reads", {"tool": "<script>", "quote_step": 2, "quote": "rate: 3.9%"}),
    ), ranking_tail(0.31, 8, 0.12))
    h = rationale_html(r.to_json(), r.render())
    assert "<b>4.1%" not in h and "&lt;b&gt;4.1%&lt;/b&gt; &amp; &quot;more&quot;" in h
    assert "&lt;script&gt;" in h and "<script>" not in h
    assert "<a href='step:4'>step 4</a>" in h and "<a href='step:2'>step 2</a>" in h
    assert "<a href='step:8'>step 8</a>" in h
    assert rationale_text(r.to_json(), None) == r.render()  # English: the same text as the CSV
    # no structured form, a broken one or an unknown id: the (escaped) English text
    assert rationale_html(None, "a < b") == "a &lt; b"
    assert rationale_html("{not json", "plain") == "plain"
    future = Rationale(None, (Message("from_a_newer_version", {"step": 1}),)).to_json()
    assert rationale_text(future, "english") == "english"


def test_rationale_renders_in_chinese(app) -> None:
    from ui.i18n import install_language
    from ui.views.rationale_html import rationale_html, rationale_text

    r = Rationale("false_success", (Message("what.false_success", {"step": 21}),
                                    Message("says_here", {"quote": "all tests pass."})),
                  ranking_tail(0.3, 2, 0.17))
    try:
        assert install_language("zh_CN")
        text = rationale_text(r.to_json(), r.render())
        assert text == "虚假成功：步骤 21 未经验证就声称成功，但运行实际失败；其内容为 “all tests pass.”（p=0.30，次优候选 步骤 2 p=0.17）"
        assert "<a href='step:21'>步骤 21</a>" in rationale_html(r.to_json(), r.render())
    finally:
        install_language("en")


def test_clicking_a_step_in_the_rationale_selects_it(analysed, failed_id, qtbot) -> None:
    w = analysed
    w.session.select(trace_ids=(failed_id,), trace_id=failed_id)
    w.bridge.flush()
    row = w.session.run_row(failed_id)
    r = Rationale.from_json(row["rationale_json"])
    assert r.render() == row["rationale"]
    browser = w.inspector.browser
    text = browser.toPlainText()
    assert " ".join(row["rationale"].split()) in " ".join(text.split())  # same text as the CSV
    ARTIFACTS.mkdir(exist_ok=True)
    w.inspector.grab().save(str(ARTIFACTS / "inspector_rationale.png"))
    # the rationale's step links read "step N", or N in a list of steps ("steps 4, 2, 15"); other rows'
    # links (the decisive step, the candidates) are outside the rationale's text
    start = text.find(row["rationale"][:40])
    assert start >= 0
    links = [x for x in _links(browser) if start <= x[0] < start + len(row["rationale"]) and x[2].startswith("step:")]
    assert all(t in (f"step {h.split(':')[1]}", h.split(":")[1]) for _, _, h, t in links)
    assert {int(h.split(":")[1]) for _, _, h, _ in links} == set(r.steps())
    links = [x for x in links if x[3].startswith("step ")]
    target = next(x for x in links if int(x[2].split(":")[1]) != row["decisive_step"])
    step = int(target[2].split(":")[1])
    assert target[3] == f"step {step}"
    c = QTextCursor(browser.document())
    c.setPosition(target[0] + 3)
    browser.setTextCursor(c)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(c)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=rect.center() - QPoint(1, 0))
    qtbot.waitUntil(lambda: w.session.selection.step == step, timeout=3000)
    assert w.session.selection.steps == (step,)
    w.bridge.flush()
    cur = w.transcript.list.currentIndex()
    assert cur.isValid() and w.transcript.model.card(cur.row()).step == step
    assert f"Step {step}" in w.inspector.browser.toPlainText()


def test_chinese_rationale_templates_keep_their_placeholders() -> None:
    import re
    import xml.etree.ElementTree as ET

    ts = Path(__file__).resolve().parents[2] / "ui" / "i18n" / "trajscope_zh_CN.ts"
    ctx = next(c for c in ET.parse(ts).getroot().iter("context") if c.findtext("name") == "Rationale")
    seen = {}
    for msg in ctx.iter("message"):
        src, tr = msg.findtext("source") or "", msg.findtext("translation") or ""
        seen[src] = tr
        assert sorted(re.findall(r"{\w+}", src)) == sorted(re.findall(r"{\w+}", tr)), (src, tr)
    assert set(RATIONALE_MESSAGES.values()) | {"step {n}", "steps {list}", ", "} == set(seen)
