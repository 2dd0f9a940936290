"""Structural sniffing helper: the keys of a JSON file's head, whatever their byte offset."""

from __future__ import annotations

import json
from pathlib import Path

from plugins.importers._outline import outline


def test_object_keys_past_the_head_window(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"history": ["x" * 1000] * 200, "info": {"trace_id": "t"}, "data": {"spans": [
        {"span_id": "a", "attributes": {"k": 1}}]}}), encoding="utf-8")
    o = outline(path)
    assert o.container == "object" and o.complete
    assert o.has("", "history", "info", "data") and o.has("info", "trace_id")
    assert o.has("data.spans[]", "span_id", "attributes")


def test_array_first_record_is_the_root(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"trace": {"id": "1"}, "observations": [{"id": "o", "type": "SPAN"}]},
                                {"other": 1}]), encoding="utf-8")
    o = outline(path)
    assert o.container == "array" and o.has("", "trace", "observations") and not o.any_of("", "other")
    assert o.has("observations[]", "id", "type") and o.has("trace", "id")


def test_concatenated_lines_and_broken_files(tmp_path: Path) -> None:
    concat = tmp_path / "console.json"
    concat.write_text(json.dumps({"name": "a", "context": {"span_id": "0x1"}}, indent=4) + "\n"
                      + json.dumps({"name": "b"}, indent=4) + "\n", encoding="utf-8")
    o = outline(concat)
    assert o.container == "values" and o.has("context", "span_id")
    lines = tmp_path / "rows.jsonl"
    lines.write_text("\n{bad\n" + json.dumps({"run_type": "llm", "id": "r"}) + "\n", encoding="utf-8")
    assert outline(lines).container == "lines" and outline(lines).has("", "run_type", "id")
    cut = tmp_path / "cut.json"
    cut.write_text('{"info": {"trace_id": "t"}, "data": {"spa', encoding="utf-8")
    o = outline(cut)
    assert o.container == "object" and not o.complete and o.has("info", "trace_id")
    for raw in (b"", b"\x00\x01binary", b"[1, 2, 3]", b"42"):
        p = tmp_path / f"x{len(raw)}.json"
        p.write_bytes(raw)
        o = outline(p)
        assert o.keys.get("", frozenset()) == frozenset()


def test_hostile_nesting_is_streamed_not_expanded(tmp_path: Path) -> None:
    # ijson's prefixed events would build a 200,000-segment prefix per event (quadratic); the
    # outline keeps its own stack and records nothing below MAX_DEPTH
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + ', "late": 1}', encoding="utf-8")
    o = outline(path)
    assert o.container == "object" and o.complete and o.at("") == frozenset({"a", "late"})
