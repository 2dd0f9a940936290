"""Property tests of every registered importer against hostile input, and the fixed fuzz findings.

For each importer of the built-in manifest (iterated from the host, so an importer added to
``plugins/trajscope.toml`` is covered without editing this file), Hypothesis feeds arbitrary
bytes and structured mutations of the committed samples (see :mod:`bench.fuzzing`) through
the loader's ``read_file``. Nothing may raise out of the loader, and no run may be lost
outside a named record: each input is either loaded or its errors name the bad record (or
refuse the whole file on purpose). ``bench/fuzz.py`` runs the same at scale.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.errors import LoadError
from analyzer.jobs import NeverCancel
from analyzer.loading import load
from analyzer.loading.read import read_file
from analyzer.plugin_host import PluginHost
from analyzer.schema.models import Step, Trajectory
from analyzer.settings import LoadLimits
from bench import fuzzing

ROOT = Path(__file__).resolve().parents[1]
FUZZ_DATA = ROOT / "tests" / "data" / "fuzz"


def _host() -> PluginHost:
    host = PluginHost()
    host.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return host


HOST = _host()
IMPORTERS = [s.id for s in HOST.importers()]
SAMPLES = {k: fuzzing.load_samples(v) for k, v in fuzzing.samples_by_importer(HOST).items()}
FUZZ = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def _check(path: Path, importer_id: str) -> tuple[str, list[LoadError]]:
    outcome, errors, _n = fuzzing.read_one(path, HOST.importer_spec(importer_id), HOST)
    assert outcome in ("loaded", "reported"), (importer_id, path.name, [str(e) for e in errors])
    for e in errors:
        assert e.file == str(path) and e.reason.strip(), e
        assert "Traceback" not in e.reason
    return outcome, errors


def test_every_builtin_importer_is_fuzzed() -> None:
    assert len(IMPORTERS) >= 12 and "inspect_eval" in IMPORTERS and "otel" in IMPORTERS


@pytest.mark.parametrize("importer_id", IMPORTERS)
@FUZZ
@given(data=st.binary(max_size=4096), prefix=st.sampled_from([b"", b"{", b"[", b"PK\x03\x04", b'{"steps": [']))
def test_arbitrary_bytes_are_loaded_or_reported(importer_id: str, data: bytes, prefix: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fuzzing.fuzz_name(HOST.importer_spec(importer_id))
        path.write_bytes(prefix + data)
        _check(path, importer_id)


@pytest.mark.parametrize("importer_id", IMPORTERS)
@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_mutated_samples_are_loaded_or_reported(importer_id: str, seed: int) -> None:
    samples = SAMPLES.get(importer_id, [])
    name, data, _what = fuzzing.make_input(seed, samples, fuzzing.fuzz_name(HOST.importer_spec(importer_id)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        _check(path, importer_id)


RECORD_IMPORTERS = [i for i in IMPORTERS
                    if any(len(fuzzing.record_spans(d, n)) >= 2 for n, d in SAMPLES.get(i, []))]


def test_record_damage_covers_the_json_importers() -> None:
    assert {"adp", "inspect_json", "langfuse", "langsmith", "openhands", "otel_sdk", "phoenix",
            "tau_bench", "generic", "codex_cli"} <= set(RECORD_IMPORTERS), RECORD_IMPORTERS


@pytest.mark.parametrize("importer_id", RECORD_IMPORTERS)
@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_one_damaged_record_costs_no_other_record(importer_id: str, seed: int) -> None:
    """NaN, huge numbers, lone surrogates, BOM, first-record/line and syntax damage, escape storms."""
    samples = SAMPLES[importer_id]
    spec = HOST.importer_spec(importer_id)
    case = fuzzing.make_case(seed, samples, fuzzing.fuzz_name(spec), record_share=1.0)
    assert case.sample is not None
    with tempfile.TemporaryDirectory() as tmp:
        base_path = Path(tmp) / "base" / case.name
        base_path.parent.mkdir()
        base_path.write_bytes(samples[case.sample][1])
        base = fuzzing.baseline_runs(base_path, spec, HOST)
        path = Path(tmp) / case.name
        path.write_bytes(case.data)
        outcome, errors, got = fuzzing.read_runs(path, spec, HOST)
        claimed = fuzzing.claimed_by(path, HOST) == importer_id
    assert outcome != "crash", errors
    assert not fuzzing.record_loss(case, base, got, errors, claimed), (case.what, [(e.record, e.reason) for e in errors])


def test_every_sample_loads_cleanly_through_the_fuzz_harness() -> None:
    """The unmutated samples are the baseline the mutations start from."""
    assert set(SAMPLES) >= {"generic", "inspect_eval", "inspect_json", "otel", "who_and_when", "chat"}
    for importer_id, samples in SAMPLES.items():
        for name, data in samples:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / name
                path.write_bytes(data)
                outcome, errors = _check(path, importer_id)
                assert outcome in ("loaded", "reported"), (name, errors)


# ---- reproducers of fixed bugs ---------------------------------------------------------------


def _reproducers() -> list[Path]:
    return sorted(p for p in FUZZ_DATA.iterdir() if "__" in p.name and not p.name.endswith(".md"))


def test_reproducers_are_committed() -> None:
    assert len(_reproducers()) >= 5


@pytest.mark.parametrize("path", _reproducers(), ids=lambda p: p.name)
def test_fuzz_reproducer_is_handled(path: Path) -> None:
    importer_id = path.name.split("__", 1)[0]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name.split("__", 1)[1].split("-", 1)[1]  # the importer's own suffix
        copy = copy.with_name("input" + "".join(copy.suffixes))
        copy.write_bytes(path.read_bytes())
        _check(copy, importer_id)


# ---- the findings named in issue 10, one by one ------------------------------------------------


def _read(path: Path, importer_id: str, limits: LoadLimits | None = None) -> Any:
    return read_file(path, HOST.importer_spec(importer_id), HOST, NeverCancel(), limits)


def _deep(n: int) -> str:
    return '{"a": ' * n + "1" + "}" * n


def test_deep_nesting_is_cut_and_marked_not_fatal(tmp_path: Path) -> None:
    runs = [{"schema_version": "1.0", "task": f"t{i}", "steps": [{"index": 0, "text": "hi"}],
             "metadata": {"deep": "DEEP"} if i == 1 else {}} for i in range(3)]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs).replace('"DEEP"', _deep(1000)))
    got = _read(path, "generic")
    assert got.errors == [] and got.traces.height == 3
    meta = got.traces["metadata_json"].drop_nulls().to_list()
    assert len(meta) == 1 and "[nesting cut at depth 200]" in meta[0]
    assert orjson.loads(meta[0])  # still valid JSON
    assert any("nested deeper than 200 levels cut" in n for n in got.notes)


def test_deep_nesting_in_flat_generic_lines_is_cut(tmp_path: Path) -> None:
    lines = [json.dumps({"schema_version": "1.0", "trace_id": "r", "step": i, "text": "x", "metadata": "DEEP"})
             for i in range(3)]
    path = tmp_path / "flat.jsonl"
    path.write_text("\n".join(lines).replace('"DEEP"', _deep(1000)) + "\n")
    got = _read(path, "generic")
    assert [e.record for e in got.errors if "lost" in e.reason] == []
    assert got.steps.height + len(got.errors) == 3  # each line loaded or reported with its line
    assert all(e.record and e.record.startswith("line ") for e in got.errors)


def test_invalid_utf8_in_an_inspect_json_log_is_replaced_and_counted(tmp_path: Path) -> None:
    src = (ROOT / "sample_traces" / "inspect" / "bugfix_log.json").read_bytes()
    idx = src.index(b'"input"') + len(b'"input": "') + 2
    bad = src[:idx] + b"\xff\xfe" + src[idx:]
    path = tmp_path / "log.json"
    path.write_bytes(bad)
    good = _read(_copy(src, tmp_path / "good.json"), "inspect_json")
    got = _read(path, "inspect_json")
    assert got.errors == [] and got.traces.height == good.traces.height
    assert got.notes == ["2 invalid UTF-8 bytes replaced with U+FFFD"]


def _copy(data: bytes, path: Path) -> Path:
    path.write_bytes(data)
    return path


def _eval_bytes() -> bytes:
    return (ROOT / "sample_traces" / "inspect" / "math_deflate.eval").read_bytes()


def _first_sample_entry(data: bytearray) -> tuple[str, int, int]:
    """``(name, central directory entry offset, number of samples)`` of the first sample member."""
    end = data.rindex(b"PK\x05\x06")
    pos = int.from_bytes(data[end + 16:end + 20], "little")
    found: tuple[str, int] | None = None
    n_samples = 0
    while data[pos:pos + 4] == b"PK\x01\x02":
        n, m, k = (int.from_bytes(data[pos + o:pos + o + 2], "little") for o in (28, 30, 32))
        name = data[pos + 46:pos + 46 + n].decode()
        if name.startswith("samples/"):
            n_samples += 1
            found = found or (name, pos)
        pos += 46 + n + m + k
    assert found is not None
    return found[0], found[1], n_samples


def test_corrupt_zip_directory_gives_one_clear_error(tmp_path: Path) -> None:
    data = bytearray(_eval_bytes())
    name, pos, n_samples = _first_sample_entry(data)
    data[pos + 10:pos + 12] = (77).to_bytes(2, "little")  # unknown compression method 77
    path = tmp_path / "bad_method.eval"
    path.write_bytes(bytes(data))
    got = _read(path, "inspect_eval")
    assert got.traces.height == n_samples - 1
    assert [(e.record, "unsupported zip compression method 77" in e.reason) for e in got.errors] == [(name, True)]

    data = bytearray(_eval_bytes())
    end = data.rindex(b"PK\x05\x06")
    data[end + 16:end + 20] = (len(data) + 10**6).to_bytes(4, "little")  # directory offset past the end
    path.write_bytes(bytes(data))
    got = _read(path, "inspect_eval")
    assert len(got.errors) == 1 and got.errors[0].record is None
    assert "not a readable zip archive" in got.errors[0].reason


def test_negative_member_offset_costs_that_member_only(tmp_path: Path) -> None:
    for ctz in ("math_deflate.eval", "ctf_zstd.eval"):  # the zipfile path and the zstd path
        data = bytearray((ROOT / "sample_traces" / "inspect" / ctz).read_bytes())
        name, pos, n_samples = _first_sample_entry(data)
        data[pos + 42:pos + 46] = (0xFFFFFFF0).to_bytes(4, "little")  # a local header far past the end
        path = tmp_path / ctz
        path.write_bytes(bytes(data))
        got = _read(path, "inspect_eval")
        assert got.traces.height == n_samples - 1, ctz
        assert [e.record for e in got.errors] == [name], got.errors


def test_absurd_span_times_give_one_error_per_span_and_keep_the_rest(tmp_path: Path) -> None:
    src = (ROOT / "sample_traces" / "otel" / "support_refund_openinference.jsonl").read_text().splitlines()
    good = _read(_copy("\n".join(src).encode(), tmp_path / "good.jsonl"), "otel")
    first = json.loads(src[0])
    key = next(k for k in ("start_time", "startTimeUnixNano", "timestamp") if k in first)
    first[key] = 1e308
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join([json.dumps(first), *src[1:]]) + "\n")
    got = _read(path, "otel")
    assert len(got.errors) >= 1 and got.errors[0].record == "line 1"
    assert "not a readable, plausible date" in got.errors[0].reason
    assert got.traces.height == good.traces.height  # the other spans still make their traces


def test_out_of_range_step_number_costs_its_line_only(tmp_path: Path) -> None:
    lines = [{"schema_version": "1.0", "trace_id": "r", "step": i, "text": "x"} for i in range(3)]
    lines[1]["step"] = 2**64 - 5
    path = tmp_path / "flat.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    got = _read(path, "generic")
    assert got.steps.height == 2
    assert [(e.record, "out of range" in e.reason) for e in got.errors if e.record == "line 2"] == [("line 2", True)]


# ---- the loader's per-run guard ------------------------------------------------------------------


class _Odd:
    def __str__(self) -> str:
        raise ValueError("cannot render")


class _ShakyImporter:
    """Yields three runs; the second cannot be stored (its metadata cannot be serialised)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        return True

    def read(self, path: Path, ctx: Any) -> Any:
        for i in range(3):
            meta = {"odd": _Odd()} if i == 1 else {}
            yield Trajectory(task=f"t{i}", record=f"line {i + 1}", metadata=meta,
                             steps=[Step(index=0, text=f"s{i}")])
        raise RuntimeError("importer bug after the third run")


