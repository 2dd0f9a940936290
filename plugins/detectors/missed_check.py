"""Where a check would have caught it: the earliest step after a cheap check would have failed.

The step is the earliest one after which a cheap verification would have shown that a
failed run had diverged.

Four kinds of cheap check, each looked for in a failed run (outcome ``failure``):

* ``test_run``: a change (file edit/write, patch) that no test or run of the changed code
  followed before the run ended: running the tests right after it would have exercised the
  change. The earliest change after the last test run is the step.
* ``count_vs_plan``: the task or the agent's plan states a count ("1,000 rows", "10 files")
  and a later tool output reports a different count of the same unit ("900 rows"); a check
  of the count against the plan right after that output would have shown it.
* ``reread_constraints``: the task forbids something ("do not modify tests.py", "without
  using pandas") and a decision step does it; re-reading the task's constraints after that
  step would have shown the violation.
* ``result_exists``: the agent claims a result (a file written/saved/created, or success)
  that no tool output shows (the path appears in no successful observation, or the claim
  follows an error output); checking that the claimed result exists would have shown it.

The failure is taken to be the run's last step (where the failed result was handed in), so
``check_lead`` = last step - ``check_step``. Findings: category ``false_success`` (MAST 3.2/3.3,
no or incomplete verification), source ``missed_check``, on the check step; only the earliest
check per kind is reported. Runs that did not fail get no finding and null columns.
"""

from __future__ import annotations

import re
from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import DONE_RE, RESULT_CLAIM_RE, quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Step, Trajectory
from analyzer.signals.run import SignalDetector, SignalOutput
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category
from plugins.detectors._signals import EDIT_RE, action_text, observation_after, prose

SOURCE = "missed_check"
KINDS = ("test_run", "count_vs_plan", "reread_constraints", "result_exists")
SCORES = {"test_run": 0.5, "count_vs_plan": 0.65, "reread_constraints": 0.6, "result_exists": 0.55}

CODE_EDIT_RE = re.compile(
    r"\b(?:sed\s+-i|apply_patch|git\s+apply|patch\s+-p|str_replace(?:_editor)?|edit_file|write_file|create_file|"
    r"cat\s*>+\s*\S+|tee\s+\S+|echo\s[^\n]*>+\s*\S+|open\([^)]*['\"][wa]\+?['\"]|write_text\()",
    re.IGNORECASE)
"""Changes to files (code, config): what a test run after them would exercise."""
TEST_RE = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|npm\s+(?:run\s+)?test|yarn\s+test|make\s+(?:test|check)|"
    r"go\s+test|cargo\s+test|mvn\s+test|gradle\s+test|ctest|python3?\s+[\w./-]*(?:test|repro|reproduce)\w*\.py)\b",
    re.IGNORECASE)
_UNIT = (r"rows?|records?|lines?|files?|items?|entries|entry|results?|tests?|users?|pages?|columns?|"
         r"images?|documents?|samples?|elements?|products?|papers?|articles?|books?|words?|characters?")
COUNT_RE = re.compile(rf"(?<![\w.])(\d{{1,3}}(?:,\d{{3}})+|\d+)\s+({_UNIT})\b", re.IGNORECASE)
FORBID_RE = re.compile(
    r"\b(?:do not|don't|never|must not|without|avoid)\s+(use|using|modify|modifying|touch|touching|edit|editing|"
    r"change|changing|call|calling|delete|deleting|import|importing|install|installing)\s+(?:the\s+|any\s+)?"
    r"([\w][\w./-]{2,})", re.IGNORECASE)
_CHANGE_VERBS = ("modif", "touch", "edit", "chang", "delet")  # violated only by a step that changes files
_PATH_RE = re.compile(r"(?<![\w/])((?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,5})\b")
_WROTE_WORDS = ("saved", "written", "wrote", "created", "generated", "exported", "stored", "produced")
WROTE_RE = re.compile(r"\b(?:saved|written|wrote|created|generated|exported|stored|produced)\b", re.IGNORECASE)


def _unit(u: str) -> str:
    u = u.lower()
    return "entry" if u == "entries" else u.rstrip("s")


