"""The value curve's fit (``trajscope eval fit-curve``) on tiny synthetic systems.

The fast, vectorised curve of the search equals the run-time curve; the fit moves the largest
drop onto a planted decisive step; and a held-out system's labels never reach its own nested
selection.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, TERM_COLUMNS, CurveParams
from analyzer.attribution.hazards import term_matrix
from analyzer.evaluation.curve_fit import (
    GRID,
    MATRIX_ENTRIES,
    CurveRun,
    CurveSet,
    Evaluator,
    RunSource,
    column_ablation,
    curve_drop_step,
    drop_steps,
    fit_weights,
    matrix_key,
    matrix_rules_vary,
    nested_leave_one_system_out,
    select_and_fit,
    set_matrices,
    shipped_params,
)
from analyzer.evaluation.scoring import Gold
from analyzer.schema.models import Role, Step, StepKind, Trajectory

COL = {c: i for i, c in enumerate(TERM_COLUMNS)}
HAND = CurveParams.packaged(HANDSET_PARAMS_FILE)
PRIOR = 0.9


def _run(rng: np.random.Generator, key: str, n: int = 14) -> tuple[np.ndarray, int]:
    """A failed run: a planted hallucination finding at the decisive step, an error output two steps later."""
    x = np.zeros((n, len(TERM_COLUMNS)))
    gold = int(rng.integers(2, n - 4))
    x[gold, COL["finding:hallucination"]] = float(rng.uniform(0.3, 0.5))
    x[gold + 2, COL["error_output"]] = 1.0
    x[gold + 3, COL["recurring_error"]] = float(rng.integers(0, 2))
    noise = int(rng.integers(0, n))  # a weak unrelated finding
    x[noise, COL["finding:goal_drift"]] = float(rng.uniform(0.0, 0.2))
    return x, gold


def _system(name: str, seed: int, runs: int = 6) -> CurveSet:
    rng = np.random.default_rng(seed)
    out, golds = [], []
    for i in range(runs):
        x, gold = _run(rng, f"{name}-{i}")
        out.append(CurveRun(f"{name}-{i}", x, gold, None, "failure"))
        golds.append(Gold(f"{name}-{i}", gold, None))
    return CurveSet(name, out, golds)


def test_the_search_curve_is_the_run_time_curve() -> None:
    rng = np.random.default_rng(7)
    xs = []
    for n in (1, 2, 5, 9, 30):
        x = np.zeros((n, len(TERM_COLUMNS)))
        for _ in range(max(1, n // 3)):
            x[int(rng.integers(0, n)), int(rng.integers(0, len(TERM_COLUMNS) - 3))] = float(rng.uniform(0, 1))
        xs.append(x)
    xs.append(np.zeros((6, len(TERM_COLUMNS))))  # no evidence: the outcome closes the curve
    for p in (HAND, HAND.with_weights({"error_output": 0.5, "finding:hallucination": 8.0}, finding_cap=2.0)):
        fast = drop_steps(xs, p, PRIOR, bisect=30)
        assert fast == [curve_drop_step(x, p, PRIOR) for x in xs]


def test_the_fit_puts_the_largest_drop_on_the_planted_step() -> None:
    sets = [_system(f"s{i}", i) for i in range(3)]
    ev = Evaluator(sets, PRIOR)
    names = [s.name for s in sets]
    before = np.mean([ev.rates(n, HAND)["step@1"] for n in names])
    fitted, after = fit_weights(ev, names, HAND, "step@1")
    assert before < 0.5  # the hand-set error output (3.0) outweighs a weak finding: the drop sits 2 steps late
    assert after == 1.0
    assert fitted.weights["finding:hallucination"] * 0.3 > fitted.weights["error_output"] or \
        fitted.weights["error_output"] == 0.0
    held = _system("new", 99)
    assert Evaluator([held], PRIOR).rates("new", fitted)["step@1"] == 1.0  # a system it never saw


def test_the_held_out_labels_do_not_change_its_nested_selection() -> None:
    sets = [_system(f"s{i}", i, runs=4) for i in range(4)]
    nested = nested_leave_one_system_out(sets, HAND, PRIOR)
    target = sets[0]
    rng = np.random.default_rng(3)
    shuffled_golds = [Gold(g.file, int(rng.integers(0, 14)), None) for g in target.golds]
    shuffled = CurveSet(target.name, [CurveRun(r.key, r.x, g.step, None, r.outcome)
                                      for r, g in zip(target.runs, shuffled_golds, strict=True)], shuffled_golds)
    again = nested_leave_one_system_out([shuffled, *sets[1:]], HAND, PRIOR)
    a, b = nested.selections[target.name], again.selections[target.name]
    assert a.candidate == b.candidate and a.inner == b.inner and a.params == b.params
    assert a.trained_on == [s.name for s in sets[1:]]
    # the selection itself is by leave-one-system-out among the training systems
    direct = select_and_fit(Evaluator(sets, PRIOR), [s.name for s in sets[1:]], HAND)
    assert direct.params == a.params


def test_the_ablation_shows_the_planted_column_matters() -> None:
    sets = [_system(f"s{i}", i, runs=4) for i in range(3)]
    nested = nested_leave_one_system_out(sets, HAND, PRIOR)
    abl = column_ablation(sets, nested, PRIOR)
    assert set(abl) >= {"finding:hallucination", "error_output"}
    assert all(abl["finding:hallucination"][s.name] < 0 for s in sets)  # without it the drop goes back to the error
    assert all(v == 0.0 for v in abl["finding:planning_error"].values())  # a column no run has


def _episode_run(key: str) -> CurveRun:
    """A run with one failing tool call, then clean observations of other tools.

    ``clean_run`` decides where the error stops recurring; the matrix is read from the run's source,
    as the fit reads development runs.
    """
    steps = [Step(index=0, role=Role.USER, kind=StepKind.USER, text="fix the parser")]
    for i in range(1, 9):
        if i % 2:
            steps.append(Step(index=i, agent="a", kind=StepKind.TOOL_CALL, tool_name=f"tool{i}",
                              text=f"run step {i}"))
        else:
            steps.append(Step(index=i, role=Role.TOOL, kind=StepKind.OBSERVATION, is_error=i == 2,
                              text="ValueError: bad input" if i == 2 else f"ok {i}"))
    traj = Trajectory(id=key, task="fix the parser", steps=steps)
    x = term_matrix(traj, [], None, None, HAND).values
    return CurveRun(key, x, 2, None, "failure", RunSource(traj, [], None, None))


def test_the_matrix_rules_are_searched_when_the_runs_keep_their_sources() -> None:
    run = _episode_run("r")
    cs = CurveSet("s", [run], [Gold("r", 2, None)], matrix_key=matrix_key(HAND))
    assert matrix_rules_vary(cs)
    col = COL["no_recurrence"]
    assert set_matrices(cs, HAND)[0] is run.x  # the cached matrix under its own rules
    at = {n: int(np.flatnonzero(set_matrices(cs, HAND.with_weights({}, clean_run=n))[0][:, col])[0])
          for n in (1, 2, 3)}
    assert at[1] < at[2] < at[3]  # the error stops recurring after 1, 2, 3 clean observations
    assert Evaluator([cs], PRIOR).vary_matrix
    assert set(MATRIX_ENTRIES) <= set(GRID)
    # synthetic matrices keep no source: their rules are not searched and are read as given
    synthetic = _system("t", 0, runs=2)
    assert not matrix_rules_vary(synthetic) and not Evaluator([synthetic], PRIOR).vary_matrix
    assert set_matrices(synthetic, HAND.with_weights({}, clean_run=3))[0] is synthetic.runs[0].x


def test_what_ships_is_the_selections_choice_with_the_mirrored_success_target() -> None:
    sets = [_system(f"s{i}", i, runs=4) for i in range(3)]
    final = select_and_fit(Evaluator(sets, PRIOR), [s.name for s in sets], HAND)
    shipped = shipped_params(final)
    assert shipped.weights == final.params.weights and shipped.failed_end == final.params.failed_end
    assert shipped.succeeded_end == pytest.approx(1.0 - final.params.failed_end)


def test_fit_curve_cli_bad_usage(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from analyzer.cli import main

    assert main(["eval", "fit-curve", str(tmp_path / "missing"), "--no-embed", "--quiet"]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["eval", "fit-curve", str(tmp_path), "--no-embed", "--quiet"]) == 2  # no development set under it
    assert "at least three development sets" in capsys.readouterr().err


def test_the_documented_table_and_the_shipped_params_come_from_the_committed_fit() -> None:
    """The nested table of docs/value_curve.md and the shipped params file come from one committed fit.

    The table is ``scripts/curve_tables.py``'s rendering of ``docs/eval/value_curve_fit.json``; the
    params file holds that fit's final choice, its searched entries and its nested figures.
    """
    import importlib.util
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("curve_tables", root / "scripts" / "curve_tables.py")
    assert spec is not None and spec.loader is not None
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    fit = json.loads((root / "docs" / "eval" / "value_curve_fit.json").read_text("utf-8"))
    doc = (root / "docs" / "value_curve.md").read_text("utf-8")
    found = re.search(r"<!-- table:curve-nested -->\n(.*?)\n<!-- /table:curve-nested -->", doc, re.S)
    assert found is not None and found.group(1) == tables.nested_table(fit)
    shipped = CurveParams.packaged("value-curve-v1.json")
    assert shipped.meta["candidate"] == fit["final"]["candidate"]
    assert shipped.weights == {**shipped.weights, **fit["final"]["weights"]}
    scalars = {k: v for k, v in fit["final"].items() if k not in ("candidate", "inner_step@1", "trained_on", "weights")}
    assert scalars and all(getattr(shipped, k) == v for k, v in scalars.items())
    for name, rows in fit["sets"].items():
        assert shipped.meta["nested"][name]["step@1"] == rows["nested"]["step@1"]["p"]
    assert shipped.succeeded_end == pytest.approx(1.0 - shipped.failed_end)
