"""Partial-success loading: hostile inputs, diagnosis of unclaimed files, streaming, cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.jobs import CancelFlag
from analyzer.loading import LoadResult, ParsedCache, iter_files, load
from analyzer.loading.jsonio import MAX_LINE_BYTES, iter_line_chunks, line_stats
from analyzer.plugin_host import ImportContext, PluginHost
from plugins.importers.generic import GenericImporter

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"
GOOD = ROOT / "sample_traces" / "generic"
SAMPLES = ROOT / "sample_traces"
BUILTINS = ROOT / "plugins" / "trajscope.toml"

# file -> (record, words the reason must contain)
EXPECTED_ERRORS: dict[str, tuple[str | None, str]] = {
    "empty.json": (None, "file is empty"),
    "truncated.json": (None, "truncated"),
    "truncated_last_line.jsonl": ("line 9", "truncated"),
    "image.json": (None, "binary (a PNG image)"),
    "number.json": (None, "a JSON number"),
    "list_of_ints.json": (None, "a JSON list of 3 numbers"),
    "deeply_nested.json": (None, "nested too deeply"),
    "wrong_version.json": (None, "unsupported schema_version '99.0'"),
    "wrong_version.jsonl": ("line 1", "unsupported schema_version '99.0'"),
    "bad_field_type.json": ("$", "field steps.2.is_error"),
}


def _flat_line(trace_id: str, step: int, text: str = "ok", **extra: object) -> bytes:
    import orjson

    return orjson.dumps({"schema_version": "1.0", "trace_id": trace_id, "step": step, "role": "assistant",
                         "kind": "message", "text": text, **extra})


def _builtin_host() -> PluginHost:
    host = PluginHost()
    host.register_manifest(BUILTINS)
    return host


# ---- hostile folder --------------------------------------------------------------------

def test_hostile_folder_gives_one_clear_error_per_bad_file_and_loads_every_good_run() -> None:
    res = load([HOSTILE, GOOD], cache=None)

    by_file: dict[str, list[tuple[str | None, str | None, str]]] = {}
    for e in res.errors:
        by_file.setdefault(Path(e.file).name, []).append((e.record, e.importer, e.reason))
    assert set(by_file) == set(EXPECTED_ERRORS), by_file
    for name, (record, words) in EXPECTED_ERRORS.items():
        assert len(by_file[name]) == 1, (name, by_file[name])
        got_record, _importer, reason = by_file[name][0]
        assert got_record == record, (name, by_file[name])
        assert words in reason, (name, reason)
        assert "Traceback" not in reason

    # every good run loaded: the samples, the hostile-text run, and the good lines of the truncated file
    ids = set(res.traces["trace_id"].to_list())
    assert {"ops-2024-11-03-etl", "ops-2024-11-03-slo", "trunc-run-1", "trunc-run-2"} <= ids
    # the Latin-1 file loads, its two non-UTF-8 bytes replaced and counted in one note
    assert res.traces.height == 7
    assert res.formats == {"generic": 7}
    latin = res.traces.filter(pl.col("source_file").str.ends_with("latin1.json"))
    assert latin["task"].to_list() == ["R\ufffdsum\ufffd des fichiers"]
    assert [n for n in res.notes if "latin1.json" in n] == [
        f"{HOSTILE / 'latin1.json'}: 2 invalid UTF-8 bytes replaced with U+FFFD"]
    trunc2 = res.steps.filter(pl.col("trace_id") == "trunc-run-2")
    assert trunc2["step"].to_list() == [0, 1, 2, 3]


def test_hostile_text_loads_unchanged() -> None:
    res = load([HOSTILE / "hostile_text.json"], cache=None)
    assert res.errors == []
    t = res.traces.row(0, named=True)
    assert t["task"] == '=HYPERLINK("http://evil.example/x","click me")'
    assert t["model"] == "=1+1"
    texts = res.steps.sort("step")["text"].to_list()
    assert texts[0] == "<script>alert(1)</script> please summarise"
    assert "\u202egnp.exe\u202c" in texts[2] and "zero\u200bwidth" in texts[2]
    assert "\x00" in texts[3] and "\x1b[31m" in texts[3]
    assert res.steps.sort("step")["tool_args"][2] == '{"path": "../../etc/passwd"}'


def test_gigantic_line_is_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "giant.jsonl"
    with path.open("wb") as fh:
        fh.write(_flat_line("giant-run", 0, "first") + b"\n")
        fh.write(b'{"trace_id": "giant-run", "step": 1, "text": "')
        piece = b"x" * (1 << 20)
        for _ in range(100):  # a 100 MB line
            fh.write(piece)
        fh.write(b'"}\n')
        fh.write(_flat_line("giant-run", 1, "third") + b"\n")
    res = load([path], cache=None)
    assert [(e.record, e.importer) for e in res.errors] == [("line 2", "generic")]
    assert "longer than 64 MB" in res.errors[0].reason
    assert res.steps.sort("step")["text"].to_list() == ["first", "third"]


def test_gigantic_line_in_canonical_jsonl(tmp_path: Path) -> None:
    import orjson

    good = orjson.dumps({"schema_version": "1.0", "task": "t", "steps": [{"index": 0, "text": "hi"}]})
    path = tmp_path / "runs.jsonl"
    with path.open("wb") as fh:
        fh.write(good + b"\n")
        fh.write(b'{"schema_version": "1.0", "steps": [{"index": 0, "text": "' + b"y" * (MAX_LINE_BYTES + 10) + b'"}]}\n')
    res = load([path], cache=None)
    assert res.traces.height == 1
    assert [(e.record, e.importer) for e in res.errors] == [("line 2", "generic")]


# ---- diagnosis of files nobody claimed ----------------------------------------------------

@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("blank.json", b"  \n\t\n", "only whitespace"),
        ("utf16.json", '{"a": 1}'.encode("utf-16"), "UTF-16"),
        ("zip.json", b"PK\x03\x04" + b"\x00" * 40, "a zip archive"),
        ("nul.json", b"{\x00\x00\x00}", "binary"),
        ("bad.json", b'{"a": 1,, }', "not valid JSON"),
        ("obj.json", b'{"hello": "world", "n": 3}', "a JSON object with keys hello, n"),
        ("list.jsonl", b"[1, 2]\n[3]\n", "line 1 is a JSON list of 2 numbers"),
        ("cut.jsonl", b'{"hello": "wor', "truncated"),
        ("latin.jsonl", "{\"caf\u00e9\": 1}\n".encode("latin-1"), "not valid UTF-8"),
    ],
)
def test_unclaimed_files_are_diagnosed(tmp_path: Path, name: str, content: bytes, words: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    res = load([path], host=_builtin_host(), cache=None)
    assert len(res.errors) == 1
    err = res.errors[0]
    assert err.importer is None and err.file == str(path)
    assert words in err.reason, err.reason


def test_missing_file_and_unmatched_names(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes")
    (tmp_path / ".hidden.json").write_text("{}")
    res = load([tmp_path, tmp_path / "nope.json"], cache=None)
    assert res.skipped == [str(tmp_path / "README.md")]
    assert [(Path(e.file).name, e.reason) for e in res.errors] == [("nope.json", "file not found")]


def test_named_pipe_is_an_error_not_a_hang(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    res = load([tmp_path], cache=None)
    assert [(Path(e.file).name, e.reason) for e in res.errors] == [
        ("pipe.jsonl", "not a regular file (pipe, socket or device)")]


def test_iter_files_sorted_and_skips_hidden(tmp_path: Path) -> None:
    for rel in ("b/2.json", "b/1.json", "a.json", ".git/x.json", "b/.x.json"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("{}")
    assert [p.relative_to(tmp_path).as_posix() for p in iter_files([tmp_path])] == ["a.json", "b/1.json", "b/2.json"]


# ---- streaming helpers ---------------------------------------------------------------------

@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_iter_line_chunks_whole_lines_and_numbers(tmp_path: Path, chunk: int) -> None:
    lines = [b'{"a": %d}' % i for i in range(50)]
    lines[10] = b""
    lines[20] = b"  \r"
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines))  # BOM, no final newline
    ctx = ImportContext(path=path, importer_id="t")
    seen: list[bytes] = []
    expected_first = 1
    for first, n_lines, block in iter_line_chunks(path, ctx, chunk_bytes=chunk):
        assert first == expected_first
        parts = block.split(b"\n")
        if block.endswith(b"\n"):
            parts.pop()
        assert len(parts) == n_lines or (not block.endswith(b"\n") and n_lines == len(parts) - 1)
        seen.extend(parts)
        expected_first = first + len(parts)
    assert seen == lines
    assert ctx.errors == []


def test_iter_line_chunks_skips_long_lines_without_holding_them(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"short\n" + b"L" * 5000 + b"\nafter\n" + b"M" * 3000)
    ctx = ImportContext(path=path, importer_id="t")
    blocks = list(iter_line_chunks(path, ctx, chunk_bytes=1000, max_line_bytes=2000))
    assert b"".join(b for _, _, b in blocks) == b"short\nafter\n"
    assert [first for first, _, _ in blocks] == [1, 3]
    too_long = "line is longer than 2000 bytes, the cap (settings.json: load_limits.max_line_bytes); skipped"
    assert ctx.errors == [("line 2", too_long), ("line 4", too_long)]


def test_iter_line_chunks_stops_when_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"{}\n" * 1000)
    flag = CancelFlag()
    ctx = ImportContext(path=path, importer_id="t", cancel=flag)
    it = iter_line_chunks(path, ctx, chunk_bytes=30)
    next(it)
    flag.cancel()
    assert list(it) == []


def test_line_stats(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"ab\n\ncdef")
    s = line_stats(path, block=2)
    assert (s.n_lines, s.bom) == (3, False) and 4 <= s.longest_bound <= 4 + 2 * 2
    path.write_bytes(b"\xef\xbb\xbf" + b"a" * 100 + b"\nb\n")
    s = line_stats(path, block=8)
    assert (s.n_lines, s.bom) == (2, True) and 104 <= s.longest_bound <= 104 + 16
    path.write_bytes(b"x\n" * 50)
    s = line_stats(path, block=8)
    assert s.n_lines == 50 and 2 <= s.longest_bound <= 16


# ---- load() behaviour ------------------------------------------------------------------------

def test_frames_have_declared_columns() -> None:
    res = load([GOOD], cache=None)
    assert res.traces.schema == pl.Schema({c.name: c.dtype for c in TRACE_COLUMNS})
    assert res.steps.schema == pl.Schema({c.name: c.dtype for c in STEP_COLUMNS})
    assert set(res.traces["source_file"].to_list()) == {str(GOOD / "data_analysis_success.json"),
                                                         str(GOOD / "ops_runs.jsonl")}


def test_same_run_in_two_files_is_loaded_once(tmp_path: Path) -> None:
    shutil.copy(GOOD / "data_analysis_success.json", tmp_path / "a.json")
    shutil.copy(GOOD / "data_analysis_success.json", tmp_path / "b.json")
    res = load([tmp_path], cache=None)
    assert res.traces.height == 1 and res.steps.height == 30
    assert res.errors == [] and len(res.notes) == 1 and "1 duplicate run skipped" in res.notes[0]
    assert [(Path(d.file).name, d.record) for d in res.duplicates] == [("b.json", "1 run")]


def test_identical_records_inside_one_file_stay_distinct_runs(tmp_path: Path) -> None:
    import orjson

    doc = orjson.loads((GOOD / "data_analysis_success.json").read_bytes())
    (tmp_path / "twice.json").write_bytes(orjson.dumps([doc, doc]))
    alone = load([GOOD / "data_analysis_success.json"], cache=None).traces["trace_id"][0]
    res = load([tmp_path], cache=None)
    assert res.traces.height == 2 and res.steps.height == 60
    assert res.traces["trace_id"].n_unique() == 2 and res.traces["trace_id"][0] == alone  # the first keeps its id
    assert res.steps.select(pl.struct("trace_id", "step").is_unique().all()).item()
    assert res.formats == {"generic": 2} and res.notes == [] and res.duplicates == []
    again = load([tmp_path / "twice.json"], cache=None)
    assert again.traces["trace_id"].to_list() == res.traces["trace_id"].to_list()  # stable ids


def test_same_file_opened_twice_is_listed_once(tmp_path: Path) -> None:
    f = GOOD / "ops_runs.jsonl"
    res = load([f, f, GOOD], cache=None)
    assert res.traces.height == 3  # ops_runs (2 runs) + data_analysis_success (1)
    assert len(res.notes) == 2 and len(res.duplicates) == 2
    assert all(d.record == "2 runs" and "2 duplicate runs skipped" in d.reason for d in res.duplicates)


def test_same_content_in_different_files_stays_distinct(tmp_path: Path) -> None:
    import orjson

    doc = orjson.loads((GOOD / "data_analysis_success.json").read_bytes())
    (tmp_path / "a.json").write_bytes(orjson.dumps(doc))
    (tmp_path / "b.json").write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))  # other bytes, same run
    res = load([tmp_path], cache=None)
    assert res.traces.height == 2 and res.traces["trace_id"].n_unique() == 2 and res.duplicates == []
    assert res.steps.group_by("trace_id").len()["len"].to_list() == [30, 30]


def test_on_file_and_progress_called_per_file() -> None:
    parts: list[LoadResult] = []
    calls: list[tuple[int, int, str]] = []
    files = [GOOD / "data_analysis_success.json", GOOD / "ops_runs.jsonl"]
    load(files, cache=None, on_file=parts.append, progress=lambda d, t, m="": calls.append((d, t, m)))
    assert [p.traces.height for p in parts] == [1, 2]
    assert calls[0] == (0, 2, "data_analysis_success.json") and calls[-1] == (2, 2, "done")


def test_cancel_stops_between_files() -> None:
    flag = CancelFlag()
    flag.cancel()
    res = load([GOOD], cache=None, cancel=flag)
    assert res.cancelled and res.traces.height == 0


# ---- parsed-data cache ----------------------------------------------------------------------

def test_cache_dir_comes_from_environment(tmp_path: Path) -> None:
    import os

    assert ParsedCache().root == Path(os.environ["TRAJSCOPE_CACHE_DIR"])
    assert ParsedCache().root.is_relative_to(tmp_path.parent)  # the session's temporary folder


def _count_generic_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files the generic importer really parses from now on (a cache hit parses none)."""
    calls: list[Path] = []
    original = GenericImporter.read_frames

    def counting(self: GenericImporter, path: Path, ctx: ImportContext):  # type: ignore[no-untyped-def]
        calls.append(path)
        yield from original(self, path, ctx)

    monkeypatch.setattr(GenericImporter, "read_frames", counting)
    return calls


