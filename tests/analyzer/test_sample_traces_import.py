"""Acceptance: every sample trace loads with zero errors, in at least 9 formats."""

import subprocess
import sys
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]


def test_import_sample_traces_cli_zero_errors() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ui.cli", "import", str(ROOT / "sample_traces"), "--json", "--no-cache"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = orjson.loads(proc.stdout)
    assert out["errors"] == []
    assert len(out["formats"]) >= 9
    assert out["traces"] >= 30 and out["steps"] > 500
    # evaluation sidecars (SWE-bench results.json) are skipped, not errors
    assert any(p.endswith("results.json") for p in out["skipped"])
