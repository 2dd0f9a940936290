"""ADP importer: the shipped samples (exact counts), content classes, claiming by structure,
a malformed record costs only itself, and bad input never raises out of the importer."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.jsonio import head_bytes
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.adp import AdpImporter
from tests.plugins.importer_fuzz import assert_no_catch_all, damage_bytes, read_all, write_mutated

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "adp"
STD = SAMPLES / "sample_std.json"
LINES = SAMPLES / "trajectories.jsonl"


def test_samples_load_with_exact_counts(host: PluginHost) -> None:
    res = load([SAMPLES], host=host, cache=None)
    assert res.errors == [] and res.formats == {"adp": 5}
    rows = {r["native_id"]: r for r in res.traces.iter_rows(named=True)}
    expected = {  # native id -> (record, outcome, score, n_steps, task family)
        "shell_logs_007": ("[0]", "success", 1.0, 7, "shell-logs-mini"),
        "shell_logs_012": ("[1]", "failure", 0.0, 7, "shell-logs-mini"),
        "shop_api_031": ("[2]", "success", 1.0, 8, "shop-api-mini"),
        "legacy_msg_001": ("line 1", "success", 1.0, 3, "legacy-arith"),
        "shell_logs_007_repeat": ("line 2", "success", 1.0, 7, "shell-logs-mini"),
    }
    assert set(rows) == set(expected)
    for nid, (record, outcome, score, n, family) in expected.items():
        r = rows[nid]
        assert (r["record"], r["outcome"], r["score"], r["n_steps"], r["task_family"]) == (record, outcome, score, n,
                                                                                            family), nid
    assert res.steps.height == 32
    # same content under another id in another file: a distinct run with a distinct id
    assert rows["shell_logs_007"]["trace_id"] != rows["shell_logs_007_repeat"]["trace_id"]


def test_content_classes_map_to_steps(host: PluginHost) -> None:
    res = load([STD], host=host, cache=None)
    tid = res.traces.filter(native_id="shop_api_031")["trace_id"][0]
    st_ = res.steps.filter(pl.col("trace_id") == tid).sort("step")
    assert st_["kind"].to_list() == ["user", "tool_call", "observation", "thought", "tool_call", "observation",
                                     "observation", "message"]
    assert st_["native_step_id"].to_list() == ["content[0]", "content[1]", "content[2]", "content[3]", "content[3]",
                                               "content[4]", "content[5]", "content[6]"]
    assert st_["tool_name"][1] == "search_products" and json.loads(st_["tool_args"][1])["min_length_m"] == 2
    assert st_["tool_call_id"][2] == "call_0001" and st_["role"][2] == "tool"
    assert st_["text"][6].startswith("URL: https://shop.example/cart")
    shell = res.steps.filter(pl.col("trace_id") == res.traces.filter(native_id="shell_logs_007")["trace_id"][0])
    calls = shell.filter(kind="tool_call")
    assert calls["tool_name"].to_list() == ["bash", "bash"]
    assert json.loads(calls["tool_args"][1])["code"].startswith("awk")
    row = res.traces.filter(native_id="shell_logs_007").row(0, named=True)
    assert row["task"].startswith("How many distinct IP addresses") and row["final_answer"] == "<solution> 14 </solution>"


def test_claimed_by_structure_even_after_a_long_first_item(tmp_path: Path, host: PluginHost) -> None:
    for f in (STD, LINES):
        spec, _, _ = claim(f, host)
        assert spec is not None and spec.id == "adp", f
    doc = json.loads(STD.read_text(encoding="utf-8"))
    doc[0] = {"notes": "y" * 120_000, **doc[0]}  # the deciding keys come after 120 KB
    p = tmp_path / "late.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    assert b'"class_"' not in head_bytes(p)
    spec, _, _ = claim(p, host)
    assert spec is not None and spec.id == "adp"
    assert load([p], host=host, cache=None).formats == {"adp": 3}


def test_near_miss_and_malformed_records_cost_only_themselves(tmp_path: Path, host: PluginHost) -> None:
    doc = json.loads(STD.read_text(encoding="utf-8"))
    doc[1]["content"] = "not a list"
    doc[2]["content"][1] = {"class_": "teleport_action"}
    doc.append(["not an object"])
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    res = load([p], host=host, cache=None)
    assert res.formats == {"adp": 2}
    assert sorted((e.record, e.reason.split(" (")[0]) for e in res.errors) == [
        ("[1]", "'content' is not a list"),
        ("[2] content[1]", "unknown content class 'teleport_action'; skipped"),
        ("[3]", "expected an ADP trajectory object, got list"),
    ]
    no_id = [{"content": [{"class_": "message_action", "content": "hi"}], "details": {}}]
    q = tmp_path / "no_id.json"
    q.write_text(json.dumps(no_id), encoding="utf-8")
    res = load([q], host=host, cache=None)
    assert len(res.errors) == 1 and "looks like an ADP trajectory but has no `id`" in res.errors[0].reason


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), lines=st.booleans())
def test_mutated_records_never_raise(tmp_path: Path, host: PluginHost, data: st.DataObject, lines: bool) -> None:
    src = LINES if lines else STD
    out = tmp_path / ("m.jsonl" if lines else "m.json")
    write_mutated(src, out, data, lines=lines)
    read_all(AdpImporter(), out)
    assert_no_catch_all(out, host, "adp")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), lines=st.booleans())
def test_damaged_bytes_never_raise(tmp_path: Path, host: PluginHost, data: st.DataObject, lines: bool) -> None:
    src = LINES if lines else STD
    out = tmp_path / ("d.jsonl" if lines else "d.json")
    out.write_bytes(damage_bytes(src.read_bytes(), data))
    read_all(AdpImporter(), out)
    assert_no_catch_all(out, host, "adp")
