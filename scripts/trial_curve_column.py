"""Trial T24 (``docs/eval/trials.md``): the value curve's drops as a column of the decisive-step ranker.

Since T23 the value curve's params are fitted so that its largest drop lands on the labelled
decisive step, from the run's content only (findings, error text, alignment, recoveries). Here
each step's drop, divided by the run's largest drop (0 without one), is offered to the ranker's
selection as one more column, in two more candidate feature sets (``structure+curve``,
``structure+rules+curve``), on the shipped grid otherwise.

Nested, without leaks into the held-out system: for each held-out system S, the column of every
run (of every system) is computed with the curve params that ``eval fit-curve`` chose and
fitted **without S** (``docs/eval/value_curve_fit.json``, ``selections[S]``); the ranker's
selection then runs on the other four systems and S is scored once. (Inside the selection the
training systems' columns come from curve params fitted on them: that can only make the inner
selection trust the column more, never show it S.) The column rides in the feature matrix's
``lex_align_centered`` slot, which no candidate feature set uses; the product is not changed.

Usage (PREP_DIR: the prepared sets of ``trajscope eval fit|suite --cache PREP_DIR``; CURVE_DIR:
the term matrices of ``trajscope eval fit-curve --cache CURVE_DIR``)::

    python scripts/trial_curve_column.py PREP_DIR CURVE_DIR [docs/eval/value_curve_fit.json]
"""

from __future__ import annotations

import copy
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, CurveParams
from analyzer.attribution.features import FEATURE_NAMES, RULE_FEATURES, TRANSFER_FEATURES
from analyzer.attribution.hazards import TermMatrix, weigh
from analyzer.attribution.ranker import Ranker
from analyzer.attribution.value_curve import value_curve
from analyzer.evaluation import selection as S
from analyzer.evaluation.curve_fit import SCALARS, set_matrices

NAMES = ["who-and-when", "tracertraj-code", "agenterrorbench-gaia", "trail-gaia", "trail-swe"]
CARRIER = "lex_align_centered"
COL = FEATURE_NAMES.index(CARRIER)


def fold_params(sel: dict[str, Any]) -> CurveParams:
    """The curve params a fold's selection chose (weights and searched entries over the hand-set file)."""
    start = CurveParams.packaged(HANDSET_PARAMS_FILE)
    changes = {k: type(getattr(start, k))(sel[k]) for k in SCALARS if k in sel}
    return start.with_weights(dict(sel["weights"]), **changes)


def drop_columns(curve_dir: Path, params: CurveParams, prior: float) -> dict[tuple[str, str], np.ndarray]:
    """Per (system, run key): each step's curve drop divided by the run's largest (0 without one)."""
    out: dict[tuple[str, str], np.ndarray] = {}
    for name in NAMES:
        cs = pickle.loads((curve_dir / f"{name}.curve-v2.pickle").read_bytes())
        for run, x in zip(cs.runs, set_matrices(cs, params), strict=True):
            drops = np.asarray(value_curve(weigh(TermMatrix(x), params), prior, outcome="failure",
                                           params=params).drops)
            top = float(drops.max()) if drops.size else 0.0
            out[name, run.key] = drops / top if top > 0 else np.zeros_like(drops)
    return out


def with_column(sets: list[Any], cols: dict[tuple[str, str], np.ndarray]) -> tuple[list[Any], int]:
    """Copies of the prepared sets whose carrier column holds the curve column (0 where a run has none)."""
    out, missing = [], 0
    for ps in sets:
        ps = copy.copy(ps)
        runs = []
        for r in ps.runs:
            r = copy.copy(r)
            feats = np.array(r.features, dtype=float, copy=True)
            col = cols.get((ps.name, r.key))
            if col is None or col.shape[0] != feats.shape[0]:
                missing += 1
                col = np.zeros(feats.shape[0])
            feats[:, COL] = col
            r.features = feats
            runs.append(r)
        ps.runs = runs
        out.append(ps)
    return out, missing


def main() -> None:
    """Print each held-out system's choice and nested step@1 / step@3 with and without the column."""
    prep, curve_dir = Path(sys.argv[1]), Path(sys.argv[2])
    fit = json.loads(Path(sys.argv[3] if len(sys.argv) > 3 else "docs/eval/value_curve_fit.json").read_text("utf-8"))
    prior = Ranker.shipped().params.value_prior
    base = [pickle.loads((prep / f"{n}.pickle").read_bytes())[0] for n in NAMES]
    S.FEATURE_SETS["structure+curve"] = (*TRANSFER_FEATURES, CARRIER)
    S.FEATURE_SETS["structure+rules+curve"] = (*TRANSFER_FEATURES, *RULE_FEATURES, CARRIER)
    S.GRID["features"] = tuple(S.FEATURE_SETS)
    out: dict[str, Any] = {}
    for target in NAMES:
        params = fold_params(fit["selections"][target])
        sets, missing = with_column(base, drop_columns(curve_dir, params, prior))
        selector = S.Selector(sets)
        others = [n for n in NAMES if n != target]
        sel = S.select(selector, others)
        s1, s3 = selector.hits(target, selector.held_logits(NAMES, target, sel.step), "pooled")
        out[target] = {"step@1": round(100 * s1, 1), "step@3": round(100 * s3, 1),
                       "features": sel.step.features, "runs_without_column": missing}
        print(target, sel.step, out[target], flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
