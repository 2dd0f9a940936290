"""The generic (reference) importer: sniffing, canonical forms, and the flat polars fast path."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.frames.build import trajectories_from_frames
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.loading import load
from analyzer.loading.jsonio import head_bytes
from analyzer.plugin_host import ImportContext, PluginHost
from analyzer.schema.models import Step, Trajectory
from plugins.importers.generic import GenericImporter

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
FLAT_SAMPLE = SAMPLES / "generic" / "ops_runs.jsonl"
JSON_SAMPLE = SAMPLES / "generic" / "data_analysis_success.json"


def _host() -> PluginHost:
    host = PluginHost()
    host.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return host


def _write(path: Path, rows: list[Any], raw_lines: dict[int, bytes] | None = None) -> Path:
    lines = [orjson.dumps(r) for r in rows]
    for i, raw in sorted((raw_lines or {}).items()):
        lines.insert(i, raw)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _row(trace_id: str, step: int, **kw: Any) -> dict[str, Any]:
    return {"schema_version": "1.0", "trace_id": trace_id, "step": step, "role": "assistant", "kind": "message",
            "text": f"{trace_id} step {step}", **kw}


def _read(path: Path, **kw: Any) -> tuple[pl.DataFrame, pl.DataFrame, list[tuple[str | None, str]]]:
    ctx = ImportContext(path=path, importer_id="generic")
    pairs = list(GenericImporter(**kw).read_frames(path, ctx))
    traces = pl.concat([t for t, _ in pairs])
    steps = pl.concat([s for _, s in pairs])
    return traces, steps, ctx.errors


# ---- sniffing -----------------------------------------------------------------------------

def _sniff(path: Path) -> bool:
    return GenericImporter().sniff(head_bytes(path), path)


def test_sniff_claims_every_generic_form(tmp_path: Path) -> None:
    doc = orjson.loads(JSON_SAMPLE.read_bytes())
    (tmp_path / "one.json").write_bytes(JSON_SAMPLE.read_bytes())
    (tmp_path / "list.json").write_bytes(orjson.dumps([doc]))
    (tmp_path / "wrapped.json").write_bytes(orjson.dumps({"schema_version": "1.0", "trajectories": [doc]}))
    (tmp_path / "lines.jsonl").write_bytes(orjson.dumps(doc) + b"\n")
    (tmp_path / "flat.ndjson").write_bytes(FLAT_SAMPLE.read_bytes())
    for p in tmp_path.iterdir():
        assert _sniff(p), p.name


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("atif.json", {"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "a"},
                       "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}),
        ("chat.json", [{"role": "system", "content": "x"}, {"role": "user", "content": "y"}]),
        ("who.json", {"question": "q", "history": [{"role": "user", "content": "x"}], "mistake_step": "1"}),
        ("adp.json", {"schema_version": "1.0.0", "id": "x", "content": [{"class_": "message_action"}]}),
        ("otlp.json", {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "a", "name": "steps"}]}]}]}),
        ("inspect.json", {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": []}),
        ("flat_no_version.jsonl", {"trace_id": "a", "step": 0, "text": "hi"}),
        ("flat_in_json.json", {"schema_version": "1.0", "trace_id": "a", "step": 0}),
        ("atif_lines.jsonl", {"schema_version": "ATIF-v1.5", "steps": []}),
    ],
)
def test_sniff_rejects_other_formats(tmp_path: Path, name: str, content: Any) -> None:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(content) + b"\n")
    assert not _sniff(path)


def test_sniff_does_not_claim_other_formats_sample_traces() -> None:
    others = [p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".ndjson")
              and "generic" not in p.parts and "signals" not in p.parts]  # signals/ is written in the generic format
    claimed = [str(p.relative_to(SAMPLES)) for p in others if _sniff(p)]
    assert claimed == []


def test_sniff_cut_first_line_still_claims_flat(tmp_path: Path) -> None:
    row = _row("r", 0, text="x" * 100_000)
    path = _write(tmp_path / "long.jsonl", [row])
    assert _sniff(path)


# ---- canonical forms ----------------------------------------------------------------------

def test_canonical_json_forms_give_the_same_run(tmp_path: Path) -> None:
    doc = orjson.loads(JSON_SAMPLE.read_bytes())
    (tmp_path / "a.json").write_bytes(orjson.dumps([doc]))
    (tmp_path / "b.json").write_bytes(orjson.dumps({"schema_version": "1.0", "trajectories": [doc]}))
    (tmp_path / "c.jsonl").write_bytes(orjson.dumps(doc) + b"\n")
    base = load([JSON_SAMPLE], cache=None)
    for name, record in (("a.json", "trajectories[0]"), ("b.json", "trajectories[0]"), ("c.jsonl", "line 1")):
        res = load([tmp_path / name], cache=None)
        assert res.errors == []
        assert res.traces["trace_id"].to_list() == base.traces["trace_id"].to_list()
        assert res.traces["record"].to_list() == [record]
        assert res.steps.equals(base.steps)


def test_canonical_json_round_trips_through_frames() -> None:
    original = Trajectory.model_validate(orjson.loads(JSON_SAMPLE.read_bytes()))
    res = load([JSON_SAMPLE], cache=None)
    (back,) = trajectories_from_frames(res.traces, res.steps)
    assert back.steps == original.steps
    assert (back.task, back.outcome, back.score, back.metadata) == (original.task, original.outcome,
                                                                    original.score, original.metadata)


def test_canonical_bad_records_are_reported_and_good_ones_kept(tmp_path: Path) -> None:
    doc = orjson.loads(JSON_SAMPLE.read_bytes())
    bad_type = {**doc, "steps": [{"index": "zero"}]}
    future = {**doc, "schema_version": "2.0"}
    path = tmp_path / "mixed.json"
    path.write_bytes(orjson.dumps({"schema_version": "1.0", "trajectories": [doc, 5, bad_type, future]}))
    res = load([path], cache=None)
    assert res.traces.height == 1
    assert [(e.record, e.reason.split(":")[0]) for e in res.errors] == [
        ("trajectories[1]", "expected a JSON object for a trajectory, got int"),
        ("trajectories[2]", "field steps.0.index"),
        ("trajectories[3]", "unsupported schema_version '2.0' (this TrajScope reads 1.x)"),
    ]


def test_trajectories_must_be_a_list(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{"schema_version": "1.0", "trajectories": [], "steps": []}')
    path.write_bytes(b'{"schema_version": "1.0", "trajectories": {"a": 1}, "steps": []}')
    res = load([path], cache=None, importer="generic")
    assert [e.reason for e in res.errors] == ["'trajectories' must be a list of trajectory objects"]


# ---- flat form ----------------------------------------------------------------------------

def test_flat_sample_loads_with_run_level_keys() -> None:
    traces, steps, errors = _read(FLAT_SAMPLE)
    assert errors == []
    assert traces.schema == pl.Schema({c.name: c.dtype for c in TRACE_COLUMNS})
    assert steps.schema == pl.Schema({c.name: c.dtype for c in STEP_COLUMNS})
    slo = traces.filter(pl.col("trace_id") == "ops-2024-11-03-slo").row(0, named=True)
    assert slo["outcome"] == "failure" and slo["record"] == "line 17" and slo["n_steps"] == 19
    assert orjson.loads(slo["metadata_json"]) == {"planted": {"category": "error_accumulation", "step": 5}}
    assert slo["native_id"] == "ops-2024-11-03-slo" and slo["source_format"] == "generic"
    assert slo["n_errors"] == 1 and slo["tokens_total"] > 0
    (run,) = [t for t in trajectories_from_frames(traces, steps) if t.id == "ops-2024-11-03-slo"]
    assert [s.index for s in run.steps] == list(range(19))
    assert "milliseconds" in run.steps[5].text and run.steps[5].kind == "thought"


def test_flat_block_path_matches_fast_path_on_sample() -> None:
    fast = _read(FLAT_SAMPLE)
    for chunk in (1, 300, 5000):
        blocks = _read(FLAT_SAMPLE, chunk_bytes=chunk, whole_file=False)
        assert blocks[0].equals(fast[0]) and blocks[1].equals(fast[1]) and blocks[2] == fast[2] == []


def test_flat_columns_first_used_past_the_head_are_read(tmp_path: Path) -> None:
    """The one-scan path reads the columns the file's first MB does not use as nulls first; a
    value further down (a key, a run key, an object) makes it read the file again in full."""
    filler = "x" * 2000
    rows = [_row(f"r{i // 20}", i % 20, text=filler) for i in range(700)]  # > 1 MB without the late keys
    assert len(orjson.dumps(rows)) > 1 << 20
    late = [dict(rows[-1], span_id="s-late", metadata={"k": 1}, gold_reason="late reason")]
    for tail in ([], late):
        path = _write(tmp_path / f"late{len(tail)}.jsonl", [*rows[:-1], *(tail or rows[-1:])])
        fast = _read(path)
        blocks = _read(path, chunk_bytes=1 << 16, whole_file=False)
        assert fast[0].equals(blocks[0]) and fast[1].equals(blocks[1]) and fast[2] == blocks[2] == []
        last = fast[1].row(-1, named=True)
        if tail:
            assert last["span_id"] == "s-late" and last["metadata_json"] == '{"k": 1}'
            assert fast[0].row(-1, named=True)["gold_reason"] == "late reason"
        else:
            assert last["span_id"] is None and fast[1]["metadata_json"].null_count() == fast[1].height


def test_flat_interleaved_runs_and_late_run_keys(tmp_path: Path) -> None:
    rows = [
        _row("b", 0, task="task b"),
        _row("a", 1, model="m-late"),
        _row("a", 0, task="task a", model="m-first-line-of-a"),
        _row("b", 1, outcome="SUCCESS", score=1),
        _row("a", 2, tool_args={"cmd": "ls"}, metadata={"k": [1, 2]}, tokens_in=5),
        _row("b", 2, outcome="failure", trace_metadata={"x": 1}),
    ]
    path = _write(tmp_path / "mix.jsonl", rows)
    for kw in ({}, {"chunk_bytes": 150, "whole_file": False}):
        traces, steps, errors = _read(path, **kw)
        assert errors == []
        assert traces["trace_id"].to_list() == ["b", "a"]  # order of first appearance
        a = traces.row(1, named=True)
        b = traces.row(0, named=True)
        assert a["model"] == "m-late" and a["task"] == "task a" and a["record"] == "line 2"
        assert a["tokens_total"] == 5 and b["tokens_total"] is None
        assert b["outcome"] == "success" and b["score"] == 1.0 and b["metadata_json"] == '{"x": 1}'
        assert steps.select("trace_id", "step").rows() == [("b", 0), ("b", 1), ("b", 2), ("a", 0), ("a", 1), ("a", 2)]
        a2 = steps.filter((pl.col("trace_id") == "a") & (pl.col("step") == 2)).row(0, named=True)
        assert a2["tool_args"] == '{"cmd": "ls"}'  # objects become JSON text, the same on both paths
        assert a2["metadata_json"] == '{"k": [1, 2]}'
        assert a2["agent"] == "assistant" and a2["is_error"] is False


def test_flat_bad_lines_become_line_errors_and_the_rest_loads(tmp_path: Path) -> None:
    rows = [_row("r", i) for i in range(6)]
    raw = {
        2: b'{"trace_id": "r", "step": "two"}',
        4: b"",
        5: b'{"trace_id": "r", "step": 9, "role": "robot"}',
        7: b"[1, 2, 3]",
        8: b'{"step": 3}',
        9: b'{"trace_id": "r", "step": -1}',
        10: b'{"trace_id": "r", "step": 7, "kind": "thinking"}',
        11: b'{"trace_id": "r", "step": 8, "outcome": "maybe"}',
        12: b'{"trace_id": "r", "step": 9, "schema_version": "3.1"}',
        13: b'{"trace_id": "r", "step": 9, "is_error": "no"}',
        14: b'{"trace_id": "r", "ste',
    }
    path = _write(tmp_path / "bad.jsonl", rows, raw)
    expected = [
        ("line 3", "field step: expected an integer, got str 'two'"),
        ("line 6", "field role: 'robot' is not one of system, user, assistant, tool, environment"),
        ("line 8", "expected a JSON object for a step, got list"),
        ("line 9", "missing trace_id"),
        ("line 10", "field step: must be >= 0, got -1"),
        ("line 11", "field kind: 'thinking' is not one of user, system, thought, action, tool_call, observation, message"),
        ("line 12", "field outcome: 'maybe' is not one of success, failure, error, unknown"),
        ("line 13", "unsupported schema_version '3.1' (this TrajScope reads 1.x)"),
        ("line 14", "field is_error: expected true or false, got str 'no'"),
        ("line 15", "line is truncated or incomplete JSON (unexpected end of data at column 23)"),
    ]
    for kw in ({}, {"chunk_bytes": 64, "whole_file": False}, {"chunk_bytes": 1 << 20, "whole_file": False}):
        _traces, steps, errors = _read(path, **kw)
        assert errors == expected, kw
        assert steps["step"].to_list() == list(range(6))


def test_flat_blank_lines_crlf_and_bom_keep_line_numbers(tmp_path: Path) -> None:
    lines = [orjson.dumps(_row("r", 0)), b"", b"   ", orjson.dumps(_row("r", 1)), b'{"trace_id": "r", "step": "x"}']
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(lines) + b"\r\n")
    for kw in ({}, {"chunk_bytes": 40, "whole_file": False}):
        traces, steps, errors = _read(path, **kw)
        assert errors == [("line 5", "field step: expected an integer, got str 'x'")]
        assert traces["record"].to_list() == ["line 1"]
        assert steps["step"].to_list() == [0, 1]


def test_flat_duplicate_steps_and_gaps(tmp_path: Path) -> None:
    rows = [_row("r", 0), _row("r", 1, text="first copy"), _row("r", 1, text="second copy"),
            _row("g", 1), _row("g", 3)]
    path = _write(tmp_path / "dup.jsonl", rows)
    traces, steps, errors = _read(path)
    assert errors == [
        ("line 3", "step 1 of run 'r' was already given on an earlier line; skipped"),
        ("run g", "step numbers are not 0..1 (largest is 3); renumbered in order"),
    ]
    assert steps.filter(pl.col("trace_id") == "r")["text"].to_list() == ["r step 0", "first copy"]
    assert steps.filter(pl.col("trace_id") == "g")["step"].to_list() == [0, 1]
    assert steps.filter(pl.col("trace_id") == "g")["text"].to_list() == ["g step 1", "g step 3"]
    assert traces.filter(pl.col("trace_id") == "r")["n_steps"].item() == 2


def test_flat_step_gap_errors_come_in_run_order(tmp_path: Path) -> None:
    names = [f"run{i:02d}" for i in range(40)]
    path = _write(tmp_path / "gaps.jsonl", [_row(n, s) for n in names for s in (0, 2)])
    for whole_file in (True, False):
        errors = _read(path, whole_file=whole_file)[2]
        assert [record for record, _ in errors] == [f"run {n}" for n in names]


def test_flat_first_line_version_fails_the_whole_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.jsonl", [{**_row("r", 0), "schema_version": "0.9"}, _row("r", 1)])
    res = load([path], cache=None)
    assert [(e.record, e.reason) for e in res.errors] == [
        ("line 1", "unsupported schema_version '0.9' (this TrajScope reads 1.x)")]
    assert res.traces.height == 0


def test_flat_read_gives_trajectories(tmp_path: Path) -> None:
    ctx = ImportContext(path=FLAT_SAMPLE, importer_id="generic")
    runs = list(GenericImporter().read(FLAT_SAMPLE, ctx))
    assert [r.id for r in runs] == ["ops-2024-11-03-etl", "ops-2024-11-03-slo"]
    assert all(isinstance(s, Step) for r in runs for s in r.steps)
    assert runs[1].metadata["planted"] == {"category": "error_accumulation", "step": 5}


def test_flat_empty_and_blank_files(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n\n")
    res = load([path], cache=None, importer="generic")
    assert [(e.record, e.reason) for e in res.errors] == [(None, "file holds no runs")]
    res = load([path], cache=None)
    assert [(e.importer, e.reason) for e in res.errors] == [(None, "file holds only whitespace")]


# ---- property test: block boundaries never change the result -----------------------------

_line = st.one_of(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 6), st.sampled_from([None, "task", "model"])),
    st.sampled_from([b"", b"  ", b"not json", b'{"trace_id": "a"}', b'{"trace_id": "a", "step": "1"}']),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_line, min_size=1, max_size=25), chunk=st.integers(1, 400), seed=st.integers(0, 99))
def test_block_size_does_not_change_result(tmp_path: Path, lines: list[Any], chunk: int, seed: int) -> None:
    rng = random.Random(seed)
    out = [orjson.dumps(_row("a", 0))]  # first line carries schema_version
    for item in lines:
        if isinstance(item, bytes):
            out.append(item)
        else:
            tid, step, key = item
            row = _row(tid, step, text="é" * rng.randint(0, 30))
            if key:
                row[key] = f"{key}-{tid}-{step}"
            out.append(orjson.dumps(row))
    path = tmp_path / "prop.jsonl"
    path.write_bytes(b"\n".join(out) + (b"\n" if seed % 2 else b""))
    fast = _read(path)
    slow = _read(path, chunk_bytes=chunk, whole_file=False)
    assert slow[0].equals(fast[0])
    assert slow[1].equals(fast[1])
    assert sorted(slow[2], key=str) == sorted(fast[2], key=str)
    assert fast[1].select(pl.struct("trace_id", "step").is_unique().all()).item()


def test_generic_importer_is_the_builtin_for_generic_files() -> None:
    host = _host()
    assert isinstance(host.load_importer("generic"), GenericImporter)
