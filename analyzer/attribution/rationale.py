"""Rationale of a failed run's decisive step, written from the evidence in the trace.

:func:`explain` says what went wrong at the decisive step in the taxonomy's terms, quotes the
evidence verbatim (one line of trace text, at most 200 characters: see
:mod:`analyzer.attribution.quotes`) and names the steps the evidence comes from. Sources,
strongest first:

1. a detector finding on or next to the step (its evidence quote is found back in the trace,
   so the quote stays verbatim even when the detector shortened it);
2. an error observation that answers the step, and what the step's agent did next;
3. an error just before the step that the step goes on without addressing;
4. numbers the step states that no earlier input or observation contains (with the earlier
   observation that says something close, when one does);
5. the step's own most specific sentence (a claim, a number, a decision or a tool call).

The result is a :class:`Rationale`: message ids plus parameters (see :mod:`analyzer.messages`),
rendered in English for the runs frame, ``traces.csv`` and the reports, and serialised into
the ``rationale_json`` column for the app, which renders the same ids in the analyst's
language with links on the step references.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from analyzer.attribution.quotes import (
    NUMBER_TOKEN_RE,
    PRIMARY_QUOTE,
    Segment,
    clip,
    error_segment,
    is_error_output,
    key_segment,
    locate,
    recurring_prompt_text,
    segments,
    significant,
    specificity,
)
from analyzer.detection.text import (
    REVISION_RE,
    UNCHANGED_ACTION,
    content_words,
    jaccard,
    normalise_number,
    numbers,
    quote,
    responds_to_error,
    shingles,
)
from analyzer.locales import catalogue, normalise_language, param_formatter
from analyzer.messages import (
    Message,
    Param,
    dumps,
    format_param_en,
    is_quote_param,
    is_step_param,
    is_steps_param,
    step_list,
    steps_param,
)
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, StepKind, Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import CATEGORY_IDS, Category

SECONDARY_QUOTE = 120
"""Length of the quotes of supporting evidence."""

MAX_PARTS = 4
"""Evidence clauses after which no optional source (numbers, the next step) is added."""

CONTRAST_WINDOW = 200
"""Earlier observations searched for a sentence that contradicts an unsupported number."""

FORMAT_VERSION = 1
"""Version of the serialised form (``rationale_json``)."""

RATIONALE_MESSAGES: dict[str, str] = {
    # layout: how the lead (category title), the evidence clauses and the tail join up
    "layout.lead": "{category}: {body}",
    "layout.separator": "; ",
    "layout.tail": "{body} ({tail})",
    # what went wrong, in the taxonomy's terms (the step the category points at)
    "what.planning_error": "{step} commits to an approach that is later revised or fails",
    "what.goal_drift": "{step} turns away from the stated task to a goal nobody asked for",
    "what.evidence_action_gap": "{step} ignores or contradicts a fact an observation already gave",
    "what.error_accumulation": "{step} makes a mistake that later steps build on and carry forward",
    "what.repeated_action": "{step} repeats an earlier action without progress",
    "what.failed_recovery": "{step} leaves an error unhandled (retried unchanged, ignored or misdiagnosed)",
    "what.false_success": "{step} claims success without verification, yet the run failed",
    "what.hallucination": "{step} claims facts or results that no observation supports",
    "what.environment_failure": "{step} meets a tool, API or infrastructure failure",
    "what.other": "{step} is where the run most likely went wrong",
    # quoted evidence
    "says_here": "it says {quote}",
    "step_says": "{quote_step} says {quote}",
    "output_reads": "the output at {quote_step} reads {quote}",
    "tool_output_reads": "the {tool} output at {quote_step} reads {quote}",
    "calls_here": "it calls {tool} with {quote}",
    "step_calls": "{quote_step} calls {tool} with {quote}",
    "revised_at": "{quote_step} revises it: {quote}",
    "repeat_of": "the same action first ran at {first_step}",
    "unsupported_number": "{step} states {quote}, but no earlier observation shows {value}",
    "unsupported_number_here": "it states {quote}, but no earlier observation shows {value}",
    "error_after": "the action at {step} fails: the output at {error_step} reads {error_quote}",
    "error_at": "{step} reports an error: {quote}",
    "error_ignored": "{step} goes on as if the error at {error_step} had not happened: {error_quote}",
    "after_error": "{step} follows the error at {error_step}: {error_quote}",
    "next_ignores": "the agent's next step, {next_step}, goes on without addressing it: {next_quote}",
    "next_handles": "the agent's next step, {next_step}, responds: {next_quote}",
    "next_step": "next, {next_step} says {next_quote}",
    "no_text": "{step} has no text; the task reads {quote}",
    "empty": "{step} has no text",
    # ranking (the short trailing part)
    "rank": "p={p}",
    "rank_runner_up": "p={p}, runner-up {runner_step} p={runner_p}",
    "uncertain": "uncertain: no step stands out (p={p}); the likeliest are {steps}",
    "agent_share": "responsible agent {agent}, {share} of the candidate mass",
    "agent_actor": "responsible agent {agent}, which made {share} of the run's actions",
    "agent_first_runner": "responsible agent {agent}, the first to run code ({step})",
    "judge_reranked": "judge re-ranked the top {n}",
    "judge_category": "category from the judge",
    # runs whose outcome the file does not record
    "outcome_unknown": "outcome not recorded: the likeliest decisive step if the run failed",
    "outcome_unknown_no_evidence": "outcome not recorded and nothing in the run shows a failure: the likeliest "
                                   "decisive step only if it failed",
    "outcome_likely_failed": "outcome not recorded, likely failed (estimated from the run): the likeliest decisive step "
                             "if it failed",
    # runs without a decisive step
    "run_succeeded": "run succeeded",
    "run_no_steps": "run has no steps",
    "run_no_agent_steps": "run has no agent step (only the task, context or tool output)",
}
"""Message id -> English template. ``ui/views/rationale_html.py`` marks the same templates
for translation (a test keeps the two lists equal)."""


@dataclass(frozen=True)
class Rationale:
    """A rationale as message ids plus parameters.

    Attributes:
        category: Taxonomy id shown as the lead (None for runs without a decisive step).
        parts: Evidence clauses, strongest first.
        tail: The ranker's confidence and other short notes, shown in parentheses.
    """

    category: str | None
    parts: tuple[Message, ...]
    tail: tuple[Message, ...] = ()

    def render(self, catalogue: Mapping[str, str] = RATIONALE_MESSAGES,
               fmt: Callable[[str, Param], str] = format_param_en) -> str:
        """Plain text in the catalogue's language (English by default).

        Args:
            catalogue: Message id -> template.
            fmt: Formats one parameter in the same language (see :mod:`analyzer.locales`).
        """
        sep = catalogue["layout.separator"]
        body = sep.join(p.render(catalogue, fmt) for p in self.parts)
        if self.category:
            body = catalogue["layout.lead"].format(category=fmt("category", self.category), body=body)
        if self.tail:
            body = catalogue["layout.tail"].format(body=body, tail=sep.join(t.render(catalogue, fmt) for t in self.tail))
        return body

    def render_in(self, lang: str) -> str:
        """Plain text in a language (``en``, ``zh_CN``); English for ids the language lacks."""
        return self.render(catalogue(RATIONALE_MESSAGES, "rationale", lang), param_formatter(lang))

    def steps(self) -> list[int]:
        """Steps the rationale refers to, in order of first mention."""
        out: list[int] = []
        for m in (*self.parts, *self.tail):
            for k, v in m.params.items():
                refs: list[int] = []
                if is_step_param(k) and isinstance(v, int):
                    refs = [v]
                elif is_steps_param(k):
                    refs = step_list(v)
                for s in refs:
                    if s not in out:
                        out.append(s)
        return out

    def quotes(self) -> list[str]:
        """The quoted trace text (verbatim, clipping marks included)."""
        return [str(v) for m in self.parts for k, v in m.params.items() if is_quote_param(k) and v]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :meth:`from_json`)."""
        return {"v": FORMAT_VERSION, "category": self.category, "parts": [p.to_dict() for p in self.parts],
                "tail": [t.to_dict() for t in self.tail]}

    def to_json(self) -> str:
        """Serialised form stored in the ``rationale_json`` column."""
        return dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Rationale:
        """Parse :meth:`to_json` output.

        Raises:
            ValueError: The text is not a serialised rationale.
        """
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"rationale_json is not JSON: {exc}") from exc
        if not isinstance(data, dict) or data.get("v") != FORMAT_VERSION:
            raise ValueError(f"not a version-{FORMAT_VERSION} rationale: {text[:200]!r}")
        cat = data.get("category")
        return cls(cat if isinstance(cat, str) else None,
                   tuple(Message.from_dict(p) for p in data.get("parts") or ()),
                   tuple(Message.from_dict(t) for t in data.get("tail") or ()))


