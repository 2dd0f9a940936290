"""Risky action combinations: cumulative risk across steps from a YAML rule set.

Single steps may each be harmless while their combination is an unauthorised operation:
a permission change, then a download from an external address, then running it; reading a
secret, then sending data over the network; a destructive command on a path outside the
task's scope. The rules (ordered stages of step patterns) live in ``risk_rules.yaml`` next to
this module; the format is documented at its top and in ``docs/detectors.md``.

Extending: a plugin ships its own YAML of the same shape and declares a detector built with
:meth:`RiskyCombination.with_files`; files listed in ``ctx.settings["risk_rule_files"]`` or
in the ``TRAJSCOPE_RISK_RULES`` environment variable (``os.pathsep``-separated) are added to
the built-in rules of this detector. A rule id given again replaces the earlier rule.

Findings: category ``other`` (no taxonomy category is about safety), source
``risky_combination``, on the step that completes the combination, evidence span from its
first stage. Per step ``risk_cum``; per run ``risk_score``, ``risk_rules``,
``risk_predictable_step``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import quote
from analyzer.errors import PluginError
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.run import SIGNALS_PHASE, SignalOutput
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category
from plugins.detectors._signals import action_text

SOURCE = "risky_combination"
RULES_FILE = Path(__file__).with_name("risk_rules.yaml")
ENV_VAR = "TRAJSCOPE_RISK_RULES"
DEFAULT_WINDOW = 30
_PATH_RE = re.compile(r"(?<![\w.])(?:~|\.\.|/)[\w./~-]*")
SCRATCH = ("/tmp", "/var/tmp")
"""Scratch folders a destructive command may touch without leaving the task's scope."""


@dataclass(frozen=True)
class Pattern:
    """A step pattern: a regex over what a decision step runs, optionally scope-checked."""

    id: str
    regex: re.Pattern[str]
    outside_scope: bool = False
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """An ordered combination of step patterns and the risk once it is complete."""

    id: str
    title: str
    stages: tuple[str, ...]
    weight: float
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True)
class RuleSet:
    """Patterns and rules of one or more YAML files."""

    patterns: dict[str, Pattern]
    rules: tuple[Rule, ...]


def _fail(path: Path, where: str, reason: str) -> PluginError:
    return PluginError(f"{path}: {where}: {reason}")


def parse_rules(data: Any, path: Path, base: RuleSet | None = None) -> RuleSet:
    """Validate a parsed YAML rule file and merge it over ``base``.

    Raises:
        PluginError: Naming the file, the entry and what is wrong with it.
    """
    if not isinstance(data, dict):
        raise _fail(path, "top level", "expected a mapping with 'patterns' and 'rules'")
    patterns = dict(base.patterns) if base else {}
    for pid, spec in (data.get("patterns") or {}).items():
        if not isinstance(spec, dict) or not isinstance(spec.get("regex"), str):
            raise _fail(path, f"pattern '{pid}'", "needs a 'regex' string")
        try:
            rx = re.compile(spec["regex"], re.IGNORECASE | re.MULTILINE)
        except re.error as exc:
            raise _fail(path, f"pattern '{pid}'", f"bad regex ({exc})") from exc
        scope = spec.get("scope")
        if scope not in (None, "outside"):
            raise _fail(path, f"pattern '{pid}'", f"scope must be 'outside', not {scope!r}")
        if scope and "path" not in rx.groupindex:
            raise _fail(path, f"pattern '{pid}'", "scope: outside needs a (?P<path>...) group")
        words = spec.get("keywords") or []
        if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
            raise _fail(path, f"pattern '{pid}'", "keywords must be a list of non-empty strings")
        patterns[str(pid)] = Pattern(str(pid), rx, scope == "outside", tuple(w.lower() for w in words))
    rules = {r.id: r for r in (base.rules if base else ())}
    for i, spec in enumerate(data.get("rules") or []):
        where = f"rule {i + 1}"
        if not isinstance(spec, dict) or not spec.get("id"):
            raise _fail(path, where, "needs an 'id'")
        stages = spec.get("stages")
        if not isinstance(stages, list) or not stages:
            raise _fail(path, f"rule '{spec['id']}'", "needs a non-empty 'stages' list")
        missing = [s for s in stages if s not in patterns]
        if missing:
            raise _fail(path, f"rule '{spec['id']}'", f"unknown pattern(s) {missing}")
        weight = spec.get("weight", 0.5)
        if not isinstance(weight, (int, float)) or not 0 < weight <= 1:
            raise _fail(path, f"rule '{spec['id']}'", f"weight must be in (0, 1], not {weight!r}")
        window = spec.get("window", DEFAULT_WINDOW)
        if not isinstance(window, int) or window < 1:
            raise _fail(path, f"rule '{spec['id']}'", f"window must be a positive integer, not {window!r}")
        rid = str(spec["id"])
        rules[rid] = Rule(rid, str(spec.get("title") or rid), tuple(map(str, stages)), float(weight), window)
    return RuleSet(patterns, tuple(rules.values()))


