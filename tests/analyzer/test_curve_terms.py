"""The value curve's term matrix and its params file (issue 28).

The matrix has one documented, stable column per evidence term; weighed with the hand-set
weights (``value-curve-handset.json``) it gives exactly the evidence and curves the hand-set code
gave on every sample run (``tests/data/value_curve/golden.json``, written by the code before the
term matrix); the code keeps no hand-set values, only a fallback equal to the shipped file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from analyzer.attribution.curve_params import (
    CURVE_PARAMS_FILE,
    FALLBACK,
    HANDSET_PARAMS_FILE,
    TERM_COLUMNS,
    TERM_DOCS,
    CurveParams,
    shipped_curve_params,
)
from analyzer.attribution.hazards import step_evidence, term_matrix, weigh
from analyzer.attribution.value_curve import value_curve
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.pipeline import blind, prepare_run
from analyzer.plugin_host.registry import default_host
from analyzer.schema.models import Role, Step, StepKind, Trajectory

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "value_curve" / "golden.json"

STABLE_COLUMNS = (
    "error_output", "error_text", "recurring_error", "retry_succeeds", "no_recurrence",
    "finding:environment_failure", "finding:error_accumulation", "finding:evidence_action_gap",
    "finding:failed_recovery", "finding:false_success", "finding:goal_drift", "finding:hallucination",
    "finding:other", "finding:planning_error", "finding:repeated_action",
    "alignment_fall", "judge_fall", "judge_rise", "tests_pass",
)


def _judge_values(n: int) -> list[float]:  # as tests/data/value_curve/make_golden.py
    import math

    return [float("nan") if i == 3 else 0.5 + 0.45 * math.sin(i * 0.7) for i in range(n)]


def test_columns_are_stable_and_documented() -> None:
    assert TERM_COLUMNS == STABLE_COLUMNS  # a change here changes every params file: bump its version
    doc = (ROOT / "docs" / "value_curve.md").read_text("utf-8")
    for c in TERM_COLUMNS:
        assert TERM_DOCS[c].strip()
        assert f"`{c}`" in doc, f"column {c} is not in docs/value_curve.md"


def test_the_params_files_name_every_column_and_the_code_keeps_no_hand_set_value() -> None:
    for name in (CURVE_PARAMS_FILE, HANDSET_PARAMS_FILE):
        p = CurveParams.packaged(name)
        raw = json.loads((ROOT / "analyzer" / "attribution" / "params" / name).read_text("utf-8"))
        assert list(raw["weights"]) == list(TERM_COLUMNS)
        assert p.meta
    shipped = CurveParams.packaged(CURVE_PARAMS_FILE)
    assert FALLBACK.to_json() | {"meta": {}} == shipped.to_json() | {"meta": {}}
    assert shipped_curve_params().weights == shipped.weights
    # no module-level numeric constant is left in the curve's modules (the params file holds them)
    for mod in ("hazards.py", "value_curve.py"):
        src = (ROOT / "analyzer" / "attribution" / mod).read_text("utf-8")
        consts = re.findall(r"^([A-Z][A-Z_]+)\s*=\s*[-\d.]", src, flags=re.M)
        assert consts in ([], ["_BISECT"]), consts


@pytest.fixture(scope="module")
def golden() -> list[dict]:
    return json.loads(GOLDEN.read_text("utf-8"))


@pytest.fixture(scope="module")
def sample_runs() -> dict[str, tuple[Trajectory, list]]:
    res = load([ROOT / "sample_traces"])
    host = default_host()
    out = {}
    for t in trajectories_from_frames(res.traces, res.steps):
        bt = blind(t)
        out[t.id] = (bt, list(prepare_run(bt, host).findings))
    return out


def test_hand_set_weights_give_the_hand_set_curves(golden: list[dict], sample_runs: dict) -> None:
    hand = CurveParams.packaged(HANDSET_PARAMS_FILE)
    # the golden file was written by the code before the term matrix, on the samples of that time;
    # samples added since (Harbor, Claude Code) have no pre-change record to compare with
    assert len(golden) >= 130 and {rec["id"] for rec in golden} <= set(sample_runs)
    for rec in golden:
        traj, findings = sample_runs[rec["id"]]
        n = len(traj.steps)
        ev = step_evidence(traj, findings, None, _judge_values(n) if rec["judge"] else None, hand)
        assert ev.matrix is not None and ev.matrix.values.shape == (n, len(TERM_COLUMNS))
        np.testing.assert_array_equal(ev.llr, np.array(rec["llr"]), err_msg=rec["source"])
        assert list(ev.terms) == list(rec["terms"])
        for k, v in rec["terms"].items():
            np.testing.assert_array_equal(ev.terms[k], np.array(v), err_msg=f"{rec['source']} {k}")
        assert ev.reasons == rec["reasons"]
        for outcome, want in rec["curves"].items():
            c = value_curve(ev, 0.9, outcome=None if outcome == "None" else outcome, params=hand)
            assert c.values == want["values"] and c.drops == want["drops"] and c.llr == want["llr"]
            assert c.temper == want["temper"] and c.outcome_step == want["outcome_step"]


def test_llr_is_the_weighted_matrix_within_the_clips() -> None:
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="fix the parser")]
    for i in range(1, 9):
        if i % 2:
            steps.append(Step(index=i, agent="a", kind=StepKind.TOOL_CALL, tool_name="bash", text="run pytest"))
        else:
            steps.append(Step(index=i, role=Role.TOOL, kind=StepKind.OBSERVATION, text="Traceback (most recent "
                              "call last):\nValueError: bad" if i < 6 else "3 passed", is_error=i == 2))
    traj = Trajectory(id="t", task="fix the parser", steps=steps)
    hand = CurveParams.packaged(HANDSET_PARAMS_FILE)
    tm = term_matrix(traj, params=hand)
    ev = weigh(tm, hand)
    lin = tm.values @ np.array(hand.weight_vector())
    np.testing.assert_allclose(ev.llr, lin)  # no finding or judge term: the plain product
    assert tm.column("error_output")[2] == 1 and tm.column("error_text")[4] == 1
    assert tm.to_frame().columns == ["step", *TERM_COLUMNS]
