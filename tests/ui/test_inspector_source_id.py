"""The inspector shows a step's native id as "Source id" (translated), so an analyst can find
the step back in the producing tool."""

from __future__ import annotations

from pathlib import Path

from analyzer.loading import load
from analyzer.session import Session

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def _pane(qtbot, app, session):  # type: ignore[no-untyped-def]
    from ui.bridge import SessionBridge
    from ui.views.inspector import InspectorPane

    bridge = SessionBridge(session)
    pane = InspectorPane(session, bridge)
    qtbot.addWidget(pane)
    pane.resize(520, 420)
    pane.show()
    return pane


def test_source_id_is_shown_for_a_step(qtbot, app) -> None:  # type: ignore[no-untyped-def]
    session = Session()
    session.add_load_result(load([ROOT / "sample_traces" / "adp" / "sample_std.json"], cache=None))
    tid = session.traces.filter(native_id="shop_api_031")["trace_id"][0]
    pane = _pane(qtbot, app, session)
    session.select(trace_id=tid, step=4)
    pane.refresh()
    text = pane.browser.toPlainText()
    assert "Source id content[3]" in text
    ARTIFACTS.mkdir(exist_ok=True)
    pane.grab().save(str(ARTIFACTS / "inspector_source_id.png"))


def test_source_id_label_is_translated(qtbot, app) -> None:  # type: ignore[no-untyped-def]
    from ui.i18n import install_language

    session = Session()
    session.add_load_result(load([ROOT / "sample_traces" / "adp" / "sample_std.json"], cache=None))
    install_language("zh_CN")
    try:
        pane = _pane(qtbot, app, session)
        session.select(trace_id=session.traces["trace_id"][0], step=1)
        pane.refresh()
        assert "来源 ID content[1]" in pane.browser.toPlainText()
    finally:
        install_language("en")


def test_outcome_source_is_shown_for_a_run(qtbot, app) -> None:  # type: ignore[no-untyped-def]
    session = Session()
    session.add_load_result(load([ROOT / "sample_traces" / "harbor_job"], cache=None))
    tid = session.traces.filter(native_id="db-migrate__Tk8pQ1z")["trace_id"][0]
    pane = _pane(qtbot, app, session)
    session.select(trace_id=tid)
    pane.refresh()
    text = pane.browser.toPlainText()
    assert "Outcome from\nharbor-reward (exception: AgentTimeoutError; reward=0)" in text
    assert "error" in text
    ARTIFACTS.mkdir(exist_ok=True)
    pane.grab().save(str(ARTIFACTS / "inspector_outcome_source.png"))
