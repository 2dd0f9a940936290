"""Load helpers shared by the importer tests: load a file, claim it, write a JSON document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.loading.loader import LoadResult, claim
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Trajectory


def load_runs(path: Path, host: PluginHost, importer: str | None = None) -> tuple[list[Trajectory], LoadResult]:
    """The runs of one file (uncached) and the load result."""
    res = load([path], host=host, cache=None, importer=importer)
    return trajectories_from_frames(res.traces, res.steps), res


def load_one(path: Path, host: PluginHost, importer: str) -> Trajectory:
    """The one run of a file that ``importer`` claims and reads without a load problem."""
    spec, _, problem = claim(path, host)
    assert problem is None and spec is not None and spec.id == importer, (spec, problem)
    runs, res = load_runs(path, host)
    assert res.errors == [], [str(e) for e in res.errors]
    assert len(runs) == 1
    return runs[0]


def write_json(path: Path, doc: Any) -> Path:
    """Write ``doc`` as JSON to ``path`` and return the path."""
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
