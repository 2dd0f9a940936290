"""Regenerate the nested table of ``docs/value_curve.md`` from a ``trajscope eval fit-curve --json`` file.

Usage: ``python scripts/curve_tables.py [docs/eval/value_curve_fit.json] [docs/value_curve.md] [NAME]``.
The table sits between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->`` markers (NAME
``curve-nested`` by default, ``curve-nested-lexical`` for the ``--no-embed`` table); the rest of
the document is left as it is. Every figure comes with its Wilson 95% interval.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

SETS = {
    "who-and-when": "Who&When",
    "tracertraj-code": "TracerTraj-Code",
    "agenterrorbench-gaia": "AgentErrorBench GAIA",
    "trail-gaia": "TRAIL GAIA (by span)",
    "trail-swe": "TRAIL SWE-bench (by span)",
}
METRICS = ("step@1", "step±1", "step±2")
RANDOM = "rule: uniform random step (expected)"
FIRST_ERROR = "rule: first error output"


def _cell(m: dict[str, Any] | None, bold: bool = False) -> str:
    if not m:
        return ""
    lo, hi = m["ci95"]
    text = f"{100 * m['p']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"**{text}**" if bold else text


def _row(label: str, metrics: dict[str, Any], bold: bool = False) -> str:
    cells = " | ".join(_cell(metrics.get(m), bold and m == "step@1") for m in METRICS)
    return f"|  |  | {label} | {cells} |"


def nested_table(doc: dict[str, Any]) -> str:
    """Per system: the nested curve, the hand-set weights, the best fixed rule, first error output, random."""
    rows = ["| system (records) | chosen without it | curve | step@1 [95% CI] | step±1 | step±2 |",
            "|---|---|---|---|---|---|"]
    for name, label in SETS.items():
        if name not in doc["sets"]:
            continue
        s = doc["sets"][name]
        n = s["nested"]["step@1"]["n"]
        rows.append(f"| {label} ({n}) | {doc['selections'][name]['candidate']} | | | | |")
        rows.append(_row("nested (chosen and fitted without it)", s["nested"], bold=True))
        rows.append(_row("hand-set weights", s["hand-set"]))
        rules = {k: v for k, v in s.items() if k.startswith("rule: ") and k not in (RANDOM, FIRST_ERROR)}
        best = max(rules, key=lambda k: rules[k]["step@1"]["p"])
        rows.append(_row(f"best fixed rule: {best.removeprefix('rule: ')}", rules[best]))
        rows.append(_row(FIRST_ERROR, s[FIRST_ERROR]))
        rows.append(f"|  |  | uniform random step (expected) | {100 * s[RANDOM]['step@1']['p']:.1f} | | |")
    final = doc["final"]
    inner = ", ".join(f"{k} {100 * v:.1f}%" for k, v in final["inner_step@1"].items())
    rows.append("")
    rows.append(f"Chosen on all {len(final['trained_on'])} systems: **{final['candidate']}** "
                f"(inner leave-one-system-out step@1: {inner}).")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """Rewrite the marked table of the document from the fit's JSON."""
    src = Path(argv[1]) if len(argv) > 1 else Path("docs/eval/value_curve_fit.json")
    target = Path(argv[2]) if len(argv) > 2 else Path("docs/value_curve.md")
    name = argv[3] if len(argv) > 3 else "curve-nested"
    doc = json.loads(src.read_text("utf-8"))
    text = target.read_text("utf-8")
    pattern = re.compile(rf"(<!-- table:{re.escape(name)} -->\n).*?(<!-- /table:{re.escape(name)} -->)", re.S)
    if not pattern.search(text):
        print(f"{target}: no <!-- table:{name} --> markers", file=sys.stderr)
        return 1
    target.write_text(pattern.sub(lambda m: m.group(1) + nested_table(doc) + "\n" + m.group(2), text), "utf-8")
    print(f"{target}: table {name} rewritten from {src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
