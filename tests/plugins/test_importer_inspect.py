"""Inspect AI importer: the shipped .eval (zstd and deflate) and .json logs, outcome rule,
attachments, events-only samples, lazy member reading, and malformed logs."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.protocols import ImportContext
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Outcome
from analyzer.taxonomy import Category
from plugins.importers import inspect_ai
from plugins.importers.inspect_ai import InspectEvalImporter, InspectJsonImporter, score_outcome

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "inspect"
ZSTD = SAMPLES / "ctf_zstd.eval"
DEFLATE = SAMPLES / "math_deflate.eval"
JSON_LOG = SAMPLES / "bugfix_log.json"

# native id -> (outcome, score, outcome_raw, n_steps, n_errors)
EXPECTED = {
    "17:1": ("success", 1.0, "C", 15, 0),
    "42:1": ("success", 1.0, "C", 17, 1),
    "58:1": ("failure", 0.0, "I", 31, 0),
    "gsm-0117:1": ("success", 1.0, "C", 11, 0),
    "gsm-0243:1": ("failure", 0.0, "I", 13, 0),
    "gsm-0388:1": ("success", 1.0, "C", 11, 1),
    "slugify-unicode:1": ("success", 1.0, "1.0", 13, 0),
    "dateparse-tz:1": ("failure", 0.0, "0.0", 14, 1),
}


@pytest.fixture(scope="module")
def loaded(host: PluginHost) -> Any:
    return load([SAMPLES], host=host)


def _rows(result: Any) -> dict[str, dict[str, Any]]:
    return {r["native_id"]: r for r in result.traces.iter_rows(named=True)}


def _steps(result: Any, trace_id: str) -> pl.DataFrame:
    return result.steps.filter(pl.col("trace_id") == trace_id).sort("step")


def _member_offsets(path: Path) -> dict[str, tuple[int, int]]:
    """member name -> (offset of its compressed data, compressed size)."""
    out = {}
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            n, m = struct.unpack_from("<HH", raw, info.header_offset + 26)
            out[info.filename] = (info.header_offset + 30 + n + m, info.compress_size)
    return out


# ---------------------------------------------------------------------------------------------
# shipped samples


def test_sample_files_are_claimed_by_the_inspect_importers(host: PluginHost) -> None:
    assert claim(ZSTD, host)[0].id == "inspect_eval"  # type: ignore[union-attr]
    assert claim(DEFLATE, host)[0].id == "inspect_eval"  # type: ignore[union-attr]
    assert claim(JSON_LOG, host)[0].id == "inspect_json"  # type: ignore[union-attr]
    with zipfile.ZipFile(ZSTD) as zf:
        assert {i.compress_type for i in zf.infolist()} == {inspect_ai.ZIP_METHOD_ZSTD}
    with zipfile.ZipFile(DEFLATE) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_DEFLATED}


def test_samples_load_with_expected_outcomes_and_steps(loaded: Any) -> None:
    assert loaded.errors == []
    assert loaded.formats == {"inspect_eval": 6, "inspect_json": 2}
    rows = _rows(loaded)
    assert set(rows) == set(EXPECTED)
    for native, (outcome, score, raw, n_steps, n_errors) in EXPECTED.items():
        row = rows[native]
        assert (row["outcome"], row["score"], row["outcome_raw"], row["n_steps"], row["n_errors"]) == (
            outcome, score, raw, n_steps, n_errors), native
        assert 10 <= row["n_steps"] <= 300
        assert row["framework"] == "inspect"
        assert row["ground_truth"]
        steps = _steps(loaded, row["trace_id"])
        assert steps["step"].to_list() == list(range(n_steps))
        assert steps["kind"][:2].to_list() == ["system", "user"]
        assert row["task"] and row["task"] in steps["text"][1]
        for col in ("text", "tool_args", "error_text"):
            assert not steps[col].drop_nulls().str.contains("attachment://").any(), (native, col)
        assert set(steps["agent"]) <= {"system", "user", "assistant", "tool"}
        assert steps["tokens_in"].drop_nulls().len() > 0
    ctf = rows["17:1"]
    assert ctf["record"] == "samples/17_epoch_1.json"
    assert ctf["task_family"] == "gdm_intercode_ctf" and ctf["model"] == "openai/o4-mini-2025-04-16"
    assert ctf["final_answer"] == ctf["ground_truth"] == "picoCTF{b4s3_64_tw1c3_1s_n0t_3ncrypt10n_9d31}"
    assert rows["gsm-0243:1"]["task_family"] == "gsm_tool_use"
    assert rows["gsm-0243:1"]["model"] == "anthropic/claude-3-5-haiku-20241022"
    assert rows["slugify-unicode:1"]["record"] == "samples[0]"


def test_message_mapping_reasoning_tool_calls_and_errors(loaded: Any) -> None:
    rows = _rows(loaded)
    steps = _steps(loaded, rows["42:1"]["trace_id"])
    kinds = steps["kind"].to_list()
    assert kinds[2:5] == ["thought", "tool_call", "observation"]
    call = steps.row(3, named=True)
    assert call["tool_name"] == "bash" and json.loads(call["tool_args"]) == {"cmd": "ls -la"}
    assert call["tool_call_id"] and call["tool_call_id"] == steps.row(4, named=True)["tool_call_id"]
    err = steps.filter(pl.col("is_error")).row(0, named=True)
    assert err["kind"] == "observation" and err["tool_name"] == "python"
    assert err["error_text"].startswith("unknown: Traceback") and "AttributeError" in err["error_text"]
    # text accompanying a call rides on the call step; the attachment holding it is resolved
    xxd = steps.row(9, named=True)
    assert xxd["kind"] == "observation" and xxd["text"].startswith("00000000: ")
    reasoning = steps.filter(pl.col("kind") == "thought")["text"].to_list()
    assert any("enumerate object" in t for t in reasoning)
    # usage and timestamps from the matching model event
    first_turn = steps.row(2, named=True)
    assert first_turn["tokens_in"] > 0 and first_turn["tokens_out"] > 0
    assert first_turn["timestamp"].startswith("2025-06-03T14:")
    assert steps.row(3, named=True)["timestamp"] == first_turn["timestamp"]
    meta = orjson.loads(rows["58:1"]["metadata_json"])
    assert meta["limit"] == {"type": "message", "limit": 30}
    assert meta["scorer"] == "includes" and "message limit" in meta["score_explanation"]
    assert meta["sample_metadata"]["category"] == "Reverse Engineering"


def test_planted_labels_point_at_the_decisive_steps(loaded: Any) -> None:
    rows = _rows(loaded)
    cats = {}
    for native, row in rows.items():
        meta = orjson.loads(row["metadata_json"])
        if row["outcome"] == "success":
            assert "planted" not in meta
            continue
        planted = meta["planted"]
        cats[native] = planted["category"]
        step = _steps(loaded, row["trace_id"]).row(planted["step"], named=True)
        assert step["kind"] == "tool_call", native
        if native == "58:1":
            assert json.loads(step["tool_args"]) == {"cmd": "echo 0000 | ./vault"}
            previous = _steps(loaded, row["trace_id"]).row(planted["step"] - 1, named=True)
            assert previous["kind"] == "observation" and "Wrong PIN" in previous["text"]
        elif native == "gsm-0243:1":
            assert "80 * 0.75" in json.loads(step["tool_args"])["code"]
        else:
            assert step["tool_name"] == "submit" and "all tests pass" in step["tool_args"]
    assert cats == {"58:1": Category.REPEATED_ACTION.value, "gsm-0243:1": Category.ERROR_ACCUMULATION.value,
                    "dateparse-tz:1": Category.FALSE_SUCCESS.value}


# ---------------------------------------------------------------------------------------------
# outcome rule


@pytest.mark.parametrize(("value", "expected"), [
    ("C", (Outcome.SUCCESS, 1.0, "C")),
    ("correct", (Outcome.SUCCESS, 1.0, "correct")),
    (True, (Outcome.SUCCESS, 1.0, "True")),
    (1, (Outcome.SUCCESS, 1.0, "1")),
    (1.0, (Outcome.SUCCESS, 1.0, "1.0")),
    ("I", (Outcome.FAILURE, 0.0, "I")),
    ("N", (Outcome.FAILURE, 0.0, "N")),
    (0, (Outcome.FAILURE, 0.0, "0")),
    (False, (Outcome.FAILURE, 0.0, "False")),
    ("P", (Outcome.UNKNOWN, 0.5, "P")),
    (0.7, (Outcome.UNKNOWN, 0.7, "0.7")),
    ("0.25", (Outcome.UNKNOWN, 0.25, "0.25")),
    ("1", (Outcome.SUCCESS, 1.0, "1")),
    ({"accuracy": 1, "f1": 0.5}, (Outcome.UNKNOWN, None, '{"accuracy":1,"f1":0.5}')),
    (None, (Outcome.UNKNOWN, None, None)),
    ("maybe", (Outcome.UNKNOWN, None, "maybe")),
])
def test_score_outcome_rule(value: Any, expected: tuple[Any, ...]) -> None:
    assert score_outcome(value) == expected


def _json_log() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(JSON_LOG.read_text(encoding="utf-8"))
    return data


def test_scorer_named_in_results_decides_and_errors_without_score_fail(tmp_path: Path, host: PluginHost) -> None:
    log = _json_log()
    s0, s1 = log["samples"]
    # a second scorer listed first would be ignored: the header's results name pytest_pass first
    s0["scores"] = {"style": {"value": "I"}, **s0["scores"]}
    s1["scores"] = {}
    s1["error"] = {"message": "RuntimeError: sandbox died", "traceback": "..."}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    res = load([path], host=host)
    assert res.errors == []
    rows = _rows(res)
    assert rows["slugify-unicode:1"]["outcome"] == "success"
    assert orjson.loads(rows["slugify-unicode:1"]["metadata_json"])["scores"] == {"style": "I", "pytest_pass": 1.0}
    assert (rows["dateparse-tz:1"]["outcome"], rows["dateparse-tz:1"]["outcome_raw"]) == ("failure", "error")


# ---------------------------------------------------------------------------------------------
# events-only samples, attachments, header placement


def test_events_rebuild_the_same_steps_when_messages_are_absent(tmp_path: Path, host: PluginHost) -> None:
    log = _json_log()
    for s in log["samples"]:
        s.pop("messages")
    path = tmp_path / "events_only.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    res = load([path], host=host)
    ref = load([JSON_LOG], host=host)
    assert res.errors == []
    for native, row in _rows(res).items():
        assert orjson.loads(row["metadata_json"])["steps_from"] == "events"
        got = _steps(res, row["trace_id"]).select("kind", "tool_name", "tool_args", "is_error", "text")
        want = _steps(ref, _rows(ref)[native]["trace_id"]).select("kind", "tool_name", "tool_args", "is_error", "text")
        assert got.equals(want), native


def test_attachments_are_resolved_everywhere_in_place() -> None:
    sample: dict[str, Any] = {
        "input": "attachment://a",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "attachment://a"}]},
                     {"role": "tool", "content": "attachment://missing"}],
        "deep": [[[{"x": "attachment://b"}]]],
        "attachments": {"a": "long task text", "b": "nested"},
    }
    inspect_ai.resolve_attachments(sample)
    assert sample["input"] == "long task text"
    assert sample["messages"][0]["content"][0]["text"] == "long task text"
    assert sample["messages"][1]["content"] == "attachment://missing"
    assert sample["deep"][0][0][0]["x"] == "nested"
    assert sample["attachments"]["a"] == "long task text"


def test_json_log_with_header_after_samples(tmp_path: Path, host: PluginHost) -> None:
    log = _json_log()
    reordered = {"version": log["version"], "samples": log["samples"],
                 **{k: v for k, v in log.items() if k not in ("version", "samples")}}
    path = tmp_path / "late_header.json"
    path.write_text(json.dumps(reordered), encoding="utf-8")
    res = load([path], host=host, importer="inspect_json")
    assert res.errors == []
    assert set(res.traces["task_family"]) == {"textkit_bugfix"}
    assert res.traces.height == 2


def test_whole_document_reader_matches_the_streaming_reader() -> None:
    ctx = ImportContext(path=JSON_LOG, importer_id="inspect_json")
    importer = InspectJsonImporter()
    whole = list(importer._read_whole(JSON_LOG, ctx))
    streamed = list(importer._read_streaming(JSON_LOG, ctx))
    assert ctx.errors == []
    assert [t.model_dump() for t in whole] == [t.model_dump() for t in streamed]


def test_eval_samples_are_decompressed_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    original = inspect_ai.EvalZip.read

    def spy(self: inspect_ai.EvalZip, name: str) -> bytes:
        read.append(name)
        return original(self, name)

    monkeypatch.setattr(inspect_ai.EvalZip, "read", spy)
    it = iter(InspectEvalImporter().read(ZSTD, ImportContext(path=ZSTD, importer_id="inspect_eval")))
    first = next(it)
    assert first.native_id == "17:1"
    assert read == ["header.json", "samples/17_epoch_1.json"]
    rest = list(it)
    assert [t.native_id for t in rest] == ["42:1", "58:1"]
    assert read[-2:] == ["samples/42_epoch_1.json", "samples/58_epoch_1.json"]


# ---------------------------------------------------------------------------------------------
# malformed logs


def test_truncated_eval_gives_a_clear_error_and_other_logs_still_load(tmp_path: Path, host: PluginHost) -> None:
    bad = tmp_path / "truncated.eval"
    raw = ZSTD.read_bytes()
    bad.write_bytes(raw[: len(raw) // 2])
    res = load([bad, DEFLATE, JSON_LOG], host=host)
    assert [(e.file, e.importer) for e in res.errors] == [(str(bad), "inspect_eval")]
    assert "truncated or corrupt" in res.errors[0].reason
    assert res.traces.height == 5


def test_bad_zstd_member_is_reported_and_other_samples_load(tmp_path: Path, host: PluginHost) -> None:
    raw = bytearray(ZSTD.read_bytes())
    off, size = _member_offsets(ZSTD)["samples/42_epoch_1.json"]
    raw[off + size // 3: off + size // 3 + 64] = bytes(range(64))
    bad = tmp_path / "bad_member.eval"
    bad.write_bytes(bytes(raw))
    res = load([bad], host=host)
    assert sorted(_rows(res)) == ["17:1", "58:1"]
    assert len(res.errors) == 1
    err = res.errors[0]
    assert err.record == "samples/42_epoch_1.json" and err.importer == "inspect_eval"
    assert "zstd member" in err.reason and "sample skipped" in err.reason


def test_zstd_frame_header_corruption_is_reported(tmp_path: Path, host: PluginHost) -> None:
    raw = bytearray(ZSTD.read_bytes())
    off, _ = _member_offsets(ZSTD)["samples/58_epoch_1.json"]
    raw[off: off + 4] = b"\x00\x00\x00\x00"  # destroy the zstd magic number
    bad = tmp_path / "bad_magic.eval"
    bad.write_bytes(bytes(raw))
    res = load([bad], host=host)
    assert sorted(_rows(res)) == ["17:1", "42:1"]
    assert [e.record for e in res.errors] == ["samples/58_epoch_1.json"]
    assert "cannot decompress zstd member" in res.errors[0].reason


def _write_eval(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_wrong_shape_members(tmp_path: Path, host: PluginHost) -> None:
    with zipfile.ZipFile(DEFLATE) as zf:
        good = zf.read("samples/gsm-0117_epoch_1.json")
        header = zf.read("header.json")
    path = tmp_path / "shapes.eval"
    _write_eval(path, {
        "header.json": header,
        "samples/a_epoch_1.json": b"[1, 2, 3]",
        "samples/b_epoch_1.json": b'{"id": "b", "epoch": 1, "messages": [',
        "samples/c_epoch_1.json": b'{"id": "c", "epoch": 1, "messages": "nope"}',
        "samples/d_epoch_1.json": b'{"id": "d", "epoch": 1, "messages": [{"role": "wizard", "content": "x"}]}',
        "samples/e_epoch_1.json": b'{"id": "e", "epoch": 1}',
        "samples/gsm-0117_epoch_1.json": good,
    })
    res = load([path], host=host)
    assert list(_rows(res)) == ["gsm-0117:1"]
    reasons = {e.record: e.reason for e in res.errors}
    assert reasons["samples/a_epoch_1.json"].startswith("sample is not a JSON object")
    assert "truncated" in reasons["samples/b_epoch_1.json"]
    assert reasons["samples/c_epoch_1.json"].startswith("'messages' is not a list")
    assert "unknown role 'wizard'" in reasons["samples/d_epoch_1.json"]
    assert reasons["samples/e_epoch_1.json"].startswith("sample has neither messages nor events")
    assert all(r.endswith("sample skipped") for r in reasons.values())


def test_header_problems_and_empty_logs(tmp_path: Path, host: PluginHost) -> None:
    with zipfile.ZipFile(DEFLATE) as zf:
        good = zf.read("samples/gsm-0117_epoch_1.json")
        start = zf.read("_journal/start.json")
    broken_header = tmp_path / "broken_header.eval"
    _write_eval(broken_header, {"header.json": b"{oops", "_journal/start.json": start,
                                "samples/gsm-0117_epoch_1.json": good})
    no_samples = tmp_path / "no_samples.eval"
    _write_eval(no_samples, {"_journal/start.json": start})
    res = load([broken_header, no_samples], host=host)
    # a broken header is reported, the journal's copy of the eval spec stands in
    assert _rows(res)["gsm-0117:1"]["model"] == "anthropic/claude-3-5-haiku-20241022"
    errs = {(Path(e.file).name, e.record): e.reason for e in res.errors}
    assert "not valid JSON" in errs[("broken_header.eval", "header.json")]
    assert errs[("no_samples.eval", None)] == "log holds no samples"


def test_zip_without_inspect_members_is_not_claimed(tmp_path: Path, host: PluginHost) -> None:
    path = tmp_path / "other.eval"
    _write_eval(path, {"notes.txt": b"hello"})
    assert not InspectEvalImporter().sniff(path.read_bytes()[:65536], path)
    res = load([path], host=host)
    assert res.traces.height == 0 and len(res.errors) == 1 and res.errors[0].importer is None


def test_json_log_truncated_inside_samples_keeps_the_earlier_samples(tmp_path: Path, host: PluginHost) -> None:
    raw = JSON_LOG.read_bytes()
    cut = raw.index(b'"id": "dateparse-tz"')
    path = tmp_path / "cut.json"
    path.write_bytes(raw[:cut])
    res = load([path], host=host)
    assert list(_rows(res)) == ["slugify-unicode:1"]
    assert [e.record for e in res.errors] == ["samples[1]"]
    assert "truncated" in res.errors[0].reason


@pytest.mark.parametrize(("content", "reason"), [
    (b'{"version": 2, "eval": {"task": "t"}, "status": "success", "samples": "nope"}', "header-only"),
    (b'{"version": 2, "eval": {"task": "t"}, "status": "started", "plan": {}}', "no samples"),
    (b'{"version": 2, "eval": {"task": "t", "model": "m"}, "status": "success", "samples": [', "truncated here (parse error: premature EOF)"),
    (b'{"version": 2, "eval": {"task": "t"}, "status"', "not valid JSON"),
])
def test_json_log_wrong_shapes(tmp_path: Path, host: PluginHost, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert InspectJsonImporter().sniff(content, path)
    res = load([path, DEFLATE], host=host)
    assert res.traces.height == 3
    mine = [e for e in res.errors if e.file == str(path)]
    assert len(mine) >= 1 and mine[0].importer == "inspect_json"
    assert any(reason in e.reason for e in mine), [e.reason for e in mine]


def test_sniffers_do_not_claim_other_formats() -> None:
    for other in (ROOT / "sample_traces" / "otel").glob("*.json*"):
        head = other.read_bytes()[:65536]
        assert not InspectJsonImporter().sniff(head, other)
        assert not InspectEvalImporter().sniff(head, other)
    head = JSON_LOG.read_bytes()[:65536]
    assert not InspectEvalImporter().sniff(head, JSON_LOG)


# ---------------------------------------------------------------------------------------------
# fuzzing: corrupted bytes never escape as exceptions

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(src=st.sampled_from([ZSTD, DEFLATE, JSON_LOG]), data=st.data())
def test_corrupted_logs_never_raise(tmp_path: Path, host: PluginHost, src: Path, data: st.DataObject) -> None:
    raw = bytearray(src.read_bytes())
    pos = data.draw(st.integers(0, len(raw) - 1), label="pos")
    junk = data.draw(st.binary(min_size=1, max_size=64), label="junk")
    raw[pos: pos + len(junk)] = junk
    if data.draw(st.booleans(), label="truncate"):
        raw = raw[: data.draw(st.integers(0, len(raw)), label="cut")]
    path = tmp_path / f"fuzz{src.suffix}"
    path.write_bytes(bytes(raw))
    res = load([path], host=host, importer="inspect_eval" if src.suffix == ".eval" else "inspect_json")
    assert res.traces.height > 0 or res.errors
    assert all(e.reason for e in res.errors)