def test_a_run_that_cannot_be_stored_costs_only_itself(tmp_path: Path) -> None:
    import types

    mod = types.ModuleType("shaky_importer_mod")
    mod.ShakyImporter = _ShakyImporter  # type: ignore[attr-defined]
    sys.modules["shaky_importer_mod"] = mod
    host = PluginHost()
    host.register_manifest({"plugin": {"name": "t"}, "importers": [
        {"id": "shaky", "callable": "shaky_importer_mod:ShakyImporter", "patterns": ["*.shaky"]}]})
    path = tmp_path / "x.shaky"
    path.write_text("x")
    res = load([path], host=host, cache=None)
    assert res.traces["task"].to_list() == ["t0", "t2"]
    by_record = {e.record: e.reason for e in res.errors}
    assert "could not be converted" in by_record["line 2"] and "run skipped" in by_record["line 2"]
    assert "later ones were not read" in by_record["after line 3"]
    assert res.steps.height == 2


def test_notes_survive_the_parsed_cache(tmp_path: Path) -> None:
    from analyzer.loading import ParsedCache

    path = tmp_path / "latin.json"
    path.write_bytes('{"schema_version": "1.0", "task": "caf\u00e9", "steps": [{"index": 0, "text": "x"}]}'
                     .encode("latin-1"))
    cache = ParsedCache(tmp_path / "cache")
    first = load([path], host=HOST, cache=cache)
    again = load([path], host=HOST, cache=cache)
    assert first.notes == again.notes == [f"{path}: 1 invalid UTF-8 byte replaced with U+FFFD"]