def rationale_text(structured: str | None, fallback: str | None, lang: str) -> str:
    """A stored rationale (``rationale_json``) in ``lang``; ``fallback`` (English) if it cannot be read."""
    if structured and normalise_language(lang) != "en":
        try:
            return Rationale.from_json(structured).render_in(lang)
        except (KeyError, IndexError, ValueError):
            pass
    return fallback or ""


def simple(message_id: str, **params: Any) -> Rationale:
    """A rationale of one message without a category (e.g. ``run_succeeded``)."""
    return Rationale(None, (Message(message_id, params),))


# -- ranking tail --------------------------------------------------------------------------


def ranking_tail(
    p: float, runner_step: int | None = None, runner_p: float | None = None, *,
    agent: str | None = None, agent_share: float | None = None, judge_reranked: int = 0,
    actor_share: float | None = None, first_run_step: int | None = None, uncertain_steps: Sequence[int] = (),
) -> tuple[Message, ...]:
    """The short trailing part: the ranker's probability, the runner-up, agent mass, judge use.

    Args:
        p: Probability of the decisive step.
        runner_step: The second candidate, if any.
        runner_p: Its probability.
        uncertain_steps: When the ranker is uncertain (see
            :func:`analyzer.attribution.attribute.attribute`), the likeliest steps, best first:
            the tail then says so and names them instead of the probability and the runner-up.
        agent: Responsible agent, when it differs from the decisive step's agent.
        agent_share: Share of the candidate mass that agent holds.
        judge_reranked: Candidates the judge re-ranked (0: none).
        actor_share: That agent's share of the run's acting decisions, when it is named for
            its actions rather than for its candidate mass.
        first_run_step: The step where that agent first runs code, when it is named as the
            first agent to run something.
    """
    if uncertain_steps:
        out = [Message("uncertain", {"p": round(p, 4), "steps": steps_param(uncertain_steps)})]
    elif runner_step is not None and runner_p is not None:
        out = [Message("rank_runner_up", {"p": round(p, 4), "runner_step": runner_step, "runner_p": round(runner_p, 4)})]
    else:
        out = [Message("rank", {"p": round(p, 4)})]
    if agent is not None and first_run_step is not None:
        out.append(Message("agent_first_runner", {"agent": agent, "step": first_run_step}))
    elif agent is not None and actor_share is not None:
        out.append(Message("agent_actor", {"agent": agent, "share": round(actor_share, 4)}))
    elif agent is not None and agent_share is not None:
        out.append(Message("agent_share", {"agent": agent, "share": round(agent_share, 4)}))
    if judge_reranked:
        out.append(Message("judge_reranked", {"n": judge_reranked}))
    return tuple(out)


