"""Signals beyond the decisive step: risk, missed checks, waste, context waste, tool-answer use.

Signal detectors are detector plugins with ``phase = "signals"``. They run after the
attribution, so their findings never change the decisive step, and besides findings they
return per-step and per-run values that become columns of ``steps.csv`` / ``traces.csv``
(declared in :mod:`analyzer.signals.columns`). See ``docs/detectors.md``.

:mod:`analyzer.signals.steps` holds the table of step signals: every step-level signal of a run,
computed once, which the detectors, the ranker's features, the agent rule, the category chooser,
the rationale and the value curve read (``docs/step_signals.md``).
"""

from analyzer.signals.columns import SIGNAL_RUN_COLUMNS, SIGNAL_STEP_COLUMNS
from analyzer.signals.run import SignalOutput, SignalRun, apply_signals, run_signals

__all__ = ["SIGNAL_RUN_COLUMNS", "SIGNAL_STEP_COLUMNS", "SignalOutput", "SignalRun", "apply_signals",
           "run_signals"]
