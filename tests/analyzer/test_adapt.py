"""Adapting the ranker to an analyst's labels: shrinkage, planted signal, CV figures, simulation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from analyzer.attribution.features import FEATURE_NAMES
from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.evaluation.adapt import (
    ADAPTED_KIND,
    COLUMN_SETS,
    STRENGTH_GRID,
    LabelledRun,
    cross_validated_step_at_1,
    fit_adapted,
    free_columns,
    labelled_runs,
    simulate,
)


@pytest.fixture(scope="module")
def base() -> Ranker:
    return Ranker.load()


_EVIDENCE = FEATURE_NAMES.index("evidence")


def _raw(rng: np.random.Generator, base: Ranker, steps: int) -> np.ndarray:
    """Random raw features, without detector evidence.

    The evidence column feeds the fixed offset (up to 8 logits on runs with observations), which
    adaptation does not refit: random evidence would be noise of that size over the planted signal,
    and how much of it a draw can overcome would depend on the shipped weights, not on adaptation.
    """
    x = rng.uniform(0.0, 3.0, size=(steps, len(base.weights)))
    x[:, _EVIDENCE] = 0.0
    return x


def _signal_column(base: Ranker, weighted: bool | None = None) -> int:
    """A free design column that varies on the generated features (the planted signal).

    ``weighted``: only among the columns the base weights use (True) or leave at 0 (False).
    """
    rng = np.random.default_rng(99)
    d = base.design(_raw(rng, base, 2000))
    cols = free_columns(base)
    if weighted is not None:
        cols = np.array([c for c in cols if (base.weights[c] != 0) == weighted], dtype=np.int64)
    spread = d[:, cols].std(axis=0)
    return int(cols[int(np.argmax(spread))])


def _key(columns: str, strength: float) -> str:
    return f"{columns}/{'inf' if math.isinf(strength) else f'{strength:g}'}"


def _chosen(params: RankerParams) -> tuple[str, float]:
    s = params.meta["strength"]
    return params.meta["columns"], math.inf if s is None else s


def _strongest_best(scores: dict[str, float]) -> tuple[str, float]:
    """What the choice must be: the best score, then the strongest shrinkage, then the fewest columns."""
    best = max(scores.values())
    tied = [(c, s) for c in COLUMN_SETS for s in STRENGTH_GRID if scores.get(_key(c, s)) == best]
    strongest = max(s for _c, s in tied)
    names = [c for c, s in tied if s == strongest]
    return ("weighted" if "weighted" in names else names[0]), strongest


def planted(base: Ranker, n: int, seed: int = 0, steps: int = 8, weighted: bool | None = None) -> list[LabelledRun]:
    """Runs whose decisive step is the one where one design column is largest."""
    rng = np.random.default_rng(seed)
    col = _signal_column(base, weighted)
    out = []
    while len(out) < n:
        x = _raw(rng, base, steps)
        d = base.design(x)[:, col]
        top = np.flatnonzero(d == d.max())
        if top.size != 1:
            continue
        out.append(LabelledRun(x, int(top[0]), None, f"run-{len(out):03d}"))
    return out


def _step_at_1(ranker: Ranker, runs: list[LabelledRun]) -> float:
    return float(np.mean([int(np.argmax(ranker.logits(r.features))) == r.gold_step for r in runs]))


def test_infinite_shrinkage_gives_the_base_weights(base: Ranker) -> None:
    runs = planted(base, 12)
    p = fit_adapted(base, runs, strength=math.inf, evaluate=False)
    assert p.weights == base.params.weights
    assert np.allclose(Ranker(p).weights, base.weights)
    strong = fit_adapted(base, runs, strength=1e9, evaluate=False)
    assert np.allclose(Ranker(strong).weights, base.weights, atol=1e-5)
    weak = fit_adapted(base, runs, strength=0.1, evaluate=False)
    assert not np.allclose(Ranker(weak).weights, base.weights, atol=1e-3)
    # everything but the weights and the meta is the base's
    assert p.mean == base.params.mean and p.scale == base.params.scale and p.features == base.params.features
    assert p.evidence_weight == base.params.evidence_weight


def test_adapting_to_a_planted_signal_improves_step_at_1(base: Ranker) -> None:
    train, test = planted(base, 30, seed=1), planted(base, 60, seed=2)
    params = fit_adapted(base, train, evaluate=False)
    adapted = Ranker(params)
    assert _step_at_1(adapted, test) >= _step_at_1(base, test) + 0.3
    assert params.meta["strength"] is not None and params.meta["strength"] in STRENGTH_GRID
    # the planted column carries the weight
    col = _signal_column(base)
    assert adapted.weights[col] > base.weights[col] + 0.5


def test_meta_records_labels_strength_and_cross_validated_figures(base: Ranker) -> None:
    runs = planted(base, 10, seed=3)
    params = fit_adapted(base, runs, embeddings=False)
    m = params.meta
    assert m["kind"] == ADAPTED_KIND and m["n_labels"] == 10
    assert m["trace_ids"] == [r.key for r in runs]
    assert m["base_version"] == base.params.version and m["embeddings"] is False
    assert set(m["strength_cv"]) == {_key(c, s) for c in COLUMN_SETS for s in STRENGTH_GRID}
    assert m["columns"] in COLUMN_SETS
    assert m["created"].endswith("+00:00")
    cv = m["cv"]
    shipped, adapted, n = cross_validated_step_at_1(base, runs)
    assert (cv["shipped_step_at_1"], cv["adapted_step_at_1"], cv["n"]) == (round(shipped, 6), round(adapted, 6), n)
    assert n == 10 and adapted > shipped
    # the params survive JSON
    again = RankerParams.from_json(json.loads(json.dumps(params.to_json())))
    assert again == params


def test_the_labels_choose_the_shrinkage_with_no_margin(base: Ranker) -> None:
    # the strength with the most held-out hits on the labels is chosen, whatever its gain over the shipped weights
    runs = planted(base, 10, seed=3)
    params = fit_adapted(base, runs, evaluate=False)
    scores = params.meta["strength_cv"]
    assert max(scores.values()) > scores["all/inf"] == scores["weighted/inf"]
    assert _chosen(params) == _strongest_best(scores)


@pytest.mark.parametrize("weighted", [True, False])
def test_the_labels_choose_which_weights_move(base: Ranker, weighted: bool) -> None:
    # a signal in a column the shipped weights use: moving those is enough (the smaller set wins
    # the tie); a signal in a column they leave at 0 is only learnt with every column free
    runs = planted(base, 10, seed=3, weighted=weighted)
    params = fit_adapted(base, runs, evaluate=False)
    assert params.meta["columns"] == ("weighted" if weighted else "all")
    changed = [j for j, (a, b) in enumerate(zip(params.weights, base.params.weights, strict=True)) if a != b]
    assert changed
    if weighted:
        assert all(b != 0 for j, b in enumerate(base.params.weights) if j in changed)
    test = planted(base, 60, seed=4, weighted=weighted)
    assert _step_at_1(Ranker(params), test) >= _step_at_1(base, test) + 0.1


def test_no_signal_keeps_the_shipped_weights(base: Ranker) -> None:
    # labels at random: nothing beats the shipped weights reliably, ties go to the strongest shrinkage
    rng = np.random.default_rng(5)
    runs = [LabelledRun(_raw(rng, base, 6), int(rng.integers(0, 6)), None, f"r{i}") for i in range(3)]
    params = fit_adapted(base, runs, evaluate=False)
    scores = params.meta["strength_cv"]
    assert _chosen(params) == _strongest_best(scores)
    # no labels at all: the shipped weights
    empty = fit_adapted(base, [], evaluate=True)
    assert empty.weights == base.params.weights and empty.meta["cv"]["n"] == 0


def test_a_label_outside_its_run_is_a_clear_error(base: Ranker) -> None:
    x = np.zeros((4, len(base.weights)))
    with pytest.raises(ValueError, match="run bad: decisive step 7 is outside its 4 steps"):
        fit_adapted(base, [LabelledRun(x, 7, None, "bad")])
    with pytest.raises(ValueError, match="strength"):
        fit_adapted(base, [LabelledRun(x, 1, None, "ok")], strength=-1.0)


def test_simulate_is_deterministic_and_scores_the_held_out_runs(base: Ranker) -> None:
    runs = planted(base, 40, seed=7)
    a = simulate(base, runs, k=15, draws=4, seed=11)
    b = simulate(base, runs, k=15, draws=4, seed=11)
    c = simulate(base, runs, k=15, draws=4, seed=12)
    assert [(d.train, d.strength, [(p.index, p.top_step, p.ranking) for p in d.predictions]) for d in a] == \
        [(d.train, d.strength, [(p.index, p.top_step, p.ranking) for p in d.predictions]) for d in b]
    assert [d.train for d in a] != [d.train for d in c]
    for d in a:
        assert len(d.train) == 15 and len(set(d.train)) == 15
        assert [p.index for p in d.predictions] == [i for i in range(40) if i not in d.train]
        for p in d.predictions:
            assert sorted(p.ranking) == list(range(runs[p.index].features.shape[0])) and p.ranking[0] == p.top_step
            assert math.isclose(sum(p.probs), 1.0, rel_tol=1e-9) and p.key == runs[p.index].key
        assert Ranker(d.params).params.meta["trace_ids"] == [runs[i].key for i in d.train]
    shipped = simulate(base, runs, k=0, draws=2, seed=0)
    assert all(d.train == () and math.isinf(d.strength) for d in shipped)
    assert np.mean([d.step_at_1() for d in a]) > np.mean([d.step_at_1() for d in shipped]) + 0.15
    with pytest.raises(ValueError, match="between 0 and 39"):
        simulate(base, runs, k=40, draws=1, seed=0)


def test_labelled_runs_compute_pipeline_features_of_failed_runs(tmp_path: Path, base: Ranker) -> None:
    from analyzer.frames.build import trajectories_from_frames
    from analyzer.loading import load
    from analyzer.pipeline import blind, prepare_run
    from analyzer.plugin_host.registry import default_host

    lines = []
    for i in range(4):
        for s in range(5):
            row = {"schema_version": "1.0", "trace_id": f"t{i}", "step": s, "agent": "agent" if s % 2 else "env",
                   "role": "assistant" if s % 2 else "tool", "kind": "action" if s % 2 else "observation",
                   "text": f"run {i} step {s}: ls -la"}
            if s == 0:
                row.update({"task": f"task {i}", "outcome": "success" if i == 0 else "failure"})
            lines.append(json.dumps(row))
    f = tmp_path / "runs.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = load([f])
    ids = dict(zip(res.traces["native_id"].to_list(), res.traces["trace_id"].to_list(), strict=True))
    labels = {ids["t0"]: 1, ids["t1"]: 3, ids["t2"]: 9, ids["t3"]: 2, "missing": 0}
    skipped: list[tuple[str, str]] = []
    runs = labelled_runs(res.traces, res.steps, labels, on_skip=lambda t, why: skipped.append((t, why)))
    assert [(r.key, r.gold_step) for r in runs] == [(ids["t1"], 3), (ids["t3"], 2)]
    assert runs[0].agent == "agent"
    reasons = dict(skipped)
    assert reasons[ids["t0"]] == "not a loaded failed run" and reasons["missing"] == "not a loaded failed run"
    assert reasons[ids["t2"]] == "decisive step 9 is outside its 5 steps"
    traj = {t.id: t for t in trajectories_from_frames(res.traces, res.steps)}[ids["t1"]]
    expected = prepare_run(blind(traj), default_host()).features
    assert np.array_equal(runs[0].features, expected)