JUDGE_CATEGORY = Message("judge_category")
"""Tail note: the category comes from the judge's classification."""


# -- evidence --------------------------------------------------------------------------------


@dataclass
class _Builder:
    """Collects evidence clauses for one decisive step, never quoting the same sentence twice."""

    trajectory: Trajectory
    step: int
    table: pl.DataFrame | None = None
    parts: list[Message] = field(default_factory=list)
    quoted: set[tuple[int, str, int]] = field(default_factory=set)
    boilerplate: frozenset[str] = field(init=False)
    decision: list[bool] = field(init=False)
    observation: list[bool] = field(init=False)
    signature: list[str | None] = field(init=False)
    next_obs: list[int | None] = field(init=False)
    source: list[int | None] = field(init=False)

    def __post_init__(self) -> None:
        tab = table_for(self.trajectory, None, self.table)
        t = columns_of(tab)
        self.decision, self.observation = t["decision"], t["observation"]
        self.signature = t["action_signature"]
        self.next_obs, self.source = t["next_observation"], t["source_decision"]
        self.boilerplate = recurring_prompt_text(self.trajectory.steps, t["echoes_prompt"])

    def responds(self, reply: Step, error: Step, failed: Step | None) -> bool:
        """:func:`~analyzer.detection.text.responds_to_error` with the table's action signatures."""
        old = self.signature[failed.index] if failed is not None else None
        return responds_to_error(reply, error, failed, (old, self.signature[reply.index]))

    @property
    def steps(self) -> list[Step]:
        return self.trajectory.steps

    def q(self, seg: Segment, limit: int, focus: int = 0) -> str | None:
        """Quote a segment once; None when it was quoted already."""
        key = (seg.step, seg.source, seg.start)
        if key in self.quoted:
            return None
        self.quoted.add(key)
        return clip(seg.text, focus, limit)

    def has_quote(self) -> bool:
        return bool(self.quoted)

    def quoted_step(self, i: int) -> bool:
        return any(k[0] == i for k in self.quoted)

    def add(self, mid: str, **params: Any) -> None:
        self.parts.append(Message(mid, params))

    def evidence(self, seg: Segment, limit: int, focus: int = 0, here: int | None = None) -> None:
        """Quote a segment as 'it says' (same step as the clause before), or naming its step."""
        text = self.q(seg, limit, focus)
        if text is None:
            return
        st = self.steps[seg.step]
        if seg.source == "tool_args":
            tool = st.tool_name or "a tool"
            if here is not None and seg.step == here:
                self.add("calls_here", tool=tool, quote=text)
            else:
                self.add("step_calls", tool=tool, quote_step=seg.step, quote=text)
        elif here is not None and seg.step == here:
            self.add("says_here", quote=text)
        elif self.observation[seg.step]:
            if st.tool_name:
                self.add("tool_output_reads", tool=st.tool_name, quote_step=seg.step, quote=text)
            else:
                self.add("output_reads", quote_step=seg.step, quote=text)
        else:
            self.add("step_says", quote_step=seg.step, quote=text)


