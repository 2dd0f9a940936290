"""The analysis pipeline: detectors, attribution and value curves for every run.

``analyze(traces, steps)`` is what ``trajscope analyze``, ``trajscope eval`` and the app run.
Per run: embeddings (optional) -> detectors -> per-step features -> fitted ranker -> the
judge re-ranks the top candidates of failed runs (optional) -> decisive-phase detectors
(judge category) -> category, confidence, evidence value curve (and the judge's curve on request).

The analysis never reads gold labels or the expected answer: each run is "blinded" before
anything looks at it. It may know the run's outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from analyzer.analysis.result import AnalysisResult, RunAnalysis, uncertain_cell
from analyzer.attribution.active import label_priority
from analyzer.attribution.attribute import Attribution, attribute, choose_category
from analyzer.attribution.features import step_features
from analyzer.attribution.hazards import step_evidence
from analyzer.attribution.ranker import Ranker
from analyzer.attribution.rationale import JUDGE_CATEGORY, explain, simple
from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.attribution.value_curve import EVIDENCE_ESTIMATOR, drop_note, value_curve
from analyzer.contrast.corpus import contrast_corpus
from analyzer.detection.runner import DECISIVE_PHASE, STEPS_PHASE, run_detectors
from analyzer.errors import ModelUnavailable
from analyzer.frames.build import trajectories_from_frames
from analyzer.jobs import (
    Cancelled,
    CancelToken,
    EtaClock,
    EventProgress,
    NeverCancel,
    Progress,
    ProgressEvent,
    no_progress,
)
from analyzer.messages import Message
from analyzer.outcome.effective import ESTIMATE
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.plugin_host.registry import PluginHost, default_host
from analyzer.schema.findings import Finding
from analyzer.schema.models import Outcome, Trajectory
from analyzer.signals.run import apply_signals
from analyzer.signals.steps import columns_of, step_signals, table_for

EMBED_CHARS = 1500
"""Characters of each step embedded (the embedder truncates to ~256 tokens anyway)."""

TOP_STEPS = 3
"""Candidates listed in ``top_steps``."""

STRONG_FINDING = 0.6
"""A finding this strong on the decisive step names its category without asking the judge."""

Report = Callable[[str, int | None, int | None, tuple[int, ...], float], None]
"""Receives (phase, step, steps, candidates, fraction of the run done) before each judge call."""

_GOLD_FIELDS = {"gold_decisive_step": None, "gold_decisive_agent": None, "gold_reason": None, "ground_truth": None}


def blind(trajectory: Trajectory) -> Trajectory:
    """A copy of the run without gold labels or the expected answer."""
    return trajectory.model_copy(update=_GOLD_FIELDS)


@dataclass
class RunSignals:
    """Everything the attribution needs about one run, computed without the judge.

    Attributes:
        findings: Steps-phase detector findings.
        errors: Detector and embedder problems.
        alignment: Embedding cosine of each step with the task, if an embedder was given.
        step_embeddings: The step embeddings (rows aligned with steps), if computed.
        task_embedding: The task embedding, if computed.
        features: Feature matrix (steps x FEATURE_NAMES).
        table: The run's table of step signals (:mod:`analyzer.signals.steps`), computed once here and
            read by the detectors, the features, the agent rule, the category chooser, the rationale
            and the value curve's term matrix.
    """

    findings: list[Finding]
    errors: list[str]
    alignment: list[float] | None
    step_embeddings: np.ndarray | None
    task_embedding: np.ndarray | None
    features: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    table: pl.DataFrame | None = None


def embed_run(trajectory: Trajectory, embedder: Any) -> tuple[np.ndarray, np.ndarray]:
    """Embed the task and every step of a run in one batch.

    Returns:
        ``(step_embeddings, task_embedding)``, unit-norm rows.
    """
    texts = [trajectory.task[:EMBED_CHARS] or " "] + [(s.text[:EMBED_CHARS] or " ") for s in trajectory.steps]
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    if vecs.shape[0] != len(texts):
        raise ValueError(f"embedder returned {vecs.shape[0]} vectors for {len(texts)} texts")
    return vecs[1:], vecs[0]


def prepare_run(
    trajectory: Trajectory,
    host: PluginHost,
    *,
    embedder: Any = None,
    detectors: Sequence[str] | None = None,
    settings: dict[str, Any] | None = None,
    evidence_weights: Mapping[str, float] | None = None,
    symptom_rule: SymptomRule | None = None,
) -> RunSignals:
    """Embeddings, the step-signal table, steps-phase detectors and features of one (blinded) run.

    The table of step signals (:func:`~analyzer.signals.steps.step_signals`) is computed once here and
    carried to the detectors (``ctx.step_table``), the features and the returned :class:`RunSignals`.

    ``evidence_weights`` weigh the evidence column (the ranker params' ``evidence_classes``) and
    ``symptom_rule`` says which findings it reads as symptoms (their ``symptom_rule``); None: the
    shipped ranker's.
    """
    errors: list[str] = []
    step_emb: np.ndarray | None = None
    task_emb: np.ndarray | None = None
    alignment: list[float] | None = None
    if embedder is not None and trajectory.steps:
        try:
            step_emb, task_emb = embed_run(trajectory, embedder)
            alignment = [float(v) for v in step_emb @ task_emb]
        except Exception as exc:  # embeddings are optional: fall back to lexical signals
            errors.append(f"embedder: {type(exc).__name__}: {exc}")
    table = step_signals(trajectory)
    ctx = DetectionContext(
        step_embeddings=step_emb.tolist() if step_emb is not None else None,
        task_embedding=task_emb.tolist() if task_emb is not None else None,
        settings=dict(settings or {}),
        step_table=table,
    )
    det = run_detectors(trajectory, ctx, host, only=detectors, phase=STEPS_PHASE)
    errors.extend(det.errors)
    shipped = Ranker.shipped().params
    weights = shipped.evidence_classes if evidence_weights is None else evidence_weights
    rule = shipped.symptom_rule if symptom_rule is None else symptom_rule
    feats = step_features(trajectory, det.findings, step_emb, task_emb, weights, table=table, symptom_rule=rule)
    return RunSignals(det.findings, errors, alignment, step_emb, task_emb, feats, table)


@dataclass
class AnalyzeOptions:
    """Knobs of one analysis (defaults are what ``trajscope analyze`` uses).

    Attributes:
        judge_top_k: Candidates the judge re-ranks (default: from the ranker params).
        judge_curve: Also compute the judge's value curve for failed runs.
        judge_in_detectors: Let detectors (e.g. planning error) ask the judge.
        judge_classify: When the judge classifies the decisive step's category: ``"weak"``
            (only when no detector finding on the step reaches ``STRONG_FINDING``; one judge
            call per such failed run), ``"always"`` or ``"never"``.
        detectors: Detector ids to run (default: all declared).
    """

    judge_top_k: int | None = None
    judge_curve: bool = False
    judge_in_detectors: bool = False
    judge_classify: str = "weak"
    detectors: Sequence[str] | None = None


class _JudgeState:
    """The judge for a whole analysis; switched off after it proves unavailable."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.disabled_reason: str | None = None

    def call(self, errors: list[str], what: str, fn: Callable[[], Any], cancel: CancelToken | None = None) -> Any:
        if self.judge is None or (cancel is not None and cancel.cancelled):
            return None
        try:
            return fn()
        except Cancelled:
            return None
        except ModelUnavailable as exc:
            self.disabled_reason = f"judge unavailable: {exc}"
            self.judge = None
            errors.append(self.disabled_reason)
        except Exception as exc:  # one bad judge call costs this answer only
            errors.append(f"judge ({what}): {type(exc).__name__}: {exc}")
        return None


JudgeState = _JudgeState
"""The judge shared by the runs one process analyses (public name for other engines)."""


def outcome_note(findings: Sequence[Finding], trajectory: Trajectory) -> Message:
    """The rationale's note for a run whose outcome the file does not record.

    The attribution then says where the run most likely went wrong *if* it failed; the note
    says so, and says when nothing in the run (no finding, no error output) shows a failure.
    """
    evidence = any(f.status != "rejected" for f in findings) or any(s.is_error for s in trajectory.steps)
    return Message("outcome_unknown" if evidence else "outcome_unknown_no_evidence")


def _p_failure(trajectory: Trajectory, findings: Sequence[Finding]) -> float:
    if trajectory.outcome == Outcome.FAILURE:
        return 1.0
    if trajectory.outcome == Outcome.SUCCESS:
        return 0.0
    strongest = max((f.score for f in findings), default=0.0)
    return min(0.9, 0.3 + 0.6 * strongest)


def analyze_run(
    trajectory: Trajectory,
    *,
    host: PluginHost,
    ranker: Ranker,
    judge: _JudgeState | None = None,
    embedder: Any = None,
    options: AnalyzeOptions | None = None,
    cancel: CancelToken | None = None,
    report: Report | None = None,
) -> RunAnalysis:
    """Analyse one run (gold labels are removed first).

    A cancel request skips the judge calls still to come for this run (the cheap analysis
    of the run still completes); :func:`analyze` then stops before the next run.

    Args:
        trajectory: The run.
        host: Plugin host.
        ranker: The step ranker.
        judge: The judge of the analysis (None: cheap analysis only).
        embedder: Sentence embedder or None.
        options: Knobs.
        cancel: Checked before each judge call.
        report: Told before each judge call (and after each value-curve step) what the judge reads.
    """
    opts = options or AnalyzeOptions()

    def tell(phase: str, step: int | None, steps: int | None, candidates: tuple[int, ...] = (),
             fraction: float = 0.0) -> None:
        if report is not None and judge is not None and judge.judge is not None:
            report(phase, step, steps, candidates, fraction)

    traj = blind(trajectory)
    # an estimated outcome is not evidence: the run is analysed as one whose outcome is not recorded,
    # but a likely failed run gets its judge value curve and says it is likely failed
    likely_failed = traj.outcome_source == ESTIMATE and traj.outcome == Outcome.FAILURE
    if traj.outcome_source == ESTIMATE:
        traj = traj.model_copy(update={"outcome": Outcome.UNKNOWN})
    judge = judge or _JudgeState(None)
    failed_or_unknown = traj.outcome != Outcome.SUCCESS
    settings: dict[str, Any] = {}
    if opts.judge_in_detectors and judge.judge is not None and failed_or_unknown:
        settings["judge"] = judge.judge
    sig = prepare_run(traj, host, embedder=embedder, detectors=opts.detectors, settings=settings,
                      evidence_weights=ranker.params.evidence_classes, symptom_rule=ranker.params.symptom_rule)
    errors = list(sig.errors)
    findings = list(sig.findings)
    table = table_for(traj, None, sig.table)
    n = len(traj.steps)
    logits = ranker.logits(sig.features)
    p_fail = _p_failure(traj, findings)
    att: Attribution | None = None
    judge_model: str | None = None
    judge_values: list[float] | None = None
    if n and failed_or_unknown:
        judge_p: dict[int, float] | None = None
        top_k = opts.judge_top_k if opts.judge_top_k is not None else ranker.params.judge_top_k
        decides = any(columns_of(table)["decision"])  # a run that errored before the agent acted has none
        judge_weight = ranker.params.judge_weight_for(getattr(judge.judge, "model_id", None))
        if judge.judge is not None and top_k > 0 and judge_weight != 0.0 and decides:
            top = [int(k) for k in np.argsort(-logits, kind="stable")[:top_k]]
            j = judge.judge
            tell("judge_candidates", None, n, tuple(top))
            res = judge.call(errors, "candidate scores", lambda: j.candidate_scores(traj, top), cancel)
            if res:
                judge_p = {int(k): float(v) for k, v in res.items()}
                judge_model = getattr(j, "model_id", None)
        att = attribute(traj, logits, findings, sig.features, judge_p, judge_weight,
                        agent_temperature=ranker.params.agent_temperature,
                        actor_weight=ranker.params.actor_weight,
                        first_runner_weight=ranker.params.first_runner_weight,
                        temperature=ranker.confidence_temperature(sig.features, logits),
                        uncertain_below=ranker.params.uncertain_below,
                        uncertain_top=ranker.params.uncertain_top,
                        category_params=ranker.params.category, table=table)
        if traj.outcome != Outcome.FAILURE and att.decisive_step is not None and att.explanation is not None:
            hedge = Message("outcome_likely_failed") if likely_failed else outcome_note(findings, traj)
            att.explanation = replace(att.explanation, tail=(*att.explanation.tail, hedge))
            att.rationale = att.explanation.render()
        strongest = max((f.score for f in findings if f.step == att.decisive_step), default=0.0)
        ask = opts.judge_classify == "always" or (opts.judge_classify == "weak" and strongest < STRONG_FINDING)
        if judge.judge is not None and att.decisive_step is not None and ask:
            ctx = DetectionContext(settings={"judge": judge.judge, "decisive_step": att.decisive_step},
                                   step_table=table)
            model = getattr(judge.judge, "model_id", None)
            tell("judge_category", att.decisive_step, n)
            det = judge.call(errors, "category", lambda: run_detectors(
                traj, ctx, host, only=opts.detectors, phase=DECISIVE_PHASE, reraise=(ModelUnavailable,)), cancel)
            decisive_findings: list[Finding] = []
            if det is not None:
                errors.extend(det.errors)
                decisive_findings = det.findings
            if decisive_findings:
                judge_model = judge_model or model
            findings.extend(decisive_findings)
            jdist = {str(f.category): f.score for f in decisive_findings if f.step == att.decisive_step}
            if jdist:
                att.category, _ = choose_category(traj, att.decisive_step, findings, sig.features, jdist,
                                                  ranker.params.category, table=table)
                tail = (*(att.explanation.tail if att.explanation else ()), JUDGE_CATEGORY)
                att.explanation = explain(traj, att.decisive_step, att.category, findings, tail, table=table)
                att.rationale = att.explanation.render()
        if opts.judge_curve and judge.judge is not None and (traj.outcome == Outcome.FAILURE or likely_failed):
            j = judge.judge

            def curve_progress(done: int, total: int, message: str = "") -> None:
                tell("judge_value_curve", min(int(done), n), int(total) or n, (), done / total if total else 0.0)

            tell("judge_value_curve", 0, n)
            vc = judge.call(errors, "value curve", lambda: j.value_curve(traj, progress=curve_progress, cancel=cancel),
                            cancel)
            if vc is not None and len(vc.values) == n:
                judge_values = [float(v) for v in vc.values]
                judge_model = judge_model or getattr(j, "model_id", None)
    # V(t) from the content only (steps-phase findings: the decisive-phase ones follow the ranker)
    evidence = step_evidence(traj, sig.findings, sig.alignment, judge_values, table=table)
    curve = value_curve(evidence, ranker.params.value_prior, outcome=str(traj.outcome))
    note = drop_note(curve, att.decisive_step if att is not None else None)
    ra = _assemble(traj, att, curve.values, curve.drops, sig.alignment, findings, errors,
                   judge_model, judge_values, p_fail, note)
    apply_signals(traj, ra, host, opts.detectors, table=table)  # after attribution: never moves the decisive step
    return ra


def _assemble(
    traj: Trajectory, att: Attribution | None, values: list[float], drops: list[float],
    alignment: list[float] | None, findings: list[Finding], errors: list[str],
    judge_model: str | None, judge_values: list[float] | None, p_fail: float, note: str | None = None,
) -> RunAnalysis:
    n = len(traj.steps)
    cats: dict[int, list[str]] = {}
    for f in findings:
        cats.setdefault(f.step, [])
        if str(f.category) not in cats[f.step]:
            cats[f.step].append(str(f.category))
    probs = att.probs if att is not None else np.zeros(n)
    step_rows: list[dict[str, object]] = []
    for s in traj.steps:
        i = s.index
        step_rows.append({
            "trace_id": traj.id, "step": i, "agent": s.agent, "kind": str(s.kind),
            "value": values[i] if i < len(values) else None,
            "drop": drops[i] if i < len(drops) else None,
            "alignment": round(alignment[i], 6) if alignment is not None else None,
            "candidate_score": round(float(probs[i]), 6) if att is not None and att.candidates else None,
            "findings": ";".join(cats.get(i, [])) or None,
            "value_estimator": EVIDENCE_ESTIMATOR,
            "judge_value": judge_values[i] if judge_values is not None else None,
        })
    largest_step = int(np.argmax(drops)) if drops and max(drops) > 0 else None
    top = att.candidates[:TOP_STEPS] if att is not None else []
    fallback = simple("run_succeeded" if n else "run_no_steps")
    explanation = att.explanation if att is not None else fallback
    confidence = None
    if att is not None and att.confidence is not None:
        confidence = round(att.confidence * p_fail, 4)
    run: dict[str, object] = {
        "trace_id": traj.id,
        "decisive_step": att.decisive_step if att is not None else None,
        "decisive_agent": att.decisive_agent if att is not None else None,
        "category": att.category if att is not None else None,
        "confidence": confidence,
        "top_steps": ",".join(str(c.step) for c in top) or None,
        "top_scores": ",".join(f"{c.probability:.3f}" for c in top) or None,
        "decisive_uncertain": uncertain_cell(att.uncertain_steps) if att is not None else None,
        "label_priority": round(label_priority(att.probs), 6) if att is not None and att.decisive_step is not None
        else None,
        "rationale": att.rationale if att is not None else fallback.render(),
        "rationale_json": explanation.to_json() if explanation is not None else None,
        "min_value": min(values) if values else None,
        "largest_drop": max(drops) if drops else None,
        "largest_drop_step": largest_step,
        "drop_note": note,
        "value_estimator": EVIDENCE_ESTIMATOR,
        "judge_model": judge_model,
        "n_findings": len(findings),
        "error": "; ".join(errors) or None,
    }
    return RunAnalysis(run=run, steps=step_rows, findings=findings,
                       errors=[f"{traj.id}: {e}" for e in errors])


def analyze_one(
    trajectory: Trajectory,
    *,
    host: PluginHost,
    ranker: Ranker,
    judge: _JudgeState,
    embedder: Any = None,
    options: AnalyzeOptions | None = None,
    cancel: CancelToken | None = None,
    report: Report | None = None,
) -> RunAnalysis:
    """:func:`analyze_run`, with a run that raises turned into a per-run error (every engine uses this)."""
    try:
        return analyze_run(trajectory, host=host, ranker=ranker, judge=judge, embedder=embedder,
                           options=options, cancel=cancel, report=report)
    except Exception as exc:  # one broken run never stops the others
        t = trajectory
        return RunAnalysis(run={"trace_id": t.id, "error": f"analysis failed: {type(exc).__name__}: {exc}",
                                "value_estimator": EVIDENCE_ESTIMATOR},
                           errors=[f"{t.id}: analysis failed: {type(exc).__name__}: {exc}"])


def analyze(
    traces: pl.DataFrame,
    steps: pl.DataFrame,
    *,
    judge: Any = None,
    embedder: Any = None,
    progress: Progress = no_progress,
    cancel: CancelToken | None = None,
    on_run: Callable[[RunAnalysis], None] | None = None,
    host: PluginHost | None = None,
    ranker: Ranker | None = None,
    options: AnalyzeOptions | None = None,
) -> AnalysisResult:
    """Analyse every run of the traces/steps frames.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        judge: A judge (``analyzer.judge``) or None for the cheap analysis only.
        embedder: An embedder with ``embed(list[str]) -> ndarray`` or None (lexical signals only).
        progress: Called once per run; a sink that is also an :class:`~analyzer.jobs.EventProgress`
            gets a :class:`~analyzer.jobs.ProgressEvent` when each run starts and before each
            judge call (with the run, the step and an estimate of the time left).
        cancel: Checked between runs and before each judge call (granularity: one run, or one
            judge call: a run whose judge calls were skipped still gets its cheap analysis).
        on_run: Called with each run's partial result as soon as it is ready.
        host: Plugin host (default: every installed plugin).
        ranker: Ranker (default: the shipped fitted params).
        options: Other knobs (judge top-k, judge curve, detector subset).

    Returns:
        Frames of run attributions, per-step values and findings; ``cancelled`` when stopped early.
    """
    host = host or default_host()
    cancel = cancel or NeverCancel()
    ranker = ranker or Ranker.load()
    state = _JudgeState(judge)
    runs: list[RunAnalysis] = []
    trajectories = trajectories_from_frames(traces, steps)
    total = len(trajectories)
    cancelled = False
    sink = progress if isinstance(progress, EventProgress) else None
    clock = EtaClock(total)
    calls = [0]
    for i, t in enumerate(trajectories):
        if cancel.cancelled:
            cancelled = True
            break
        label = t.native_id or t.id
        progress(i, total, label)
        report = _event_reporter(sink, clock, i, total, label, calls) if sink is not None else None
        if report is not None:
            report("run", None, len(t.steps), (), 0.0)
        ra = analyze_one(t, host=host, ranker=ranker, judge=state, embedder=embedder, options=options,
                         cancel=cancel, report=report)
        runs.append(ra)
        if on_run is not None:
            on_run(ra)
    cancelled = cancelled or cancel.cancelled  # a judge call skipped in the last run counts too
    if not cancelled:
        progress(total, total, "done")
        if sink is not None:
            sink.event(ProgressEvent("done", total, total, "", judge_calls=calls[0], eta_seconds=0.0))
    result = AnalysisResult.from_runs(runs, cancelled=cancelled)
    if not cancelled:
        _add_contrast(result, traces, steps, cancel)
    if state.disabled_reason and state.disabled_reason not in result.errors:
        result.errors.insert(0, state.disabled_reason)
    return result


def _add_contrast(result: AnalysisResult, traces: pl.DataFrame, steps: pl.DataFrame, cancel: CancelToken) -> None:
    """Contrast the failed runs with the successes of their tasks (a problem is an analysis error)."""
    try:
        got = contrast_corpus(traces, steps, cancel=cancel)
    except Exception as exc:  # the per-run results stand without the contrast
        result.errors.append(f"contrast failed: {type(exc).__name__}: {exc}")
        return
    result.contrast, result.pairs = got.runs, got.pairs


def _event_reporter(sink: EventProgress, clock: EtaClock, run: int, runs: int, label: str,
                    calls: list[int]) -> Report:
    """A :data:`Report` that turns judge-call reports into :class:`ProgressEvent` s for ``sink``."""

    def report(phase: str, step: int | None, steps: int | None, candidates: tuple[int, ...],
               fraction: float) -> None:
        if phase != "run":
            calls[0] += 1
        sink.event(ProgressEvent(phase, run, runs, label, step=step, steps=steps, candidates=candidates,
                                 judge_calls=calls[0], eta_seconds=clock.eta(run + min(max(fraction, 0.0), 1.0))))

    return report