# ---- limits before work ---------------------------------------------------------------------------


def test_caps_live_in_the_settings_and_name_themselves(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"schema_version": "1.0", "task": "t", "steps": []}\n' * 50)
    res = load([path], host=HOST, cache=None, limits=LoadLimits(max_file_bytes=1000))
    assert res.traces.height == 0
    assert "over the 1000 bytes cap (settings.json: load_limits.max_file_bytes)" in res.errors[0].reason


def test_member_count_cap(tmp_path: Path) -> None:
    path = _copy(_eval_bytes(), tmp_path / "log.eval")
    got = _read(path, "inspect_eval", LoadLimits(max_members=2))
    assert len(got.errors) == 1 and "load_limits.max_members" in got.errors[0].reason


_BOMB_CHILD = textwrap.dedent("""
    import json, resource, sys
    from pathlib import Path
    from analyzer.loading import load
    from analyzer.settings import LoadLimits
    kw = json.loads(sys.argv[2])
    kw["worker_idle_seconds"] = 0  # the worker is stopped and waited for when the load ends: its peak counts
    res = load([Path(sys.argv[1])], cache=None, limits=LoadLimits(**kw))
    # this interpreter's own peak: VmHWM (ru_maxrss of RUSAGE_SELF keeps the launching
    # process's peak across exec); the worker's peak: children max RSS (it was started here)
    hwm = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
    rss = max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(json.dumps({"runs": res.traces.height, "errors": [[e.record, e.reason] for e in res.errors],
                      "rss_mb": rss}))
""")


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fuzzing.write_bomb_eval(tmp_path_factory.mktemp("bomb") / "bomb.eval")