def _best_finding(findings: Sequence[Finding], step: int, category: str | None) -> Finding | None:
    near = [f for f in findings if abs(f.step - step) <= 1 and f.status != "rejected"]
    if not near:
        return None
    return max(near, key=lambda f: (str(f.category) == category, f.step == step,
                                    f.source != "judge_category", f.score))


def _finding_evidence(traj: Trajectory, f: Finding, boilerplate: frozenset[str] = frozenset()) -> Segment | None:
    """Where the finding's evidence quote is in the trace (its most specific sentence)."""
    steps = traj.steps
    lo = f.evidence_start if f.evidence_start is not None else f.step
    hi = f.evidence_end if f.evidence_end is not None else f.step
    order = [f.step, *range(max(0, lo), min(len(steps), hi + 1))][:60]
    own = steps[f.step] if 0 <= f.step < len(steps) else None
    default = own is not None and f.evidence_quote == quote(own.text)
    if f.evidence_quote and not (default and f.source == "judge_category"):
        for i in dict.fromkeys(order):
            if 0 <= i < len(steps):
                seg = locate(steps[i], f.evidence_quote)
                if seg is not None:
                    if default and seg.step == f.step:
                        return key_segment(steps[f.step], boilerplate) or seg
                    return seg
    return key_segment(own, boilerplate) if own is not None else None


def _agent_next(b: _Builder, after: int, agent: str) -> Step | None:
    """The next decision of ``agent`` after step ``after`` (any agent's when it has none)."""
    later = [s for s in b.steps[after + 1:] if b.decision[s.index] and s.text.strip()]
    return next((s for s in later if s.agent == agent), later[0] if later else None)


REVISED_ACTION = (0.3, UNCHANGED_ACTION)
"""Shingle similarity of a step's action to the failed one that reads as a revision of it: from
the lower end on it is still that action (the same script), below the upper end it is changed
(at or above the upper end: an unchanged retry)."""


