"""The bounded worker hands its frames back through Arrow IPC files (removed at once) and is kept
warm between loads; what it reads is exactly what the in-process path reads."""

from __future__ import annotations

import glob
import os
import tempfile
from pathlib import Path

import pytest

from analyzer.loading import isolate, load
from analyzer.settings import LoadLimits

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [ROOT / "sample_traces" / "generic", ROOT / "sample_traces" / "harbor_job",
           ROOT / "sample_traces" / "tau_bench"]


def _worker_folders() -> set[str]:
    return {f for base in (tempfile.gettempdir(), isolate.SHARED_MEMORY_DIR)
            for f in glob.glob(os.path.join(base, isolate.HANDOFF_PREFIX + "*"))}


def test_worker_frames_equal_in_process_frames_and_leave_no_files() -> None:
    before = _worker_folders()
    isolated = load(SAMPLES, cache=None, limits=LoadLimits(isolate_min_bytes=0, worker_idle_seconds=0))
    plain = load(SAMPLES, cache=None, limits=LoadLimits(isolate_min_bytes=-1))
    assert isolated.errors == plain.errors == []
    assert isolated.traces.height == plain.traces.height > 5
    assert isolated.traces.sort("trace_id").equals(plain.traces.sort("trace_id"))
    assert isolated.steps.sort("trace_id", "step").equals(plain.steps.sort("trace_id", "step"))
    assert _worker_folders() == before


def test_the_worker_is_kept_for_the_next_load_and_a_busy_one_is_not_shared() -> None:
    limits = LoadLimits(isolate_min_bytes=0, worker_idle_seconds=60)
    isolate.stop_kept_worker()
    first = isolate.acquire_worker(limits)
    other = isolate.acquire_worker(limits)  # nothing kept yet: a worker of its own
    assert other is not first
    isolate.release_worker(first)
    isolate.release_worker(other)  # one is kept; the other is stopped
    again = isolate.acquire_worker(limits)
    assert again is first
    busy = isolate.acquire_worker(limits)  # the kept one is busy: not shared
    assert busy is not first
    isolate.release_worker(busy)
    isolate.release_worker(again)
    assert isolate.acquire_worker(LoadLimits(isolate_min_bytes=0, worker_idle_seconds=30)) is not first  # other limits
    isolate.stop_kept_worker()
    assert isolate.acquire_worker(limits) is not first


def test_idle_zero_stops_the_worker_when_the_load_ends() -> None:
    isolate.stop_kept_worker()
    limits = LoadLimits(isolate_min_bytes=0, worker_idle_seconds=0)
    w = isolate.acquire_worker(limits)
    isolate.release_worker(w)
    assert isolate.acquire_worker(limits) is not w


def test_handoff_prefers_the_memory_backed_folder_when_it_has_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolate, "SHARED_MEMORY_DIR", str(tmp_path))
    assert isolate.handoff_dirs(1000) == [str(tmp_path), None]
    assert isolate.handoff_dirs(1 << 62) == [None]  # no room: the temporary folder
    monkeypatch.setattr(isolate, "SHARED_MEMORY_DIR", str(tmp_path / "missing"))
    assert isolate.handoff_dirs(1000) == [None]


def test_the_worker_side_writes_to_the_first_folder_that_takes_the_files(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.jobs import NeverCancel
    from analyzer.loading.loader import claim
    from analyzer.loading.read import read_file
    from analyzer.loading.task_key import fill_task_keys
    from analyzer.plugin_host.registry import default_host

    path = ROOT / "sample_traces" / "generic" / "ops_runs.jsonl"
    host = default_host()
    spec = claim(path, host)[0]
    assert spec is not None
    plain = read_file(path, spec, host, NeverCancel(), LoadLimits())
    plain = plain._replace(traces=fill_task_keys(plain.traces))  # the worker fills them while it writes
    assert plain.traces["task_key"].null_count() < plain.traces.height
    shm = tmp_path / "shm"
    shm.mkdir()
    monkeypatch.setattr(isolate, "SHARED_MEMORY_DIR", str(shm))
    got = isolate._child_read(str(path), spec, LoadLimits(), [])
    assert isinstance(got, isolate._Handoff) and Path(got.folder).parent == shm
    back = isolate._take(got)
    assert back.traces.equals(plain.traces) and back.steps.equals(plain.steps) and back.errors == plain.errors
    assert list(shm.iterdir()) == []
    monkeypatch.setattr(isolate, "handoff_dirs", lambda need: [str(tmp_path / "missing"), str(shm)])
    got = isolate._child_read(str(path), spec, LoadLimits(), [])  # the first folder fails: the next one
    assert isinstance(got, isolate._Handoff) and Path(got.folder).parent == shm
    assert isolate._take(got).steps.equals(plain.steps)
    monkeypatch.setattr(isolate, "handoff_dirs", lambda need: [str(tmp_path / "missing")])
    got = isolate._child_read(str(path), spec, LoadLimits(), [])  # no folder: the frames themselves
    assert isinstance(got, isolate.FileRead) and got.steps.equals(plain.steps)
    assert fill_task_keys(got.traces).equals(plain.traces)


def test_all_null_columns_are_left_out_of_the_files_and_made_again() -> None:
    import polars as pl

    frame = pl.DataFrame({"a": [None, None], "b": [1, None], "c": [None, None], "d": ["x", "y"]},
                         schema={"a": pl.Utf8, "b": pl.Int64, "c": pl.Float64, "d": pl.Utf8})
    slim = isolate._without_null_columns(frame)
    assert slim.columns == ["a", "b", "d"]  # the first column stays: the file keeps the height
    back = isolate._restore(slim, list(frame.schema.items()))
    assert back.equals(frame) and back.schema == frame.schema
    empty = frame.clear()
    assert isolate._without_null_columns(empty).columns == frame.columns
    nulls = pl.DataFrame({"a": [None, None]}, schema={"a": pl.Utf8})
    assert isolate._restore(isolate._without_null_columns(nulls), [("a", pl.Utf8)]).equals(nulls)
