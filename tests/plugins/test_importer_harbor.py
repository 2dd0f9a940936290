"""Harbor / Terminal-Bench trial folders: ATIF ``agent/trajectory.json`` plus the trial's
``result.json`` (reward, exception, task, agent info) or ``results.json``; job and trial
sidecars are skipped, a bad result file costs nothing but its own information, and bad input
never raises out of the importer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading import load
from analyzer.loading.loader import claim
from analyzer.plugin_host.registry import PluginHost
from plugins.importers.atif import AtifImporter
from tests.plugins.importer_fuzz import assert_no_catch_all, damage_bytes, read_all, write_mutated

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "sample_traces" / "harbor" / "2026-03-02__10-15-07"
DEDUPE = JOB / "csv-dedupe__Hq3vT8m"
PORT = JOB / "port-check__Zr81Kp2"


def test_job_folder_loads_two_trials(host: PluginHost) -> None:
    res = load([JOB], host=host, cache=None)
    assert res.errors == [] and res.formats == {"atif": 2}
    assert res.steps.height == 28
    assert sorted(Path(p).relative_to(JOB).as_posix() for p in res.skipped) == [
        "config.json", "csv-dedupe__Hq3vT8m/config.json", "csv-dedupe__Hq3vT8m/result.json",
        "csv-dedupe__Hq3vT8m/verifier/reward.txt", "csv-dedupe__Hq3vT8m/verifier/test-stdout.txt",
        "port-check__Zr81Kp2/config.json", "port-check__Zr81Kp2/result.json", "result.json"]
    rows = {Path(r["source_file"]).parent.parent.name: r for r in res.traces.iter_rows(named=True)}
    ok, bad = rows["csv-dedupe__Hq3vT8m"], rows["port-check__Zr81Kp2"]
    assert (ok["outcome"], ok["score"], ok["n_steps"]) == ("success", 1.0, 12)
    assert ok["outcome_raw"] == "reward=1 (csv-dedupe__Hq3vT8m/result.json)"
    assert ok["task_family"] == "trajscope-harbor-samples" and ok["model"] == "anthropic/claude-sonnet-4-5"
    assert (bad["outcome"], bad["score"], bad["n_steps"]) == ("failure", None, 16)
    assert bad["outcome_raw"] == "exception: AgentTimeoutError (port-check__Zr81Kp2/result.json)"
    trial = json.loads(bad["metadata_json"])["trial"]
    assert trial["task_name"] == "port-check" and trial["exception"]["exception_type"] == "AgentTimeoutError"
    assert trial["agent_result"] == {"n_input_tokens": 12888, "n_cache_tokens": 8192, "n_output_tokens": 238,
                                     "cost_usd": 0.0417}
    steps = res.steps.filter(pl.col("trace_id") == ok["trace_id"]).sort("step")
    assert steps["native_step_id"].to_list()[:4] == ["1", "2", "2", "2"]  # the ATIF step_id


def test_trajectory_is_claimed_by_atif_and_sidecars_by_nobody(host: PluginHost) -> None:
    spec, _, _ = claim(DEDUPE / "agent" / "trajectory.json", host)
    assert spec is not None and spec.id == "atif"
    assert any(s.is_sidecar(DEDUPE / "result.json") for s in host.importers())


def test_result_without_reward_falls_back_to_reward_txt(tmp_path: Path, host: PluginHost) -> None:
    trial = tmp_path / "t__1"
    shutil.copytree(DEDUPE, trial)
    doc = json.loads((trial / "result.json").read_text(encoding="utf-8"))
    doc["verifier_result"] = None
    (trial / "result.json").write_text(json.dumps(doc), encoding="utf-8")
    (trial / "verifier" / "reward.txt").write_text("0\n", encoding="utf-8")
    row = load([trial], host=host, cache=None).traces.row(0, named=True)
    assert (row["outcome"], row["outcome_raw"]) == ("failure", "reward=0 (verifier/reward.txt)")
    (trial / "result.json").write_text("{not json", encoding="utf-8")  # a broken result costs only itself
    res = load([trial], host=host, cache=None)
    assert res.errors == [] and res.traces.height == 1 and res.traces["outcome"][0] == "failure"


def test_terminal_bench_results_json(tmp_path: Path, host: PluginHost) -> None:
    trial = tmp_path / "tb-trial"
    (trial / "agent").mkdir(parents=True)
    shutil.copy(PORT / "agent" / "trajectory.json", trial / "agent" / "trajectory.json")
    (trial / "results.json").write_text(json.dumps({
        "id": "r-1", "trial_name": "port-check.1-of-1", "task_id": "port-check", "instruction": "Fix the port.",
        "is_resolved": True, "failure_mode": "unset", "parser_results": {"test_health": "passed"}}), encoding="utf-8")
    res = load([trial], host=host, cache=None)
    row = res.traces.row(0, named=True)
    assert res.errors == [] and (row["outcome"], row["score"]) == ("success", 1.0)
    assert row["outcome_raw"] == "is_resolved=True (tb-trial/results.json)" and row["task_family"] == "port-check"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(["trajectory", "result"]))
def test_mutated_trial_never_raises(tmp_path: Path, host: PluginHost, data: st.DataObject, which: str) -> None:
    trial = tmp_path / "trial"
    shutil.rmtree(trial, ignore_errors=True)
    shutil.copytree(PORT, trial)
    target = trial / "agent" / "trajectory.json" if which == "trajectory" else trial / "result.json"
    if data.draw(st.booleans(), label="bytes"):
        target.write_bytes(damage_bytes(target.read_bytes(), data))
    else:
        write_mutated(target, target, data)
    read_all(AtifImporter(), trial / "agent" / "trajectory.json")
    assert_no_catch_all(trial / "agent" / "trajectory.json", host, "atif")
