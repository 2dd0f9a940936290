"""The estimated probability that a run failed, from its cues and the fitted params file.

The params file (``analyzer/outcome/params/outcome-v1.json``) is written by
``trajscope outcome-fit`` (:mod:`analyzer.outcome.fit`): a logistic model over the cues of
:mod:`analyzer.outcome.cues`, fitted on the committed runs whose outcome is known, with the
evaluation it was measured with (AUC and calibration per source, leave-one-source-out).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer.outcome.cues import CUE_NAMES, cue_frame
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
        unknown = [c for c in cues if c not in CUE_NAMES]
        if unknown:
            raise ValueError(f"unknown cues {unknown}")
        return cls(cues, tuple(map(float, obj["mean"])), tuple(map(float, obj["scale"])),
                   tuple(map(float, obj["weights"])), float(obj["bias"]), dict(obj.get("meta") or {}))

    def predict(self, cues: dict[str, float]) -> float:
        """P(failed) of one run from its cues."""
        z = self.bias + sum(w * (cues[c] - m) / s for c, m, s, w in zip(self.cues, self.mean, self.scale,
                                                                          self.weights, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@functools.cache
def shipped_params() -> OutcomeParams | None:
    """The shipped params, or None when the file is missing or damaged (then nothing is estimated)."""
    try:
        return OutcomeParams.from_json(orjson.loads(PARAMS_PATH.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def in_memory_estimates(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame | None) -> pl.DataFrame | None:
    """:func:`estimate_p_failed` when the steps are in memory; None for none or a lazy frame.

    A lazy frame is a corpus on disk, whose step texts an export must not read.
    """
    return estimate_p_failed(traces, steps) if isinstance(steps, pl.DataFrame) else None


def estimate_p_failed(traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                      params: OutcomeParams | None = None, *, all_runs: bool = False) -> pl.DataFrame:
    """Estimated P(failed) of the runs whose outcome is not recorded.

    Args:
        traces: Traces frame (``trace_id``, ``outcome``, ``final_answer``).
        steps: Steps frame or lazy frame (only those runs' rows are read).
        params: The model (default: the shipped params file).
        all_runs: Estimate every run, also those with a recorded outcome (evaluation).

    Returns:
        Frame ``trace_id``, ``outcome_p_failed`` (one row per estimated run; empty without params).
    """
    schema: dict[str, Any] = {"trace_id": pl.Utf8, P_FAILED: pl.Float64}
    params = params or shipped_params()
    if params is None or traces.height == 0:
        return pl.DataFrame(schema=schema)
    recorded = "outcome_recorded" if "outcome_recorded" in traces.columns else "outcome"  # an overlaid frame
    todo = traces if all_runs else traces.filter(~pl.col(recorded).fill_null("unknown").is_in(DECIDED_OUTCOMES))
    if todo.height == 0:
        return pl.DataFrame(schema=schema)
    cues = cue_frame(todo, steps)
    ps = [params.predict(r) for r in cues.select(params.cues).iter_rows(named=True)]
    return pl.DataFrame({"trace_id": cues["trace_id"], P_FAILED: ps}, schema=schema)
