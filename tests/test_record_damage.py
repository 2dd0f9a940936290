"""A bad token costs only its record: each damage kind on each committed multi-record sample.

For every importer that reads JSON or JSONL, every committed sample (``sample_traces/`` and
``bench/fuzz_seeds/``) it claims whose runs are its records one to one (a JSON list, a record
list such as Inspect's ``samples``, or one run per JSONL line) is damaged one record at a
time, with each kind of :data:`bench.fuzzing.RECORD_DAMAGE`, and loaded through the loader
(claiming included). Every other record must load with the same run id; the damaged record
either loads (the lenient kinds: NaN, huge numbers, lone surrogates, bad UTF-8 ...) or is
exactly one error naming it. A byte-order mark before any file costs nothing.

Files whose records are spans or steps of fewer runs (span exports, flat generic JSONL, a
Codex CLI session) are damaged line by line too: the file is still claimed and read (no
whole-file error), at most the run holding the damaged line changes, and a line that no
longer parses is an error naming that line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analyzer.loading import load
from analyzer.plugin_host import PluginHost
from bench import fuzzing

ROOT = Path(__file__).resolve().parents[1]


def _host() -> PluginHost:
    host = PluginHost()
    host.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return host


HOST = _host()


def _multi_record_samples(
        one_to_one: bool = True) -> list[tuple[str, Path, dict[str, str], list[tuple[str, int, int]]]]:
    """``(importer, sample, {record: run id}, record spans)`` of samples with several records.

    ``one_to_one``: the samples whose runs are their records; else the others (records are
    spans or steps).
    """
    out = []
    for importer_id, paths in sorted(fuzzing.samples_by_importer(HOST).items()):
        for path in paths:
            if path.suffix.lower() not in (".json", ".jsonl", ".ndjson"):
                continue
            spans = fuzzing.record_spans(path.read_bytes(), path.name)
            if len(spans) < 2:
                continue
            base = fuzzing.record_runs(load([path], host=HOST, cache=None))
            if (set(base) == {loc for loc, _s, _e in spans}) != one_to_one:
                continue
            out.append((importer_id, path, base, spans))
    return out


SAMPLES = _multi_record_samples()
PART_SAMPLES = _multi_record_samples(one_to_one=False)
CASES = [
    pytest.param(imp, path, base, span, kind, id=f"{path.name}-{span[0]}-{kind}")
    for imp, path, base, spans in SAMPLES
    for span in spans
    for kind in fuzzing.RECORD_DAMAGE
]


def test_every_json_importer_with_a_multi_record_sample_is_covered() -> None:
    covered = {imp for imp, *_ in SAMPLES}
    assert {"adp", "inspect_json", "langfuse", "openhands", "tau_bench"} <= covered, covered


@pytest.mark.parametrize(("importer_id", "path", "base", "span", "kind"), CASES)
def test_one_damaged_record_costs_only_itself(tmp_path: Path, importer_id: str, path: Path,
                                              base: dict[str, str], span: tuple[str, int, int], kind: str) -> None:
    data = fuzzing.damage_record(path.read_bytes(), path.name, span, kind)
    if data is None:
        return  # the damage does not apply to this record (e.g. not the last one for truncation)
    target = tmp_path / path.name
    target.write_bytes(data)
    res: Any = load([target], host=HOST, cache=None)
    loc = span[0]
    got = fuzzing.record_runs(res)
    assert not fuzzing.analyst_losses(base, got, loc), ([(e.record, e.reason) for e in res.errors], sorted(got))
    assert all(e.importer == importer_id for e in res.errors), [(e.importer, e.reason) for e in res.errors]
    if loc in got:
        assert not res.errors, [(e.record, e.reason) for e in res.errors]
    else:
        assert kind not in fuzzing.LENIENT_DAMAGE or importer_id == "inspect_json", (kind, res.errors)
        assert [e.record for e in res.errors] == [loc], [(e.record, e.reason) for e in res.errors]


@pytest.mark.parametrize(("importer_id", "path", "base"), [pytest.param(i, p, b, id=p.name) for i, p, b, _ in SAMPLES])
def test_a_byte_order_mark_costs_nothing(tmp_path: Path, importer_id: str, path: Path, base: dict[str, str]) -> None:
    target = tmp_path / path.name
    target.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
    res: Any = load([target], host=HOST, cache=None)
    assert fuzzing.record_runs(res) == base and not res.errors, [(e.record, e.reason) for e in res.errors]


BREAKING = ("broken_syntax", "null_record", "truncated")

PART_CASES = [
    pytest.param(imp, path, base, span, kind, id=f"{path.name}-{span[0]}-{kind}")
    for imp, path, base, spans in PART_SAMPLES
    for span in spans
    for kind in fuzzing.RECORD_DAMAGE
]


@pytest.mark.parametrize(("importer_id", "path", "base", "span", "kind"), PART_CASES)
def test_one_damaged_span_or_step_line_costs_only_its_part(
        tmp_path: Path, importer_id: str, path: Path, base: dict[str, str], span: tuple[str, int, int],
        kind: str) -> None:
    data = fuzzing.damage_record(path.read_bytes(), path.name, span, kind)
    if data is None:
        return
    target = tmp_path / path.name
    target.write_bytes(data)
    res: Any = load([target], host=HOST, cache=None)
    errors = [(e.record, e.reason) for e in res.errors]
    assert all(e.record is not None for e in res.errors), errors
    if all(e.importer == importer_id for e in res.errors):
        changed = set(base.values()) - set(fuzzing.record_runs(res).values())
        assert len(changed) <= 1, (errors, changed)
    # else a line 1 that lost its decisive key let a more general span importer claim the file
    # (OpenTelemetry SDK -> OTel): its runs are still read, under that importer's ids
    assert res.traces.height >= len(base) - 1, errors
    if kind in BREAKING:
        assert span[0] in [e.record for e in res.errors], errors


def test_span_and_step_line_files_are_covered() -> None:
    covered = {imp for imp, *_ in PART_SAMPLES}
    assert {"langsmith", "phoenix", "otel_sdk", "generic", "codex_cli"} <= covered, covered


INSPECT_CASES = [c for c in CASES if c.values[0] == "inspect_json"]


@pytest.mark.parametrize(("importer_id", "path", "base", "span", "kind"), INSPECT_CASES)
def test_a_streamed_inspect_log_loses_only_the_damaged_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              importer_id: str, path: Path, base: dict[str, str],
                                                              span: tuple[str, int, int], kind: str) -> None:
    """An Inspect ``.json`` over the whole-read size streams with ijson; where ijson stops (NaN,
    ``1e400``, a 2^64 integer, a damaged sample) the lenient reader reads the rest."""
    from plugins.importers import inspect_ai

    monkeypatch.setattr(inspect_ai, "WHOLE_READ_BYTES", 0)  # every log takes the streaming path
    test_one_damaged_record_costs_only_itself(tmp_path, importer_id, path, base, span, kind)


@pytest.mark.parametrize("path", sorted({c.values[1] for c in INSPECT_CASES}), ids=lambda p: p.name)
def test_a_streamed_inspect_log_with_a_byte_order_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       path: Path) -> None:
    from plugins.importers import inspect_ai

    monkeypatch.setattr(inspect_ai, "WHOLE_READ_BYTES", 0)
    base = fuzzing.record_runs(load([path], host=HOST, cache=None))
    test_a_byte_order_mark_costs_nothing(tmp_path, "inspect_json", path, base)
