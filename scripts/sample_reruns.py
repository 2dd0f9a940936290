"""Write ``sample_reruns/retail_trials.json``: planted reruns of 12 retail tasks × 3 trials.

The runs come from :func:`analyzer.contrast.synthetic.task_records` (retail domain, seed 2026),
a domain the contrast fit never sees. Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python scripts/sample_reruns.py
"""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.contrast.synthetic import task_records

OUT = Path(__file__).resolve().parents[1] / "sample_reruns" / "retail_trials.json"
TASKS, TRIALS, SEED = 12, 3, 2026


def main() -> None:
    """Write the file."""
    records = task_records("retail", TASKS, TRIALS, SEED)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    failed = sum(1 for r in records if r["reward"] < 1)
    print(f"wrote {OUT}: {len(records)} runs, {failed} failed with a planted divergence")


if __name__ == "__main__":
    main()
