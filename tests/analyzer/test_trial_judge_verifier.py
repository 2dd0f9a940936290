"""The T25 trial script (``scripts/trial_judge_verifier.py``) chooses the judge weight without the held-out system."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from repo_scripts import load_script


def _script() -> Any:
    return load_script("trial_judge_verifier")


class _Selector:
    """Scores a ranking by whether its best step is step 1; records which systems it scored."""

    def __init__(self) -> None:
        self.scored: list[str] = []

    def hits(self, held: str, logits: dict[str, np.ndarray], criterion: str | None = None) -> tuple[float, float]:
        self.scored.append(held)
        top1 = [int(np.argmax(v)) == 1 for v in logits.values()]
        return float(np.mean(top1)), 1.0


def test_the_weight_is_chosen_on_the_training_systems_only() -> None:
    t = _script()
    target = t.NAMES[0]
    others = t.NAMES[1:]
    # Every training system's ranking puts step 0 first; the judge prefers step 1.
    inner = {(target, n): {"r": np.array([1.0, 0.0, -5.0])} for n in others}
    asked = {(target, n): {"r": {0, 1}} for n in others}
    p = {n: {"r": {0: 0.2, 1: 0.9}} for n in others}
    sel = _Selector()
    chosen, table = t.choose_weight(sel, target, inner, asked, p)
    assert target not in sel.scored and set(sel.scored) == set(others)
    # log-odds gap 3.6: a weight of 0.5 and up lifts step 1 above step 0; the smallest such wins.
    assert chosen == 0.5
    assert table[0.0][1] == 0.0 and table[4.0][1] == 1.0


def test_ties_keep_the_smaller_weight_and_unjudged_runs_do_not_move() -> None:
    t = _script()
    target = t.NAMES[1]
    others = [n for n in t.NAMES if n != target]
    inner = {(target, n): {"r": np.array([0.0, 1.0])} for n in others}
    asked: dict[tuple[str, str], dict[str, set[int]]] = {(target, n): {} for n in others}
    chosen, _ = t.choose_weight(_Selector(), target, inner, asked, {})
    assert chosen == 0.0
    lg = {"a": np.array([2.0, 1.0, 0.0]), "b": np.array([0.0, 1.0])}
    out = t.reranked(lg, {"a": {0, 1}}, {"a": {0: 0.5, 1: 0.5}}, 2.0)
    np.testing.assert_array_equal(out["b"], lg["b"])
    np.testing.assert_array_equal(out["a"], lg["a"])  # equal judge answers: centred log-odds are 0
    out = t.reranked(lg, {"a": {0, 1}}, {"a": {0: 0.1, 1: 0.9}}, 1.0)
    assert out["a"][1] > out["a"][0] and out["a"][2] == 0.0


def test_the_trial_judges_as_many_top_steps_as_the_shipped_params_say() -> None:
    from analyzer.attribution.ranker import Ranker

    t = _script()
    assert Ranker.shipped().params.judge_top_k == t.TOP_K
    assert t.WEIGHTS[0] == 0.0  # "no judge" is always a candidate


def test_pairwise_agreement_counts_the_labelled_step_against_the_other_judged_ones() -> None:
    t = _script()
    runs = [SimpleNamespace(key="r", gold_step=2), SimpleNamespace(key="s", gold_step=None)]
    sel = SimpleNamespace(set=lambda name: SimpleNamespace(runs=runs, canonical={}))
    auc, pairs = t.judge_auc(sel, "x", {"r": {0, 1, 2}, "s": {0}}, {"r": {0: 0.3, 1: 0.8, 2: 0.5}, "s": {0: 1.0}})
    assert pairs == 2 and auc == 0.5


def test_t25b_asks_whether_one_step_follows_from_what_came_before() -> None:
    from analyzer.judge import prompts

    t = _script()
    q = t.FOLLOWS_QUESTION.format(step=4)
    assert "step 4 follow" in q and q.endswith("Answer Yes or No.")
    assert prompts.CANDIDATE_QUESTION != t.FOLLOWS_QUESTION  # loading the script patches nothing
