"""Causal chains: the decisive failure of a run, what followed from it, and how the run ended.

Per failed run, :func:`causal_chain` links the findings into primary → secondary → tertiary:

* **primary**: the decisive step and its category, with the evidence of the strongest finding
  on that step (else the run's rationale, else the step's text);
* a later finding **follows from** a cause when (rules checked in this order):
  1. ``evidence``: its evidence span starts at or before the cause's step (the detector itself
     points back at it);
  2. ``consequence``: its category is a typical consequence of the cause's category
     (:data:`CONSEQUENCES`, e.g. an environment failure → a failed recovery or an invented
     result) and it lies within :data:`WINDOW` steps;
  3. ``persists``: it has the cause's category and lies within :data:`WINDOW` steps.
  Only findings with a score of at least :data:`MIN_SCORE` that the analyst did not reject
  count, one per step (the strongest).
* **secondary**: the earliest finding that follows from the primary; **tertiary**: up to
  :data:`MAX_TERTIARY` later findings that follow from the secondary (or, failing that, from the
  primary). Every link carries the rule that made it and its evidence.

**Impact** of the primary failure:

* ``stopped``: the run ends within :data:`STOP_GAP` steps of the chain's last step, or its
  last step is an error;
* ``recovered`` (contained and recovered): nothing follows from the primary, and after it the
  value curve climbs back at least :data:`RECOVERY_RISE` above its lowest point after the
  primary (or, without a value curve, the rest of the run has no error step);
* ``degraded``: otherwise: the run went on carrying the consequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

WINDOW = 8
MIN_SCORE = 0.3
MAX_TERTIARY = 2
STOP_GAP = 2
RECOVERY_RISE = 0.15
EVIDENCE_CHARS = 200

CONSEQUENCES: dict[str, frozenset[str]] = {
    "environment_failure": frozenset({"failed_recovery", "hallucination", "false_success", "repeated_action",
                                      "error_accumulation"}),
    "failed_recovery": frozenset({"repeated_action", "false_success", "hallucination", "error_accumulation"}),
    "planning_error": frozenset({"error_accumulation", "goal_drift", "repeated_action", "false_success",
                                 "evidence_action_gap"}),
    "hallucination": frozenset({"error_accumulation", "false_success", "evidence_action_gap"}),
    "evidence_action_gap": frozenset({"false_success", "error_accumulation", "hallucination", "goal_drift"}),
    "repeated_action": frozenset({"false_success", "failed_recovery", "goal_drift"}),
    "goal_drift": frozenset({"false_success", "hallucination", "error_accumulation"}),
    "error_accumulation": frozenset({"false_success", "hallucination"}),
    "false_success": frozenset(),
    "other": frozenset({"false_success"}),
}
"""Cause category -> categories that typically follow from it (TAXONOMY.md's vocabulary)."""

IMPACTS = ("stopped", "degraded", "recovered")


@dataclass(frozen=True)
class ChainLink:
    """One arrow of a causal chain.

    Attributes:
        source: Step of the cause.
        target: Step of the effect.
        source_category: Category of the cause.
        target_category: Category of the effect.
        level: ``secondary`` or ``tertiary``.
        rule: ``evidence``, ``consequence`` or ``persists`` (see the module docstring).
        evidence: Quote or rationale of the effect's finding (clipped).
    """

    source: int
    target: int
    source_category: str
    target_category: str
    level: str
    rule: str
    evidence: str


@dataclass(frozen=True)
class CausalChain:
    """The causal chain of one failed run.

    Attributes:
        trace_id: Run id.
        primary_step: The decisive step.
        primary_category: Its category.
        primary_evidence: Evidence of the primary failure.
        links: Secondary and tertiary links, in step order.
        impact: ``stopped``, ``degraded`` or ``recovered``.
        impact_reason: Why (English; steps named).
    """

    trace_id: str
    primary_step: int
    primary_category: str
    primary_evidence: str
    links: tuple[ChainLink, ...]
    impact: str
    impact_reason: str

    def steps(self) -> list[int]:
        """The chain's steps: primary first, then each effect."""
        return [self.primary_step, *(link.target for link in self.links)]


def _clip(text: Any) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= EVIDENCE_CHARS else s[:EVIDENCE_CHARS - 1] + "…"


def _follows(cause_step: int, cause_cat: str, f: dict[str, Any]) -> str | None:
    step = int(f["step"])
    if step <= cause_step:
        return None
    start = f.get("evidence_start")
    if start is not None and int(start) <= cause_step:
        return "evidence"
    near = step - cause_step <= WINDOW
    if near and f["category"] in CONSEQUENCES.get(cause_cat, frozenset()):
        return "consequence"
    if near and f["category"] == cause_cat:
        return "persists"
    return None


def causal_chain(trace_id: str, decisive_step: int, category: str | None, steps: pl.DataFrame,
                 findings: pl.DataFrame, values: pl.DataFrame | None = None,
                 rationale: str | None = None) -> CausalChain:
    """The causal chain of one failed run (see the module docstring for the rules).

    Args:
        trace_id: Run id.
        decisive_step: The run's decisive step (the primary failure).
        category: Its category (None: ``other``).
        steps: The run's steps (``step``, ``text``, ``is_error``).
        findings: The run's findings (FINDING_COLUMNS).
        values: The run's step values (``step``, ``value``), or None.
        rationale: The run's rationale (evidence of the primary when no finding is on its step).

    Returns:
        The chain.
    """
    primary_cat = category or "other"
    rows = [r for r in findings.iter_rows(named=True)
            if r.get("step") is not None and (r.get("status") or "suggested") != "rejected"
            and float(r.get("score") or 0.0) >= MIN_SCORE and r.get("category")]
    on_primary = sorted((r for r in rows if int(r["step"]) == decisive_step), key=lambda r: -float(r["score"] or 0))
    step_text = {int(s): t for s, t in zip(steps["step"].to_list(), steps["text"].to_list(), strict=True)} \
        if steps.height else {}
    if on_primary:
        primary_evidence = _clip(on_primary[0].get("evidence_quote") or on_primary[0].get("rationale"))
    else:
        primary_evidence = _clip(rationale or step_text.get(decisive_step, ""))
    best: dict[int, dict[str, Any]] = {}
    for r in rows:
        s = int(r["step"])
        if s > decisive_step and (s not in best or float(r["score"] or 0) > float(best[s]["score"] or 0)):
            best[s] = r
    later = [best[s] for s in sorted(best)]
    links: list[ChainLink] = []
    secondary = None
    for f in later:
        rule = _follows(decisive_step, primary_cat, f)
        if rule:
            secondary = f
            links.append(ChainLink(decisive_step, int(f["step"]), primary_cat, str(f["category"]), "secondary", rule,
                                   _clip(f.get("evidence_quote") or f.get("rationale"))))
            break
    if secondary is not None:
        s2, c2 = int(secondary["step"]), str(secondary["category"])
        for f in later:
            if len(links) > MAX_TERTIARY or int(f["step"]) <= s2:
                continue
            rule, src, src_cat = _follows(s2, c2, f), s2, c2
            if rule is None:
                rule, src, src_cat = _follows(decisive_step, primary_cat, f), decisive_step, primary_cat
            if rule:
                links.append(ChainLink(src, int(f["step"]), src_cat, str(f["category"]), "tertiary", rule,
                                       _clip(f.get("evidence_quote") or f.get("rationale"))))
    impact, reason = _impact(decisive_step, links, steps, values)
    return CausalChain(trace_id, decisive_step, primary_cat, primary_evidence, tuple(links), impact, reason)


def _impact(primary: int, links: list[ChainLink], steps: pl.DataFrame,
            values: pl.DataFrame | None) -> tuple[str, str]:
    last_step = int(steps["step"].max()) if steps.height else primary  # type: ignore[arg-type]
    end = links[-1].target if links else primary
    errors = steps.filter(pl.col("is_error").fill_null(False))["step"].to_list() if steps.height else []
    if last_step in errors:
        return "stopped", f"the run ends on an error at step {last_step}"
    if last_step - end <= STOP_GAP:
        return "stopped", f"the run ends at step {last_step}, {last_step - end} step(s) after step {end}"
    if not links:
        after = values.filter(pl.col("step") >= primary).sort("step") if values is not None and values.height else None
        vals = [v for v in (after["value"].to_list() if after is not None else []) if v is not None]
        if vals:
            low = min(vals)
            rise = vals[-1] - low
            if rise >= RECOVERY_RISE:
                return "recovered", f"nothing follows from step {primary}; the value climbs back by {rise:.2f}"
        elif not [e for e in errors if e > primary]:
            return "recovered", f"nothing follows from step {primary} and no later step is an error"
    return "degraded", f"the run goes on for {last_step - end} step(s) after step {end} carrying the failure"


def run_chain(trace_id: str, runs: pl.DataFrame, steps: pl.DataFrame, findings: pl.DataFrame,
              step_values: pl.DataFrame | None = None) -> CausalChain | None:
    """The chain of one run from the analysis frames (None when it has no decisive step)."""
    row = runs.filter(pl.col("trace_id") == trace_id)
    if row.height == 0 or row["decisive_step"][0] is None:
        return None
    r = row.row(-1, named=True)
    st = steps.filter(pl.col("trace_id") == trace_id).sort("step")
    fs = findings.filter(pl.col("trace_id") == trace_id)
    vs = step_values.filter(pl.col("trace_id") == trace_id) if step_values is not None else None
    return causal_chain(trace_id, int(r["decisive_step"]), r.get("category"), st, fs, vs, r.get("rationale"))
