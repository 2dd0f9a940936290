"""``trajscope outcome-fit [PATH...] [--params OUT] [--doc OUT.md] [--json OUT] [--judge [--judge-cache FILE]]``.

Fits the outcome estimate (:mod:`analyzer.outcome.fit`) on every run of PATH (default: the
committed samples and real files, ``sample_traces/``, ``tests/data/real/`` and
``tests/data/real_agents/``) whose outcome is recorded, with the outcome hidden from the cues;
measures it by nested leave-one-source-out; writes the params file the app uses and, with
``--doc``, ``docs/outcome_estimate.md`` with the figures.

With ``--judge`` the local judge (the one in settings, else the bundled model; ``--judge-model``
for another) is asked whether each run's final state achieves the task
(:mod:`analyzer.outcome.judge_cue`); its answers are cached in ``--judge-cache`` (default
:data:`DEFAULT_JUDGE_CACHE`, keyed by run id, model id and prompt id), so a rerun asks nothing.
Both models are then measured and written, with the ship rule's decision
(:func:`analyzer.outcome.fit.ship_judge`).

Exit codes: 0 done, 1 too few runs with a known outcome, 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATHS = (
    ROOT / "sample_traces",
    ROOT / "sample_reruns",
    ROOT / "tests" / "data" / "real",
    ROOT / "tests" / "data" / "real_agents",
)
DEFAULT_JUDGE_CACHE = ROOT / "analyzer" / "outcome" / "params" / "judge-achieved-cache.json"
"""Committed cache of the judge cue of the committed runs (so ``--judge`` reruns are free)."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``outcome-fit`` subcommand."""
    from analyzer.outcome.estimate import PARAMS_PATH

    p = sub.add_parser("outcome-fit", help="fit and measure the outcome estimate on runs with a known outcome")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the committed samples and real files)")
    p.add_argument("--params", type=Path, default=PARAMS_PATH, help=f"params file to write (default: {PARAMS_PATH})")
    p.add_argument("--doc", type=Path, help="write the figures as Markdown (docs/outcome_estimate.md)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the figures and per-run estimates as JSON")
    p.add_argument("--judge", action="store_true",
                   help="ask the local judge whether each run's final state achieves the task where the cache "
                        "has no answer (without it, the model with that cue is fitted only when the cache "
                        "answers every run)")
    p.add_argument("--judge-model", default=None, help="judge model name or .gguf path (default: settings/bundled)")
    p.add_argument("--judge-cache", type=Path, default=DEFAULT_JUDGE_CACHE,
                   help=f"JSON cache of the judge's answers (default: {DEFAULT_JUDGE_CACHE})")
    p.set_defaults(func=run)


