"""Did the agent understand the tool's answer, and did it use it?

For every decision step that follows a tool/environment output (the output since the
previous decision), two scores:

* ``understood`` (0-1): does the step's text agree with the output? 0 when it contradicts
  it: an empty / no-match output described as found or shown, an error output described as
  a success, or a substantive output described as empty / not found; 1 otherwise. Only
  the prose is read (code blocks are what the step runs, not what it claims).
* ``used`` (0-1): does the step depend on the output? 0 when the step re-runs the action
  that produced the output unchanged (it would have done the same whatever the output
  said); else the share of the output's salient tokens (names, numbers, quoted strings; at
  most ``TOP`` needed) that the step takes up; for an empty or error output, 1 when the step
  acknowledges it (no/empty/error/failed ...) and 0.5 otherwise.

Per run: the means and the least-squares trends of both scores against relative position
(a falling trend shows self-conditioning). Findings: ``evidence_action_gap`` (TRAIL
tool-output misinterpretation), source ``tool_answer``, on each step that misreads its
output (understood = 0). Embeddings and the judge are not used: the lexical cues are what
the planted cases and the samples need; see docs/detectors.md.
"""

from __future__ import annotations

import re
from typing import Any

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import RESULT_CLAIM_RE, asserts_at, entities, is_empty_output, quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Step, Trajectory
from analyzer.signals.run import SignalDetector, SignalOutput
from analyzer.signals.steps import columns_of, table_for, table_of_steps
from analyzer.taxonomy import Category
from plugins.detectors._signals import has_traceback, observation_before, prose, slope

SOURCE = "tool_answer"
TOP = 3
_OBS_CHARS = 6000
NO_MATCH_RE = re.compile(
    r"^\s*$|no (?:matches|results?|such file|files? found|output)|\b0 (?:results|matches|rows|files)\b|"
    r"not found|returned nothing|^\s*(?:none|null|\[\]|\{\})\s*$|exit ?code[: ]+1\b(?![\s\S]*\w{4,})",
    re.IGNORECASE)
FOUND_CLAIM_RE = re.compile(
    r"\b(?:(?:i|we) (?:found|located|see)|found (?:the|it|that|a|an|\d+)|(?:the )?(?:output|results?|search|grep) "
    r"(?:shows?|confirms?|contains?|lists?|indicates?|reveals?)|(?:is|are) (?:present|defined|listed) in)\b",
    re.IGNORECASE)
EMPTY_CLAIM_RE = re.compile(
    r"\b(?:(?:the )?(?:output|result|results|search|grep|command|query|file|response) (?:is|was|came back|returned) "
    r"(?:empty|nothing|blank)|no (?:results?|matches|output) (?:were |was )?(?:found|returned|shown)|"
    r"nothing (?:was )?(?:found|returned|printed)|did(?: not|n't) (?:find|return|print) anything)\b", re.IGNORECASE)
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
ACK_RE = re.compile(r"\b(?:no|not|empty|nothing|error|errors|fail(?:ed|s|ure)?|missing|unable|instead|exception)\b",
                    re.IGNORECASE)
SUCCESS_CLAIM_RE = re.compile(r"\b(?:successfully|succeeded|works?(?: now| correctly| fine)?|worked|"
                              r"ran without errors?|no errors?)\b", re.IGNORECASE)
_NEGATED_RE = re.compile(r"\b(?:not|n't|no|never|without|unable)\b[^.\n]{0,40}$", re.IGNORECASE)


def _claims(pattern: re.Pattern[str], prose: str) -> bool:
    """True when the prose asserts the claim, with no "no"/"without" just before it.

    Asserted as :func:`~analyzer.detection.text.asserts_at` says: not announced ("I will
    check that it was found"), conditioned, asked or negated.
    """
    return any(asserts_at(prose, m.start()) and not _NEGATED_RE.search(prose[max(0, m.start() - 40):m.start()])
               for m in pattern.finditer(prose))


