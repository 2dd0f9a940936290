"""Settling where each loaded run's outcome came from (``outcome_source``).

Applied to every file's traces frame as it is loaded (fresh or from the parsed-data cache):

* a run whose outcome an importer read and whose source it did not name gets ``file`` (a field
  of the run in its own file);
* a run of unknown outcome that carries failure labels (``gold_decisive_step`` /
  ``gold_decisive_agent``, from Who&When's ``mistake_step`` / ``mistake_agent`` and the like: they
  exist only for failed runs) is a failure whose source is ``labels``.
"""

from __future__ import annotations

import polars as pl

from analyzer.schema.outcome_source import DECIDED_OUTCOMES, OutcomeSource


def settle_outcomes(traces: pl.DataFrame) -> pl.DataFrame:
    """The traces frame with ``outcome_source`` (and a labelled run's outcome) settled."""
    if traces.height == 0:
        return traces
    outcome = pl.col("outcome").fill_null("unknown")
    labelled = (outcome == "unknown") & (pl.col("gold_decisive_step").is_not_null()
                                         | pl.col("gold_decisive_agent").is_not_null())
    decided = outcome.is_in(list(DECIDED_OUTCOMES))
    return traces.with_columns(
        pl.when(labelled).then(pl.lit("failure")).otherwise(pl.col("outcome")).alias("outcome"),
        pl.when(pl.col("outcome_source").is_not_null()).then(pl.col("outcome_source"))
        .when(labelled).then(pl.lit(str(OutcomeSource.LABELS)))
        .when(decided).then(pl.lit(str(OutcomeSource.FILE)))
        .otherwise(pl.lit(None, dtype=pl.Utf8)).alias("outcome_source"),
    )
