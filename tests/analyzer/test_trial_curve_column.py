"""The T24 trial script (``scripts/trial_curve_column.py``) reads the committed fit and fills only its column."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import numpy as np
from repo_scripts import ROOT, load_script

from analyzer.attribution.features import FEATURE_NAMES
from analyzer.evaluation.curve_fit import SCALARS


def _script() -> Any:
    return load_script("trial_curve_column")


def test_each_fold_reads_the_curve_params_chosen_without_its_system() -> None:
    t = _script()
    fit = json.loads((ROOT / "docs" / "eval" / "value_curve_fit.json").read_text("utf-8"))
    assert set(fit["selections"]) == set(t.NAMES)
    for name in t.NAMES:
        sel = fit["selections"][name]
        assert name not in sel["trained_on"]
        p = t.fold_params(sel)
        assert all(p.weights[k] == v for k, v in sel["weights"].items())
        assert all(getattr(p, k) == sel[k] for k in SCALARS)


def test_the_column_rides_in_a_slot_no_candidate_set_uses_and_nothing_else_changes() -> None:
    t = _script()
    from analyzer.evaluation.selection import FEATURE_SETS

    assert all(t.CARRIER not in cols for cols in FEATURE_SETS.values())
    feats = np.arange(3 * len(FEATURE_NAMES), dtype=float).reshape(3, len(FEATURE_NAMES))
    run = SimpleNamespace(key="r", features=feats)
    ps = SimpleNamespace(name="s", runs=[run])
    (out,), missing = t.with_column([ps], {("s", "r"): np.array([0.0, 1.0, 0.25])})
    assert missing == 0 and out is not ps and out.runs[0] is not run
    got = out.runs[0].features
    np.testing.assert_array_equal(got[:, t.COL], [0.0, 1.0, 0.25])
    np.testing.assert_array_equal(np.delete(got, t.COL, axis=1), np.delete(feats, t.COL, axis=1))
    np.testing.assert_array_equal(run.features, feats)  # the prepared set itself is untouched
    (none,), missing = t.with_column([ps], {})
    assert missing == 1 and not none.runs[0].features[:, t.COL].any()
