"""JSON shape for claiming by structure: the streamed and the whole-parse paths agree, the scan
stops early where it can, and broken input keeps the keys seen before the break."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.loading import structure
from analyzer.loading.structure import KeyRule, json_shape

DOCS = {
    "object.json": {"history": [{"role": "user", "content": "x" * 70_000, "name": "A"}, {"other": 1}],
                    "question": "Q", "mistake_step": "3", "level": 2, "meta": {"a": 1, "b": None}},
    "list.json": [{"id": "r1", "content": [{"class_": "text_observation", "source": "user"}], "details": {}},
                  {"id": "r2", "zzz": 1}],
}


@pytest.fixture(params=["whole", "streamed"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "streamed":
        monkeypatch.setattr(structure, "FULL_PARSE_BYTES", 16)
    return str(request.param)


def test_object_and_list_shapes(tmp_path: Path, mode: str) -> None:
    for name, doc in DOCS.items():
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    obj = json_shape(tmp_path / "object.json")
    assert obj is not None and obj.container == "object" and obj.complete
    assert obj.keys == obj.record_keys == ("history", "question", "mistake_step", "level", "meta")
    assert obj.kinds == {"history": "list", "question": "string", "mistake_step": "string", "level": "number",
                         "meta": "object"}
    assert obj.child("history") == ("role", "content", "name") and obj.child("meta") == ("a", "b")
    assert obj.value("mistake_step") == "3" and obj.value("history") is None
    lst = json_shape(tmp_path / "list.json")
    assert lst is not None and lst.container == "list" and lst.keys == ()
    assert lst.record_keys == ("id", "content", "details") and lst.child("content") == ("class_", "source")


def test_jsonl_first_line_and_bom(tmp_path: Path, mode: str) -> None:
    p = tmp_path / "runs.jsonl"
    p.write_bytes(b"\xef\xbb\xbf\n" + json.dumps({"instance_id": "a", "history": []}).encode() + b"\n{broken\n")
    shape = json_shape(p)
    assert shape is not None and shape.container == "lines" and shape.record_keys == ("instance_id", "history")


def test_broken_documents_keep_the_keys_before_the_break(tmp_path: Path) -> None:
    p = tmp_path / "cut.json"
    p.write_text('{"question": "Q", "history": [{"role": "user"', encoding="utf-8")
    shape = json_shape(p)
    assert shape is not None and not shape.complete and shape.record_keys == ("question", "history")
    (tmp_path / "deep.json").write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    deep = json_shape(tmp_path / "deep.json")
    assert deep is not None and deep.container == "list" and deep.record_keys == ()
    (tmp_path / "scalar.json").write_text("42", encoding="utf-8")
    assert json_shape(tmp_path / "scalar.json") is None


def test_streaming_stops_at_the_byte_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structure, "FULL_PARSE_BYTES", 16)
    p = tmp_path / "big.json"
    p.write_text(json.dumps({"first": "x" * 5000, "late": 1}), encoding="utf-8")
    shape = json_shape(p, max_bytes=1000)
    assert shape is not None and shape.record_keys == ("first",) and not shape.complete


def test_key_rule_matches_and_names_the_miss() -> None:
    rule = KeyRule("Who&When", all_of=("history",), any_of=("question", "mistake_step"),
                   distinctive=("history", "mistake_step"))
    assert rule.matches(["history", "question"]) and rule.near_miss(["history", "question"]) is None
    assert rule.near_miss(["unrelated"]) is None
    closeness, why = rule.near_miss(["mistake_step", "x"]) or (0.0, "")
    assert why == "looks like Who&When but has no `history`" and 0 < closeness < 1
    assert rule.near_miss(["history"]) == (0.5, "looks like Who&When but has none of `question`, `mistake_step`")
