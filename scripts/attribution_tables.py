"""Regenerate the result tables of ``docs/attribution.md`` from ``docs/eval/suite.json``.

Usage: ``python scripts/attribution_tables.py [docs/eval/suite.json] [docs/attribution.md]``.
Each table sits between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->`` markers; the rest
of the document is left as it is. Every figure comes with its Wilson 95% interval.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

SETS = {
    "who-and-when": "Who&When (AG2)",
    "tracertraj-code": "TracerTraj-Code (MetaGPT)",
    "agenterrorbench-gaia": "AgentErrorBench GAIA",
    "trail-gaia": "TRAIL GAIA (smolagents)",
    "trail-swe": "TRAIL SWE-bench (CodeAct)",
}


def _cell(m: dict[str, Any] | None) -> str:
    if not m:
        return "-"
    lo, hi = m["ci95"]
    return f"{100 * m['p']:.1f}% [{100 * lo:.0f}–{100 * hi:.0f}]"


def _systems(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(id, label) of every system the suite scored, in the document's order of systems."""
    return [(name, label) for name, label in SETS.items() if name in doc["sets"]]


def _result(doc: dict[str, Any], name: str, mode: str) -> dict[str, Any]:
    return next(r for r in doc["sets"][name]["results"] if r["mode"] == mode)


def _best_rule(rules: dict[str, Any], metric: str, exclude: str = "uniform random") -> tuple[str, dict[str, Any]]:
    cands = [(k, v[metric]) for k, v in rules.items() if metric in v and not k.startswith(exclude)]
    return max(cands, key=lambda kv: kv[1]["p"])


def headline(doc: dict[str, Any]) -> str:
    """Nested leave-one-system-out next to the best fixed rule and a uniform random step."""
    rows = ["| system (runs) | nested step@1 | nested step@3 | best fixed rule, step@1 | uniform random step@1 | "
            "shipped weights (in-sample) step@1 |", "|---|---|---|---|---|---|"]
    for name, label in _systems(doc):
        s = doc["sets"][name]
        nested = _result(doc, name, "nested")["metrics"]
        shipped = _result(doc, name, "shipped")["metrics"]
        rule, best = _best_rule(s["rules"], "step@1")
        rnd = s["rules"]["uniform random step (expected)"]["step@1"]
        rows.append(f"| {label} ({s['records']}) | **{_cell(nested['step@1'])}** | {_cell(nested['step@3'])} | "
                    f"{_cell(best)} ({rule}) | {100 * rnd['p']:.1f}% | {_cell(shipped['step@1'])} |")
    return "\n".join(rows)


def secondary(doc: dict[str, Any]) -> str:
    """step±k, TRAIL's loc@k and in-set CV."""
    rows = ["| system | nested step±1 | nested step±3 | nested loc@1 | nested loc@3 | in-set 5-fold CV step@1 |",
            "|---|---|---|---|---|---|"]
    for name, label in _systems(doc):
        m = _result(doc, name, "nested")["metrics"]
        cv = _result(doc, name, "cv")["metrics"]
        rows.append(f"| {label} | {_cell(m.get('step±1'))} | {_cell(m.get('step±3'))} | {_cell(m.get('loc@1'))} | "
                    f"{_cell(m.get('loc@3'))} | {_cell(cv['step@1'])} |")
    return "\n".join(rows)


def agents(doc: dict[str, Any]) -> str:
    """Nested agent@1 next to every fixed rule's agent@1, on the sets with agent labels."""
    rows = ["| system | nested agent@1 | best fixed agent rule | agent chosen without this system |", "|---|---|---|---|"]
    for name, label in _systems(doc):
        s = doc["sets"][name]
        m = _result(doc, name, "nested")["metrics"]
        if "agent@1" not in m or not any("agent@1" in v and v["agent@1"]["k"] for v in s["rules"].values()):
            continue
        rule, best = _best_rule(s["rules"], "agent@1")
        agent = doc["selections"][name]["agent"]
        rows.append(f"| {label} | **{_cell(m['agent@1'])}** | {_cell(best)} ({rule}) | actor weight "
                    f"{agent['actor_weight']:g}, first-runner weight {agent['first_runner_weight']:g} |")
    return "\n".join(rows)