def _revises(b: _Builder, step: Step, failed: Step | None) -> bool:
    """Whether ``step``'s action is ``failed``'s action changed (:data:`REVISED_ACTION`)."""
    old, new = (b.signature[failed.index] if failed is not None else None), b.signature[step.index]
    if old is None or new is None or old == new:
        return False
    return REVISED_ACTION[0] <= jaccard(shingles(old), shingles(new)) < REVISED_ACTION[1]


def _changed_segment(step: Step, failed: Step) -> Segment | None:
    """The most specific sentence of ``step`` that ``failed`` does not have (what the revision changed)."""
    before = {s.text for s in segments(failed)}
    changed = [s for s in segments(step) if len(s.text) >= 3 and s.text not in before]
    return max(changed, key=lambda s: (specificity(s), -s.start)) if changed else None


def _next_clause(b: _Builder, after: int, agent: str, error: Step | None, failed: Step | None = None) -> None:
    """The next decision after step ``after``: how it responds to ``error`` (an error output), if given."""
    nxt = _agent_next(b, after, agent)
    if nxt is None or nxt.index == b.step or b.quoted_step(nxt.index):
        return
    seg = _changed_segment(nxt, failed) if error and failed is not None and _revises(b, nxt, failed) else None
    seg = seg or key_segment(nxt, b.boilerplate)
    if seg is None:
        return
    text = b.q(seg, SECONDARY_QUOTE)
    if text is None:
        return
    if error is None:
        mid = "next_step"
    else:
        mid = "next_handles" if b.responds(nxt, error, failed) else "next_ignores"
    b.add(mid, next_step=nxt.index, next_quote=text)


def _error_after(b: _Builder) -> bool:
    """The decisive step's action fails (or the step is itself an error output)."""
    d = b.steps[b.step]
    if b.observation[b.step]:
        if not is_error_output(d):
            return False
        seg = error_segment(d)
        text = b.q(seg, PRIMARY_QUOTE) if seg is not None else None
        if text is None:
            return False
        b.add("error_at", step=b.step, quote=text)
        src = b.source[b.step]
        prev = b.steps[src] if src is not None else None
        _next_clause(b, b.step, prev.agent if prev is not None else "", error=d, failed=prev)
        return True
    k = b.next_obs[b.step]
    obs = b.steps[k] if k is not None else None
    if obs is None or not is_error_output(obs):
        return False
    if b.quoted_step(obs.index):  # the error output is quoted already (a finding's evidence)
        _next_clause(b, obs.index, d.agent, error=obs, failed=d)
        return True
    seg = error_segment(obs)
    text = b.q(seg, PRIMARY_QUOTE) if seg is not None else None
    if text is None:
        return False
    b.add("error_after", step=b.step, error_step=obs.index, error_quote=text)
    _next_clause(b, obs.index, d.agent, error=obs, failed=d)
    return True


def _error_before(b: _Builder) -> bool:
    """An error output just before the decisive step, and whether the step addresses it."""
    d = b.steps[b.step]
    if not b.decision[b.step]:
        return False
    prev = None
    for s in reversed(b.steps[max(0, b.step - 3):b.step]):
        if b.observation[s.index]:
            prev = s
            break
        if b.decision[s.index]:
            return False
    if prev is None or not is_error_output(prev) or b.quoted_step(prev.index):
        return False
    seg = error_segment(prev)
    text = b.q(seg, SECONDARY_QUOTE) if seg is not None else None
    if text is None:
        return False
    src = b.source[prev.index]
    failed = b.steps[src] if src is not None else None
    responds = b.responds(d, prev, failed)
    b.add("after_error" if responds else "error_ignored", step=b.step, error_step=prev.index, error_quote=text)
    return True


def _supported(b: _Builder, step: int) -> list[float]:
    """Numbers of the task, the inputs and the observations before ``step``, sorted."""
    seen = numbers(b.trajectory.task)
    for s in b.steps[:step]:
        if b.observation[s.index] or s.kind in (StepKind.USER, StepKind.SYSTEM):
            seen |= numbers(s.text)
            if s.error_text:
                seen |= numbers(s.error_text)
    return sorted(float(n) for n in seen)