@lru_cache(maxsize=16)
def load_rules(paths: tuple[Path, ...] = (RULES_FILE,)) -> RuleSet:
    """The rule set of YAML files, later files extending/overriding earlier ones.

    Raises:
        PluginError: For an unreadable file or a bad entry (file and entry named).
    """
    rs: RuleSet | None = None
    for p in paths:
        try:
            data = yaml.safe_load(p.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise PluginError(f"{p}: cannot read risk rules ({exc})") from exc
        rs = parse_rules(data, p, rs)
    return rs or RuleSet({}, ())


def task_paths(task: str) -> list[str]:
    """Paths the task statement names (its scope)."""
    return [m.group(0).rstrip(".,;:") for m in _PATH_RE.finditer(task) if len(m.group(0)) > 1]


def outside_scope(path: str, scope: Sequence[str]) -> bool:
    """True when a path is absolute/home/parent-relative and under none of the task's paths or scratch dirs."""
    p = path.strip("'\"")
    if not p or not p.startswith(("/", "~", "..")):
        return False  # relative paths stay in the working directory
    return not any(p == s or p.startswith(s.rstrip("/") + "/") for s in (*scope, *SCRATCH))


def _matches(pat: Pattern, text: str, low: str, scope: Sequence[str]) -> bool:
    if pat.keywords and not any(k in low for k in pat.keywords):
        return False  # none of the pattern's literals occurs: skip the regex
    for m in pat.regex.finditer(text):
        if not pat.outside_scope or outside_scope(m.group("path") or "", scope):
            return True
    return False


class RiskyCombination:
    """The risky-combination signal detector (one rule set)."""

    phase = SIGNALS_PHASE

    def __init__(self, files: Iterable[Path] = (RULES_FILE,)) -> None:
        self.files = tuple(Path(f) for f in files)

    @classmethod
    def with_files(cls, *extra: str | Path) -> RiskyCombination:
        """A detector with the built-in rules extended by a plugin's own YAML files."""
        return cls((RULES_FILE, *(Path(e) for e in extra)))

    def rules(self, ctx: DetectionContext) -> RuleSet:
        """The rule set: this detector's files, then the settings' and the environment's."""
        extra = [Path(p) for p in ctx.settings.get("risk_rule_files", ())]
        extra += [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
        return load_rules((*self.files, *extra))

    def __call__(self, trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
        """Findings only."""
        return self.analyse(trajectory, ctx).findings

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Cumulative risk per step, completed combinations and when they became predictable."""
        rs = self.rules(ctx)
        scope = task_paths(trajectory.task)
        steps = trajectory.steps
        t = columns_of(table_for(trajectory, ctx))
        progress: dict[str, list[int]] = {r.id: [] for r in rs.rules}
        decision_no: dict[int, int] = {}
        done: dict[str, tuple[int, ...]] = {}
        risk: list[float] = []
        cur = 0.0
        for s in steps:
            if t["acting"][s.index]:
                decision_no[s.index] = len(decision_no)
                text = action_text(s)
                low = text.lower()
                hits = {pid for pid, pat in rs.patterns.items() if _matches(pat, text, low, scope)}
                for r in rs.rules:
                    if r.id in done or not hits:
                        continue
                    seen = progress[r.id]
                    if seen and decision_no[s.index] - decision_no[seen[0]] > r.window:
                        seen.clear()  # too far apart to be one operation: start again
                    if r.stages[len(seen)] in hits and (not seen or seen[-1] < s.index):
                        seen.append(s.index)
                    elif seen and r.stages[0] in hits and len(seen) == 1:
                        seen[0] = s.index  # a fresher first stage keeps the window open
                    if len(seen) == len(r.stages):
                        done[r.id] = tuple(seen)
                keep = 1.0
                for r in rs.rules:
                    n_seen = len(r.stages) if r.id in done else len(progress[r.id])
                    keep *= 1.0 - r.weight * (n_seen / len(r.stages)) ** 2
                cur = max(cur, round(1.0 - keep, 4))
            risk.append(cur)
        findings: list[Finding] = []
        predictable: list[int] = []
        by_id = {r.id: r for r in rs.rules}
        for rid, seq in sorted(done.items(), key=lambda kv: kv[1][-1]):
            r = by_id[rid]
            pred = seq[-2] if len(seq) > 1 else seq[-1]
            predictable.append(pred)
            chain = " -> ".join(f"{st} (step {i})" for st, i in zip(r.stages, seq, strict=True))
            findings.append(make_finding(
                trajectory, seq[-1], Category.OTHER, r.weight, SOURCE,
                f"risky combination '{rid}': {r.title}: {chain}; predictable from step {pred}",
                evidence=(seq[0], seq[-1]), evidence_quote=quote(action_text(steps[seq[-1]]), 160)))
        return SignalOutput(
            findings=findings,
            step_values={"risk_cum": risk},
            run_values={"risk_score": max(risk, default=0.0), "risk_rules": ";".join(sorted(done)) or None,
                        "risk_predictable_step": min(predictable) if predictable else None},
        )



