"""Contrast a failed run with a successful run of the same task.

- :mod:`.encode`: a run's steps as classes (input, action, decision, observation), tool ids,
  normalised arguments and text vectors.
- :mod:`.align`: banded Needleman-Wunsch alignment of two encoded runs (and the full dynamic
  program it is checked against).
- :mod:`.divergence`: the first decision of the failed run with no good match, and its kind.
- :mod:`.corpus`: every failed run against every success of its task; the nearest success.
- :mod:`.params`: the costs and thresholds, read from ``contrast_params.json`` (written by
  ``python -m analyzer.contrast.fit``, never typed by hand).
"""
