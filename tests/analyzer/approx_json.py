"""Comparing JSON-like results across machines: numbers may differ in their last bits, nothing else may."""

from __future__ import annotations

import math
from typing import Any


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def same(a: Any, b: Any) -> bool:
    """Equal, except that numbers (and the ``repr`` strings of numbers) may differ in their last bits.

    numpy's reductions take other code paths on other CPUs (SIMD width), so a z-score can differ
    in the 16th digit between machines; a relative difference of 1e-12 still catches any real change.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if (isinstance(a, list) and isinstance(b, list)) or (isinstance(a, tuple) and isinstance(b, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if a == b:
        return True
    x, y = _number(a), _number(b)
    return x is not None and y is not None and math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
