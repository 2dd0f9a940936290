"""Choosing the category chooser's tunables on the training systems (nested, like the ranker's).

The category chooser (:func:`analyzer.attribution.attribute.choose_category`) names the failure
category of the decisive step from the detectors' findings on and next to it, then from a few
rules. Its tunables (:class:`~analyzer.attribution.category_params.CategoryParams`) are chosen
here by one procedure that sees only the training systems that label a category:

* every combination of :data:`NEIGHBOUR_WEIGHTS`, :data:`CLAIMS_THRESHOLDS`, and the structural
  defaults and the error-output rule on or off (where nothing applies the category is ``other``:
  a category is never named as a prior);
* scored by category accuracy **at the labelled step** (so the chooser is judged on its own
  task, not on the ranker's step), averaged over the training systems with equal weight;
* ties keep the plainest candidate: fewest rules on, then the lowest neighbour weight.

There is nothing to fit beyond the choice, so the inner loop is the training systems
themselves; the held-out figure is nested: :func:`nested_category_selection` redoes the choice
without the scored system. The judge's share (``judge_share``) is not chosen: the evaluation runs
without the judge, so it keeps its definition (0.5, the judge and the detectors count equally).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from analyzer.attribution.attribute import choose_category
from analyzer.attribution.category_params import CategoryParams
from analyzer.evaluation.scoring import wilson
from analyzer.evaluation.transfer import EvalRun, PreparedSet
from analyzer.taxonomy import CATEGORY_IDS

NEIGHBOUR_WEIGHTS: tuple[float, ...] = (0.0, 0.3, 0.6, 1.0)
"""Candidate weights of a finding one step away (plainest first)."""

CLAIMS_THRESHOLDS: tuple[float | None, ...] = (None, 1.5, 1.0, 0.5)
"""Candidate claims thresholds on ``new_numbers_prose_log`` (None: the rule is off; then more new
numbers needed (log1p 1.5: 4 or more), 2 or more, 1 or more)."""

JUDGE_SHARE = 0.5
"""The judge's share when its distribution is blended in: a definition (both count equally),
not a choice; the evaluation runs without the judge."""

def labelled_runs(ps: PreparedSet) -> list[EvalRun]:
    """Runs of a set with both a labelled step and a labelled category."""
    return [r for r in ps.runs if r.gold_category and r.gold_step is not None]


def category_sets(sets: Sequence[PreparedSet]) -> list[PreparedSet]:
    """The sets that label a category on at least one run (never a training-only set's absence of labels)."""
    return [s for s in sets if labelled_runs(s)]


@dataclass
class CategoryCandidate:
    """One candidate's category accuracy at the labelled step, per system.

    Attributes:
        params: The candidate.
        accuracy: System name -> share of its labelled runs whose category it names.
    """

    params: CategoryParams
    accuracy: dict[str, float]

    @property
    def mean(self) -> float:
        """Mean accuracy over the systems (each system counts once)."""
        return sum(self.accuracy.values()) / len(self.accuracy) if self.accuracy else 0.0


@dataclass
class CategorySelection:
    """What :func:`select_category` chose and on which systems.

    Attributes:
        params: The chosen tunables.
        trained_on: The systems the choice saw.
        accuracy: The chosen candidate's accuracy on each of them (in-sample for the choice).
        tried: How many candidates were compared.
        runner_up: The best candidate with another set of rules switched on, for the record.
    """

    params: CategoryParams
    trained_on: list[str]
    accuracy: dict[str, float]
    tried: int
    runner_up: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain dict (recorded in the params file's meta)."""
        return {"params": self.params.to_json(), "trained_on": self.trained_on, "accuracy": self.accuracy,
                "tried": self.tried, "criterion": "mean category accuracy at the labelled step",
                "runner_up": self.runner_up}


def _rule_configs() -> list[tuple[float, float | None, bool, bool]]:
    """Every (neighbour weight, claims threshold, structural defaults, error-output rule), plainest first."""
    return sorted(product(NEIGHBOUR_WEIGHTS, CLAIMS_THRESHOLDS, (False, True), (False, True)),
                  key=lambda c: (int(c[1] is not None) + int(c[2]) + int(c[3]), c[0],
                                 CLAIMS_THRESHOLDS.index(c[1])))


def candidates(sets: Sequence[PreparedSet]) -> list[CategoryCandidate]:
    """Every candidate's accuracy on each set, plainest first (the order ties are broken in)."""
    runs = {s.name: labelled_runs(s) for s in sets}
    out: list[CategoryCandidate] = []
    for cfg in _rule_configs():
        p = CategoryParams(neighbour_weight=cfg[0], judge_share=JUDGE_SHARE, claims_threshold=cfg[1],
                           structural_defaults=cfg[2], error_output_rule=cfg[3])
        out.append(CategoryCandidate(p, {name: _hits(rs, p) / len(rs) for name, rs in runs.items() if rs}))
    return out


def select_category(sets: Sequence[PreparedSet], tried: Sequence[CategoryCandidate] | None = None) -> CategorySelection:
    """The candidate with the highest mean accuracy over ``sets`` (ties: the plainest).

    Args:
        sets: The training systems (only those that label a category count).
        tried: Precomputed :func:`candidates` on (a superset of) these sets, to share the work
            between nested folds.

    Raises:
        ValueError: When no set labels a category.
    """
    labelled = category_sets(sets)
    if not labelled:
        raise ValueError("no training system labels a category")
    names = [s.name for s in labelled]
    pool = list(tried) if tried is not None else candidates(labelled)
    scored = [CategoryCandidate(c.params, {n: c.accuracy[n] for n in names}) for c in pool]
    best = scored[0]
    for c in scored[1:]:
        if c.mean > best.mean + 1e-12:
            best = c
    other = [c for c in scored if _rules(c.params) != _rules(best.params)]
    runner = max(other, key=lambda c: c.mean, default=None)
    return CategorySelection(best.params, names, best.accuracy, len(scored),
                             {"params": runner.params.to_json(), "accuracy": runner.accuracy} if runner else {})


@dataclass
class NestedCategory:
    """One held-out system's nested category figure.

    Attributes:
        selection: What was chosen without it.
        hits: Runs whose category the chosen tunables name at the labelled step.
        n: Labelled runs (step and category).
        pre_selection: Hits of the tunables the chooser had before the selection
            (:class:`CategoryParams` defaults), for comparison.
        best_constant: The best single category on this system and its hits (a fixed rule chosen
            on the scored system: an upper bound for any constant answer, not a fair rival).
        training_constant: The category most frequent on the training systems (mean share over them),
            and its hits here.
    """

    selection: CategorySelection
    hits: int
    n: int
    pre_selection: int
    best_constant: tuple[str, int]
    training_constant: tuple[str, int]

    def to_json(self) -> dict[str, Any]:
        """Plain dict with Wilson intervals (the suite's JSON)."""
        def rate(k: int) -> dict[str, float]:
            _, lo, hi = wilson(k, self.n)
            return {"k": k, "n": self.n, "p": k / self.n if self.n else 0.0, "lo": lo, "hi": hi}

        return {"chosen_without": self.selection.to_json(), "nested": rate(self.hits),
                "pre_selection": rate(self.pre_selection),
                "best_constant": {"category": self.best_constant[0], **rate(self.best_constant[1])},
                "training_constant": {"category": self.training_constant[0], **rate(self.training_constant[1])},
                "random": 1.0 / len(CATEGORY_IDS)}


def _rules(p: CategoryParams) -> tuple[bool, bool, bool]:
    return p.claims_threshold is not None, p.structural_defaults, p.error_output_rule


def _hits(runs: Sequence[EvalRun], p: CategoryParams) -> int:
    return sum(choose_category(r.trajectory, r.gold_step, r.findings, r.features, None, p, r.table)[0]
               == r.gold_category
               for r in runs if r.gold_step is not None)


def nested_category_selection(sets: Sequence[PreparedSet]) -> dict[str, NestedCategory]:
    """For each system that labels a category: the choice made on the others, scored on it.

    Needs at least two such systems (else an empty result: nothing can be held out).
    """
    labelled = category_sets(sets)
    if len(labelled) < 2:
        return {}
    pool = candidates(labelled)
    out: dict[str, NestedCategory] = {}
    for held in labelled:
        others = [s for s in labelled if s.name != held.name]
        sel = select_category(others, pool)
        runs = labelled_runs(held)
        counts = {c: sum(r.gold_category == c for r in runs) for c in CATEGORY_IDS}
        best = max(CATEGORY_IDS, key=lambda c: (counts[c], -CATEGORY_IDS.index(c)))
        share = {c: sum(sum(r.gold_category == c for r in labelled_runs(s)) / len(labelled_runs(s)) for s in others)
                 for c in CATEGORY_IDS}
        frequent = max(CATEGORY_IDS, key=lambda c: (share[c], -CATEGORY_IDS.index(c)))
        out[held.name] = NestedCategory(sel, _hits(runs, sel.params), len(runs), _hits(runs, CategoryParams()),
                                        (best, counts[best]), (frequent, counts[frequent]))
    return out