def _fmt(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def _figures(report: Any) -> list[str]:
    """Pooled figures, per-source and calibration tables of one :class:`analyzer.outcome.fit.FitReport`."""
    return [
        f"**Pooled held-out AUC {_fmt(report.auc)}**, Brier score {_fmt(report.brier)}, expected calibration error "
        f"{_fmt(report.ece)} ({len(report.calibration)} equal-width bins).",
        "",
        "| source | runs | failed | estimated | mean P(failed) | Brier | AUC |",
        "|---|---|---|---|---|---|---|",
        *(f"| {s['source']} | {s['n']} | {s['failed']} | {s['estimated']} | {_fmt(s['mean_p'])} | {_fmt(s['brier'])} | "
          f"{_fmt(s['auc'])} |" for s in report.per_source),
        "",
        "| P(failed) bin | runs | mean estimate | failure rate |",
        "|---|---|---|---|",
        *(f"| {c['low']:.1f}–{c['high']:.1f} | {c['n']} | {_fmt(c['mean_p'])} | {_fmt(c['failure_rate'])} |"
          for c in report.calibration),
    ]


def _judge_section(models: Any) -> list[str]:
    """The "With the local judge" section (what ``--judge`` measured), or a pointer to it."""
    from analyzer.outcome.judge_cue import JUDGE_CUE, JUDGE_CUE_DOC

    judge = models.judge
    if judge is None:
        return ["Not measured in this run of `trajscope outcome-fit` (add `--judge`).", ""]
    jp = judge.params
    meta = models.models.meta
    decision = ("**used**" if models.models.use_judge else "**not used**")
    weights = dict(zip(jp.cues, jp.weights, strict=True))
    secs = jp.meta.get("judge_seconds_per_run")
    cost = (f"{secs:.1f} s per run asked" if isinstance(secs, float) else "all answers came from the cache")
    return [
        f"Cue `{JUDGE_CUE}`: {JUDGE_CUE_DOC} Judge `{jp.meta.get('judge_model')}`, prompt "
        f"`{jp.meta.get('judge_prompt')}`, at most {jp.meta.get('judge_token_budget')} prompt tokens "
        f"({cost}, measured by this fit; {jp.meta.get('judge_unanswered', 0)} runs unanswered).",
        "",
        f"Same model and nested procedure over the cheap cues plus `{JUDGE_CUE}` (weight "
        f"{weights.get(JUDGE_CUE, 0.0):+.3f}, L2 strength {jp.meta.get('l2'):.4g}), on the "
        f"{meta.get('runs_compared')} runs the judge answered, against the cheap model on the same runs "
        f"(nested AUC {_fmt(meta.get('cheap_loso_auc'))}):",
        "",
        *_figures(judge),
        "",
        f"Ship rule (in code before the figures were seen): {meta.get('ship_rule')}. With a judge available, "
        f"the judge model is {decision}: nested AUC {_fmt(meta.get('judge_loso_auc'))} with the judge against "
        f"{_fmt(meta.get('cheap_loso_auc'))} without. The judge's answer alone (1 - P(Yes), nothing fitted) ranks "
        f"the runs with AUC {_fmt(meta.get('judge_alone_auc'))}.",
        "",
        "In the app, the question is asked by an analysis that has a judge loaded (in its worker, never on the UI",
        "thread), of the runs whose outcome is estimated, and only when the params use the judge model; those runs",
        "are then estimated with it, the others with the cheap model. When the params do not use it, a loaded judge",
        "is never asked this question.",
        "",
    ]


def _tried_judge(models: Any) -> list[str]:
    """The "Tried" lines about the judge, from what ``--judge`` measured."""
    earlier = ("Asking the judge its value-curve question at the last step, on the whole run, took about 27 s per "
               "run on the 2 shared cores of the development machine; it was replaced by the narrow question on a "
               "short context.")
    if models.judge is None:
        return [earlier]
    meta, jp = models.models.meta, models.judge.params
    secs = jp.meta.get("judge_seconds_per_run")
    verdict = ("so the judge model is used when a judge is loaded" if models.models.use_judge else
               "so the judge model is fitted and kept in the params file but not used")
    return [f"Asking the bundled judge ({jp.meta.get('judge_model')}) whether the final state achieves the task, "
            f"on at most {jp.meta.get('judge_token_budget')} tokens"
            + (f" ({secs:.1f} s per run)" if isinstance(secs, float) else "")
            + f": its answer alone ranks the runs at AUC {_fmt(meta.get('judge_alone_auc'))}, and with the cheap "
            f"cues the nested AUC is {_fmt(meta.get('judge_loso_auc'))} against {_fmt(meta.get('cheap_loso_auc'))} "
            f"without, {verdict} (see With the local judge). " + earlier]


def markdown(models: Any, paths: list[str]) -> str:
    """``docs/outcome_estimate.md`` from a :class:`analyzer.outcome.fit.ModelsReport`."""
    from analyzer.outcome.cues import CUES

    report = models.cheap
    p = report.params
    lines = [
        "# Outcome estimate",
        "",
        "Most real exports (Claude Code, Langfuse, LangSmith, Codex CLI, OpenTelemetry spans) do not say whether a run",
        "failed. When neither the file, a sidecar nor the analyst says, TrajScope estimates the probability that the run",
        "failed from cheap cues of its steps and shows it as \"likely failed (0.82)\" (`outcome_source = estimate`,",
        "`outcome_p_failed` in `traces.csv`). A run counts as failed when that probability is at least one half; the",
        "status bar says how many failures are estimates (\"12 failed (3 likely)\"), `models.csv` has an `estimated`",
        "column, and the analysis treats such a run as one whose outcome is not recorded (its rationale says \"likely",
        "failed\"), except that its judge value curve can be computed.",
        "",
        "Generated by `trajscope outcome-fit --judge --doc docs/outcome_estimate.md` (also writes",
        "`analyzer/outcome/params/outcome-v1.json`). Nothing below is set by hand.",
        "",
        "## Cues",
        "",
        "| cue | what it measures | weight (standardised) |",
        "|---|---|---|",
        *(f"| `{c.name}` | {c.doc} | {w:+.3f} |" for c, w in zip(CUES, p.weights, strict=True)),
        "",
        f"Logistic regression over the standardised cues, L2 strength {p.meta.get('l2'):.4g} chosen from "
        f"{len(p.meta.get('l2_grid') or [])} values by leave-one-source-out log-loss; bias {p.bias:+.3f}. "
        "This is the model used when no judge is loaded; the model with the judge cue is below.",
        "",
        "## How it was measured",
        "",
        f"Runs: every committed run whose outcome is recorded, from {', '.join(f'`{x}`' for x in paths)}: "
        f"{report.n_runs} runs, {report.n_failed} failed. The outcome is hidden from the cues (they read the steps",
        "and the final answer only). Nested leave-one-source-out: for each source (the importer that read the run) the",
        "L2 strength is chosen and the weights fitted on the other sources only, then that source's runs are estimated.",
        "",
        f"**Pooled held-out AUC {_fmt(report.auc)}**, Brier score {_fmt(report.brier)}, expected calibration error "
        f"{_fmt(report.ece)} ({len(report.calibration)} equal-width bins).",
        "",
        "### Per source",
        "",
        "| source | runs | failed | estimated | mean P(failed) | Brier | AUC |",
        "|---|---|---|---|---|---|---|",
        *(f"| {s['source']} | {s['n']} | {s['failed']} | {s['estimated']} | {_fmt(s['mean_p'])} | {_fmt(s['brier'])} | "
          f"{_fmt(s['auc'])} |" for s in report.per_source),
        "",
        "AUC is empty for a source whose runs all have one outcome; its calibration shows in the mean estimate against",
        "the failure rate. \"estimated\" is less than \"runs\" when the other sources lack one of the outcomes.",
        "",
        "## With the local judge",
        "",
        *_judge_section(models),
        "### Calibration (pooled held-out estimates, cheap cues)",
        "",
        "| P(failed) bin | runs | mean estimate | failure rate |",
        "|---|---|---|---|",
        *(f"| {c['low']:.1f}–{c['high']:.1f} | {c['n']} | {_fmt(c['mean_p'])} | {_fmt(c['failure_rate'])} |"
          for c in report.calibration),
        "",
        "## Tried",
        "",
        "Three more cues (the share of agent actions repeating an earlier one word for word, failure words and",
        "success words in the last three tool outputs) lowered the nested AUC on the same runs (0.785 to 0.727,",
        "measured before the claim pattern stopped matching \"unable to complete\"), so they are not used. The",
        "cheap analysis's own evidence (1 - the value curve's minimum, the number of findings) did not raise it",
        "either (0.768 with the cues); it would also need the analysis to run before the estimate.",
        *_tried_judge(models),
        "",
        "## Caveats",
        "",
        "Most committed samples were written for TrajScope with a planted failure, so their cues are cleaner than",
        "many real runs; the few real files carry few recorded outcomes. The tau-bench runs of `sample_reruns`",
        "(written for the contrast feature, and a real subset) fail by a wrong or missing database write that ends",
        "in a polite closing message, which no cue reads, so they are estimated near chance. Treat the estimate",
        "as a triage hint: mark",
        "the outcome (Shift+F / Shift+S / Shift+U on selected runs) where it matters; the analyst's word always wins.",
        "",
        "Reproduce: `trajscope outcome-fit --judge --doc docs/outcome_estimate.md --json /tmp/outcome_fit.json`",
        "(the judge's answers come from the committed cache `analyzer/outcome/params/judge-achieved-cache.json`;",
        "delete it to ask the judge again).",
        "",
    ]
    return "\n".join(lines)


def _judge_values(args: argparse.Namespace, traces: Any, steps: Any, *,
                  ask: bool = True) -> tuple[dict[str, float], dict[str, Any]] | str | None:
    """The judge cue of the labelled runs (from the cache, else asking the judge), and facts for the meta.

    Returns a message instead when the judge cannot be loaded, and None when ``ask`` is False
    and the cache does not hold every run.
    """
    import polars as pl

    from analyzer.errors import ModelUnavailable
    from analyzer.frames.build import trajectories_from_frames
    from analyzer.judge.llama import ACHIEVED_TOKEN_BUDGET, load_judge, resolve_model
    from analyzer.judge.prompts import ACHIEVED_PROMPT_ID
    from analyzer.outcome import judge_cue
    from analyzer.outcome.fit import labelled_runs

    runs = labelled_runs(traces)
    # The outcome is hidden from the judge: it sees the task, the last steps and the final answer only.
    hidden = runs.with_columns(pl.lit("unknown").alias("outcome"), pl.lit(None, pl.Utf8).alias("outcome_raw"),
                               pl.lit(None, pl.Float64).alias("score"))
    frame = steps.filter(pl.col("trace_id").is_in(runs["trace_id"].implode()))
    frame = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    trajs = trajectories_from_frames(hidden, frame)
    for traj, tid in zip(trajs, runs["trace_id"].to_list(), strict=True):
        traj.id = str(tid)
    try:
        _, model_id = resolve_model(args.judge_model)
    except ModelUnavailable as exc:
        return str(exc)
    cache = judge_cue.read_cache(args.judge_cache)
    timing_key = judge_cue.cache_key("seconds_per_run", model_id)
    todo = [t for t in trajs if judge_cue.cache_key(t.id, model_id) not in cache]
    if todo and not ask:
        return None
    judge: Any = None
    if todo:
        try:
            judge = load_judge(args.judge_model, cache=False)
        except ModelUnavailable as exc:
            return str(exc)
        print(f"asking the judge about {len(todo)} runs ({len(trajs) - len(todo)} cached)", file=sys.stderr)

        def tell(done: int, tid: str) -> None:
            judge_cue.write_cache(args.judge_cache, cache)  # a stopped run keeps what it asked
            print(f"  {done}/{len(todo)} {tid[:12]}", file=sys.stderr, flush=True)

        _, problems, seconds = judge_cue.timed_judge_cue_values(judge, todo, cache=cache, progress=tell)
        if seconds is not None:
            cache[timing_key] = seconds
        judge_cue.write_cache(args.judge_cache, cache)
        judge.close()
    else:
        problems = {}
    values = {t.id: cache[judge_cue.cache_key(t.id, model_id)] for t in trajs
              if judge_cue.cache_key(t.id, model_id) in cache}
    meta = {"judge_model": model_id, "judge_prompt": ACHIEVED_PROMPT_ID, "judge_token_budget": ACHIEVED_TOKEN_BUDGET,
            "judge_seconds_per_run": cache.get(timing_key), "judge_unanswered": len(trajs) - len(values),
            "judge_problems": problems}
    return values, meta


def run(args: argparse.Namespace) -> int:
    """Execute ``outcome-fit``."""
    from analyzer.loading import load
    from analyzer.outcome.fit import fit_outcome_models

    paths = list(args.paths) or [p for p in DEFAULT_PATHS if p.exists()]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"trajscope outcome-fit: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    res = load(paths, cache=None)
    shown = [str(p.relative_to(ROOT)) if p.resolve().is_relative_to(ROOT) else str(p) for p in paths]
    values: dict[str, float] | None = None
    judge_meta: dict[str, Any] = {}
    # without --judge the judge model is still refitted when the cache answers every run (asking nothing)
    got = _judge_values(args, res.traces, res.steps, ask=args.judge)
    if isinstance(got, str):
        if args.judge:
            print(f"trajscope outcome-fit: no judge: {got}", file=sys.stderr)
            return 1
    elif got is not None:
        values, judge_meta = got
    try:
        models = fit_outcome_models(res.traces, res.steps, values, meta={"paths": shown}, judge_meta=judge_meta)
    except ValueError as exc:
        print(f"trajscope outcome-fit: {exc}", file=sys.stderr)
        return 1
    report = models.cheap
    args.params.parent.mkdir(parents=True, exist_ok=True)
    args.params.write_bytes(orjson.dumps(models.models.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
    if args.doc:
        args.doc.write_text(markdown(models, shown), encoding="utf-8")
    if args.json:
        out: dict[str, Any] = {**report.to_json(), "predictions": report.predictions}
        if models.judge is not None:
            out["judge"] = {**models.judge.to_json(), "predictions": models.judge.predictions}
            out["decision"] = models.models.meta
        args.json.write_bytes(orjson.dumps(out, option=orjson.OPT_INDENT_2))
    for name, rep in (("cheap cues", report), ("cheap cues + judge", models.judge)):
        if rep is None:
            continue
        print(f"{name}: {rep.n_runs} runs with a known outcome ({rep.n_failed} failed); nested leave-one-source-out "
              f"AUC {_fmt(rep.auc)}, Brier {_fmt(rep.brier)}, ECE {_fmt(rep.ece)}")
        for s in rep.per_source:
            print(f"  {s['source']:<22} n={s['n']:>3} failed={s['failed']:>3} mean_p={_fmt(s['mean_p'])} "
                  f"auc={_fmt(s['auc'])}")
    if models.judge is not None:
        print(f"judge model used when a judge is available: {models.models.use_judge} ({models.models.meta['ship_rule']})")
    print(f"wrote {args.params}")
    return 0