def _shown(token: str, seen: list[float]) -> bool:
    """True when an earlier number equals ``token`` at the token's precision (``4.94`` matches ``4.9361``)."""
    n = normalise_number(token)
    if n is None:
        return False
    v = float(n)
    tol = 0.5 * 10 ** -(len(n.split(".")[1]) if "." in n else 0) + 1e-9
    i = bisect_left(seen, v - tol)
    return i < len(seen) and seen[i] <= v + tol


@dataclass(frozen=True)
class _NumberClaim:
    """A sentence of the decisive step with a number no earlier input or observation contains."""

    segment: Segment
    raw: str
    pos: int


def _distinctive(token: str) -> tuple[bool, int]:
    return (any(c in token for c in ".%$"), len(token))


def _number_claim(b: _Builder) -> _NumberClaim | None:
    """The step's sentence with the most unsupported significant numbers (None if there is none)."""
    d = b.steps[b.step]
    if not b.decision[b.step]:
        return None
    seen = _supported(b, b.step)
    own_code = numbers("\n".join(s.text for s in segments(d) if s.in_code) + "\n" + (d.tool_args or ""))
    best: tuple[int, float, _NumberClaim] | None = None
    for seg in segments(d):
        if seg.in_code:
            continue
        new = [(m.group(0).rstrip(","), m.start()) for m in NUMBER_TOKEN_RE.finditer(seg.text)
               if significant(m.group(0)) and not _shown(m.group(0), seen)
               and normalise_number(m.group(0)) not in own_code]
        if not new:
            continue
        key = (len(new), specificity(seg))
        if best is None or key > best[:2]:
            raw, pos = max(new, key=lambda t: _distinctive(t[0]))
            best = (key[0], key[1], _NumberClaim(seg, raw, pos))
    return best[2] if best is not None else None


def _unsupported_numbers(b: _Builder, claim: _NumberClaim | None, here: bool = False) -> bool:
    """Quote the claim with its unsupported number, and the earlier observation closest to it."""
    if claim is None:
        return False
    text = b.q(claim.segment, PRIMARY_QUOTE, focus=claim.pos)
    if text is None:
        return False
    if here:
        b.add("unsupported_number_here", quote=text, value=claim.raw)
    else:
        b.add("unsupported_number", step=b.step, quote=text, value=claim.raw)
    contrast = _contrast(b, claim.segment, claim.raw)
    if contrast is not None:
        b.evidence(contrast, SECONDARY_QUOTE)
    return True


def _contrast(b: _Builder, claim: Segment, raw: str) -> Segment | None:
    """The earlier observation sentence closest to the claim that states a number of its own."""
    words = content_words(NUMBER_TOKEN_RE.sub(" ", claim.text))
    if len(words) < 2:
        return None
    best: tuple[int, Segment] | None = None
    earlier = [s for s in reversed(b.steps[:b.step]) if b.observation[s.index]][:CONTRAST_WINDOW]
    for s in reversed(earlier):
        for seg in segments(s):
            if not any(significant(n) for n in NUMBER_TOKEN_RE.findall(seg.text)):
                continue
            shared = len(words & content_words(seg.text))
            if shared >= 2 and (best is None or shared > best[0]):
                best = (shared, seg)
    return best[1] if best is not None else None


def _failing_line(b: _Builder) -> Segment | None:
    """The decisive step's line of code that its failing output shows (a traceback's source line).

    None when the step's action does not fail, or its output quotes none of its code lines.
    """
    d = b.steps[b.step]
    k = b.next_obs[b.step] if b.decision[b.step] else None
    obs = b.steps[k] if k is not None else None
    if obs is None or not is_error_output(obs):
        return None
    shown = f"{obs.text[:50000]}\n{obs.error_text or ''}"
    lines = [seg for seg in segments(d) if seg.in_code and len(seg.text) >= 12 and seg.text in shown]
    return max(lines, key=lambda seg: (specificity(seg), -seg.start)) if lines else None


