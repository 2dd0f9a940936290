"""OpenHands resolver ``output.jsonl``: one ResolverOutput per line (issue, instruction,
git_patch, history, success); exact counts, claiming by structure with long lines, a bad line
costs only itself, and bad input never raises out of the importer."""

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
from plugins.importers.openhands import OpenHandsImporter
from tests.plugins.importer_fuzz import assert_no_catch_all, damage_bytes, read_all, write_mutated

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "sample_traces" / "openhands_resolver" / "output.jsonl"


def test_sample_loads_with_exact_counts(host: PluginHost) -> None:
    res = load([OUTPUT], host=host, cache=None)
    assert res.errors == [] and res.formats == {"openhands": 2}
    rows = {r["native_id"]: r for r in res.traces.iter_rows(named=True)}
    assert set(rows) == {"tinyorg/tinyenv#31", "tinyorg/tinylog#58"}
    fixed, unfixed = rows["tinyorg/tinyenv#31"], rows["tinyorg/tinylog#58"]
    assert (fixed["outcome"], fixed["score"], fixed["n_steps"], fixed["record"]) == ("success", 1.0, 15, "line 1")
    assert (unfixed["outcome"], unfixed["score"], unfixed["n_steps"], unfixed["record"]) == ("failure", 0.0, 12,
                                                                                              "line 2")
    assert res.steps.height == 27
    assert "tinyenv.load()" in fixed["task"]
    meta = json.loads(fixed["metadata_json"])
    assert meta["issue"]["number"] == 31 and meta["git_patch"].startswith("diff --git a/tinyenv/core.py")
    assert meta["base_commit"].startswith("3b1c2d0")
    legacy = res.steps.filter(pl.col("trace_id") == fixed["trace_id"]).sort("step")
    assert legacy["kind"][0] == "user" and legacy["native_step_id"][0] == "history[0]"
    assert json.loads(legacy.filter(kind="action")["tool_args"][0]) == {
        "command": "grep -n \"split('=\" -r /workspace/tinyenv", "keep_prompt": True}
    v0 = res.steps.filter(pl.col("trace_id") == unfixed["trace_id"]).sort("step")
    assert v0["native_step_id"].to_list()[:4] == ["0", "1", "1", "2"]  # event ids
    assert v0.filter(pl.col("is_error"))["text"][0].startswith("F.\nFAILED tests/test_tail.py")


def test_long_lines_are_claimed_by_structure(tmp_path: Path, host: PluginHost) -> None:
    lines = [json.loads(x) for x in OUTPUT.read_text(encoding="utf-8").splitlines()]
    for r in lines:  # a long issue body and patch first: the deciding keys come after 64 KB
        r["issue"]["body"] = "context " * 12_000
        r["git_patch"] = r["git_patch"] + "+" * 30_000
    p = tmp_path / "output.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    assert b'"history"' not in head_bytes(p)
    spec, _, _ = claim(p, host)
    assert spec is not None and spec.id == "openhands"
    assert load([p], host=host, cache=None).formats == {"openhands": 2}


def test_bad_line_costs_only_itself(tmp_path: Path, host: PluginHost) -> None:
    good = OUTPUT.read_text(encoding="utf-8").splitlines()
    bad = json.loads(good[1])
    bad["history"] = {"not": "a list"}
    p = tmp_path / "output.jsonl"
    p.write_text("\n".join([good[0], "{truncated", json.dumps(bad), good[1]]) + "\n", encoding="utf-8")
    res = load([p], host=host, cache=None)
    assert res.formats == {"openhands": 2}
    assert sorted(e.record or "" for e in res.errors) == ["line 2", "line 3"]
    assert sorted(res.traces["record"].to_list()) == ["line 1", "line 4"]


def test_near_miss_names_what_is_missing(tmp_path: Path, host: PluginHost) -> None:
    rec = json.loads(OUTPUT.read_text(encoding="utf-8").splitlines()[0])
    del rec["history"]
    p = tmp_path / "output.jsonl"
    p.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    res = load([p], host=host, cache=None)
    assert len(res.errors) == 1
    assert "looks like OpenHands resolver output but has no `history`" in res.errors[0].reason


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), as_bytes=st.booleans())
def test_damaged_output_never_raises(tmp_path: Path, host: PluginHost, data: st.DataObject, as_bytes: bool) -> None:
    out = tmp_path / "output.jsonl"
    if as_bytes:
        out.write_bytes(damage_bytes(OUTPUT.read_bytes(), data))
    else:
        write_mutated(OUTPUT, out, data, lines=True)
    read_all(OpenHandsImporter(), out)
    assert_no_catch_all(out, host, "openhands")
