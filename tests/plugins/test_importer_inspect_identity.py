"""Run identity of Inspect samples: identical transcripts are still distinct runs.

A deterministic model gives the same transcript in every epoch; those samples must not merge.
Only the same record of the same source (same eval id + sample id + epoch) is de-duplicated,
as one grouped line, not one note per run.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from analyzer.loading import LoadResult, load
from analyzer.plugin_host.registry import PluginHost
from analyzer.session import Session

ROOT = Path(__file__).resolve().parents[2]
MATH = ROOT / "sample_traces" / "inspect" / "math_deflate.eval"
N = 3000


def _write_eval(path: Path, header: dict[str, Any], sample: dict[str, Any], epochs: range) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps(header))
        for e in epochs:
            zf.writestr(f"samples/{sample['id']}_epoch_{e}.json", json.dumps({**sample, "epoch": e}))


@pytest.fixture(scope="module")
def epochs_eval(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    with zipfile.ZipFile(MATH) as zf:
        header = json.loads(zf.read("header.json"))
        sample = json.loads(zf.read("samples/gsm-0117_epoch_1.json"))
    path = tmp_path_factory.mktemp("identity") / "epochs.eval"
    _write_eval(path, header, sample, range(1, N + 1))
    return path, header, sample


@pytest.fixture(scope="module")
def loaded(epochs_eval: tuple[Path, Any, Any], host: PluginHost) -> LoadResult:
    return load([epochs_eval[0]], host=host, cache=None)


def test_identical_samples_are_distinct_runs(epochs_eval: tuple[Path, Any, Any], host: PluginHost,
                                             loaded: LoadResult) -> None:
    path, _, _ = epochs_eval
    res = loaded
    assert res.errors == [] and res.notes == [] and res.duplicates == []
    assert res.traces.height == N and res.formats == {"inspect_eval": N}
    assert res.traces["trace_id"].n_unique() == N
    assert sorted(res.traces["native_id"].to_list()) == sorted(f"gsm-0117:{e}" for e in range(1, N + 1))
    per_run = res.steps.group_by("trace_id").len()["len"]
    assert per_run.n_unique() == 1 and res.steps.height == N * per_run[0]
    # the ids are stable: reading again gives the same ones, and the first sample keeps its
    # content id (the id it had before identities were mixed in)
    again = load([path], host=host, cache=None)
    assert again.traces["trace_id"].to_list() == res.traces["trace_id"].to_list()
    single = load([MATH], host=host, cache=None).traces.filter(native_id="gsm-0117:1")["trace_id"][0]
    assert res.traces.filter(native_id="gsm-0117:1")["trace_id"][0] == single


def test_same_eval_opened_twice_is_one_grouped_line(epochs_eval: tuple[Path, Any, Any], host: PluginHost,
                                                     tmp_path: Path) -> None:
    path, header, sample = epochs_eval
    copy = tmp_path / "copy_of_epochs.eval"  # same eval id + sample ids + epochs, other bytes
    _write_eval(copy, header, sample, range(N, 0, -1))
    res = load([path, copy], host=host, cache=None)
    assert res.traces.height == N and res.errors == []
    assert len(res.notes) == 1 and f"{N:,} duplicate runs skipped" in res.notes[0]
    assert len(res.duplicates) == 1 and res.duplicates[0].record == f"{N:,} runs"
    assert res.duplicates[0].file == str(copy)


def test_other_eval_with_same_transcripts_is_kept(epochs_eval: tuple[Path, Any, Any], host: PluginHost,
                                                  tmp_path: Path) -> None:
    _, header, sample = epochs_eval
    first, other = tmp_path / "first.eval", tmp_path / "rerun.eval"
    _write_eval(first, header, sample, range(1, 11))
    hdr = {**header, "eval": {**header["eval"], "eval_id": "another-eval-id"}}
    _write_eval(other, hdr, sample, range(1, 11))
    res = load([first, other], host=host, cache=None)
    assert res.traces.height == 20 and res.traces["trace_id"].n_unique() == 20
    assert res.duplicates == [] and res.notes == []
    assert res.steps.group_by("trace_id").len()["len"].n_unique() == 1


def test_session_lists_skipped_runs_as_one_line(loaded: LoadResult) -> None:
    session = Session()
    session.add_load_result(loaded)
    session.add_load_result(loaded)  # the same file opened again
    assert session.traces.height == N
    assert session.load_errors == []  # a duplicate is a note, not a load problem
    assert [(e.record, e.importer) for e in session.load_notices] == [(f"{N:,} runs", "inspect_eval")]
    assert f"{N:,} duplicate runs skipped" in session.load_notices[0].reason


def test_session_keeps_a_distinct_file_opened_later(host: PluginHost, tmp_path: Path) -> None:
    with zipfile.ZipFile(MATH) as zf:
        header = json.loads(zf.read("header.json"))
        sample = json.loads(zf.read("samples/gsm-0117_epoch_1.json"))
    first, other = tmp_path / "a.eval", tmp_path / "b.eval"
    _write_eval(first, header, sample, range(1, 4))
    _write_eval(other, {**header, "eval": {**header["eval"], "eval_id": "rerun"}}, sample, range(1, 4))
    session = Session()
    session.add_load_result(load([first], host=host, cache=None))
    session.add_load_result(load([other], host=host, cache=None))  # same content, another eval: distinct runs
    assert session.traces.height == 6 and session.traces["trace_id"].n_unique() == 6
    assert session.steps.group_by("trace_id").len()["len"].n_unique() == 1 and session.load_errors == []
    session.add_load_result(load([other], host=host, cache=None))  # opened again: skipped, one line
    assert session.traces.height == 6 and session.load_errors == [] and len(session.load_notices) == 1


def test_eval_and_its_json_export_are_the_same_source(host: PluginHost, tmp_path: Path) -> None:
    with zipfile.ZipFile(MATH) as zf:
        header = json.loads(zf.read("header.json"))
        samples = [json.loads(zf.read(n)) for n in zf.namelist() if n.startswith("samples/")]
    export = tmp_path / "math_export.json"
    export.write_text(json.dumps({**header, "samples": samples}), encoding="utf-8")
    res = load([MATH, export], host=host, cache=None)
    assert res.errors == [] and res.traces.height == 3 and res.formats == {"inspect_eval": 3}
    assert [(d.file, d.record) for d in res.duplicates] == [(str(export), "3 runs")]
