"""``trajscope analyze --engine ray``: same outputs as the local engine, resume, killed workers.

Every Ray test starts a local 2-worker instance (2 CPUs, no dashboard, a small object store)
through the CLI, with the default embedder (MiniLM) and no judge, like ``analyze --no-judge``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from analyzer.analysis.result import RunAnalysis
from analyzer.cli import main
from analyzer.engines.resume import ResultStore, decode_run, encode_run, store_key
from analyzer.schema.findings import Finding

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


def _tables(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.suffix in (".csv", ".parquet"))


def assert_same_outputs(a: Path, b: Path) -> None:
    """Every CSV and Parquet file of two analyses is the same, cell by cell."""
    assert _tables(a) == _tables(b)
    assert "traces.csv" in _tables(a) and "steps.parquet" in _tables(a)
    for name in _tables(a):
        if name.endswith(".csv"):
            x = pl.read_csv(a / name, infer_schema_length=0)
            y = pl.read_csv(b / name, infer_schema_length=0)
        else:
            x, y = pl.read_parquet(a / name), pl.read_parquet(b / name)
        assert x.schema == y.schema, name
        assert x.height == y.height, name
        for col in x.columns:
            left, right = x[col].to_list(), y[col].to_list()
            diff = [i for i, (u, v) in enumerate(zip(left, right, strict=True)) if u != v]
            assert not diff, f"{name}: column {col} differs in rows {diff[:5]}"


@pytest.fixture(scope="module")
def local_out(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``analyze --engine local`` on sample_traces/ (its own cache folder)."""
    root = tmp_path_factory.mktemp("local")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
        mp.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))
        assert main(["analyze", str(SAMPLES), "--no-judge", "--quiet", "--out", str(root / "out")]) == 0
    yield root / "out"


def _ray(out: Path, *extra: str) -> list[str]:
    return ["analyze", str(SAMPLES), "--no-judge", "--quiet", "--engine", "ray", "--workers", "2",
            "--out", str(out), *extra]


def test_importing_the_cli_does_not_import_ray() -> None:
    code = ("import sys; from analyzer.cli import build_parser; import analyzer.cli.analyze_cmd; "
            "import analyzer.pipeline; build_parser(); sys.exit(1 if 'ray' in sys.modules else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr or "analyzer.cli imported ray"


def test_ray_engine_matches_local_cell_by_cell(local_out: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ray"
    assert main(_ray(out)) == 0
    err = capsys.readouterr().err
    assert "0 runs read from" in err and "analysed now on Ray (2 workers)" in err
    assert_same_outputs(local_out, out)
    # a re-run skips every finished run (by content hash) and starts no Ray at all
    assert main(_ray(out)) == 0
    err = capsys.readouterr().err
    n = pl.read_parquet(local_out / "traces.parquet").height
    assert f"{n} runs read from" in err and "0 analysed now on Ray" in err
    assert_same_outputs(local_out, out)


def test_killed_worker_is_replaced_and_outputs_are_identical(local_out: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAJSCOPE_RAY_FAULT", "kill-worker:3")  # one actor SIGKILLs itself after 3 runs
    out = tmp_path / "ray"
    assert main(_ray(out)) == 0
    assert_same_outputs(local_out, out)


def test_killed_driver_loses_only_unfinished_runs(local_out: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ray"
    env = {**os.environ, "TRAJSCOPE_RAY_FAULT": "kill-driver:8"}
    code = f"import sys; from analyzer.cli import main; sys.exit(main({_ray(out)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == -9, done.stderr[-2000:]
    assert not (out / "traces.csv").exists()
    stores = list((out / ".trajscope-ray").iterdir())
    assert len(stores) == 1
    kept = ResultStore(stores[0]).load()
    total = pl.read_parquet(local_out / "traces.parquet").height
    assert 8 <= len(kept) < total
    assert main(_ray(out)) == 0
    err = capsys.readouterr().err
    assert f"{len(kept)} runs read from" in err and f"{total - len(kept)} analysed now on Ray" in err
    assert_same_outputs(local_out, out)


def test_result_store_round_trip_and_torn_parts(tmp_path: Path) -> None:
    f = Finding(trace_id="t1", step=2, category="hallucination", score=0.5, evidence_quote="x")
    ra = RunAnalysis(run={"trace_id": "t1", "decisive_step": 2, "confidence": 0.25, "error": None},
                     steps=[{"trace_id": "t1", "step": 0, "value": 1.0}], findings=[f], errors=["t1: boom"])
    back = decode_run(encode_run(ra))
    assert back == ra
    store = ResultStore(tmp_path / "s")
    assert store.load() == {}
    assert store.add([("t1", encode_run(ra))]) == 1
    (tmp_path / "s" / "part-torn.parquet").write_bytes(b"PAR1 not really")
    assert set(store.load()) == {"t1"}
    assert store_key(["a", 1]) != store_key(["a", 2])


def test_bad_engine_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SAMPLES), "--address", "127.0.0.1:1", "--out", str(tmp_path)]) == 2
    assert "need --engine ray" in capsys.readouterr().err
    assert main(["analyze", str(SAMPLES), "--engine", "ray", "--workers", "0", "--out", str(tmp_path)]) == 2
    assert "at least 1" in capsys.readouterr().err
    assert main(["analyze", str(SAMPLES), "--engine", "ray", "--workspace", str(tmp_path / "w.tsws"),
                 "--out", str(tmp_path)]) == 2
