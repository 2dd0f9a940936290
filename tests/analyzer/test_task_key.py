"""task_key: the source's task id where importers expose it, else a hash of the normalised task text."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.loading.loader import load
from analyzer.loading.task_key import (
    TEXT_KEY_PREFIX,
    fill_task_keys,
    normalise_task_text,
    text_task_key,
    text_task_keys,
)

ROOT = Path(__file__).resolve().parents[2]


def test_text_key_ignores_case_spacing_and_width() -> None:
    a = text_task_key("Book a  flight\nto Paris")
    assert a is not None and a.startswith(TEXT_KEY_PREFIX)
    assert text_task_key("book a flight to PARIS ") == a
    assert text_task_key("Ｂook a flight to Paris") == a  # NFKC folds the full-width letter
    assert text_task_key("Book a flight to Rome") != a
    assert text_task_key("   ") is None
    assert normalise_task_text(" A\tB ") == "a b"


_ASCII_EDGES = st.text(alphabet=st.sampled_from(
    list("aZ9 .-_") + [chr(c) for c in range(0, 33)] + ["\x7f", "\x85", "\xa0", "\u2028", "\u3000", "Ａ", "ß", "İ"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_ASCII_EDGES, st.text(), st.none()), max_size=12))
def test_vectorised_keys_equal_the_per_text_key(texts: list[str | None]) -> None:
    keys = text_task_keys(pl.Series("task", texts, dtype=pl.Utf8))
    assert keys == {t: text_task_key(t) for t in texts if t is not None}


def test_vectorised_keys_of_ascii_edge_cases() -> None:
    texts = ["", " ", "\x1c\x1f", "A\x1cB", "  Mixed\tCASE\x0b\x0cText\r\n ", "\x00nul", "x\x85y", "ÀB c"]
    keys = text_task_keys(pl.Series(texts))
    assert keys == {t: text_task_key(t) for t in texts}
    assert keys["A\x1cB"] == text_task_key("a b") and keys[""] is None and keys["\x1c\x1f"] is None


def test_fill_keeps_source_keys_and_hashes_the_rest() -> None:
    df = pl.DataFrame({"trace_id": ["1", "2", "3", "4"], "task": ["Do X", "do  x", "Do Y", None],
                       "task_key": ["src:7", None, "", None]})
    out = fill_task_keys(df)
    keys = out["task_key"].to_list()
    assert keys[0] == "src:7"
    assert keys[1] == text_task_key("Do X")
    assert keys[2] == text_task_key("Do Y")
    assert keys[3] is None


def test_tau_bench_trials_share_the_task_id(tmp_path: Path) -> None:
    from analyzer.contrast.synthetic import task_records

    path = tmp_path / "r.json"
    path.write_text(json.dumps(task_records("retail", 3, 3, seed=5)), encoding="utf-8")
    res = load([path], cache=None)
    assert not res.errors
    keys = res.traces["task_key"].to_list()
    assert set(keys) == {"tau-bench/retail:0", "tau-bench/retail:1", "tau-bench/retail:2"}
    assert keys.count("tau-bench/retail:0") == 3


def test_every_sample_trace_has_a_key() -> None:
    res = load([ROOT / "sample_traces"], cache=None)
    with_task = res.traces.filter(pl.col("task").fill_null("").str.strip_chars() != "")
    assert with_task.height > 10
    assert with_task["task_key"].null_count() == 0
    inspect = res.traces.filter(pl.col("source_format").str.contains("inspect"))
    assert inspect.height and all(not str(k).startswith(TEXT_KEY_PREFIX) for k in inspect["task_key"].to_list())


def test_run_filter_keeps_the_runs_of_a_task(tmp_path: Path) -> None:
    from analyzer.contrast.synthetic import task_records
    from analyzer.session import RunFilter, Session

    path = tmp_path / "r.json"
    path.write_text(json.dumps(task_records("bank", 4, 3, seed=8)), encoding="utf-8")
    s = Session()
    s.add_load_result(load([path], cache=None))
    flt = RunFilter(task_keys=("tau-bench/bank:2",))
    assert RunFilter.from_json(flt.to_json()) == flt
    s.set_filter(flt)
    assert s.filtered_runs()["task_key"].unique().to_list() == ["tau-bench/bank:2"]
    s.set_filter(RunFilter(text="bank:3"))  # the filter text matches the key too
    assert set(s.filtered_runs()["task_key"].to_list()) == {"tau-bench/bank:3"}
