"""The judge's re-ranking weight is chosen on the development systems (``analyzer/evaluation/judge_select.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import polars as pl

from analyzer.attribution.ranker import Ranker
from analyzer.evaluation.judge_select import (
    WEIGHTS,
    ask,
    best_weight,
    choose_judge_weight,
    judged,
    reranked,
)


def _run(key: str, gold: int, decides: bool = True) -> SimpleNamespace:
    table = pl.DataFrame({"decision": [decides, decides, decides, decides]})
    return SimpleNamespace(key=key, gold_step=gold, table=table, trajectory=SimpleNamespace(id=key))


class _Selector:
    """Two systems whose held-out rankings put step 0 first while the labelled step is 1."""

    def __init__(self) -> None:
        self.sets = {"a": [_run("a1", 1), _run("a2", 1), _run("a3", 2, decides=False)],
                     "b": [_run("b1", 1), _run("b2", 0)]}

    def held_logits(self, names: list[str], held: str, cfg: Any) -> dict[str, np.ndarray]:
        assert held in names and cfg == "cfg"
        return {r.key: np.array([3.0, 2.0, 1.0, 0.0]) for r in self.sets[held]}

    def set(self, name: str) -> SimpleNamespace:
        return SimpleNamespace(runs=self.sets[name])

    def hits(self, held: str, logits: dict[str, np.ndarray]) -> tuple[float, float]:
        gold = {r.key: r.gold_step for r in self.sets[held]}
        top = {k: [int(i) for i in np.argsort(-v, kind="stable")[:3]] for k, v in logits.items()}
        return (float(np.mean([top[k][0] == gold[k] for k in top])), float(np.mean([gold[k] in top[k] for k in top])))


class _Judge:
    """Says yes to step 1, no to the rest."""

    model_id = "tiny-judge@1"

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[int, ...]]] = []

    def candidate_scores(self, trajectory: Any, steps: list[int]) -> dict[int, float]:
        self.calls.append((trajectory.id, tuple(steps)))
        return {s: 0.9 if s == 1 else 0.3 for s in steps}


def test_the_judge_is_asked_about_the_top_steps_of_runs_with_a_decision_only(tmp_path: Path) -> None:
    judge = _Judge()
    choice = choose_judge_weight(_Selector(), ["a", "b"], "cfg", judge, top_k=2, answers_file=tmp_path / "j.json")
    assert sorted(judge.calls) == [("a1", (0, 1)), ("a2", (0, 1)), ("b1", (0, 1)), ("b2", (0, 1))]
    # the judge's yes to step 1 fixes a1, a2 and b1 and breaks b2 (a3 is never judged): mean step@1
    # over the two systems rises from (0/3 + 1/2) / 2 to (2/3 + 1/2) / 2 at weight 0.5 and above
    assert choice.weight == 0.5 and choice.model == "tiny-judge@1" and choice.top_k == 2
    assert choice.step1[0.0] == 0.25 and abs(choice.step1[0.5] - 7 / 12) < 1e-12
    assert choice.judged_steps == 8
    doc = choice.to_json()
    assert doc["model"] == "tiny-judge@1" and doc["weight"] == 0.5 and set(doc["criterion"]) == {str(w) for w in WEIGHTS}
    # the answers are kept: a second choice asks nothing and chooses the same
    again = _Judge()
    assert choose_judge_weight(_Selector(), ["a", "b"], "cfg", again, 2, tmp_path / "j.json").weight == 0.5
    assert again.calls == []
    assert json.loads((tmp_path / "j.json").read_text("utf-8"))["a"]["a1"] == {"0": 0.3, "1": 0.9}


def test_ties_keep_the_smaller_weight_and_unjudged_runs_keep_their_logits() -> None:
    assert best_weight({w: (1.0, 0.5) for w in WEIGHTS}) == 0.0
    assert best_weight({0.0: (1.0, 0.5), 1.0: (1.0, 0.6), 2.0: (1.0, 0.6)}) == 1.0
    lg = {"x": np.array([1.0, 0.0]), "y": np.array([1.0, 0.0])}
    out = reranked(lg, {"x": {0, 1}}, {"x": {0: 0.1, 1: 0.9}}, 1.0)
    assert out["x"][1] > out["x"][0]
    np.testing.assert_array_equal(out["y"], lg["y"])
    runs = [_run("x", 0), _run("y", 0, decides=False), SimpleNamespace(key="z", table=None)]
    assert judged(runs, {**lg, "z": np.zeros(2)}, 1) == {"x": {0}}


def test_ask_counts_only_what_is_not_known() -> None:
    judge = _Judge()
    seen: list[tuple[int, int, str]] = []
    runs = {"a": {"a1": _run("a1", 1)}}
    p = ask(judge, runs, {"a": {"a1": {0, 2}}}, None, lambda d, t, n: seen.append((d, t, n)))
    assert p == {"a": {"a1": {0: 0.3, 2: 0.3}}} and seen == [(2, 2, "a")]


def test_a_weight_chosen_for_one_judge_model_is_not_used_with_another() -> None:
    p = Ranker.load().params
    p.judge_weight = 0.5
    assert p.judge_weight_for("any@1") == 0.5  # no record of the model: any judge
    p.meta = {**p.meta, "judge": {"model": "tiny-judge@1"}}
    assert p.judge_weight_for("tiny-judge@1") == 0.5
    assert p.judge_weight_for("gemma3-270m@x") == 0.0
    assert p.judge_weight_for(None) == 0.0
    p.meta = {k: v for k, v in p.meta.items() if k != "judge"} | {"judge_model": "tiny-judge@1"}  # the in-set fit's record
    assert p.judge_weight_for("tiny-judge@1") == 0.5
    assert p.judge_weight_for("gemma3-270m@x") == 0.0


def test_eval_fit_stops_before_preparing_anything_when_the_judge_does_not_load(tmp_path: Path, capsys: Any) -> None:
    from analyzer.cli import main

    code = main(["eval", "fit", str(tmp_path), "--no-embed", "--quiet", "--judge", str(tmp_path / "missing.gguf"),
                 "--out", str(tmp_path / "params.json")])
    assert code == 2
    err = capsys.readouterr().err
    assert "cannot load the judge" in err and "missing.gguf" in err and "no such folder" not in err
    assert not (tmp_path / "params.json").exists()
