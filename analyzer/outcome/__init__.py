"""Outcomes of runs that the file does not record: the analyst's word and an estimate.

- :mod:`analyzer.outcome.effective` lays the analyst's outcome and the estimate over the
  recorded one (``outcome``, ``outcome_source``, ``outcome_recorded``, ``outcome_analyst``,
  ``outcome_p_failed``), the one rule every view, count and export follows;
- :mod:`analyzer.outcome.cues` computes cheap per-run cues from the steps;
- :mod:`analyzer.outcome.estimate` turns the cues into a probability of failure with the
  weights of the params file that ``trajscope outcome-fit`` writes
  (:mod:`analyzer.outcome.fit`).
"""
