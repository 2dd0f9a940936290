"""The estimated probability that a run failed, from its cues and the fitted params file.

The params file (``analyzer/outcome/params/outcome-v1.json``) is written by
``trajscope outcome-fit`` (:mod:`analyzer.outcome.fit`): logistic models over the cues of
:mod:`analyzer.outcome.cues`, fitted on the committed runs whose outcome is known, each with
the evaluation it was measured with (AUC and calibration per source, leave-one-source-out).
It holds two models (:class:`OutcomeModels`): the cheap cues only, and the cheap cues plus
the local judge's answer (:mod:`analyzer.outcome.judge_cue`), with the decision whether the
judge model is used when a judge is available (its nested AUC at least the cheap one's).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer.outcome.cues import CUE_NAMES, cue_frame
from analyzer.outcome.judge_cue import JUDGE_CUE
from analyzer.schema.outcome_source import DECIDED_OUTCOMES

PARAMS_PATH = Path(__file__).with_name("params") / "outcome-v1.json"
"""The shipped params file."""

KNOWN = ("success", "failure")
"""Outcomes that need no estimate."""

P_FAILED = "outcome_p_failed"


@dataclass(frozen=True)
class OutcomeParams:
    """A fitted logistic model over the cues.

    Attributes:
        cues: Cue names, in the order of the weights.
        mean: Mean of each cue on the fitting runs (cues are standardised first).
        scale: Standard deviation of each cue on the fitting runs (1 where it was 0).
        weights: Weight of each standardised cue.
        bias: Intercept.
        meta: How it was fitted and measured (``trajscope outcome-fit``).
    """

    cues: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object (the params file)."""
        return {"version": 1, "cues": list(self.cues), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "meta": self.meta}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> OutcomeParams:
        """Params from a parsed params file.

        Raises:
            ValueError: The object is not an outcome params file of a known version.
        """
        if not isinstance(obj, dict) or obj.get("version") != 1:
            raise ValueError("not an outcome params file (version 1)")
        cues = tuple(str(c) for c in obj["cues"])
        unknown = [c for c in cues if c not in (*CUE_NAMES, JUDGE_CUE)]
        if unknown:
            raise ValueError(f"unknown cues {unknown}")
        return cls(cues, tuple(map(float, obj["mean"])), tuple(map(float, obj["scale"])),
                   tuple(map(float, obj["weights"])), float(obj["bias"]), dict(obj.get("meta") or {}))

    def predict(self, cues: dict[str, float]) -> float:
        """P(failed) of one run from its cues."""
        z = self.bias + sum(w * (cues[c] - m) / s for c, m, s, w in zip(self.cues, self.mean, self.scale,
                                                                          self.weights, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@dataclass(frozen=True)
class OutcomeModels:
    """The params file: the cheap model, and the model that also reads the judge cue.

    Attributes:
        cheap: Model over the cheap cues only (used when no judge is available).
        judge: Model over the cheap cues plus :data:`analyzer.outcome.judge_cue.JUDGE_CUE`, or None.
        use_judge: The ship rule's decision: the judge model is used when a judge value is given
            (its nested leave-one-source-out AUC is at least the cheap model's).
        meta: How the decision was taken (both AUCs, the rule).
    """

    cheap: OutcomeParams
    judge: OutcomeParams | None = None
    use_judge: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON object (the params file, version 2)."""
        return {"version": 2, "use_judge": self.use_judge, "meta": self.meta, "cheap": self.cheap.to_json(),
                "judge": self.judge.to_json() if self.judge is not None else None}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> OutcomeModels:
        """Models from a parsed params file (version 2, or a version 1 file: the cheap model only).

        Raises:
            ValueError: Not an outcome params file of a known version.
        """
        if isinstance(obj, dict) and obj.get("version") == 1:
            return cls(OutcomeParams.from_json(obj))
        if not isinstance(obj, dict) or obj.get("version") != 2:
            raise ValueError("not an outcome params file (version 1 or 2)")
        judge = OutcomeParams.from_json(obj["judge"]) if obj.get("judge") is not None else None
        if judge is not None and JUDGE_CUE not in judge.cues:
            raise ValueError(f"the judge model does not read the {JUDGE_CUE} cue")
        return cls(OutcomeParams.from_json(obj["cheap"]), judge, bool(obj.get("use_judge")) and judge is not None,
                   dict(obj.get("meta") or {}))

    def active_judge(self) -> OutcomeParams | None:
        """The judge model when the ship rule says to use it, else None."""
        return self.judge if self.use_judge else None


@functools.cache
def shipped_models() -> OutcomeModels | None:
    """The shipped models, or None when the file is missing or damaged (then nothing is estimated)."""
    try:
        return OutcomeModels.from_json(orjson.loads(PARAMS_PATH.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def judge_cue_wanted() -> bool:
    """Whether asking the judge pays: the shipped params use the judge model (the ship rule said so).

    When they do not, a loaded judge is never asked the final-state question (it would cost
    seconds per run for a cue the estimate does not read).
    """
    models = shipped_models()
    return models is not None and models.active_judge() is not None


def shipped_params() -> OutcomeParams | None:
    """The shipped cheap model (no judge), or None when the params file is missing or damaged."""
    models = shipped_models()
    return models.cheap if models is not None else None


def in_memory_estimates(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame | None) -> pl.DataFrame | None:
    """:func:`estimate_p_failed` when the steps are in memory; None for none or a lazy frame.

    A lazy frame is a corpus on disk, whose step texts an export must not read.
    """
    return estimate_p_failed(traces, steps) if isinstance(steps, pl.DataFrame) else None


def estimate_p_failed(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                      params: OutcomeParams | OutcomeModels | None = None, *, all_runs: bool = False,
                      judge_values: Mapping[str, float] | None = None) -> pl.DataFrame:
    """Estimated P(failed) of the runs whose outcome is not recorded.

    Args:
        traces: Traces frame (``trace_id``, ``outcome``, ``final_answer``).
        steps: Steps frame or lazy frame (only those runs' rows are read).
        params: The model, or both models (default: the shipped params file).
        all_runs: Estimate every run, also those with a recorded outcome (evaluation).
        judge_values: The judge cue of the runs the judge was asked about (trace id -> P(achieved));
            those runs get the judge model when the params ship one for use, the others the cheap one.

    Returns:
        Frame ``trace_id``, ``outcome_p_failed`` (one row per estimated run; empty without params).
    """
    schema: dict[str, Any] = {"trace_id": pl.Utf8, P_FAILED: pl.Float64}
    models = params if isinstance(params, OutcomeModels) else (
        OutcomeModels(params) if params is not None else shipped_models())
    if models is None or traces.height == 0:
        return pl.DataFrame(schema=schema)
    cheap, with_judge = models.cheap, models.active_judge()
    judged = judge_values if with_judge is not None and judge_values else {}
    recorded = "outcome_recorded" if "outcome_recorded" in traces.columns else "outcome"  # an overlaid frame
    todo = traces if all_runs else traces.filter(~pl.col(recorded).fill_null("unknown").is_in(DECIDED_OUTCOMES))
    if todo.height == 0:
        return pl.DataFrame(schema=schema)
    cues = cue_frame(todo, steps)
    ps = [with_judge.predict({**r, JUDGE_CUE: float(judged[r["trace_id"]])})
          if with_judge is not None and r["trace_id"] in judged else cheap.predict(r)
          for r in cues.iter_rows(named=True)]
    return pl.DataFrame({"trace_id": cues["trace_id"], P_FAILED: ps}, schema=schema)


def with_judged_estimates(traces: pl.DataFrame, steps: pl.DataFrame, values: Mapping[str, float]) -> pl.DataFrame:
    """Effective traces whose estimated outcomes are estimated again with the judge's answers.

    What an analysis worker hands the analysis after asking the judge, so the run's outcome it
    works on is the one the session will show (the same rule as
    :func:`analyzer.outcome.effective.effective_outcomes`: failed when P(failed) >= 0.5).

    Args:
        traces: Effective traces (``outcome_source`` says which outcomes are estimates).
        steps: Their steps.
        values: Trace id -> judge cue (from :func:`analyzer.outcome.judge_cue.estimated_run_cues`).

    Returns:
        The traces, same rows and order; only estimated runs with a judge answer may change.
    """
    if not values or "outcome_source" not in traces.columns:
        return traces
    estimated = traces.filter((pl.col("outcome_source") == "estimate")
                              & pl.col("trace_id").is_in(pl.Series(list(values), dtype=pl.Utf8).implode()))
    if estimated.height == 0:
        return traces
    est = estimate_p_failed(estimated.with_columns(pl.lit("unknown").alias("outcome")), steps, judge_values=values)
    new = est.select("trace_id", pl.when(pl.col(P_FAILED) >= 0.5).then(pl.lit("failure"))
                     .otherwise(pl.lit("success")).alias("_judged"))
    return (traces.join(new, on="trace_id", how="left", maintain_order="left")
            .with_columns(pl.coalesce("_judged", "outcome").alias("outcome")).drop("_judged"))