def _producer(steps: list[Step], obs: Step, t: dict[str, list[Any]]) -> Step | None:
    for s in reversed(steps[:obs.index]):
        if t["decision"][s.index]:
            return s
    return None


def score_step(steps: list[Step], i: int, t: dict[str, list[Any]] | None = None) -> tuple[float, float, str] | None:
    """``(understood, used, why-not-understood)`` for decision ``i``, or None if it follows no output.

    ``t`` holds the run's step-signal columns (:func:`analyzer.signals.steps.columns_of`; computed when None).
    """
    if t is None:
        t = columns_of(table_of_steps(steps))
    obs = observation_before(steps, i, t)
    if obs is None:
        return None
    step = steps[i]
    said = _INLINE_CODE_RE.sub(" ", prose(step.text))
    out = obs.text[:_OBS_CHARS]
    empty = is_empty_output(out) or bool(NO_MATCH_RE.search(out[:400]) and len(out.strip()) < 400)
    error = obs.is_error or has_traceback(out)
    why = ""
    if empty and not error and _claims(FOUND_CLAIM_RE, said):
        why = "the output was empty / matched nothing, but the step says it was found or shown"
    elif error and (_claims(SUCCESS_CLAIM_RE, said) or _claims(RESULT_CLAIM_RE, said)):
        why = "the output is an error, but the step describes a success"
    elif not empty and not error and len(out.strip()) >= 80 and _claims(EMPTY_CLAIM_RE, said) \
            and not NO_MATCH_RE.search(out):
        why = "the output has content, but the step says it was empty / nothing was found"
    understood = 0.0 if why else 1.0
    prod = _producer(steps, obs, t)
    sig, psig = t["action_signature"][step.index], (t["action_signature"][prod.index] if prod is not None else None)
    if sig is not None and sig == psig:
        used = 0.0
    elif empty or error:
        used = 1.0 if ACK_RE.search(said) else 0.5
    else:
        salient = entities(out)
        if not salient:
            used = 1.0 if ACK_RE.search(said) or said.strip() else 0.5
        else:
            low = step.text[:_OBS_CHARS * 2].lower()
            hits = sum(1 for tok in salient if tok.lower() in low)
            used = round(min(1.0, hits / min(TOP, len(salient))), 4)
    return understood, used, why


class ToolAnswer(SignalDetector):
    """The tool-answer understanding/use signal detector."""

    def analyse(self, trajectory: Trajectory, ctx: DetectionContext) -> SignalOutput:
        """Per-step scores, their means and trends, and findings on misread outputs."""
        steps = trajectory.steps
        n = len(steps)
        t = columns_of(table_for(trajectory, ctx))
        und: list[float | None] = [None] * n
        use: list[float | None] = [None] * n
        findings: list[Finding] = []
        for s in steps:
            if not t["decision"][s.index]:
                continue
            res = score_step(steps, s.index, t)
            if res is None:
                continue
            und[s.index], use[s.index], why = res
            if why:
                obs = observation_before(steps, s.index, t)
                lo = obs.index if obs is not None else s.index
                findings.append(make_finding(trajectory, s.index, Category.EVIDENCE_ACTION_GAP, 0.6, SOURCE,
                                             f"step {s.index} misreads the tool output of step {lo}: {why}",
                                             evidence=(lo, s.index), evidence_quote=quote(prose(s.text), 160)))
        rel = [i / (n - 1) if n > 1 else 0.0 for i in range(n)]

        def summary(vals: list[float | None]) -> tuple[float | None, float | None]:
            pts = [(rel[i], v) for i, v in enumerate(vals) if v is not None]
            if not pts:
                return None, None
            mean = round(sum(v for _, v in pts) / len(pts), 4)
            return mean, slope([x for x, _ in pts], [y for _, y in pts])

        um, ut = summary(und)
        sm, st = summary(use)
        return SignalOutput(findings=findings, step_values={"understood": und, "used": use},
                            run_values={"understood_mean": um, "understood_trend": ut,
                                        "used_mean": sm, "used_trend": st})
