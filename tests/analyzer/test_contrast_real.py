"""Contrast on a real multi-trial tau-bench results file (``sample_reruns/real_tau_bench/``).

The records are a verbatim subset of a public results file (source and record offsets in the
folder's README). Measured figures are recorded in docs/contrast.md; the test asserts what the
acceptance item requires of the divergence (given for >= 90 % of the failed runs whose task also
succeeded) and that the expected-action measure checks every such run; it does not pin the share
near the departing call, which is a measurement, not a property.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from analyzer.contrast.corpus import contrast_corpus
from analyzer.contrast.evaluate import Scores, expected_action_scores
from analyzer.loading.loader import load

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "sample_reruns" / "real_tau_bench"
SAMPLE = FOLDER / "retail_gpt-4o-mini_5trials_subset.json"

# (task_id, trial, start, end): where each record lies in the source file (character offsets of
# its text in the JSON list, README of the folder); a record re-serialised as the source wrote it
# (``json.dump(..., indent=2)``) has exactly that length.
SPANS = [
    (2, 0, 65336, 95988),
    (3, 0, 95990, 115386),
    (2, 1, 1294420, 1328546),
    (3, 1, 1328548, 1344388),
    (2, 2, 2531808, 2564717),
    (3, 2, 2564719, 2583369),
    (2, 3, 3818309, 3849834),
    (3, 3, 3849836, 3889479),
    (2, 4, 5167914, 5199012),
    (3, 4, 5199014, 5217226),
]


def test_records_are_the_source_records_unchanged() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    records = json.loads(text)
    assert json.dumps(records, indent=2) == text  # written exactly as the source writes its list
    assert [(r["task_id"], r["trial"]) for r in records] == [(t, k) for t, k, _, _ in SPANS]
    for record, (_, _, start, end) in zip(records, SPANS, strict=True):
        assert len(json.dumps([record], indent=2)[2:-2]) == end - start
    for (task, trial, _, end), (task2, trial2, start2, _) in zip(SPANS[::2], SPANS[1::2], strict=True):
        assert (task, task2, trial) == (2, 3, trial2) and start2 == end + 2  # adjacent in the source (",\n")
    assert "MIT License" in (FOLDER / "LICENSE").read_text(encoding="utf-8")
    assert "avaljotsingh/tau-bench" in (FOLDER / "README.md").read_text(encoding="utf-8")


def test_real_reruns_load_and_a_divergence_is_given_for_the_failed_runs() -> None:
    res = load([SAMPLE], cache=None)
    assert not res.errors
    assert res.traces.height == len(SPANS)
    assert res.traces["task_key"].n_unique() == 2
    failed = res.traces.filter(pl.col("outcome") == "failure")
    rewards = [r["reward"] for r in json.loads(SAMPLE.read_text(encoding="utf-8"))]
    assert failed.height == rewards.count(0.0) == 5
    assert res.traces.filter(pl.col("outcome") == "success").height == rewards.count(1.0) == 5

    out = contrast_corpus(res.traces, res.steps)
    assert set(out.runs["trace_id"]) == set(failed["trace_id"])  # every failed run has a success of its task
    given = out.runs.filter(pl.col("divergence_step").is_not_null()).height
    assert given / out.runs.height >= 0.9

    checks = expected_action_scores(res.traces, res.steps, out.runs)
    counts = Scores.of(checks)
    assert counts.runs == failed.height  # the file records the expected actions of every run
    assert counts.given == given
    assert {c.kind for c in checks} <= {"call", "end"}
