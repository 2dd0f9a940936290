"""Write the agent-framework sample traces (dev tool; not needed by tests).

Run from the repo root: ``.venv/bin/python tests/data/generators/make_agent_framework_samples.py``.

Each script in ``agent_frameworks/`` writes one group of files (all content authored for
TrajScope, licence-clean; repositories, packages and services are fictional):

* ``swe_resolved.py``, ``swe_failed.py``: ``sample_traces/swe_agent/`` (+ ``results.json``)
* ``mini.py``: ``sample_traces/mini_swe_agent/`` (+ ``results.json``)
* ``oh_output.py``, ``oh_traj.py``: ``sample_traces/openhands/``
* ``atif_gen.py``: ``sample_traces/atif/`` (Harbor trial folders with ``verifier/reward.txt``)

The planted decisive step of each failed run is then found by loading the file with the real
importer and locating the canonical step of the decisive record, and written into the file.
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent / "agent_frameworks"
SAMPLES = ROOT / "sample_traces"
sys.path.insert(0, str(ROOT))

from analyzer.frames.build import trajectories_from_frames  # noqa: E402
from analyzer.loading import load  # noqa: E402
from analyzer.plugin_host.registry import PluginHost  # noqa: E402


def canonical_step(path: Path, native: int, kind: str, record: str = "$") -> int:
    """Canonical index of the step of ``kind`` read from source record ``native``."""
    host = PluginHost()
    host.register_manifest(ROOT / "plugins" / "trajscope.toml")
    res = load([path], host=host)
    run = next(t for t in trajectories_from_frames(res.traces, res.steps) if t.record == record)
    return next(s.index for s in run.steps if s.native_index == native and s.kind == kind)


def _rewrite(path: Path, holder_key: str, update: dict[str, Any], indent: int) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc[holder_key]["planted"].update(update)
    path.write_text(json.dumps(doc, indent=indent) + "\n", encoding="utf-8")


def main() -> None:
    """Write every sample, then the planted steps."""
    ns = {name: runpy.run_path(str(HERE / f"{name}.py"))
          for name in ("swe_resolved", "swe_failed", "mini", "oh_output", "oh_traj", "atif_gen")}

    loop = SAMPLES / "swe_agent" / "pageturner__pageturner-88" / "pageturner__pageturner-88.traj"
    doc = json.loads(loop.read_text(encoding="utf-8"))
    doc["info"]["planted"]["step"] = canonical_step(loop, ns["swe_failed"]["DECISIVE_ENTRY"], "action")
    doc["info"]["planted"]["also"][0]["step"] = canonical_step(loop, ns["swe_failed"]["LOOP_ENTRY"], "action")
    loop.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")

    mini = SAMPLES / "mini_swe_agent" / "humanbytes__humanbytes-214" / "humanbytes__humanbytes-214.traj.json"
    _rewrite(mini, "info", {"step": canonical_step(mini, ns["mini"]["HB_CLAIM_STEP"], "action")}, 2)

    output = SAMPLES / "openhands" / "output.jsonl"
    step = canonical_step(output, ns["oh_output"]["PLANNING_EDIT_EVENT"], "tool_call", record="line 1")
    lines = output.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["metadata"]["planted"]["step"] = step
    lines[0] = json.dumps(first)
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")

    traj = SAMPLES / "openhands" / "trajectory.json"
    _rewrite(traj, "metadata", {"step": canonical_step(traj, ns["oh_traj"]["DECISIVE_EVENT"], "tool_call")}, 1)

    drift = SAMPLES / "atif" / "sales-summary__7Kq2mXa" / "agent" / "trajectory.json"
    _rewrite(drift, "extra", {"step": canonical_step(drift, ns["atif_gen"]["DRIFT_ATIF_STEP"], "message")}, 2)
    hallu = SAMPLES / "atif" / "fix-health-endpoint__Rt4pZ9c" / "agent" / "trajectory.json"
    _rewrite(hallu, "extra", {"step": canonical_step(hallu, ns["atif_gen"]["HALLU_ATIF_STEP"], "message")}, 2)


if __name__ == "__main__":
    main()
