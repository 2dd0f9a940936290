"""The one JSON reading path (``jsonio.loads``), the list salvage, claiming by majority and sniff bounds.

Each case is one of the whole-file losses of issue 30: a token real tools write (NaN, 1e400, a
lone surrogate, a 2^64+ integer, a BOM), a damaged record in a JSON list, a damaged first
record or line, an escape storm, and unhashable values where a string is expected.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from analyzer import guard
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.loading import load
from analyzer.loading.jsonio import finite_float, loads, read_json_document
from analyzer.loading.loader import claim
from analyzer.loading.salvage import salvage_document
from analyzer.plugin_host import PluginHost
from analyzer.settings import LoadLimits
from plugins.importers import _outline

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def host() -> PluginHost:
    h = PluginHost()
    h.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return h


def test_non_finite_numbers_surrogates_and_big_integers_are_read_and_counted() -> None:
    raw = ('\ufeff{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400, "e": "x\\ud800y", '
           '"f": 123456789012345678901234567890, "g": 1' + "0" * 5000 + "}").encode()
    with guard.guarding() as g:
        doc = loads(raw, "file")
    assert doc["a"] is doc["b"] is doc["c"] is doc["d"] is None
    assert doc["e"] == "x\ufffdy"
    assert doc["f"] == 123456789012345678901234567890  # exact, not a float
    assert doc["g"] == "1" + "0" * 5000  # past Python's digit limit: kept as text
    assert (g.numbers_nulled, g.surrogates_replaced, g.numbers_as_text) == (4, 1, 1)
    assert any("4 numbers that are not finite" in n for n in g.notes())


def test_the_fast_path_still_refuses_invalid_json_with_orjsons_words() -> None:
    with pytest.raises(ImportFailure) as exc:
        loads(b'{"a": 1,', "file")
    assert "truncated" in exc.value.reason
    with pytest.raises(ImportFailure) as exc:
        loads(b'{"a": 1} {"b": 2}', "file")
    assert "more data after the end" in exc.value.reason


def test_finite_float_never_overflows() -> None:
    assert finite_float(10**400) is None and finite_float(2**70) == float(2**70)
    assert finite_float(True) is None and finite_float("1") is None and finite_float(float("nan")) is None


def _records(doc: list[object]) -> list[object]:
    return ["DAMAGED" if isinstance(r, DamagedRecord) else r for r in doc]


@pytest.mark.parametrize("indent", [2, None])
def test_a_damaged_record_of_a_list_is_one_damaged_record(tmp_path: Path, indent: int | None) -> None:
    recs = [{"id": i, "msgs": [{"a": 1}, {"b": 2}]} for i in range(4)]
    text = json.dumps(recs, indent=indent)
    i = text.index('"id": 1')
    path = tmp_path / "list.json"
    path.write_text(text[:i] + text[i + 1:])  # a quote lost in record 1
    doc = read_json_document(path, records=("",))
    assert _records(doc) == [recs[0], "DAMAGED", recs[2], recs[3]]
    damaged = doc[1]
    assert damaged.start < text.index('"id": 1') < damaged.end <= text.index('"id": 2')
    assert damaged.message.id == "record_damaged"


def test_a_cut_first_record_does_not_make_its_nested_objects_records() -> None:
    recs = [{"id": 0, "obs": [{"a": i} for i in range(5)]}, {"id": 1, "obs": []}]
    text = json.dumps(recs, indent=2)
    cut = text[: text.index('"a": 3')]
    assert salvage_document(cut, lambda t, p: json.JSONDecoder().raw_decode(t, p), json.loads, ("",)) is None


def test_a_damaged_sample_of_an_object_document_keeps_the_header(tmp_path: Path) -> None:
    doc = {"version": 2, "eval": {"task": "t"}, "samples": [{"id": i} for i in range(3)], "results": {"n": 3}}
    text = json.dumps(doc, indent=1)
    i = text.index('"id": 1')
    path = tmp_path / "log.json"
    path.write_text(text[:i] + "{" + text[i:])
    got = read_json_document(path, records=("samples",))
    assert got["results"] == {"n": 3} and _records(got["samples"]) == [{"id": 0}, "DAMAGED", {"id": 2}]


def test_a_stray_nul_is_one_records_damage_and_utf16_is_still_binary(tmp_path: Path) -> None:
    assert loads(b'{"a": "x\x00y", "pad": "' + b"p" * 200 + b'"}', "line")["a"] == "x\x00y"
    with pytest.raises(ImportFailure) as exc:
        loads('{"a": 1}'.encode("utf-16-le"), "file")
    assert "binary" in exc.value.reason


def test_a_first_record_missing_its_key_does_not_cost_the_file(tmp_path: Path, host: PluginHost) -> None:
    sample = json.loads((ROOT / "sample_traces/tau_bench/retail_results.json").read_text())
    del sample[0]["traj"]
    path = tmp_path / "retail_results.json"
    path.write_text(json.dumps(sample, indent=2))
    spec, _c, _p = claim(path, host)
    assert spec is not None and spec.id == "tau_bench"
    res = load([path], host=host, cache=None)
    assert res.traces.height == 2 and [e.record for e in res.errors] == ["[0]"]


def test_a_null_first_jsonl_line_costs_that_line(tmp_path: Path, host: PluginHost) -> None:
    lines = (ROOT / "sample_traces/adp/trajectories.jsonl").read_bytes().split(b"\n")
    path = tmp_path / "trajectories.jsonl"
    path.write_bytes(b"\n".join([b"null", *lines]))
    res = load([path], host=host, cache=None)
    assert res.traces.height == 2 and [e.record for e in res.errors] == ["line 1"]


def test_sniffing_an_escape_storm_is_linear_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "storm.json"
    path.write_bytes(b'{"a": "' + b"\\\\" * 2_000_000 + b'", "b": 1}')
    _outline._cached.cache_clear()
    assert _outline.outline(path).has("", "a", "b")  # read to the end, in one ijson pass
    _outline._cached.cache_clear()
    with guard.guarding(LoadLimits(max_sniff_seconds=0.0)):
        t0 = time.monotonic()
        cut = _outline.outline(path)
    assert not cut.complete and time.monotonic() - t0 < 60  # stopped at the first check


def test_unhashable_type_values_do_not_cost_a_record(tmp_path: Path, host: PluginHost) -> None:
    src = ROOT / "sample_traces/langsmith/runs.jsonl"
    lines = src.read_bytes().split(b"\n")
    obj = json.loads(lines[2])
    obj["inputs"]["messages"][0][0]["type"] = {"a": 1}
    lines[2] = json.dumps(obj).encode()
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\n".join(lines))
    res = load([path], host=host, cache=None)
    assert res.traces.height == 2
    assert not [e for e in res.errors if "unhashable" in e.reason]


def test_deep_nesting_in_sdk_spans_is_cut_before_the_importer(tmp_path: Path, host: PluginHost) -> None:
    text = (ROOT / "sample_traces/otel_sdk/console_exporter_fx_report.json").read_text()
    path = tmp_path / "spans.json"
    path.write_text(text.replace('"attributes": {', '"attributes": {"deep": ' + "[" * 500 + "]" * 500 + ", ", 1))
    res = load([path], host=host, cache=None)
    assert res.traces.height == 1 and not res.errors
    assert any("nested deeper than 200 levels cut" in n for n in res.notes)
