"""The judge cue of the outcome estimate: P(the final state achieves the task), from the local judge.

Only used when a judge is available (the app has one loaded, or ``trajscope outcome-fit --judge``):
the params file then holds a second model over the cheap cues plus this one
(:class:`analyzer.outcome.estimate.OutcomeModels`). Asking costs a few seconds per run on a CPU
(:meth:`analyzer.judge.llama.LlamaJudge.p_achieved`), so the values are cached in a JSON file
keyed by run id, model id and prompt id: a rerun over the same runs asks nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from pathlib import Path

import orjson
import polars as pl

from analyzer.judge.base import AchievedJudge, JudgeError
from analyzer.judge.prompts import ACHIEVED_PROMPT_ID
from analyzer.schema.models import Trajectory

JUDGE_CUE = "judge_achieved"
"""Column name of the cue."""
JUDGE_CUE_DOC = ("The local judge's P(Yes) to \"does the final state of the run achieve the task?\" "
                 "(task, last steps and final answer only).")


def cache_key(trace_id: str, model_id: str, prompt_id: str = ACHIEVED_PROMPT_ID) -> str:
    """Key of one cached value: run id, model id and prompt id."""
    return f"{trace_id}|{model_id}|{prompt_id}"


def read_cache(path: Path | None) -> dict[str, float]:
    """Cached values of a JSON cache file ({} when missing or unreadable)."""
    if path is None or not path.exists():
        return {}
    try:
        obj = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(obj, dict):
        return {}
    return {str(k): float(v) for k, v in obj.items() if isinstance(v, (int, float))}


def write_cache(path: Path, values: dict[str, float]) -> None:
    """Write the JSON cache file (sorted keys, so reruns give the same bytes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(values, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


def judge_cue_values(judge: AchievedJudge, trajectories: Iterable[Trajectory], *,
                     cache: MutableMapping[str, float] | None = None,
                     progress: Callable[[int, str], None] | None = None) -> tuple[dict[str, float], dict[str, str]]:
    """The judge cue of each run.

    Args:
        judge: The judge (its ``model_id`` keys the cache).
        trajectories: The runs (their recorded outcome is never shown to the judge).
        cache: Values already known, by :func:`cache_key`; new values are added to it.
        progress: Called after each run with (runs done, trace id).

    Returns:
        (trace id -> value, trace id -> reason for the runs the judge could not answer).
    """
    values: dict[str, float] = {}
    problems: dict[str, str] = {}
    store = cache if cache is not None else {}
    for done, traj in enumerate(trajectories, start=1):
        key = cache_key(traj.id, judge.model_id)
        if key in store:
            values[traj.id] = float(store[key])
        else:
            try:
                value = float(judge.p_achieved(traj))
            except JudgeError as exc:
                problems[traj.id] = str(exc)
            else:
                store[key] = value
                values[traj.id] = value
        if progress is not None:
            progress(done, traj.id)
    return values, problems


def timed_judge_cue_values(judge: AchievedJudge, trajectories: list[Trajectory], *,
                           cache: MutableMapping[str, float] | None = None,
                           progress: Callable[[int, str], None] | None = None
                           ) -> tuple[dict[str, float], dict[str, str], float | None]:
    """:func:`judge_cue_values` plus the mean seconds per run actually asked (None when all were cached)."""
    store = cache if cache is not None else {}
    asked = sum(1 for t in trajectories if cache_key(t.id, judge.model_id) not in store)
    start = time.perf_counter()
    values, problems = judge_cue_values(judge, trajectories, cache=store, progress=progress)
    seconds = time.perf_counter() - start
    return values, problems, (seconds / asked if asked else None)


def estimated_run_cues(judge: AchievedJudge, traces: pl.DataFrame, steps: pl.DataFrame,
                       known: Mapping[str, float] | None = None,
                       cancelled: Callable[[], bool] | None = None) -> dict[str, float]:
    """The judge cue of the runs whose outcome is an estimate (``outcome_source == "estimate"``).

    This is what an analysis with a judge asks (in its worker, never on the UI thread) so the
    estimate of those runs can use the judge model.

    Args:
        judge: The loaded judge.
        traces: Effective traces (:func:`analyzer.outcome.effective.effective_outcomes`).
        steps: Their steps.
        known: Values already known (trace id -> value): those runs are not asked again.
        cancelled: Checked before each question; True stops asking (what was asked is returned).

    Returns:
        Trace id -> P(the final state achieves the task), for the runs the judge answered.
    """
    from analyzer.frames.build import trajectories_from_frames

    if traces.height == 0 or "outcome_source" not in traces.columns:
        return {}
    todo = traces.filter((pl.col("outcome_source") == "estimate")
                         & ~pl.col("trace_id").is_in(pl.Series(list(known or {}), dtype=pl.Utf8).implode()))
    if todo.height == 0:
        return {}
    # the judge never sees an outcome, recorded or estimated
    hidden = todo.with_columns(pl.lit("unknown").alias("outcome"))
    trajs = trajectories_from_frames(hidden, steps.filter(pl.col("trace_id").is_in(todo["trace_id"].implode())))
    out: dict[str, float] = {}
    for traj, tid in zip(trajs, todo["trace_id"].to_list(), strict=True):
        if cancelled is not None and cancelled():
            break
        try:
            out[str(tid)] = float(judge.p_achieved(traj))
        except JudgeError:
            continue
    return out

