"""Compressed trace files load as the plain file does (under the inflation caps, checked while
streaming), and a file that is not a trace is a load problem naming what it is."""

from __future__ import annotations

import bz2
import gzip
import lzma
import sqlite3
from pathlib import Path

import polars as pl
import pytest
import zstandard

from analyzer.cli import main
from analyzer.loading import load
from analyzer.settings import LoadLimits

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "generic" / "data_analysis_success.json"
JSONL = ROOT / "sample_traces" / "generic" / "ops_runs.jsonl"

COMPRESS = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    ".zst": lambda data: zstandard.ZstdCompressor().compress(data),
}


def _frames(res: object) -> tuple[pl.DataFrame, pl.DataFrame]:
    traces = res.traces.drop("source_file").sort("trace_id")  # type: ignore[attr-defined]
    return traces, res.steps.sort("trace_id", "step")  # type: ignore[attr-defined]


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("sample", [SAMPLE, JSONL], ids=["json", "jsonl"])
def test_compressed_sample_loads_exactly_as_the_plain_file(tmp_path: Path, suffix: str, sample: Path) -> None:
    packed = tmp_path / (sample.name + suffix)
    packed.write_bytes(COMPRESS[suffix](sample.read_bytes()))
    plain = load([sample], cache=None)
    got = load([packed], cache=None)
    assert got.errors == plain.errors == []
    assert got.traces.height == plain.traces.height > 0
    assert got.formats == plain.formats
    for a, b in zip(_frames(got), _frames(plain), strict=True):
        assert a.equals(b)
    assert set(got.traces["source_file"].to_list()) == {str(packed)}
    assert got.files == [str(packed)]


def test_a_compression_bomb_is_refused_while_streaming(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        fh.write(b'{"runs": [')
        for _ in range(64):
            fh.write(b" " * (1 << 20))  # 64 MB of blanks: a ratio far past 250
    limits = LoadLimits(ratio_floor_bytes=4 << 20)
    res = load([bomb], cache=None, limits=limits)
    assert res.traces.height == 0
    assert len(res.errors) == 1
    err = res.errors[0]
    assert err.file == str(bomb) and "refused while inflating" in err.reason and "max_inflate_ratio" in err.reason
    assert not list(Path(tmp_path).glob("**/bomb.json"))


def test_over_the_member_cap_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl.xz"
    big.write_bytes(lzma.compress(JSONL.read_bytes() * 4))
    res = load([big], cache=None, limits=LoadLimits(max_member_bytes=JSONL.stat().st_size))
    assert res.traces.height == 0 and "max_member_bytes" in res.errors[0].reason


def test_corrupt_compressed_file_is_a_problem(tmp_path: Path) -> None:
    bad = tmp_path / "run.json.gz"
    bad.write_bytes(gzip.compress(SAMPLE.read_bytes())[:200])
    res = load([bad], cache=None)
    assert res.traces.height == 0 and len(res.errors) == 1
    assert "cannot decompress the gzip file" in res.errors[0].reason


def _sqlite(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("create table spans (span_id text, name text)")
    con.execute("insert into spans values ('a', 'llm')")
    con.commit()
    con.close()
    return path


def test_sqlite_database_is_a_load_problem_naming_it(tmp_path: Path) -> None:
    db = _sqlite(tmp_path / "phoenix.db")
    res = load([db], cache=None)
    assert res.traces.height == 0 and [e.file for e in res.errors] == [str(db)]
    assert "SQLite database" in res.errors[0].reason
    folder = load([tmp_path], cache=None)  # also inside a folder: it may well hold traces
    assert [e.file for e in folder.errors] == [str(db)]


def test_binary_file_opened_is_a_load_problem_naming_it(tmp_path: Path) -> None:
    blob = tmp_path / "spans.bin"
    blob.write_bytes(bytes(range(256)) * 4)
    res = load([blob], cache=None)
    assert [e.file for e in res.errors] == [str(blob)] and "binary data" in res.errors[0].reason
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    assert "no importer takes .txt files" in load([text], cache=None).errors[0].reason
    readme_only = tmp_path / "docs"
    readme_only.mkdir()
    (readme_only / "README.md").write_text("# notes\n", encoding="utf-8")
    quiet = load([readme_only], cache=None)  # a folder's README is skipped quietly
    assert quiet.errors == [] and quiet.skipped == [str(readme_only / "README.md")]


def test_import_exits_1_when_no_run_was_loaded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--no-cache", str(_sqlite(tmp_path / "t.sqlite"))]) == 1
    readme_only = tmp_path / "docs"
    readme_only.mkdir()
    (readme_only / "README.md").write_text("# notes\n", encoding="utf-8")
    assert main(["import", "--no-cache", str(readme_only)]) == 1
    assert "no run was loaded" in capsys.readouterr().err
    assert main(["import", "--no-cache", str(SAMPLE)]) == 0