@pytest.mark.parametrize(("limits", "words"), [
    ({}, "refused before inflating"),  # the directory declares 500 MB: over the 256 MB member cap
    ({"max_member_bytes": 1 << 30}, "load_limits.max_inflate_ratio); refused while inflating"),
    ({"max_member_bytes": 1 << 30, "isolate_compressed_min_bytes": -1, "isolate_min_bytes": -1},
     "refused while inflating"),  # the same, read in-process
])
def test_a_500_mb_inflating_member_is_refused_with_low_peak_memory(bomb: Path, limits: dict[str, int],
                                                                   words: str) -> None:
    assert bomb.stat().st_size < 1_000_000
    with zipfile.ZipFile(bomb) as zf:
        assert zf.getinfo("samples/1_epoch_1.json").file_size == 500 * 1024 * 1024
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run([sys.executable, "-c", _BOMB_CHILD, str(bomb), json.dumps(limits)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["runs"] == 0
    assert [r for r, _ in got["errors"]] == ["samples/1_epoch_1.json"]
    assert words in got["errors"][0][1]
    assert got["rss_mb"] < 300, got
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >= before  # the child was waited for


def test_a_hanging_file_is_stopped_and_the_folder_goes_on(tmp_path: Path) -> None:
    import types

    mod = types.ModuleType("slow_importer_mod")
    mod.__file__ = str(tmp_path / "slow_importer_mod.py")
    (tmp_path / "slow_importer_mod.py").write_text(textwrap.dedent("""
        import time
        from analyzer.schema.models import Step, Trajectory
        class SlowImporter:
            def sniff(self, head, path):
                return True
            def read(self, path, ctx):
                if path.name.startswith("hang"):
                    time.sleep(120)
                yield Trajectory(task=path.name, steps=[Step(index=0, text="x")])
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        host = PluginHost()
        host.register_manifest({"plugin": {"name": "t"}, "importers": [
            {"id": "slow", "callable": "slow_importer_mod:SlowImporter", "patterns": ["*.slow"]}]})
        for name in ("a.slow", "hang.slow", "z.slow"):
            (tmp_path / name).write_text("x")
        res = load([tmp_path], host=host, cache=None,
                   limits=LoadLimits(isolate_min_bytes=0, max_worker_seconds=20))  # slack for a loaded machine
    finally:
        sys.path.remove(str(tmp_path))
    assert sorted(res.traces["task"].to_list()) == ["a.slow", "z.slow"]
    assert len(res.errors) == 1 and res.errors[0].file.endswith("hang.slow")
    assert "load_limits.max_worker_seconds" in res.errors[0].reason
    assert isinstance(res.traces, pl.DataFrame)


def test_cancel_stops_a_file_in_the_worker_at_once(tmp_path: Path) -> None:
    import threading
    import time

    from analyzer.jobs import CancelFlag

    (tmp_path / "sleepy_importer_mod.py").write_text(textwrap.dedent("""
        import time
        class SleepyImporter:
            def sniff(self, head, path):
                return True
            def read(self, path, ctx):
                time.sleep(120)
                yield from ()
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        host = PluginHost()
        host.register_manifest({"plugin": {"name": "t"}, "importers": [
            {"id": "sleepy", "callable": "sleepy_importer_mod:SleepyImporter", "patterns": ["*.sleepy"]}]})
        for name in ("a.sleepy", "b.sleepy"):
            (tmp_path / name).write_text("x")
        flag = CancelFlag()
        timer = threading.Timer(5.0, flag.cancel)
        timer.start()
        t0 = time.monotonic()
        res = load([tmp_path], host=host, cache=None, cancel=flag, limits=LoadLimits(isolate_min_bytes=0))
        took = time.monotonic() - t0
        timer.cancel()
    finally:
        sys.path.remove(str(tmp_path))
    assert res.cancelled and res.traces.height == 0 and res.errors == []
    assert took < 100  # the 120 s read was stopped, not waited for (a bound, not a timing claim)


_CAPPED_CHILD = textwrap.dedent("""
    import json, resource, sys
    from pathlib import Path
    from analyzer.loading import load
    size = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmSize:")) << 10
    resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 30), resource.RLIM_INFINITY))  # 1 GB to grow
    res = load([Path(sys.argv[1])], cache=None)
    print(json.dumps({"runs": res.traces.height, "errors": [[e.record, e.reason] for e in res.errors]}))
""")


def test_a_damaged_directory_claiming_a_4_gb_member_costs_only_that_sample(tmp_path: Path) -> None:
    """Found by ``bench/fuzz.py`` at 100k inputs (15 inputs, all ``ctf_zstd.eval``): the directory
    claimed a compressed size of gigabytes, ``read(n)`` allocated it first, and under the fuzzer's
    memory cap the MemoryError discarded every sample of the file."""
    import struct

    data = bytearray((ROOT / "sample_traces" / "inspect" / "ctf_zstd.eval").read_bytes())
    name = b"samples/42_epoch_1.json"
    at = data.find(b"PK\x01\x02")
    while at >= 0 and data[at + 46:at + 46 + len(name)] != name:
        at = data.find(b"PK\x01\x02", at + 4)
    assert at >= 0
    struct.pack_into("<I", data, at + 20, 0xFFFF0000)  # compressed size in the central directory
    bad = tmp_path / "damaged.eval"
    bad.write_bytes(bytes(data))
    out = subprocess.run([sys.executable, "-c", _CAPPED_CHILD, str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["runs"] == 2, got  # the other two samples
    assert [r for r, _ in got["errors"]] == ["samples/42_epoch_1.json"], got
