"""The judge's re-ranking weight, chosen by leave-one-system-out like every other tunable.

With a ``judge_weight`` above 0 the pipeline asks the judge ("is this step the decisive
mistake?", a yes/no probability on a short focused context) about the ranker's
``judge_top_k`` best steps of a run that has a decision step, and adds the weighted, centred
log-odds to their logits (:func:`analyzer.attribution.attribute.combine_with_judge`). Which
weight helps depends on the judge model, so it is chosen per model on the development systems:
each system is ranked by the fit without it (the selection's configuration), its top steps are
judged, and the weight of :data:`WEIGHTS` with the highest mean step@1 + mean step@3 over the
systems wins (then mean step@1; ties go to the smaller weight, 0 meaning "do not re-rank").

``trajscope eval fit ROOT --judge MODEL`` runs it and writes the weight and the model it was
chosen for into the params file; trial T25 (``scripts/trial_judge_verifier.py``,
``docs/eval/trials.md``) runs it nested. Mostly the judge re-orders the top K; step@3 moves
only when a "no" pushes a judged step below the best unjudged one (or, on sets scored by span,
when the order of two steps of one span changes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.attribute import combine_with_judge
from analyzer.signals.steps import columns_of

WEIGHTS: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
"""Candidate judge weights (0 first: not re-ranking is always a candidate)."""

Answers = dict[str, dict[str, dict[int, float]]]
"""P(yes) per system, run key and step."""

Ranked = tuple[str, Mapping[str, np.ndarray], Mapping[str, set[int]]]
"""One system's held-out logits per run key and the steps the judge was asked about per run key."""


def top_steps(logits: np.ndarray, k: int) -> list[int]:
    """The ``k`` best steps of a ranking, as the pipeline asks the judge about them."""
    return [int(i) for i in np.argsort(-logits, kind="stable")[:k]]


def judged(runs: Sequence[Any], logits: Mapping[str, np.ndarray], k: int) -> dict[str, set[int]]:
    """The steps the pipeline would ask the judge about, per run that has a decision step.

    Args:
        runs: Prepared runs (``key``, ``table``).
        logits: Held-out logits per run key.
        k: How many top steps are judged.
    """
    out: dict[str, set[int]] = {}
    for r in runs:
        if r.key in logits and r.table is not None and any(columns_of(r.table)["decision"]):
            out[r.key] = set(top_steps(logits[r.key], k))
    return out


def reranked(logits: Mapping[str, np.ndarray], asked: Mapping[str, set[int]], p: Mapping[str, Mapping[int, float]],
             weight: float) -> dict[str, np.ndarray]:
    """Logits with the judge's centred log-odds (times ``weight``) added to each judged run's top steps."""
    return {key: combine_with_judge(lg, {s: p[key][s] for s in asked[key]} if key in asked else {}, weight)
            for key, lg in logits.items()}


def weight_table(hits: Callable[[str, dict[str, np.ndarray]], tuple[float, float]], ranked: Sequence[Ranked],
                 p: Mapping[str, Mapping[str, Mapping[int, float]]]) -> dict[float, tuple[float, float]]:
    """Per weight: (mean step@1 + mean step@3, mean step@1) over the systems given.

    Args:
        hits: step@1 and step@3 of a system's logits (``Selector.hits``).
        ranked: Each system's held-out logits and judged steps.
        p: The judge's answers.
    """
    table: dict[float, tuple[float, float]] = {}
    for w in WEIGHTS:
        scores = [hits(name, reranked(logits, asked, p.get(name, {}), w)) for name, logits, asked in ranked]
        s1 = float(np.mean([s[0] for s in scores]))
        s3 = float(np.mean([s[1] for s in scores]))
        table[w] = (s1 + s3, s1)
    return table


def best_weight(table: Mapping[float, tuple[float, float]]) -> float:
    """The weight with the highest criterion; ties go to the smaller weight."""
    return max(table, key=lambda w: (table[w], -w))


