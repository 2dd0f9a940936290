"""Which detector findings the evidence column reads as symptoms of an earlier cause.

A finding that most likely shows the consequence of an earlier one (a *symptom*) takes the
``symptom`` weight of the params' ``evidence_classes`` in the evidence column
(:func:`analyzer.attribution.features.evidence_parts`). Which categories mark where an error
enters a run, which are symptoms wherever they stand, and which only count when the trace
itself shows the failure is a tunable like any other: the rule lives in the ranker params file's
``symptom_rule`` section, chosen by ``trajscope eval fit`` among the candidates of
:data:`analyzer.evaluation.selection.SYMPTOM_RULES` on the training systems alone.

The default, for a params file without that section, marks no finding a symptom: it makes no
distinction, like a symptom weight of 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analyzer.taxonomy import CATEGORY_IDS


@dataclass(frozen=True)
class SymptomRule:
    """Which findings are symptoms (see the module doc).

    Attributes:
        causes: Categories whose findings mark where an error enters a run. A finding of
            another category after the run's first finding of one of these is a symptom.
        late: Categories whose findings are symptoms wherever they stand.
        grounded_only: Categories whose findings are symptoms unless the step stands after an
            error output the run has not resolved
            (:func:`~analyzer.detection.text.unresolved_error`).
    """

    causes: frozenset[str] = frozenset()
    late: frozenset[str] = frozenset()
    grounded_only: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """Plain dict for the params file (sorted lists)."""
        return {"causes": sorted(self.causes), "late": sorted(self.late), "grounded_only": sorted(self.grounded_only)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> SymptomRule:
        """Parse the params file's ``symptom_rule`` section (None or empty: no symptoms).

        Raises:
            ValueError: On a malformed section (not lists of strings, or an id the taxonomy
                does not know).
        """
        if not data:
            return cls()
        keys = ("causes", "late", "grounded_only")
        if not isinstance(data, dict) or any(isinstance(data.get(k), str) for k in keys):
            raise ValueError("bad symptom rule: a mapping of lists of category ids expected")
        try:
            sets = {k: frozenset(str(c) for c in data.get(k) or ()) for k in keys}
        except TypeError as exc:
            raise ValueError(f"bad symptom rule: {exc}") from None
        unknown = sorted(c for s in sets.values() for c in s if c not in CATEGORY_IDS)
        if unknown:
            raise ValueError(f"bad symptom rule: unknown categories {', '.join(unknown)}")
        return cls(**sets)
