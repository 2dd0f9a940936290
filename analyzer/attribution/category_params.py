"""Tunables of the category chooser (:func:`analyzer.attribution.attribute.choose_category`).

They live in the ``category`` section of the ranker params file and are chosen by
``trajscope eval fit`` (:mod:`analyzer.evaluation.category_select`) on the development systems
that label a category, like every other tunable of attribution. :class:`CategoryParams`'s
defaults are only what a params file without that section (written before the selection
existed) gets: the values the chooser had before.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class CategoryParams:
    """How the category of the decisive step is chosen.

    Attributes:
        neighbour_weight: Weight of a finding one step away from the decisive step (a finding
            on the step counts 1; farther ones 0). 0: only findings on the step vote.
        judge_share: Share of the judge's category distribution when it is blended with the
            detectors' votes (the votes get ``1 - judge_share``). Not chosen on data: the
            evaluation runs without the judge; 0.5 counts both equally (a definition).
        claims_threshold: Without findings, a decision step whose prose brings more new
            numbers than this (``new_numbers_prose_log``, log1p of the count) or an assumption
            reads as a hallucination; None switches that rule off.
        structural_defaults: Without findings, the first committed approach (first decision or
            briefing) and an approach committed before any error read as planning errors,
            and an unverified success claim as a false success.
        error_output_rule: Without findings, an error output at the step reads as an
            environment failure.

    When nothing above applies the category is ``other`` ("no specific evidence"): a category is
    named only on evidence or a rule, never as a prior. That is a definition, not a tunable.
    """

    neighbour_weight: float = 0.6
    judge_share: float = 0.5
    claims_threshold: float | None = 1.0
    structural_defaults: bool = True
    error_output_rule: bool = True

    def to_json(self) -> dict[str, Any]:
        """Plain dict for the params file."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> CategoryParams:
        """Parse the params file's ``category`` section (None or empty: the defaults).

        Raises:
            ValueError: On a malformed section (wrong types, a judge share outside [0, 1]).
        """
        if not data:
            return cls()
        try:
            threshold = data.get("claims_threshold", 1.0)
            out = cls(neighbour_weight=float(data.get("neighbour_weight", 0.6)),
                      judge_share=float(data.get("judge_share", 0.5)),
                      claims_threshold=None if threshold is None else float(threshold),
                      structural_defaults=bool(data.get("structural_defaults", True)),
                      error_output_rule=bool(data.get("error_output_rule", True)))
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"bad category params: {type(exc).__name__}: {exc}") from None
        if not 0.0 <= out.judge_share <= 1.0:
            raise ValueError("bad category params: judge_share must lie in [0, 1]")
        return out
