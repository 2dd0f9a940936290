"""The step-signal table changes no result (issue 28 item 7).

``tests/data/step_signals/golden.json.gz`` was written by ``make_golden.py`` with the code as it
was before the table: on every committed sample run, with and without (deterministic stand-in)
embeddings, the feature matrix, the value curve's term matrix, the steps-phase findings and the
whole analysis of the run must come out exactly the same. The shipped params file is not touched
(its hash below changes only when `trajscope eval fit` rewrites it: the 2026-12-07 refit added the
selection's criterion and strata to its meta, with the same weights, and this golden still holds).
The refit that chose the evidence column's symptom rule (T20, 2026-12-07) changed the shipped
evidence-column weights; the golden was regenerated with it, and only the ``evidence`` feature
column differs from the previous golden (no finding, decisive step or other result moved).
The value curve's params chosen by ``trajscope eval fit-curve`` (T23, 2026-12-07: the selection's
choice ships, and it also chose the error-episode and alignment rules) changed the term matrix and
the curve; the golden was regenerated with them, and only the ``terms`` and the curve's outputs
(``value``, ``drop``, ``min_value``, ``largest_drop``, ``largest_drop_step``, ``drop_note``) differ
(no feature, finding, decisive step or other result moved). Numbers compare up to their last bits
(:func:`same`): numpy's reductions differ in the 16th digit between CPUs.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from approx_json import same

from analyzer.attribution.ranker import Ranker
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.plugin_host.registry import default_host

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "step_signals"
PARAMS_SHA256 = "cda2d6f216ca401286581b3b8cc6857eac67658d761c529b9b5c807b4536f4b1"


def _maker() -> Any:
    spec = importlib.util.spec_from_file_location("make_step_signals_golden", DATA / "make_golden.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def golden() -> dict[str, dict[str, Any]]:
    recs = json.loads(gzip.decompress((DATA / "golden.json.gz").read_bytes()))
    return {r["id"]: r for r in recs}


@pytest.fixture(scope="module")
def current() -> dict[str, dict[str, Any]]:
    mod = _maker()
    res = load([ROOT / "sample_traces"])
    host = default_host()
    ranker = Ranker.load()
    recs = [mod.record(t, host, ranker) for t in trajectories_from_frames(res.traces, res.steps)]
    # the same JSON round trip as the stored file, so both sides compare as written
    return {r["id"]: r for r in json.loads(json.dumps(recs, sort_keys=True))}


def test_the_shipped_params_file_is_unchanged() -> None:
    raw = (ROOT / "analyzer" / "attribution" / "params" / "ranker-v4.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == PARAMS_SHA256


def test_every_sample_run_has_its_golden_record(golden: dict, current: dict) -> None:
    assert len(golden) >= 70
    assert set(golden) == set(current)


def test_numbers_may_differ_only_in_their_last_bits() -> None:
    assert same({"a": ["-1.1877229818031718", 2.0]}, {"a": ["-1.1877229818031716", 2.0000000000000004]})
    assert not same(["-1.18772298"], ["-1.18772299"]) and not same({"a": 1}, {"a": 1, "b": 2})
    assert not same(["x"], ["y"]) and not same([None], [0.0])


@pytest.mark.parametrize("part", ["features", "terms", "findings", "run", "steps", "all_findings"])
@pytest.mark.parametrize("embedder", ["plain", "hash"])
def test_results_are_bit_identical(golden: dict, current: dict, part: str, embedder: str) -> None:
    differ = [f"{g['source']} ({rid})" for rid, g in golden.items()
              if not same(g[embedder][part], current[rid][embedder][part])]
    assert not differ, f"{part} changed on {len(differ)} runs: {differ[:5]}"


def test_the_golden_runs_exercise_the_attribution(golden: dict) -> None:
    decided = [g for g in golden.values() if g["plain"]["run"].get("decisive_step") is not None]
    assert len(decided) >= 20
    assert any(g["plain"]["findings"] for g in golden.values())
    assert any(len(g["plain"]["features"]) >= 10 for g in golden.values())
