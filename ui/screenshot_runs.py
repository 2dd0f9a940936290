"""Which run each screenshot shows (:mod:`ui.screenshots`, :mod:`ui.screenshot_tags_jobs`)."""

from __future__ import annotations

import polars as pl


def pick_run(view: pl.DataFrame) -> str | None:
    """The failed, analysed run that shows the value curve best (a clear drop, a readable length)."""
    failed = view.filter((pl.col("outcome") == "failure") & pl.col("decisive_step").is_not_null())
    if failed.height == 0:
        return None
    readable = failed.filter(pl.col("n_steps").is_between(12, 60))
    pool = readable if readable.height else failed
    best = pool.sort(["largest_drop", "n_findings", "n_steps"], descending=True, nulls_last=True)
    return str(best["trace_id"][0])


def pick_risky_run(view: pl.DataFrame) -> str | None:
    """The longest analysed run with a risky combination (it shows the most overlays), if any."""
    if "risk_score" not in view.columns:
        return None
    risky = view.filter(pl.col("risk_score").fill_null(0) > 0)
    if risky.height == 0:
        return None
    return str(risky.sort(["n_steps", "risk_score"], descending=True)["trace_id"][0])