def ask(judge: Any, runs: Mapping[str, Mapping[str, Any]], wanted: Mapping[str, Mapping[str, set[int]]],
        answers_file: Path | None = None, progress: Callable[[int, int, str], None] | None = None) -> Answers:
    """The judge's P(yes) for every wanted (system, run key, step).

    Args:
        judge: A judge with ``candidate_scores(trajectory, steps)``.
        runs: Prepared runs per system and run key (``trajectory``: the blinded run).
        wanted: Steps to ask about per system and run key.
        answers_file: JSON file of earlier answers of the same judge model, read first and
            rewritten after each system (None: keep nothing).
        progress: Called with (done, total, system) after each run.
    """
    answers: dict[str, dict[str, dict[str, float]]] = (
        json.loads(answers_file.read_text("utf-8")) if answers_file is not None and answers_file.is_file() else {})
    total = sum(len(v - {int(s) for s in answers.get(n, {}).get(k, {})}) for n, rs in wanted.items()
                for k, v in rs.items())
    done = 0
    for name, rs in wanted.items():
        for key, steps in rs.items():
            have = answers.setdefault(name, {}).setdefault(key, {})
            missing = sorted(s for s in steps if str(s) not in have)
            if not missing:
                continue
            have.update({str(s): float(v) for s, v in judge.candidate_scores(runs[name][key].trajectory, missing).items()})
            done += len(missing)
            if progress is not None:
                progress(done, total, name)
        if answers_file is not None and total:
            answers_file.write_text(json.dumps(answers), "utf-8")
    return {n: {k: {int(s): v for s, v in steps.items()} for k, steps in rs.items()} for n, rs in answers.items()}


@dataclass
class JudgeChoice:
    """The judge weight chosen on the development systems for one judge model.

    Attributes:
        model: The judge's model id.
        top_k: How many top steps were judged.
        weight: The chosen weight (0: the judge re-ranks nothing).
        criterion: Mean step@1 + mean step@3 per candidate weight.
        step1: Mean step@1 per candidate weight.
        judged_steps: How many (run, step) answers the choice read.
    """

    model: str
    top_k: int
    weight: float
    criterion: dict[float, float]
    step1: dict[float, float]
    judged_steps: int

    def to_json(self) -> dict[str, Any]:
        """The params file's ``meta.judge`` section."""
        return {"model": self.model, "top_k": self.top_k, "weight": self.weight,
                "criterion": {str(w): round(v, 4) for w, v in self.criterion.items()},
                "step@1": {str(w): round(v, 4) for w, v in self.step1.items()},
                "judged_steps": self.judged_steps,
                "rule": "leave-one-system-out: mean step@1 + mean step@3, ties to the smaller weight"}


def choose_judge_weight(selector: Any, names: Sequence[str], config: Any, judge: Any, top_k: int = 3,
                        answers_file: Path | None = None,
                        progress: Callable[[int, int, str], None] | None = None) -> JudgeChoice:
    """Choose the judge weight on the systems ``names`` (each ranked by the fit without it).

    Args:
        selector: The selection's :class:`~analyzer.evaluation.selection.Selector`.
        names: The systems to choose on.
        config: The step configuration the selection chose on ``names``.
        judge: The judge model.
        top_k: How many top steps it judges.
        answers_file: Cache of the judge's answers (see :func:`ask`).
        progress: Progress callback of :func:`ask`.
    """
    logits = {n: selector.held_logits(names, n, config) for n in names}
    asked = {n: judged(selector.set(n).runs, logits[n], top_k) for n in names}
    runs = {n: {r.key: r for r in selector.set(n).runs} for n in names}
    p = ask(judge, runs, asked, answers_file, progress)
    table = weight_table(selector.hits, [(n, logits[n], asked[n]) for n in names], p)
    return JudgeChoice(str(getattr(judge, "model_id", "judge")), top_k, best_weight(table),
                       {w: v[0] for w, v in table.items()}, {w: v[1] for w, v in table.items()},
                       sum(len(v) for a in asked.values() for v in a.values()))
