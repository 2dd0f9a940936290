"""Issue 29 acceptance: a real mini-swe-agent submission folder (``trajs/<id>/<id>.traj.json`` beside the
SWE-bench harness's ``logs/<id>/report.json``, copied unchanged from a public repository; see
``sample_traces/mini_swe_agent_swebench/README.md``) loads with the real loader as one run per
trajectory, every outcome taken from its own report, and 0 load problems."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import orjson

from analyzer.loading import load

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "mini_swe_agent_swebench"
TRAJS = sorted(SAMPLE.glob("trajs/*/*.traj.json"))


def _report(instance_id: str) -> dict[str, object]:
    return json.loads((SAMPLE / "logs" / instance_id / "report.json").read_text(encoding="utf-8"))


def test_the_sample_is_the_real_layout_with_both_verdicts() -> None:
    ids = [p.parent.name for p in TRAJS]
    assert len(ids) >= 2 and all(p.name == f"{p.parent.name}.traj.json" for p in TRAJS)
    for iid in ids:  # the trajectories are mini-swe-agent's own files, one report per instance
        doc = json.loads((SAMPLE / "trajs" / iid / f"{iid}.traj.json").read_text(encoding="utf-8"))
        assert doc["instance_id"] == iid and doc["trajectory_format"] == "mini-swe-agent-1"
        assert doc["info"]["mini_version"]
    assert {_report(i)["resolved"] for i in ids} == {True, False}


def test_the_readme_names_every_file_with_its_checksum() -> None:
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    files = sorted(p for p in SAMPLE.rglob("*.json"))
    assert len(files) == 2 * len(TRAJS)
    for f in files:
        rel = f.relative_to(SAMPLE).as_posix()
        assert f"`{rel}`" in readme and hashlib.sha256(f.read_bytes()).hexdigest() in readme, rel
    assert (SAMPLE / "LICENSE").is_file()


def test_every_outcome_comes_from_its_report_and_nothing_is_a_problem() -> None:
    res = load([SAMPLE], cache=None)
    assert res.errors == []
    assert res.traces.height == len(TRAJS)
    assert set(res.formats) == {"mini_swe_agent"}
    skipped = sorted(Path(p).relative_to(SAMPLE).as_posix() for p in res.skipped)
    reports = sorted(f"logs/{p.parent.name}/report.json" for p in TRAJS)
    assert skipped == sorted([*reports, "LICENSE", "README.md"])  # sidecars and notes, not problems
    for row in res.traces.iter_rows(named=True):
        iid = row["native_id"]
        resolved = _report(iid)["resolved"]
        assert row["outcome"] == ("success" if resolved else "failure"), iid
        assert row["outcome_source"] == "swebench-report", iid
        verdict = "resolved" if resolved else "not resolved"
        assert row["outcome_raw"] == f"Submitted; {verdict} (logs/{iid}/report.json)", iid
        assert row["score"] == (1.0 if resolved else 0.0)
        assert row["n_steps"] > 20


def test_trajscope_import_reports_no_problem() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ui.cli", "import", str(SAMPLE), "--json", "--no-cache"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = orjson.loads(proc.stdout)
    assert out["errors"] == [] and out["traces"] == len(TRAJS)
