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
from typing import Any

import polars as pl
import pytest

from analyzer.analysis.result import RunAnalysis
from analyzer.cli import main
from analyzer.engines.ray_engine import RayConfig, analyze_on_ray, connect
from analyzer.engines.resume import ResultStore, decode_run, encode_run, store_key
from analyzer.schema.findings import Finding

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"


def _tables(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.suffix in (".csv", ".parquet"))


EMBEDDING_COLUMNS = frozenset({"alignment"})
"""Columns read straight from the embedder's float32 vectors. MiniLM's vectors differ in their last
bits with the number of torch threads (2 in a local run, 1 in a Ray worker) and with the texts a
batch pads to, so these cells agree to 1e-6, not bit for bit; making the embedder bit-reproducible
(one thread and one text per pass, or float64) costs about twice the embedding time."""


def _same(col: str, u: object, v: object) -> bool:
    if u == v:
        return True
    if col in EMBEDDING_COLUMNS and u is not None and v is not None:
        return abs(float(str(u)) - float(str(v))) <= 1.5e-6
    return False


def assert_same_outputs(a: Path, b: Path) -> None:
    """Every CSV and Parquet file of two analyses is the same, cell by cell (embedding cells to 1e-6)."""
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
            diff = [i for i, (u, v) in enumerate(zip(left, right, strict=True)) if not _same(col, u, v)]
            assert not diff, f"{name}: column {col} differs in rows {diff[:5]}"


SUBSET = ("adp", "harbor", "phoenix", "who_and_when")
"""Folders of sample_traces/ the fault tests analyse (14 runs: enough to kill something mid-run)."""


def _local(root: Path, paths: list[Path]) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
        mp.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))
        assert main(["analyze", *map(str, paths), "--no-judge", "--quiet", "--out", str(root / "out")]) == 0
    return root / "out"


@pytest.fixture(scope="module")
def local_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``analyze --engine local`` on sample_traces/ (its own cache folder)."""
    return _local(tmp_path_factory.mktemp("local"), [SAMPLES])


@pytest.fixture(scope="module")
def subset_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``analyze --engine local`` on the SUBSET folders."""
    return _local(tmp_path_factory.mktemp("subset"), [SAMPLES / f for f in SUBSET])


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """One local Ray instance (2 CPUs, no dashboard, 256 MB object store) for the module's tests."""
    ray, started, workers = connect(RayConfig(workers=2))
    assert workers == 2
    yield ray
    if started:
        ray.shutdown()


def _ray(out: Path, *paths: Path) -> list[str]:
    return ["analyze", *map(str, paths or (SAMPLES,)), "--no-judge", "--quiet", "--engine", "ray",
            "--workers", "2", "--out", str(out)]