def _counts(text: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for m in COUNT_RE.finditer(text[:20000]):
        out.setdefault(_unit(m.group(2)), set()).add(int(m.group(1).replace(",", "")))
    return out


def _test_run(steps: list[Step], t: dict[str, list[Any]]) -> tuple[int, str] | None:
    last_test = -1
    edits: list[int] = []
    for s in steps:
        if not t["acting"][s.index]:
            continue
        text = action_text(s)
        if TEST_RE.search(text):
            last_test = s.index
        if CODE_EDIT_RE.search(text):
            edits.append(s.index)
    after = [i for i in edits if i > last_test]
    if not after:
        return None
    return after[0], f"step {after[0]} changes the code and no test ran after it"


def _count_vs_plan(run: Trajectory, t: dict[str, list[Any]]) -> tuple[int, str] | None:
    plan = _counts(run.task)
    for s in run.steps:  # the plan: the task, and what the agent said before the first tool output
        if t["observation"][s.index]:
            break
        if t["decision"][s.index]:
            for u, ns in _counts(prose(s.text)).items():
                plan.setdefault(u, set()).update(ns)
    if not plan:
        return None
    for s in run.steps:
        if not t["observation"][s.index]:
            continue
        for u, got in _counts(s.text).items():
            want = plan.get(u)
            if want and not (got & want):
                g, w = min(got), max(want)
                return s.index, f"the plan says {w:,} {u}s but step {s.index}'s output reports {g:,}"
    return None


def _reread_constraints(run: Trajectory, t: dict[str, list[Any]]) -> tuple[int, str] | None:
    banned: dict[str, bool] = {}  # object -> forbidden only to change (True) or to use at all (False)
    for m in FORBID_RE.finditer(run.task):
        obj = m.group(2).lower().rstrip(".,;")
        if len(obj) >= 3:
            banned[obj] = banned.get(obj, True) and m.group(1).lower().startswith(_CHANGE_VERBS)
    if not banned:
        return None
    for s in run.steps:
        if not t["acting"][s.index]:
            continue
        raw = action_text(s)
        text = raw.lower()
        changes = bool(EDIT_RE.search(raw))
        for b, change_only in sorted(banned.items()):
            if change_only and not changes:
                continue
            if re.search(rf"(?<![\w]){re.escape(b)}(?![\w])", text):
                how = "changes" if change_only else "uses"
                return s.index, f"the task forbids {'changing' if change_only else 'using'} '{b}' and step {s.index} {how} it"
    return None


def _result_exists(steps: list[Step], t: dict[str, list[Any]]) -> tuple[int, str] | None:
    shown = "\n".join(o.text[:20000] for o in steps if t["observation"][o.index] and not o.is_error)
    for s in steps:
        if not t["decision"][s.index] or t["acting"][s.index]:
            continue
        said = prose(s.text)
        low = said.lower()
        if any(w in low for w in _WROTE_WORDS) and WROTE_RE.search(said):
            for m in _PATH_RE.finditer(said):
                path = m.group(1)
                if path.lower().startswith(("e.g", "i.e")) or path in shown:
                    continue
                return s.index, f"step {s.index} says '{path}' was produced, and no tool output shows it"
        prev = next((o for o in reversed(steps[:s.index]) if t["observation"][o.index]), None)
        if prev is not None and prev.is_error and (RESULT_CLAIM_RE.search(said) or DONE_RE.search(said)):
            return s.index, f"step {s.index} claims a result right after an error output (step {prev.index})"
    return None


class MissedCheck(SignalDetector):
    """The "where a check would have caught it" signal detector."""

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Earliest check per kind on a failed run; the run columns name the earliest of all."""
        n = len(trajectory.steps)
        points: list[str | None] = [None] * n
        if trajectory.outcome != Outcome.FAILURE or n == 0:
            return SignalOutput(step_values={"check_point": points})
        steps = trajectory.steps
        t = columns_of(table_for(trajectory, ctx))
        found = {
            "test_run": _test_run(steps, t),
            "count_vs_plan": _count_vs_plan(trajectory, t),
            "reread_constraints": _reread_constraints(trajectory, t),
            "result_exists": _result_exists(steps, t),
        }
        hits = sorted(((v[0], k, v[1]) for k, v in found.items() if v is not None),
                      key=lambda x: (x[0], KINDS.index(x[1])))
        findings: list[Finding] = []
        last = n - 1
        for step, kind, why in hits:
            obs = observation_after(steps, step, t)
            end = obs.index if obs is not None else step
            findings.append(make_finding(
                trajectory, step, Category.FALSE_SUCCESS, SCORES[kind], SOURCE,
                f"a {kind.replace('_', ' ')} check after step {step} would have shown the divergence "
                f"{last - step} step(s) before the failure: {why}",
                evidence=(step, end), evidence_quote=quote(steps[step].text, 160)))
        run: dict[str, object] = {}
        if hits:
            step, kind, _ = hits[0]
            points[step] = kind
            run = {"check_step": step, "check_kind": kind, "check_lead": last - step}
        return SignalOutput(findings=findings, step_values={"check_point": points}, run_values=run)
