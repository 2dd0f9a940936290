"""Write ``golden.json.gz``: what the analysis computed on every sample run before the step-signal table.

Run once, from the repository root, with the code as it was before the table of step signals
(issue 28 item 7): ``PYTHONPATH=$PWD python tests/data/step_signals/make_golden.py``. The test
``tests/analyzer/test_step_signals_golden.py`` checks that the code that reads the table gives
exactly these values: the feature matrix (``step_features``, with and without embeddings), the
value curve's term matrix, the steps-phase detector findings and the analysis of the run
(decisive step, agent, category, rationale, top steps, signal columns).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.attribution.features import step_features
from analyzer.attribution.hazards import term_matrix
from analyzer.attribution.ranker import Ranker
from analyzer.frames.build import trajectories_from_frames
from analyzer.loading import load
from analyzer.pipeline import analyze_run, blind, prepare_run
from analyzer.plugin_host.registry import default_host

ROOT = Path(__file__).resolve().parents[3]
OUT = Path(__file__).with_name("golden.json.gz")
DIM = 16


class HashEmbedder:
    """A deterministic stand-in embedder: unit vectors seeded by a digest of each text."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit-norm row per text."""
        rows = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode("utf-8")).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIM)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)


def finding_record(f: Any) -> dict[str, Any]:
    """A finding as JSON (every field)."""
    return f.model_dump(mode="json")


def plain(v: Any) -> Any:
    """A JSON-able copy of a table cell (floats as their repr so equality stays exact)."""
    if isinstance(v, float):
        return repr(v)
    return v


def record(t: Any, host: Any, ranker: Ranker) -> dict[str, Any]:
    """Everything the golden test compares for one run."""
    bt = blind(t)
    out: dict[str, Any] = {"id": t.id, "source": Path(t.source_file).name}
    for emb_name, emb in (("plain", None), ("hash", HashEmbedder())):
        sig = prepare_run(bt, host, embedder=emb, evidence_weights=ranker.params.evidence_classes,
                          symptom_rule=ranker.params.symptom_rule)
        feats = step_features(bt, sig.findings, sig.step_embeddings, sig.task_embedding,
                              ranker.params.evidence_classes, symptom_rule=ranker.params.symptom_rule)
        assert np.array_equal(feats, sig.features)
        tm = term_matrix(bt, sig.findings, sig.alignment)
        ra = analyze_run(t, host=host, ranker=ranker, embedder=emb)
        out[emb_name] = {
            "features": [[repr(float(v)) for v in row] for row in feats],
            "terms": [[repr(float(v)) for v in row] for row in tm.values],
            "findings": [finding_record(f) for f in sig.findings],
            "run": {k: plain(v) for k, v in ra.run.items()},
            "steps": [{k: plain(v) for k, v in row.items()} for row in ra.steps],
            "all_findings": [finding_record(f) for f in ra.findings],
        }
    return out


def main() -> None:
    res = load([ROOT / "sample_traces"])
    host = default_host()
    ranker = Ranker.load()
    out = [record(t, host, ranker) for t in trajectories_from_frames(res.traces, res.steps)]
    OUT.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":"), sort_keys=True).encode("utf-8"), 9,
                                  mtime=0))
    print(f"wrote {OUT}: {len(out)} runs")


if __name__ == "__main__":
    main()
