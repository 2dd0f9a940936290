"""Costs and thresholds of the contrast alignment, read from ``contrast_params.json``.

The file is written by ``python -m analyzer.contrast.fit`` (the fit, the grid it searched and
the development data it used are recorded in it); the run time only reads it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

PARAMS_PATH = Path(__file__).with_name("contrast_params.json")
"""The shipped params file."""


@dataclass(frozen=True)
class ContrastParams:
    """Costs of the alignment (a gap of an action costs 1; the rest is relative to it).

    No defaults: every value comes from the params file the fit wrote.

    Attributes:
        gap_decision: Cost of leaving a decision (agent message or thought) unmatched.
        gap_other: Cost of leaving an input or observation unmatched.
        tool_cost: Cost of matching two actions that call different tools.
        args_cost: Cost of matching two calls of one tool whose arguments share nothing (scaled
            by one minus their similarity; equal normalised arguments cost 0).
        decision_cost: Cost of matching two decisions with orthogonal texts (scaled by one minus
            the cosine of their text vectors).
        other_cost: The same for inputs and observations (they weigh weakly).
        match_action: An action whose alignment cost (match or gap) exceeds this has no good match.
        match_decision: The same for decisions.
        band_frac: Half-width of the band, as a fraction of the longer run.
        band_min: Smallest half-width of the band, in steps.
    """

    gap_decision: float
    gap_other: float
    tool_cost: float
    args_cost: float
    decision_cost: float
    other_cost: float
    match_action: float
    match_decision: float
    band_frac: float
    band_min: int

    GAP_ACTION = 1.0
    """The unit of cost (not fitted: the alignment does not change when every cost is scaled)."""

    def to_json(self) -> dict[str, Any]:
        """The fitted values as a JSON object."""
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ContrastParams:
        """Params from a JSON object (unknown keys ignored)."""
        names = {f.name: f.type for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for k, v in obj.items():
            if k in names:
                kwargs[k] = int(v) if k == "band_min" else float(v)
        return cls(**kwargs)

    @property
    def version(self) -> str:
        """Short stable text of the values (part of the cache key of an alignment)."""
        return ",".join(f"{k}={v:g}" for k, v in sorted(asdict(self).items()))


def load_params(path: Path | None = None) -> ContrastParams:
    """The params in ``path`` (default: the shipped file)."""
    if path is None:
        return _shipped()
    return ContrastParams.from_json(json.loads(Path(path).read_text(encoding="utf-8"))["params"])


@lru_cache(maxsize=1)
def _shipped() -> ContrastParams:
    return ContrastParams.from_json(json.loads(PARAMS_PATH.read_text(encoding="utf-8"))["params"])
