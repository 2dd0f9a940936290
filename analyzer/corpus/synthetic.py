"""A synthetic corpus generator for benchmarks and tests (no model, no network, seeded).

:func:`generate_corpus` writes a corpus folder (:mod:`analyzer.corpus.store` layout) of
``n_runs`` runs spread over ``n_sources`` source files, ``steps_per_run`` steps on average
(uniform between half and one and a half times it), built column-wise with numpy and polars so
that 10^5 runs / 10^7 steps take minutes, not hours.

What a run looks like (so the analysis has something to find):

- 6 models x 20 task families; ``source_file`` is ``synthetic/<model>/part-<k>.jsonl``.
- Steps cycle *thought* -> *tool call* -> *observation* (agents ``planner``, ``executor``,
  ``bash``); texts come from a small vocabulary, each made distinct by run and step numbers.
- About 60 % of the runs fail. A failed run has a decisive step: from it on, the executor
  repeats one command (a loop) and its observations report errors; the run ends with a
  claimed success (a false success). Successful runs have no errors.
- Run ids are content-style hashes of ``(seed, run number)``; the same arguments give the same
  corpus, byte for byte.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import polars as pl

from analyzer.corpus.store import write_corpus
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS
from analyzer.schema.models import SCHEMA_VERSION

MODELS = ("gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-flash", "llama-3.1-70b", "qwen2.5-72b", "o3-mini")
FAMILIES = tuple(f"family-{k:02d}" for k in range(20))
_VERBS = ("open", "read", "list", "check", "parse", "grep", "count", "compare", "update", "test")
_NOUNS = ("config.yaml", "the log", "utils.py", "the table", "README", "results.csv", "the tests",
          "main.py", "the schema", "the output")
_THOUGHTS = tuple(f"Next I will {v} {n} to see what changed." for v in _VERBS for n in _NOUNS)
_OBS_OK = tuple(f"{n}: looks fine, nothing unexpected." for n in _NOUNS)
_OBS_ERR = ("Error: command failed with exit code 1", "Traceback (most recent call last): KeyError: 'id'",
            "permission denied", "No such file or directory")


def _ids(seed: int, runs: np.ndarray) -> list[str]:
    return [hashlib.blake2b(f"{seed}:{int(r)}".encode(), digest_size=8).hexdigest() for r in runs]


def synthetic_frames(first_run: int, n_runs: int, steps_per_run: int, source_file: str,
                     seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Traces and steps frames (TRACE_COLUMNS / STEP_COLUMNS) of runs ``first_run ..`` of one source."""
    rng = np.random.default_rng([seed, first_run])
    runs = np.arange(first_run, first_run + n_runs)
    lo, hi = max(3, steps_per_run // 2), max(3, steps_per_run + steps_per_run // 2)
    n = rng.integers(lo, hi + 1, n_runs)
    failed = rng.random(n_runs) < 0.6
    decisive = np.where(failed, (rng.random(n_runs) * (n - 2)).astype(np.int64) + 1, -1)
    model = rng.integers(0, len(MODELS), n_runs)
    family = rng.integers(0, len(FAMILIES), n_runs)
    ids = _ids(seed, runs)
    total = int(n.sum())
    run_of = np.repeat(np.arange(n_runs), n)
    step = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
    kind = step % 3
    d = decisive[run_of]
    bad = (d >= 0) & (step >= d)
    err = bad & (kind == 2)
    last = step == n[run_of] - 1
    pick = rng.integers(0, len(_THOUGHTS), total)
    thought = pl.Series(_THOUGHTS).gather(pick)
    verb = pl.Series(_VERBS).gather(pick % len(_VERBS))
    noun = pl.Series(_NOUNS).gather(pick % len(_NOUNS))
    obs_ok = pl.Series(_OBS_OK).gather(pick % len(_OBS_OK))
    obs_err = pl.Series(_OBS_ERR).gather(pick % len(_OBS_ERR))
    f = pl.DataFrame({"r": run_of, "step": step, "kind_i": kind, "bad": bad, "err": err, "last": last,
                      "thought": thought, "verb": verb, "noun": noun, "ok": obs_ok, "ko": obs_err})
    runno = pl.col("r").cast(pl.Utf8)
    stepno = pl.col("step").cast(pl.Utf8)
    cmd = (pl.when(pl.col("bad")).then(pl.lit("retry the same migration"))
           .otherwise(pl.concat_str(pl.col("verb"), pl.lit(" "), pl.col("noun"))))
    text = (pl.when(pl.col("last") & pl.col("bad")).then(pl.lit("All tests pass. The task is complete."))
            .when(pl.col("kind_i") == 0).then(pl.concat_str(pl.col("thought"), pl.lit(" (run "), runno,
                                                            pl.lit(", step "), stepno, pl.lit(")")))
            .when(pl.col("kind_i") == 1).then(pl.concat_str(pl.lit("$ "), cmd))
            .when(pl.col("err")).then(pl.concat_str(pl.col("ko"), pl.lit(" at step "), stepno))
            .otherwise(pl.concat_str(pl.col("ok"), pl.lit(" ("), stepno, pl.lit(" lines)"))))
    steps = f.select(
        pl.col("r"),
        pl.col("step").cast(pl.Int64),
        pl.when(pl.col("kind_i") == 2).then(pl.lit("bash")).when(pl.col("kind_i") == 1)
        .then(pl.lit("executor")).otherwise(pl.lit("planner")).alias("agent"),
        pl.when(pl.col("kind_i") == 2).then(pl.lit("tool")).otherwise(pl.lit("assistant")).alias("role"),
        pl.when(pl.col("kind_i") == 0).then(pl.lit("thought")).when(pl.col("kind_i") == 1)
        .then(pl.lit("tool_call")).otherwise(pl.lit("observation")).alias("kind"),
        text.alias("text"),
        pl.when(pl.col("kind_i") == 1).then(pl.lit("bash")).otherwise(None).alias("tool_name"),
        pl.when(pl.col("kind_i") == 1).then(pl.concat_str(pl.lit('{"cmd": "'), cmd, pl.lit('"}')))
        .otherwise(None).alias("tool_args"),
        pl.col("err").alias("is_error"),
        pl.when(pl.col("err")).then(pl.col("ko")).otherwise(None).alias("error_text"),
        pl.when(pl.col("kind_i") != 2).then(pl.col("step") * 7 + 200).otherwise(None).cast(pl.Int64).alias("tokens_in"),
        pl.when(pl.col("kind_i") != 2).then(pl.lit(40)).otherwise(None).cast(pl.Int64).alias("tokens_out"),
    )
    steps = steps.with_columns(pl.Series("trace_id", ids, dtype=pl.Utf8).gather(steps["r"]).alias("trace_id")).drop("r")
    steps = steps.with_columns(*(pl.lit(None, dtype=c.dtype).alias(c.name) for c in STEP_COLUMNS
                                 if c.name not in steps.columns)).select([c.name for c in STEP_COLUMNS])
    n_err = f.group_by("r").agg(pl.col("err").sum()).sort("r")["err"].to_numpy()
    tokens = steps.group_by("trace_id", maintain_order=True).agg(
        (pl.col("tokens_in").fill_null(0) + pl.col("tokens_out").fill_null(0)).sum().alias("t"))["t"].to_numpy()
    models = pl.Series(MODELS).gather(model)
    traces = pl.DataFrame({
        "trace_id": ids,
        "native_id": [f"run-{int(r)}" for r in runs],
        "source_file": [source_file] * n_runs,
        "source_format": ["synthetic"] * n_runs,
        "record": [f"$[{k}]" for k in range(n_runs)],
        "task": [f"Fix the failing migration of service {int(r) % 997} so that the test suite passes." for r in runs],
        "model": models,
        "framework": ["synthetic"] * n_runs,
        "task_family": pl.Series(FAMILIES).gather(family),
        "outcome": np.where(failed, "failure", "success"),
        "outcome_raw": np.where(failed, "false", "true"),
        "score": np.where(failed, 0.0, 1.0),
        "final_answer": np.where(failed, "done (tests pass)", "done"),
        "n_steps": n.astype(np.int64),
        "n_errors": n_err.astype(np.int64),
        "tokens_total": tokens.astype(np.int64),
        "schema_version": [SCHEMA_VERSION] * n_runs,
    })
    traces = traces.with_columns(*(pl.lit(None, dtype=c.dtype).alias(c.name) for c in TRACE_COLUMNS
                                   if c.name not in traces.columns))
    traces = traces.select([pl.col(c.name).cast(c.dtype) for c in TRACE_COLUMNS])
    return traces, steps


def generate_corpus(root: str | Path, n_runs: int, steps_per_run: int = 100, n_sources: int = 100,
                    seed: int = 0) -> Path:
    """Write a synthetic corpus of ``n_runs`` runs in ``n_sources`` source files (see the module doc).

    Args:
        root: Corpus folder (replaced if it already holds a corpus).
        n_runs: Runs in total.
        steps_per_run: Mean steps per run.
        n_sources: Source files (partitions); runs are spread evenly.
        seed: Seed; the same arguments give the same corpus.

    Returns:
        The corpus folder.
    """
    n_sources = max(1, min(n_sources, n_runs))
    per = [n_runs // n_sources + (1 if k < n_runs % n_sources else 0) for k in range(n_sources)]
    first = 0
    for k, count in enumerate(per):
        model = MODELS[k % len(MODELS)]
        traces, steps = synthetic_frames(first, count, steps_per_run, f"synthetic/{model}/part-{k:05d}.jsonl", seed)
        write_corpus(root, traces, steps, replace=k == 0)
        first += count
    return Path(root)
