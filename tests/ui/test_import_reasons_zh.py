"""The load-problems panel shows a built-in importer's reason in the analyst's language (issue 11 item 6)."""

from __future__ import annotations

from pathlib import Path

from analyzer.errors import LoadError
from analyzer.import_messages import imsg, render_en, wrap
from analyzer.reasons import reason

ROOT = Path(__file__).resolve().parents[2]


def _error(message):  # type: ignore[no-untyped-def]
    return LoadError("f.json", "samples/1.json", "inspect_eval", render_en(message), message)


def test_importer_reasons_follow_the_ui_language(app) -> None:  # type: ignore[no-untyped-def]
    from ui.i18n import install_language
    from ui.i18n.messages import reason_text

    plain = _error(imsg("mini_unknown_role", role="None"))
    wrapped = _error(wrap("inspect_sample_skipped", reason("json_invalid", where="line 2", error="bad")))
    own = LoadError("f.json", None, "third_party", "my own words")
    try:
        assert install_language("zh_CN")
        assert reason_text(plain) == "未知角色 None；已跳过该消息"
        assert reason_text(wrapped) == "第 2 行不是有效的 JSON（bad）；已跳过该样本"
        assert reason_text(own) == "my own words"
        assert reason_text(_error(reason("file_empty"))) == "文件为空"  # the loader's, through Qt
    finally:
        install_language("en")
    assert reason_text(plain) == plain.reason == "unknown role None; message skipped"
    assert reason_text(wrapped) == "line 2 is not valid JSON (bad); sample skipped"
