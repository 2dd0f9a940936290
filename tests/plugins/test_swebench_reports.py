"""SWE-bench evaluation reports beside mini-swe-agent trajectories decide the outcome (source
``swebench-report``) and are sidecars, never load problems: ``<id>.report.json`` beside the
trajectory, and the harness's ``logs/<id>/report.json`` of a submission folder
(``trajs/<id>/<id>.traj.json``), with or without the ``{id: ...}`` wrapper."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from analyzer.loading import load
from analyzer.plugin_host.registry import PluginHost

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "mini_swe_agent"
IDS = ("humanbytes__humanbytes-214", "quickcsv__quickcsv-57")


def _report(resolved: bool) -> dict[str, object]:
    return {"patch_is_None": False, "patch_exists": True, "patch_successfully_applied": True, "resolved": resolved,
            "tests_status": {"FAIL_TO_PASS": {"success": [], "failure": ["t1"] if not resolved else []}}}


def _outcomes(res: object) -> dict[str, tuple[str, str | None, str | None]]:
    return {r["native_id"]: (r["outcome"], r["outcome_source"], r["outcome_raw"])
            for r in res.traces.iter_rows(named=True)}  # type: ignore[attr-defined]


def test_id_report_json_beside_the_trajectory(tmp_path: Path, host: PluginHost) -> None:
    for i, iid in enumerate(IDS):
        shutil.copy(SAMPLE / iid / f"{iid}.traj.json", tmp_path / f"{iid}.traj.json")
        # the SWE-bench harness writes {instance_id: report}; flip the sample's verdicts to tell them apart
        (tmp_path / f"{iid}.report.json").write_text(json.dumps({iid: _report(resolved=i == 0)}), encoding="utf-8")
    res = load([tmp_path], host=host, cache=None)
    assert res.errors == [] and res.traces.height == 2
    got = _outcomes(res)
    assert got[IDS[0]][:2] == ("success", "swebench-report")
    assert got[IDS[1]][:2] == ("failure", "swebench-report")
    assert got[IDS[1]][2].endswith(f"not resolved ({IDS[1]}.report.json)")
    assert sorted(Path(p).name for p in res.skipped) == sorted(f"{i}.report.json" for i in IDS)


def test_submission_folder_with_harness_logs(tmp_path: Path, host: PluginHost) -> None:
    for i, iid in enumerate(IDS):
        (tmp_path / "trajs" / iid).mkdir(parents=True)
        shutil.copy(SAMPLE / iid / f"{iid}.traj.json", tmp_path / "trajs" / iid / f"{iid}.traj.json")
        (tmp_path / "logs" / iid).mkdir(parents=True)
        (tmp_path / "logs" / iid / "report.json").write_text(json.dumps(_report(resolved=i == 1)), encoding="utf-8")
        (tmp_path / "logs" / iid / "patch.diff").write_text("diff --git a/x b/x\n", encoding="utf-8")
    res = load([tmp_path], host=host, cache=None)
    assert res.errors == [] and res.traces.height == 2
    got = _outcomes(res)
    assert got[IDS[0]] == ("failure", "swebench-report", "Submitted; not resolved (logs/humanbytes__humanbytes-214/report.json)")
    assert got[IDS[1]][:2] == ("success", "swebench-report")


def test_results_json_of_the_sample_is_a_swebench_report(host: PluginHost) -> None:
    res = load([SAMPLE], host=host, cache=None)
    assert res.errors == []
    assert {r["outcome_source"] for r in res.traces.iter_rows(named=True)} == {"swebench-report"}