def test_second_load_hits_cache_and_source_file_follows_a_moved_file(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_generic_reads(monkeypatch)
    src = tmp_path / "a" / "runs.jsonl"
    src.parent.mkdir()
    # a good file with one bad line, so cached errors are checked too
    src.write_bytes((GOOD / "ops_runs.jsonl").read_bytes() + b'{"trace_id": "x", "step": "bad"}\n')
    host, cache = _builtin_host(), ParsedCache()

    first = load([src], host=host, cache=cache)
    assert len(calls) == 1 and first.traces.height == 2 and len(first.errors) == 1
    assert any(cache.root.iterdir())

    second = load([src], host=host, cache=cache)
    assert len(calls) == 1, "second load must come from the cache"
    assert second.traces.equals(first.traces) and second.steps.equals(first.steps)
    assert second.errors == first.errors and second.formats == {"generic": 2}

    moved = tmp_path / "b" / "renamed.jsonl"
    moved.parent.mkdir()
    src.rename(moved)
    third = load([moved], host=host, cache=cache)
    assert len(calls) == 1
    assert set(third.traces["source_file"].to_list()) == {str(moved)}
    assert [e.file for e in third.errors] == [str(moved)]
    assert third.steps.equals(first.steps)

    moved.write_bytes(moved.read_bytes() + _flat_line("new-run", 0) + b"\n")
    fourth = load([moved], host=host, cache=cache)
    assert len(calls) == 2 and fourth.traces.height == 3


def test_a_changed_importer_parses_the_file_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from analyzer.loading import cache as cache_mod
    from analyzer.loading import loader as loader_mod

    # the stamp follows the importer's code: a top-level module, edited
    mod = tmp_path / "mods" / "stamp_probe_importer.py"
    mod.parent.mkdir()
    mod.write_text("class Probe:\n    pass\n")
    monkeypatch.syspath_prepend(str(mod.parent))
    before = cache_mod.importer_stamp("stamp_probe_importer:Probe")
    mod.write_text("class Probe:\n    version = 2\n")
    cache_mod._stamp.cache_clear()
    assert cache_mod.importer_stamp("stamp_probe_importer:Probe") != before
    assert cache_mod.importer_stamp("plugins.importers.chat:ChatImporter") != cache_mod.importer_stamp(
        "stamp_probe_importer:Probe")
    sys.modules.pop("stamp_probe_importer", None)

    # and the loader keys the cache on it: the same file under a new stamp is read again
    calls = _count_generic_reads(monkeypatch)
    cache = ParsedCache(tmp_path / "cache")
    host = _builtin_host()
    load([GOOD / "ops_runs.jsonl"], host=host, cache=cache)
    load([GOOD / "ops_runs.jsonl"], host=host, cache=cache)
    assert len(calls) == 1
    monkeypatch.setattr(loader_mod, "importer_stamp", lambda ref: "changed")
    again = load([GOOD / "ops_runs.jsonl"], host=host, cache=cache)
    assert len(calls) == 2 and again.traces.height == 2


def test_the_cache_is_a_corpus_the_app_can_open(tmp_path: Path) -> None:
    from analyzer.corpus import Corpus
    from analyzer.session import Session

    cache = ParsedCache(tmp_path / "cache")
    first = load([SAMPLES / "who_and_when"], cache=cache)
    c = Corpus(cache.root)  # every parsed file, one partition each
    assert c.count() == first.traces.height
    assert c.runs().drop("source").collect().sort("trace_id").equals(first.traces.sort("trace_id"), null_equal=True)
    s = Session()
    assert s.open_corpus(c) == first.traces.height
    tid = first.traces["trace_id"][0]
    want = first.steps.filter(pl.col("trace_id") == tid).sort("step")
    assert s.run_steps(tid).equals(want, null_equal=True)


def test_corrupt_cache_entry_is_read_again(tmp_path: Path) -> None:
    cache = ParsedCache(tmp_path / "cache")
    load([GOOD / "ops_runs.jsonl"], cache=cache)
    assert len(list((tmp_path / "cache" / "steps").iterdir())) == 1
    broken = ParsedCache(tmp_path / "cache")
    for d in (broken.root / "steps").iterdir():
        (d / "part-0.parquet").write_bytes(b"garbage")
    res = load([GOOD / "ops_runs.jsonl"], cache=broken)  # a corrupt cache entry is re-read, not an error
    assert res.errors == [] and res.traces.height == 2
