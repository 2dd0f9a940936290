"""Evidence-to-action gap: a relevant observation is followed by steps that ignore it.

An observation that matches the task well (embedding cosine, else task-word coverage) and
brings distinctive items (numbers, names, quoted strings found in no other step) is
"ignored" when almost none of those items show up in the later agent steps or the final
answer. The finding points at the first later agent step that states facts (numbers or
names) without using the observation, else at the next agent decision, with the
observation as evidence.
"""

from __future__ import annotations

from analyzer.detection.helpers import make_finding, step_alignment
from analyzer.detection.text import (
    containment,
    content_words,
    entities,
    quote,
    significant_numbers,
    strip_code,
)
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "evidence_action_gap"
MIN_ITEMS = 3
MAX_ITEMS = 60
EMB_RELEVANT = 0.45
LEX_RELEVANT = 0.35


def _states_facts(s: Step) -> bool:
    prose = strip_code(s.text)
    return len(significant_numbers(prose)) >= 2 or len(entities(prose)) >= 6


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on the agent steps that ignore a relevant observation."""
    steps = trajectory.steps
    t = columns_of(table_for(trajectory, ctx))
    align, from_emb = step_alignment(trajectory, ctx)
    task_words = content_words(trajectory.task)
    step_items = [entities(s.text[:20000]) for s in steps]
    later_text: list[str] = [""] * (len(steps) + 1)
    acc = (trajectory.final_answer or "").lower()
    for i in range(len(steps) - 1, -1, -1):
        if t["decision"][steps[i].index]:
            acc = f"{steps[i].text[:20000]}\n{steps[i].tool_args or ''}".lower() + "\n" + acc
        later_text[i] = acc
    known = entities(trajectory.task)
    out: list[Finding] = []
    flagged: set[int] = set()
    for o in steps:
        if not t["observation"][o.index] or o.is_error or len(o.text) < 20:
            known |= step_items[o.index]
            continue
        rel = align[o.index] if from_emb else containment(task_words, content_words(o.text))
        others: set[str] = set()
        for j, s in enumerate(steps):
            if j != o.index and t["observation"][s.index]:
                others |= step_items[j]
        items = sorted(step_items[o.index] - known - others)[:MAX_ITEMS]
        known |= step_items[o.index]
        if rel < (EMB_RELEVANT if from_emb else LEX_RELEVANT) or len(items) < MIN_ITEMS:
            continue
        rest = later_text[o.index + 1]
        used = sum(1 for it in items if it in rest)
        if used > 1 or used / len(items) > 0.1:
            continue
        later = [s for s in steps[o.index + 1:] if t["decision"][s.index]]
        target = next((s for s in later if _states_facts(s)), later[0] if later else None)
        if target is None or target.index in flagged:
            continue
        score = min(0.85, 0.45 + (rel - (EMB_RELEVANT if from_emb else LEX_RELEVANT)) + 0.02 * len(items))
        flagged.add(target.index)
        out.append(make_finding(
            trajectory, target.index, Category.EVIDENCE_ACTION_GAP, score, SOURCE,
            f"step {o.index} returned task-relevant output ({len(items)} distinctive items, e.g. "
            f"{', '.join(items[:3])}) that step {target.index} and every later step ignore",
            evidence=(o.index, target.index), evidence_quote=quote(o.text, 160)))
    return out