def selections(doc: dict[str, Any]) -> str:
    """What the selection chose without each system."""
    rows = ["| held out | features | L2 | τ | prior | evidence | grounded | symptom | symptom rule | repeat | off-kind | T |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, label in _systems(doc):
        sel = doc["selections"].get(name)
        if not sel:
            continue
        c = sel["step"]
        rows.append(f"| {label} | {c['features']} | {c['l2']:g} | {c['tau']:g} | {c['prior_weight']:g} | "
                    f"{c['evidence_weight']:g} | {c['evidence_grounded']:g} | {c['symptom']:g} | "
                    f"{c.get('symptom_rule', '-') if c['symptom'] != 1 else '(none)'} | {c['repeat']:g} | "
                    f"{c['off_kind']:g} | {sel['calibration_temperature']:g} |")
    return "\n".join(rows)


def positions(doc: dict[str, Any]) -> str:
    """Nested step@1 by where the labelled step lies, next to a uniform random step on the same runs."""
    names = _systems(doc)
    buckets = [b["bucket"] for b in doc["sets"][names[0][0]].get("by_position", [])] if names else []
    rows = ["| system | " + " | ".join(f"label at steps {b}: nested step@1 (random)" for b in buckets) + " |",
            "|---|" + "---|" * len(buckets)]
    for name, label in names:
        cells = []
        for b in doc["sets"][name].get("by_position", []):
            m = b["step@1"]
            cells.append(f"{100 * m['p']:.1f}% [{100 * m['lo']:.0f}–{100 * m['hi']:.0f}] ({m['k']}/{b['n']}; "
                         f"{100 * b['random@1']:.1f}%)" if b["n"] else "-")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def adaptation(doc: dict[str, Any]) -> str:
    """The learning curve from the nested weights, and active vs random labels."""
    ks = sorted({p["k"] for c in doc["learning_curve"].values() for p in c})
    rows = ["| system | " + " | ".join(f"K = {k}" for k in ks) + " | K = 10: most uncertain first / random / "
            "unadapted |", "|---|" + "---|" * (len(ks) + 1)]
    for name, label in _systems(doc):
        curve = {p["k"]: p for p in doc["learning_curve"].get(name, [])}
        cells = [_cell(curve[k]["metrics"]["step@1"]) if k in curve else "-" for k in ks]
        al = doc.get("active_learning", {}).get(name)
        extra = (f"{100 * al['active']:.1f}% / {100 * al['random']:.1f}% / {100 * al['unadapted']:.1f}%"
                 if al else "-")
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {extra} |")
    return "\n".join(rows)


def calibration(doc: dict[str, Any]) -> str:
    """How the reported probability of the decisive step matches nested step@1."""
    rows = ["| system | mean reported probability | nested step@1 | calibration error | Brier |", "|---|---|---|---|---|"]
    for name, label in _systems(doc):
        c = _result(doc, name, "nested").get("calibration")
        if c:
            rows.append(f"| {label} | {c['mean_confidence']:.2f} | {c['step@1']:.2f} | {c['ece']:.2f} | "
                        f"{c['brier']:.3f} |")
    return "\n".join(rows)


def ablation(doc: dict[str, Any]) -> str:
    """Each column's nested contribution (points of step@1 lost without it)."""
    table = doc.get("ablation") or {}
    names = [n for n in SETS if any(n in row for row in table.values())]
    rows = ["| column left out | " + " | ".join(SETS[n] for n in names) + " |", "|---|" + "---|" * len(names)]
    for col, row in table.items():
        rows.append(f"| `{col}` | " + " | ".join(f"{row[n]:+.1f}" if n in row else "·" for n in names) + " |")
    return "\n".join(rows)


def _rate(r: dict[str, Any]) -> str:
    return f"{100 * r['p']:.1f}% [{100 * r['lo']:.0f}–{100 * r['hi']:.0f}] ({r['k']}/{r['n']})"


def category(doc: dict[str, Any]) -> str:
    """The category chooser at the labelled step: nested, before the selection, constants, random."""
    rows = ["| system | nested | before the selection | most frequent on the training systems | "
            "best single category (chosen on this system) | random | chosen without this system |",
            "|---|---|---|---|---|---|---|"]
    for name, label in SETS.items():
        row = (doc.get("category") or {}).get(name)
        if row is None:
            continue
        p = row["chosen_without"]["params"]
        rules = [r for r, on in (("claims > " + str(p["claims_threshold"]), p["claims_threshold"] is not None),
                                 ("structural defaults", p["structural_defaults"]),
                                 ("error-output rule", p["error_output_rule"])) if on]
        rows.append(f"| {label} | **{_rate(row['nested'])}** | {_rate(row['pre_selection'])} | "
                    f"{_rate(row['training_constant'])} ({row['training_constant']['category']}) | "
                    f"{_rate(row['best_constant'])} ({row['best_constant']['category']}) | "
                    f"{100 * row['random']:.0f}% | neighbour weight {p['neighbour_weight']:g}; "
                    f"{', '.join(rules) or 'no rules'} |")
    return "\n".join(rows)


TABLES = {"category": category, "headline": headline, "secondary": secondary, "agents": agents, "selections": selections,
          "positions": positions, "adaptation": adaptation, "calibration": calibration, "ablation": ablation}


def main(argv: list[str]) -> int:
    """Rewrite every marked table of the document."""
    suite = Path(argv[0] if argv else "docs/eval/suite.json")
    target = Path(argv[1] if len(argv) > 1 else "docs/attribution.md")
    doc = json.loads(suite.read_text(encoding="utf-8"))
    text = target.read_text(encoding="utf-8")
    for name, fn in TABLES.items():
        pattern = re.compile(rf"(<!-- table:{name} -->\n)(?:.*?\n)?(<!-- /table:{name} -->)", re.S)
        text, n = pattern.subn(lambda m, fn=fn: m.group(1) + fn(doc) + "\n" + m.group(2), text)
        if not n:
            print(f"note: no <!-- table:{name} --> marker in {target}", file=sys.stderr)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
