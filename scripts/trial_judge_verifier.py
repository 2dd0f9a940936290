"""Trial T25 (``docs/eval/trials.md``): the local judge as a verifier of the ranker's top candidates.

Issue 28 asks whether the judge, asked narrowly about a few candidates, adds to the ranker.
The product can: with a ``judge_weight`` above 0 the pipeline asks the judge ("is this step the
decisive mistake?", a yes/no probability from a short focused context) about the ranker's
``judge_top_k`` best steps and adds the weighted, centred log-odds to their logits
(:func:`analyzer.attribution.attribute.combine_with_judge`). Here that weight is chosen by
nested selection like every other tunable, with the packaged judge (``gemma3-270m``), from the
building blocks of :mod:`analyzer.evaluation.judge_select`:

- For each held-out system S, the ranker's configuration is chosen and fitted on the other four
  (:func:`analyzer.evaluation.selection.select`, as the suite does).
- The judge weight is chosen from :data:`WEIGHTS` by leave-one-system-out among those four only:
  each training system T is ranked by the fit on the other three (S and T both left out), its
  top :data:`TOP_K` steps are judged, and the weight maximising mean step@1 + mean step@3 over
  the four wins (ties: the smaller weight).
- S is then ranked by the fit without it, its top steps judged, re-ranked with the chosen
  weight and scored once.

What a fit on all five systems would ship is what ``trajscope eval fit ROOT --judge gemma3-270m``
chooses (:func:`analyzer.evaluation.judge_select.choose_judge_weight`, the same building blocks).

Runs with no decision step are not judged (the pipeline does not ask about them either). The
judge's answers are cached in ``OUT_DIR/judge.json`` (one entry per run and step), so a second
run only re-scores.

T25b (``--follows``) asks the issue's narrower question instead, "does step N follow from what
the agent had seen in the steps before it?", and reads P(No) as the judge's vote for a mistake
(:data:`FOLLOWS_QUESTION`, patched into the judge's prompts for this run only; give it its own
OUT_DIR).

Usage (PREP_DIR: the prepared sets of ``trajscope eval fit|suite --cache PREP_DIR``)::

    python scripts/trial_judge_verifier.py PREP_DIR OUT_DIR [JUDGE] [--follows]
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.evaluation import selection as S
from analyzer.evaluation.judge_select import (
    WEIGHTS,
    ask,
    best_weight,
    judged,
    reranked,
    weight_table,
)

NAMES = ["who-and-when", "tracertraj-code", "agenterrorbench-gaia", "trail-gaia", "trail-swe"]
TOP_K = 3
FOLLOWS_QUESTION = (
    "\n\nQuestion: Does step {step} follow from what the agent had seen in the steps before it? "
    "Answer Yes or No."
)
"""T25b's question (issue 28's wording); a mistake is P(No)."""


def rankings(selector: S.Selector) -> tuple[dict[str, Any], dict[str, dict[str, np.ndarray]],
                                            dict[tuple[str, str], dict[str, np.ndarray]]]:
    """Per held-out S: the selection, S's held-out logits, and each training system's inner logits."""
    sels: dict[str, Any] = {}
    outer: dict[str, dict[str, np.ndarray]] = {}
    inner: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for target in NAMES:
        others = [n for n in NAMES if n != target]
        sel = S.select(selector, others)
        sels[target] = sel
        outer[target] = selector.held_logits(NAMES, target, sel.step)
        for t in others:
            inner[target, t] = selector.held_logits(others, t, sel.step)
        print(f"selection without {target}: {sel.step}", flush=True)
    return sels, outer, inner


def choose_weight(selector: Any, target: str, inner: dict[tuple[str, str], dict[str, np.ndarray]],
                  asked: dict[tuple[str, str], dict[str, set[int]]], p: dict[str, dict[str, dict[int, float]]],
                  ) -> tuple[float, dict[float, tuple[float, float]]]:
    """The judge weight for held-out ``target``, from the other systems' inner rankings only.

    Each training system T is scored with the ranking of the fit on the systems other than
    ``target`` and T; the weight with the highest mean step@1 + mean step@3 (then mean step@1)
    wins, ties going to the smaller weight. ``target`` is never scored here.
    """
    others = [n for n in NAMES if n != target]
    table = weight_table(selector.hits, [(t, inner[target, t], asked[target, t]) for t in others], p)
    return best_weight(table), table


def _progress(done: int, total: int, name: str) -> None:
    print(f"\r{done}/{total} judged ({name})", end="", file=sys.stderr, flush=True)


def judge_auc(selector: S.Selector, name: str, asked: dict[str, set[int]], p: dict[str, dict[int, float]]) -> tuple[float, int]:
    """How often the judge puts the labelled step above another judged step of the same run (and pairs)."""
    ps = selector.set(name)
    wins, pairs = 0.0, 0
    for r in ps.runs:
        if r.key not in asked or r.gold_step is None:
            continue
        canon = ps.canonical.get(r.key)
        gold = [s for s in asked[r.key] if (canon[s] if canon else s) == r.gold_step]
        rest = [s for s in asked[r.key] if (canon[s] if canon else s) != r.gold_step]
        for g in gold[:1]:
            for o in rest:
                pairs += 1
                wins += 1.0 if p[r.key][g] > p[r.key][o] else 0.5 if p[r.key][g] == p[r.key][o] else 0.0
    return (wins / pairs if pairs else float("nan")), pairs


def main() -> None:
    """Choose the judge weight per held-out system and print the nested figures with and without it."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    question = "follows" if "--follows" in sys.argv else "mistake"
    prep, out_dir = Path(args[0]), Path(args[1])
    judge_name = args[2] if len(args) > 2 else "gemma3-270m"
    out_dir.mkdir(parents=True, exist_ok=True)
    sets = [pickle.loads((prep / f"{n}.pickle").read_bytes())[0] for n in NAMES]
    selector = S.Selector(sets)
    sels, outer, inner = rankings(selector)
    asked_outer = {n: judged(selector.set(n).runs, outer[n], TOP_K) for n in NAMES}
    asked_inner = {(s, t): judged(selector.set(t).runs, lg, TOP_K) for (s, t), lg in inner.items()}
    wanted: dict[str, dict[str, set[int]]] = {n: {} for n in NAMES}
    for n, runs in asked_outer.items():
        for k, v in runs.items():
            wanted[n].setdefault(k, set()).update(v)
    for (_, t), runs in asked_inner.items():
        for k, v in runs.items():
            wanted[t].setdefault(k, set()).update(v)
    from analyzer.judge import load_judge, prompts

    if question == "follows":
        prompts.CANDIDATE_QUESTION = FOLLOWS_QUESTION
    runs = {n: {r.key: r for r in selector.set(n).runs} for n in NAMES}
    p = ask(load_judge(judge_name, cache=False), runs, wanted, out_dir / "judge.json", _progress)
    if question == "follows":  # "yes, it follows" speaks against a mistake
        p = {n: {k: {st: 1.0 - v for st, v in steps.items()} for k, steps in rs.items()} for n, rs in p.items()}
    result: dict[str, Any] = {}
    for target in NAMES:
        chosen, table = choose_weight(selector, target, inner, asked_inner, p)
        base1, base3 = selector.hits(target, outer[target], "pooled")
        s1, s3 = selector.hits(target, reranked(outer[target], asked_outer[target], p[target], chosen), "pooled")
        any1, any3 = zip(*(selector.hits(target, reranked(outer[target], asked_outer[target], p[target], w), "pooled")
                           for w in WEIGHTS), strict=True)
        auc, pairs = judge_auc(selector, target, asked_outer[target], p[target])
        result[target] = {
            "ranker": str(sels[target].step),
            "chosen_weight": chosen,
            "inner_criterion": {str(w): round(v[0], 4) for w, v in table.items()},
            "nested_step@1": round(100 * s1, 1), "nested_step@3": round(100 * s3, 1),
            "without_judge_step@1": round(100 * base1, 1), "without_judge_step@3": round(100 * base3, 1),
            "step@1_by_weight": {str(w): round(100 * v, 1) for w, v in zip(WEIGHTS, any1, strict=True)},
            "step@3_by_weight": {str(w): round(100 * v, 1) for w, v in zip(WEIGHTS, any3, strict=True)},
            "judge_pairwise_auc": round(auc, 3), "judge_pairs": pairs,
            "judged_runs": len(asked_outer[target]),
        }
        print(target, json.dumps(result[target]), flush=True)
    (out_dir / "result.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
