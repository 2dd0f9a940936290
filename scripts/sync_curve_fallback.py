"""Rewrite the ``FALLBACK`` literal of ``analyzer/attribution/curve_params.py`` from the shipped params file.

Run from the repository root after ``trajscope eval fit-curve ROOT --out
analyzer/attribution/params/value-curve-v1.json``:
``python scripts/sync_curve_fallback.py``. ``tests/analyzer/test_curve_terms.py`` checks that the
fallback equals the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT / "analyzer" / "attribution" / "params" / "value-curve-v1.json"
SOURCE = ROOT / "analyzer" / "attribution" / "curve_params.py"


def main() -> None:
    """Rewrite the literal."""
    doc = json.loads(PARAMS.read_text("utf-8"))
    weights = ",\n             ".join(f"{k!r}: {v!r}" for k, v in doc["weights"].items())
    scalars = ",\n    ".join(f"{k}={v!r}" for k, v in doc.items() if k not in ("format", "version", "weights", "meta"))
    new = ("FALLBACK = CurveParams(\n    weights={" + weights + "},\n    " + scalars + ",\n    meta={\"source\": "
           "\"fallback: equal to the shipped params file (tests/analyzer/test_curve_terms.py checks it)\"},\n)\n")
    src = SOURCE.read_text("utf-8")
    out, n = re.subn(r"FALLBACK = CurveParams\(\n.*?\n\)\n", lambda _m: new, src, flags=re.S)
    if n != 1:
        raise SystemExit("FALLBACK literal not found")
    SOURCE.write_text(out, encoding="utf-8")
    print(f"FALLBACK of {SOURCE.name} now equals {PARAMS.name}")


if __name__ == "__main__":
    main()
