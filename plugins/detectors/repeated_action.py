"""Repeated action: the same (or a near-duplicate) action repeated in a window without progress.

Actions are compared by their signature (tool name + arguments, or the code a step runs):
identical, word 3-gram overlap >= 85%, or the same call with only numbers changed (a
guessing loop; it counts only when the output did not change either, so pagination does
not). Long agent messages are compared by their word 3-gram overlap. A repeat whose following
observation also repeats (no progress) scores higher. A step that logs the prompt the model was
given (it carries an output-format template, :func:`~analyzer.detection.text.echoes_prompt`) is
not compared: its repeats are the system re-sending the prompt, not the agent repeating itself.
"""

from __future__ import annotations

import re
from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import is_termination_only, jaccard, quote, shingles, squash
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "repeated_action"
WINDOW = 8  # decision steps looked back
NEAR = 0.85  # 3-gram Jaccard for near-duplicate actions
NEAR_MESSAGE = 0.9  # for plain messages (stricter)
MIN_MESSAGE_CHARS = 80
_TOKEN_RE = re.compile(r"[A-Za-z_]+|\d+(?:\.\d+)?")
_NUM_TOKEN_RE = re.compile(r"\d+(?:\.\d+)?")
SWEEP_SIM = 0.9  # similarity given to "same call, only one number changed" (a guessing loop)


def _similarity(a: str, b: str, sha: set[str], shb: set[str]) -> tuple[float, bool]:
    """Similarity of two signatures, and whether only one number differs (a sweep)."""
    if a == b:
        return 1.0, False
    sim = jaccard(sha, shb)
    ta, tb = _TOKEN_RE.findall(a), _TOKEN_RE.findall(b)
    if len(ta) == len(tb) and len(ta) >= 2:
        diff = [(x, y) for x, y in zip(ta, tb, strict=True) if x != y]
        if diff and all(_NUM_TOKEN_RE.fullmatch(v) for pair in diff for v in pair):
            return max(sim, SWEEP_SIM), True
    return sim, False


def _no_progress(steps: list[Step], i: int, j: int, t: dict[str, list[Any]]) -> bool:
    """True when the outputs following decisions ``i`` and ``j`` (the table's ``next_observation``) are near-identical."""
    k1, k2 = t["next_observation"][i], t["next_observation"][j]
    o1, o2 = (steps[k1] if k1 is not None else None), (steps[k2] if k2 is not None else None)
    return (o1 is not None and o2 is not None
            and jaccard(shingles(o1.text[:4000]), shingles(o2.text[:4000])) >= 0.8)


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on steps that repeat an earlier action in the window."""
    steps = trajectory.steps
    t = columns_of(table_for(trajectory, ctx))
    seen: list[tuple[int, str, set[str], bool]] = []  # (index, signature, shingles, is_action)
    out: list[Finding] = []
    flagged: set[int] = set()
    for s in steps:
        if not t["decision"][s.index] or is_termination_only(s.text) or t["echoes_prompt"][s.index]:
            continue
        sig = t["action_signature"][s.index]
        is_action = sig is not None
        if sig is None:
            if len(s.text) < MIN_MESSAGE_CHARS:
                continue
            sig = squash(s.text)
        sh = shingles(sig)
        best: tuple[float, int, bool] | None = None
        for j, psig, psh, p_action in seen[-WINDOW:]:
            if p_action != is_action:
                continue
            sim, sweep = _similarity(sig, psig, sh, psh)
            if sweep and not _no_progress(steps, j, s.index, t):
                continue  # pagination and the like: one number changes and so does the output
            if sim >= (NEAR if is_action else NEAR_MESSAGE) and (best is None or sim > best[0]):
                best = (sim, j, sweep)
        seen.append((s.index, sig, sh, is_action))
        if best is None or s.index in flagged:
            continue
        sim, j, _sweep = best
        exact = sim >= 0.999
        score = (0.75 if exact else 0.55) if is_action else (0.6 if exact else 0.45)
        no_progress = _no_progress(steps, j, s.index, t)
        if no_progress:
            score += 0.15
        what = "action" if is_action else "message"
        how = "the same" if exact else f"a near-duplicate ({sim:.0%} overlap) of the"
        tail = "; the output did not change" if no_progress else ""
        out.append(make_finding(trajectory, s.index, Category.REPEATED_ACTION, score, SOURCE,
                                f"step {s.index} repeats {how} {what} of step {j}{tail}",
                                evidence=(j, s.index), evidence_quote=quote(sig, 160)))
        flagged.add(s.index)
    return out
