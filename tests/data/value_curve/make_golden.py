"""Write ``golden.json``: the value curve of every sample run as the hand-set code computed it.

Run once, from the repository root, with the code as it was before the term matrix (issue 28):
``PYTHONPATH=$PWD python tests/data/value_curve/make_golden.py``. The test
``tests/analyzer/test_curve_terms.py`` checks that the term matrix with the hand-set weights
(``value-curve-handset.json``) gives exactly these numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from analyzer.attribution.hazards import step_evidence
from analyzer.attribution.value_curve import value_curve
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.pipeline import blind, prepare_run
from analyzer.plugin_host.registry import default_host

ROOT = Path(__file__).resolve().parents[3]
OUT = Path(__file__).with_name("golden.json")


def judge_values(n: int) -> list[float]:
    """A deterministic judge curve with falls and rises (and one NaN) to exercise the judge term."""
    return [float("nan") if i == 3 else 0.5 + 0.45 * math.sin(i * 0.7) for i in range(n)]


def main() -> None:
    res = load([ROOT / "sample_traces"])
    host = default_host()
    out = []
    for t in trajectories_from_frames(res.traces, res.steps):
        bt = blind(t)
        sig = prepare_run(bt, host)
        n = len(bt.steps)
        for judge in (False, True):
            ev = step_evidence(bt, sig.findings, None, judge_values(n) if judge else None)
            rec = {"id": t.id, "source": Path(t.source_file).name, "judge": judge,
                   "llr": ev.llr.tolist(), "terms": {k: v.tolist() for k, v in ev.terms.items()},
                   "reasons": ev.reasons, "curves": {}}
            for outcome in ("failure", "success", None):
                c = value_curve(ev, 0.9, outcome=outcome)
                rec["curves"][str(outcome)] = {"values": c.values, "drops": c.drops, "llr": c.llr,
                                               "temper": c.temper, "outcome_step": c.outcome_step}
            out.append(rec)
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(out)} records")


if __name__ == "__main__":
    main()
