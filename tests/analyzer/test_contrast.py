"""Contrast: banded alignment, the divergence rule, the planted sample set, caching and exports."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from analyzer.contrast.align import align, full_align
from analyzer.contrast.corpus import contrast_corpus, contrast_pair
from analyzer.contrast.divergence import DivergenceKind
from analyzer.contrast.encode import encode_frame, normalise_args
from analyzer.contrast.evaluate import Scores, planted_scores
from analyzer.contrast.params import load_params
from analyzer.contrast.synthetic import task_records
from analyzer.loading.loader import load

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_reruns" / "retail_trials.json"


def _steps(tid: str, rows: list[tuple[str, str, str | None, str | None]]) -> pl.DataFrame:
    return pl.DataFrame({"trace_id": [tid] * len(rows), "step": list(range(len(rows))),
                         "kind": [r[0] for r in rows], "text": [r[1] for r in rows],
                         "tool_name": [r[2] for r in rows], "tool_args": [r[3] for r in rows]})


BASE = [("user", "cancel my order #W1", None, None), ("message", "please give me your email", None, None),
        ("user", "it is a@b.c", None, None), ("tool_call", "", "find_user", '{"email": "a@b.c"}'),
        ("observation", "u_1", None, None), ("tool_call", "", "get_order", '{"order_id": "#W1"}'),
        ("observation", '{"status": "pending"}', None, None), ("message", "shall I cancel #W1?", None, None),
        ("user", "yes", None, None), ("tool_call", "", "cancel_order", '{"order_id": "#W1", "reason": "x"}'),
        ("observation", "cancelled", None, None), ("message", "done, anything else?", None, None)]


def _pair(failed_rows: list[tuple[str, str, str | None, str | None]]) -> tuple[object, object]:
    enc = encode_frame(pl.concat([_steps("ok", BASE), _steps("bad", failed_rows)]))
    return enc["bad"], enc["ok"]


def test_normalised_args_ignore_order_case_and_spacing() -> None:
    assert normalise_args('{"b": 1, "a": "X  y"}') == normalise_args('{"a":"x y","b":1}')
    assert normalise_args('{"a": 1}') != normalise_args('{"a": 2}')
    assert normalise_args("not json  AT all") == "not_json_at_all"


@pytest.mark.parametrize("edit, kind, step", [
    (lambda r: [*r[:9], ("tool_call", "", "cancel_order", '{"order_id": "#W2", "reason": "x"}'), *r[10:]],
     DivergenceKind.DIFFERENT_ARGUMENTS, 9),
    (lambda r: [*r[:9], ("tool_call", "", "return_items", '{"order_id": "#W1"}'), *r[10:]],
     DivergenceKind.DIFFERENT_ACTION, 9),
    (lambda r: [*r[:5], ("tool_call", "", "delete_account", '{"user": "u_1"}'), ("observation", "deleted", None, None),
                *r[5:]], DivergenceKind.EXTRA_ACTION, 5),
    (lambda r: [*r[:9], ("message", "It's all cancelled for you now.", None, None), ("user", "great", None, None)],
     DivergenceKind.MISSING_ACTION, 9),
])
def test_each_kind_of_divergence_is_found(edit, kind: DivergenceKind, step: int) -> None:  # type: ignore[no-untyped-def]
    a, b = _pair(edit(list(BASE)))
    got = contrast_pair(a, b).divergence  # type: ignore[arg-type]
    assert (got.kind, got.step) == (kind, step)


def test_identical_runs_do_not_diverge() -> None:
    a, b = _pair(list(BASE))
    res = contrast_pair(a, b)  # type: ignore[arg-type]
    assert res.divergence.step is None and res.alignment.total == pytest.approx(0.0, abs=1e-6)


def test_banded_alignment_equals_the_full_program(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(task_records("bank", 8, 3, seed=99)), encoding="utf-8")
    res = load([path], cache=None)
    enc = encode_frame(res.steps)
    params = load_params()
    ids = res.traces["trace_id"].to_list()
    checked = 0
    for f in ids[:12]:
        for s in ids[:12]:
            if f != s:
                banded, full = align(enc[f], enc[s], params), full_align(enc[f], enc[s], params)
                assert banded.total == pytest.approx(full.total, abs=1e-6)
                checked += 1
    assert checked > 100
    # the corpus path (a task's similarities computed at once) gives the same costs
    pairs = contrast_corpus(res.traces, res.steps).pairs
    assert pairs.height > 5
    for f, s, cost in pairs.select("failed_id", "success_id", "cost").iter_rows():
        assert cost == pytest.approx(full_align(enc[f], enc[s], params).total, abs=1e-6)
    # a narrow band may miss the best path but never gives a cheaper one
    narrow = replace(params, band_frac=0.0, band_min=1)
    for f, s in zip(ids[:6], ids[6:12], strict=True):
        assert align(enc[f], enc[s], narrow).total >= full_align(enc[f], enc[s], params).total - 1e-9


def test_planted_divergences_of_the_sample_set_are_found() -> None:
    res = load([SAMPLE], cache=None)
    assert not res.errors
    tasks = res.traces["task_key"].n_unique()
    assert tasks >= 10 and res.traces.height >= 30
    out = contrast_corpus(res.traces, res.steps)
    checks = planted_scores(res.traces, res.steps, out.runs)
    counts = Scores.of(checks)
    failed = res.traces.filter(pl.col("outcome") == "failure").height
    assert counts.runs == failed  # every failed run of the set has a success of its task
    assert counts.rate("exact") >= 0.9, [c for c in checks if not c.exact]


def test_pairs_are_aligned_once_and_reused() -> None:
    res = load([SAMPLE], cache=None)
    first = contrast_corpus(res.traces, res.steps)
    assert first.pairs.height >= first.runs.height
    empty_steps = res.steps.head(0)  # with every pair cached, no step is needed
    again = contrast_corpus(res.traces, empty_steps, cached=first.pairs)
    assert again.runs.equals(first.runs)
    other = replace(load_params(), match_action=load_params().match_action / 2)
    assert contrast_corpus(res.traces, empty_steps, params=other, cached=first.pairs).runs.height == 0


def test_traces_csv_and_reports_carry_the_contrast(tmp_path: Path) -> None:
    from analyzer.export.report_md import render_report_markdown as render_markdown
    from analyzer.export.report_model import build_report
    from analyzer.export.tables import run_table

    res = load([SAMPLE], cache=None)
    table = run_table(res.traces, None, None, res.steps)
    for col in ("task_key", "contrast_run", "divergence_step", "divergence_kind"):
        assert col in table.columns
    failed = table.filter(pl.col("outcome") == "failure")
    assert failed["contrast_run"].null_count() == 0
    assert set(failed["divergence_kind"].drop_nulls().to_list()) <= {k.value for k in DivergenceKind}
    assert table.filter(pl.col("outcome") == "success")["contrast_run"].null_count() == table.filter(
        pl.col("outcome") == "success").height
    report = build_report(res.traces, res.steps, None)
    assert report.contrast is not None and report.contrast.total == failed.height
    md = render_markdown(report)
    assert "Where failed runs left a success of the same task" in md
    zh = render_markdown(build_report(res.traces, res.steps, None, options=_zh()))
    assert "失败运行在哪里偏离了同一任务的成功运行" in zh


def _zh():  # type: ignore[no-untyped-def]
    from analyzer.export.report_model import ReportOptions

    return ReportOptions(lang="zh_CN")


def test_the_pipeline_keeps_the_contrast_with_the_analysis() -> None:
    from analyzer.pipeline import analyze

    res = load([SAMPLE], cache=None)
    keep = res.traces.head(9)
    steps = res.steps.filter(pl.col("trace_id").is_in(keep["trace_id"].implode()))
    result = analyze(keep, steps)
    failed = keep.filter(pl.col("outcome") == "failure")["trace_id"].to_list()
    assert sorted(result.contrast["trace_id"].to_list()) == sorted(failed)
    assert result.pairs.height >= len(failed)
    merged = result.merge(result)
    assert merged.pairs.height == result.pairs.height
    # traces.csv of every run: the runs the analysis did not see are contrasted too
    from analyzer.export.tables import run_table

    table = run_table(res.traces, result, None, res.steps)
    failed_all = table.filter(pl.col("outcome") == "failure")
    assert failed_all["contrast_run"].null_count() == 0 and failed_all.height > len(failed)