def _fallback_quote(b: _Builder) -> None:
    """Every rationale quotes trace text: the nearest step with text, else the task."""
    n = len(b.steps)
    for dist in range(1, n):
        for i in (b.step - dist, b.step + dist):
            if 0 <= i < n:
                seg = key_segment(b.steps[i], b.boilerplate)
                if seg is not None:
                    b.add("empty", step=b.step)
                    b.evidence(seg, SECONDARY_QUOTE)
                    return
    task = b.trajectory.task.strip()
    if task:
        line = next(ln.strip() for ln in task.split("\n") if ln.strip())
        b.add("no_text", step=b.step, quote=clip(line, 0, SECONDARY_QUOTE))
    else:
        b.add("empty", step=b.step)


def explain(
    trajectory: Trajectory,
    step: int,
    category: str | None,
    findings: Sequence[Finding] = (),
    tail: Sequence[Message] = (),
    table: pl.DataFrame | None = None,
) -> Rationale:
    """The rationale of decisive step ``step`` of a failed run.

    Args:
        trajectory: The run.
        step: The decisive step.
        category: The failure category chosen for it.
        findings: Detector findings of the run.
        tail: Short trailing notes (see :func:`ranking_tail`).
        table: The run's step-signal table (kinds, action signatures, the outputs answering
            decisions and their sources: :func:`~analyzer.signals.steps.table_for`); computed when None.

    Returns:
        A rationale with at least one verbatim quote of trace text (unless the run has no
        text at all) and at least one step reference.
    """
    cat = category if category in CATEGORY_IDS else Category.OTHER.value
    b = _Builder(trajectory, step, table)
    if not 0 <= step < len(trajectory.steps):
        return Rationale(cat, (Message("empty", {"step": step}),), tuple(tail))
    d = trajectory.steps[step]
    f = _best_finding(findings, step, cat)
    subject = f.step if f is not None else step
    b.add(f"what.{f.category if f is not None else cat}", step=subject)
    found = _finding_evidence(trajectory, f, b.boilerplate) if f is not None else None
    claim = _number_claim(b)
    # the number claim is the decisive step's own quote unless a finding located a different sentence of it
    numbered = subject == step and (found is None or found.step != step or (
        claim is not None and (claim.segment.source, claim.segment.start) == (found.source, found.start)))
    numbered = numbered and _unsupported_numbers(b, claim, here=True)
    # a planning-error finding points at the committing step as a whole: the line its failing output shows says more
    failing = _failing_line(b) if subject == step and (
        f is None or str(f.category) == Category.PLANNING_ERROR.value) else None
    own = failing or (found if found is not None and found.step == subject
                      else key_segment(trajectory.steps[subject], b.boilerplate))
    if own is not None and not numbered:
        b.evidence(own, PRIMARY_QUOTE, here=subject)
    if subject != step and not b.quoted_step(step):
        seg = key_segment(d, b.boilerplate)
        if seg is not None:
            b.evidence(seg, SECONDARY_QUOTE)
    if f is not None and found is not None and found.step != subject:
        if str(f.category) == Category.PLANNING_ERROR.value and found.step > subject and REVISION_RE.search(found.text):
            text = b.q(found, SECONDARY_QUOTE)
            if text is not None:
                b.add("revised_at", quote_step=found.step, quote=text)
        else:
            b.evidence(found, SECONDARY_QUOTE)
    if (f is not None and str(f.category) == Category.REPEATED_ACTION.value
            and f.evidence_start is not None and f.evidence_start < f.step):
        b.add("repeat_of", first_step=f.evidence_start)
    if not _error_after(b):
        _error_before(b)
    if not numbered and len(b.parts) < MAX_PARTS - 1:
        _unsupported_numbers(b, claim)
    if len(b.parts) < MAX_PARTS and not any(p.id.startswith("next_") for p in b.parts) and b.decision[step]:
        nxt_obs = b.next_obs[step]
        _next_clause(b, nxt_obs if nxt_obs is not None else step, d.agent, error=None)
    if not b.has_quote():
        _fallback_quote(b)
    return Rationale(cat, tuple(b.parts), tuple(tail))


def iter_quotes(rationale: Rationale) -> Iterator[str]:
    """The verbatim parts of the rationale's quotes (clipping marks removed)."""
    for q in rationale.quotes():
        yield q.strip("…")
