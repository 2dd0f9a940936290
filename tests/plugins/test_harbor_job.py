"""A Harbor job folder as ``harbor run`` writes it: every trial is a run (one without a trajectory
becomes an ``error`` run whose only step is its exception), outcomes come from the rewards, the
verifier's CTRF failed tests are evidence on the run, and no sidecar is a load problem."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl

from analyzer.loading import load
from analyzer.plugin_host.registry import PluginHost

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "sample_traces" / "harbor_job" / "2026-04-14__09-02-11"


def _trial(row: dict[str, object]) -> str:
    path = Path(str(row["source_file"]))
    return path.parent.parent.name if path.parent.name == "agent" else path.parent.name


def test_five_trials_five_runs_outcomes_from_rewards(host: PluginHost) -> None:
    res = load([JOB], host=host, cache=None)
    assert res.errors == []
    assert res.formats == {"atif": 4, "harbor_trial": 1}
    rows = {_trial(r): r for r in res.traces.iter_rows(named=True)}
    assert {k: r["outcome"] for k, r in rows.items()} == {
        "log-rotate__Pq7mW2c": "success", "json-merge__Xv3kR8d": "failure", "env-check__Lm4sT9a": "success",
        "cron-fix__Bn2yH6e": "failure", "db-migrate__Tk8pQ1z": "error"}
    assert {r["outcome_source"] for r in rows.values()} == {"harbor-reward"}
    assert sum(r["outcome"] == "success" for r in rows.values()) == 2  # pass rate 2/5, not 2/4


def test_trial_without_trajectory_is_an_error_run_with_its_exception(host: PluginHost) -> None:
    res = load([JOB], host=host, cache=None)
    run = res.traces.filter(pl.col("source_format") == "harbor_trial").row(0, named=True)
    assert run["native_id"] == "db-migrate__Tk8pQ1z" and run["task"] == "db-migrate"
    assert run["outcome_raw"] == "exception: AgentTimeoutError; reward=0" and run["score"] == 0.0
    assert run["model"] == "gpt-5-mini" and run["n_steps"] == 1 and run["n_errors"] == 1
    step = res.steps.filter(pl.col("trace_id") == run["trace_id"]).row(0, named=True)
    assert step["is_error"] and "AgentTimeoutError: Agent execution timed out" in step["text"]
    assert step["error_text"] == "AgentTimeoutError: Agent execution timed out after 600.0 seconds"
    assert step["native_step_id"] == "exception.txt"


def test_ctrf_failed_tests_are_evidence_on_the_run(host: PluginHost) -> None:
    res = load([JOB], host=host, cache=None)
    rows = {_trial(r): r for r in res.traces.iter_rows(named=True)}
    cron = json.loads(rows["cron-fix__Bn2yH6e"]["metadata_json"])["failed_tests"]
    assert (cron["tests"], cron["passed"], cron["failed"]) == (3, 1, 2)
    assert [t["name"] for t in cron["failed_tests"]] == ["tests/test_outputs.py::test_entry_has_user_field",
                                                        "tests/test_outputs.py::test_entry_runs_as_backup"]
    assert "expected 7" in cron["failed_tests"][0]["message"]
    ok = json.loads(rows["log-rotate__Pq7mW2c"]["metadata_json"])["failed_tests"]
    assert (ok["tests"], ok["failed"], ok["failed_tests"]) == (3, 0, [])
    assert "failed_tests" not in json.loads(rows["env-check__Lm4sT9a"]["metadata_json"])


def test_ctrf_decides_when_the_trial_has_no_reward(tmp_path: Path, host: PluginHost) -> None:
    trial = tmp_path / "json-merge__Xv3kR8d"
    shutil.copytree(JOB / "json-merge__Xv3kR8d", trial)
    (trial / "result.json").unlink()
    (trial / "verifier" / "reward.txt").unlink()
    res = load([tmp_path], host=host, cache=None)
    assert res.errors == []
    run = res.traces.row(0, named=True)
    assert (run["outcome"], run["outcome_source"]) == ("failure", "ctrf")
    assert run["outcome_raw"] == "1 of 3 tests failed (verifier/ctrf.json)"


def test_job_result_and_trial_results_with_trajectories_stay_sidecars(host: PluginHost) -> None:
    res = load([JOB], host=host, cache=None)
    skipped = {Path(p).relative_to(JOB).as_posix() for p in res.skipped}
    assert {"result.json", "config.json", "log-rotate__Pq7mW2c/result.json", "log-rotate__Pq7mW2c/verifier/ctrf.json",
            "db-migrate__Tk8pQ1z/exception.txt"} <= skipped
    assert "db-migrate__Tk8pQ1z/result.json" not in skipped
