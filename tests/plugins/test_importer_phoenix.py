"""Phoenix importer: OpenInference span rows in JSONL and a Parquet spans dataframe; bad rows,
truncation, fuzzing."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from _span_fuzz import corrupt_bytes, dumps, fresh_path, mutate, run_importer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.phoenix import PhoenixImporter

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_traces" / "phoenix"
ROWS = DIR / "spans.jsonl"
PARQUET = DIR / "slug_spans.parquet"


def test_samples_are_claimed_and_load_exactly(host: PluginHost) -> None:
    for path in (ROWS, PARQUET):
        spec, _, _ = claim(path, host)
        assert spec is not None and spec.id == "phoenix", path
    res = load([DIR], host=host)
    assert res.errors == []
    assert res.formats == {"phoenix": 3}
    assert sorted(res.traces["n_steps"].to_list()) == [4, 6, 10]
    assert res.steps["native_step_id"].null_count() == 0
    assert (res.steps["native_step_id"] == res.steps["span_id"]).all()


def test_jsonl_rows() -> None:
    trajs, ctx, failure = run_importer(PhoenixImporter(), ROWS)
    assert failure is None and ctx.errors == []
    fx, flaky = sorted(trajs, key=lambda t: len(t.steps), reverse=True)
    rows = [json.loads(x) for x in ROWS.read_text(encoding="utf-8").splitlines()]
    span_ids = {r["context"]["span_id"] for r in rows}
    assert all(s.native_step_id in span_ids for t in trajs for s in t.steps)
    assert fx.native_id == rows[0]["context"]["trace_id"] and fx.framework == "openinference"
    assert [s.kind for s in fx.steps] == ["user"] + ["tool_call", "observation"] * 4 + ["message"]
    assert fx.model == "gpt-4o-mini-2024-07-18" and fx.steps[1].tokens_in == 412
    assert fx.steps[2].is_error and (fx.steps[2].error_text or "").startswith("HTTPError: 503")
    assert [s.tool_call_id for s in fx.steps if s.kind == "tool_call"] == ["call_fx1", "call_fx2", "call_calc",
                                                                           "call_write"]
    assert flaky.outcome == "failure" and flaky.steps[-1].is_error
    assert fx.metadata["otel_format"] == "phoenix"


def test_parquet_dataframe() -> None:
    trajs, ctx, failure = run_importer(PhoenixImporter(), PARQUET)
    assert failure is None and ctx.errors == [] and len(trajs) == 1
    t = trajs[0]
    assert [s.kind for s in t.steps] == ["user", "tool_call", "observation", "message"]
    assert t.outcome == "success" and t.outcome_raw == "success"  # from the root 'metadata' attribute
    assert t.steps[1].tool_name == "slugify" and t.steps[1].tool_call_id == "call_slug"
    assert t.steps[2].text == "quarterly-report-q1-2025-draft"
    table = pq.read_table(PARQUET)
    assert {s.native_step_id for s in t.steps} <= set(table.column("context.span_id").to_pylist())


def test_bad_rows_cost_only_themselves(tmp_path: Path) -> None:
    lines = ROWS.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(x) for x in lines]
    rows[1]["start_time"] = 1e308
    rows[2]["context"] = {"trace_id": rows[2]["context"]["trace_id"]}  # no span id
    text = [json.dumps(r) for r in rows]
    text.insert(4, '{"name": "x", "context": {"trace_id": "abc", "span_id": "def"}, "span_kind": ')
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    trajs, ctx, failure = run_importer(PhoenixImporter(), path)
    assert failure is None
    errs = dict(ctx.errors)
    assert "is not a readable, plausible date" in errs["line 2"]
    assert errs["line 3"] == "span has no span id; skipped"
    assert "truncated" in errs["line 5"] or "not valid JSON" in errs["line 5"]
    assert len(ctx.errors) == 3
    assert sorted(len(t.steps) for t in trajs) == [6, 9]

    table = pq.read_table(PARQUET).to_pylist()
    table[1]["context.span_id"] = None
    table[2]["start_time"] = None
    bad_pq = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(table), bad_pq)
    trajs, ctx, failure = run_importer(PhoenixImporter(), bad_pq)
    assert failure is None and dict(ctx.errors) == {"row 2": "span has no span id; skipped"}
    assert len(trajs) == 1 and len(trajs[0].steps) == 3


def test_truncated_files_give_clear_errors(tmp_path: Path, host: PluginHost) -> None:
    cut = tmp_path / "cut.parquet"
    raw = PARQUET.read_bytes()
    cut.write_bytes(raw[: len(raw) // 2])
    cut_json = tmp_path / "cut.json"
    rows = [json.loads(x) for x in ROWS.read_text(encoding="utf-8").splitlines()]
    text = json.dumps(rows)
    cut_json.write_text(text[: len(text) // 2], encoding="utf-8")
    res = load([cut, cut_json], host=host, importer="phoenix")
    errs = {Path(e.file).name: e.reason for e in res.errors}
    assert "not a readable Parquet file" in errs["cut.parquet"]
    assert "truncated" in errs["cut.json"]
    assert res.traces.height == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_exports_never_raise(tmp_path: Path, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["bytes", "rows", "parquet_bytes", "parquet_rows"]), label="kind")
    if kind == "bytes":
        path = fresh_path(tmp_path, ".jsonl")
        path.write_bytes(corrupt_bytes(ROWS.read_bytes(), data))
    elif kind == "rows":
        rows = mutate([json.loads(x) for x in ROWS.read_text(encoding="utf-8").splitlines()], data)
        path = fresh_path(tmp_path, data.draw(st.sampled_from([".jsonl", ".json"]), label="suffix"))
        path.write_text("".join(dumps(r) + "\n" for r in rows) if path.suffix == ".jsonl" and isinstance(rows, list)
                        else dumps(rows), encoding="utf-8")
    elif kind == "parquet_bytes":
        path = fresh_path(tmp_path, ".parquet")
        path.write_bytes(corrupt_bytes(PARQUET.read_bytes(), data))
    else:
        rows = pq.read_table(PARQUET).to_pylist()
        col = data.draw(st.sampled_from(sorted(rows[0])), label="column")
        value = data.draw(st.sampled_from([None, "", "x" * 3000, "not-a-date", "ERROR", "[1, 2"]), label="value")
        for r in rows[: data.draw(st.integers(1, len(rows)), label="n_rows")]:
            r[col] = value
        try:
            table = pa.Table.from_pylist(rows)
        except (pa.ArrowException, TypeError, ValueError):
            return
        path = fresh_path(tmp_path, ".parquet")
        pq.write_table(table, path)
    run_importer(PhoenixImporter(), path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2048), suffix=st.sampled_from([".jsonl", ".json", ".parquet"]),
       magic=st.booleans())
def test_arbitrary_bytes_never_raise(tmp_path: Path, raw: bytes, suffix: str, magic: bool) -> None:
    path = fresh_path(tmp_path, suffix)
    path.write_bytes((b"PAR1" + raw + b"PAR1") if magic else raw)
    run_importer(PhoenixImporter(), path)


def test_other_parquet_files_are_skipped_not_errors(tmp_path: Path, host: PluginHost) -> None:
    pq.write_table(pa.table({"trace_id": ["a"], "step": [0]}), tmp_path / "steps.parquet")
    named = tmp_path / "trace_dataset-1234.parquet"
    named.write_bytes(PARQUET.read_bytes())
    res = load([tmp_path], host=host)
    assert res.errors == [] and res.skipped == [str(tmp_path / "steps.parquet")]
    assert res.formats == {"phoenix": 1}