def test_importing_the_cli_does_not_import_ray() -> None:
    code = ("import sys; from analyzer.cli import build_parser; import analyzer.cli.analyze_cmd; "
            "import analyzer.pipeline, analyzer.engines.resume; build_parser(); "
            "sys.exit(1 if 'ray' in sys.modules else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr or "analyzer.cli imported ray"


def test_killed_driver_loses_only_unfinished_runs(subset_out: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # runs first, in its own process and its own Ray instance: the driver SIGKILLs itself
    paths = [SAMPLES / f for f in SUBSET]
    out = tmp_path / "ray"
    env = {**os.environ, "TRAJSCOPE_RAY_FAULT": "kill-driver:4"}
    code = f"import sys; from analyzer.cli import main; sys.exit(main({_ray(out, *paths)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == -9, done.stderr[-2000:]
    assert not (out / "traces.csv").exists()
    stores = list((out / ".trajscope-ray").iterdir())
    assert len(stores) == 1
    kept = ResultStore(stores[0]).load()
    total = pl.read_parquet(subset_out / "traces.parquet").height
    assert 4 <= len(kept) < total
    assert main(_ray(out, *paths)) == 0  # resumed without the fault (and without a worker pool of its own)
    err = capsys.readouterr().err
    assert f"{len(kept)} runs read from" in err and f"{total - len(kept)} analysed now on Ray" in err
    assert_same_outputs(subset_out, out)


def test_ray_engine_matches_local_cell_by_cell(ray_instance: Any, local_out: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ray"
    assert main(_ray(out)) == 0
    err = capsys.readouterr().err
    assert "0 runs read from" in err and "analysed now on Ray (2 workers)" in err
    assert_same_outputs(local_out, out)
    # a re-run skips every finished run (by content hash) and starts no actors at all
    assert main(_ray(out)) == 0
    err = capsys.readouterr().err
    n = pl.read_parquet(local_out / "traces.parquet").height
    assert f"{n} runs read from" in err and "0 analysed now on Ray" in err
    assert_same_outputs(local_out, out)


def test_killed_worker_is_replaced_and_outputs_are_identical(ray_instance: Any, subset_out: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "fired"
    monkeypatch.setenv("TRAJSCOPE_RAY_FAULT", "kill-worker:2")  # one actor SIGKILLs itself after 2 runs
    monkeypatch.setenv("TRAJSCOPE_RAY_FAULT_MARKER", str(marker))
    out = tmp_path / "ray"
    assert main(_ray(out, *[SAMPLES / f for f in SUBSET])) == 0
    assert marker.exists(), "the worker fault never fired"
    assert_same_outputs(subset_out, out)


class PlantedFailure:
    """A hashing embedder that fails on runs of exactly ``n`` texts (a per-run error)."""

    def __init__(self, n: int) -> None:
        from analyzer.embedding.hashing import HashingEmbedder

        self.inner = HashingEmbedder(64)
        self.model_id = "planted"
        self.n = n

    def embed(self, texts: list[str]) -> Any:
        if len(texts) == self.n:
            raise ValueError("planted embedder failure")
        return self.inner.embed(texts)


def planted_models(n: int) -> tuple[Any, Any]:
    return None, PlantedFailure(n)


def test_per_run_errors_are_the_local_ones(ray_instance: Any) -> None:
    import functools

    from analyzer.loading import load
    from analyzer.pipeline import analyze

    ray_instance.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    res = load([SAMPLES / f for f in SUBSET])
    n = int(res.traces["n_steps"][1]) + 1  # the task and every step of the second run
    local = analyze(res.traces, res.steps, embedder=PlantedFailure(n))
    assert any("planted embedder failure" in e for e in local.errors)
    remote = analyze_on_ray(res.traces, res.steps, load_models=functools.partial(planted_models, n),
                            config=RayConfig(workers=2)).result
    assert remote.errors == local.errors
    for name in ("runs", "step_values", "findings"):
        assert getattr(remote, name).equals(getattr(local, name), null_equal=True), name


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


def test_corpus_analyze_on_ray_reads_the_partitions_and_matches_local(ray_instance: Any, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from analyzer.corpus import Corpus

    paths = [str(SAMPLES / f) for f in SUBSET]
    assert main(["corpus", "build", *paths, "--to", str(tmp_path / "local")]) == 0
    shutil.copytree(tmp_path / "local", tmp_path / "ray")
    assert main(["corpus", "analyze", str(tmp_path / "local"), "--no-judge", "--no-embed", "--quiet"]) == 0
    assert main(["corpus", "analyze", str(tmp_path / "ray"), "--no-judge", "--no-embed", "--quiet",
                 "--engine", "ray", "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert "0 read from" in err
    for table in ("results", "findings", "step_values"):
        a, b = (getattr(Corpus(tmp_path / d), table)() for d in ("local", "ray"))
        assert a is not None and b is not None
        key = ("trace_id",) if table == "results" else ("trace_id", "step")
        x, y = a.collect().sort(*key), b.collect().sort(*key)
        assert x.height > 0 and x.equals(y, null_equal=True), table
    # a re-run finds every run in the store and starts no actors
    assert main(["corpus", "analyze", str(tmp_path / "ray"), "--no-judge", "--no-embed", "--quiet",
                 "--engine", "ray", "--workers", "2"]) == 0
    n = Corpus(tmp_path / "ray").count()
    assert f"{n} read from" in capsys.readouterr().err
