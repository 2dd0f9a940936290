"""The value curve's fit (``trajscope eval fit-curve``) on tiny synthetic systems.

The fast, vectorised curve of the search equals the run-time curve; the fit moves the largest
drop onto a planted decisive step; and a held-out system's labels never reach its own nested
selection.
"""

from __future__ import annotations

import numpy as np

from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, TERM_COLUMNS, CurveParams
from analyzer.evaluation.curve_fit import (
    CurveRun,
    CurveSet,
    Evaluator,
    column_ablation,
    curve_drop_step,
    drop_steps,
    fit_weights,
    nested_leave_one_system_out,
    select_and_fit,
)
from analyzer.evaluation.scoring import Gold

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


def test_the_ship_rule_needs_most_systems_not_worse() -> None:
    from analyzer.evaluation.curve_fit import NestedCurveResult, ship_fitted
    from analyzer.evaluation.scoring import Metric, Scores

    def sc(a: int, b: int, c: int) -> Scores:
        return Scores({m: Metric(m, k, 10, k / 10, 0.0, 1.0) for m, k in (("step@1", a), ("step±1", b), ("step±2", c))})

    rows = {"a": {"nested": sc(3, 5, 6), "hand-set": sc(2, 6, 6)},   # better, worse, equal: not worse
            "b": {"nested": sc(3, 4, 5), "hand-set": sc(2, 6, 6)},   # only step@1: worse
            "c": {"nested": sc(1, 1, 1), "hand-set": sc(2, 2, 2)}}   # worse
    ship, verdicts = ship_fitted(NestedCurveResult({}, rows))
    assert verdicts == {"a": True, "b": False, "c": False} and not ship
    rows["c"] = {"nested": sc(2, 2, 2), "hand-set": sc(2, 2, 2)}
    assert ship_fitted(NestedCurveResult({}, rows))[0]


def test_fit_curve_cli_bad_usage(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from analyzer.cli import main

    assert main(["eval", "fit-curve", str(tmp_path / "missing"), "--no-embed", "--quiet"]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["eval", "fit-curve", str(tmp_path), "--no-embed", "--quiet"]) == 2  # no development set under it
    assert "at least three development sets" in capsys.readouterr().err
