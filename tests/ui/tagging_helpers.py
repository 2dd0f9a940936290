"""Shared helpers of the tagging-desk tests: generated traces, an isolated main window, fake-free analysis rows."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.schema.findings import Finding
from analyzer.taxonomy import CATEGORY_IDS

MODELS = ("model-a", "model-b")


def write_runs(folder: Path, n: int, steps: int = 6, hostile: bool = False) -> Path:
    """Write ``n`` runs in the generic JSONL format (one file); every third run succeeds.

    Args:
        folder: Where ``runs.jsonl`` goes.
        n: Number of runs.
        steps: Steps per run.
        hostile: Put ``<script>`` and spreadsheet-formula payloads into the text.

    Returns:
        The file written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "runs.jsonl"
    lines = []
    for i in range(n):
        tid = f"run-{i:03d}"
        ok = i % 3 == 0
        for s in range(steps):
            row: dict[str, Any] = {
                "schema_version": "1.0", "trace_id": tid, "step": s,
                "agent": "agent" if s % 2 else "env", "role": "assistant" if s % 2 else "tool",
                "kind": "action" if s % 2 else "observation",
                "text": f"run {i} step {s}: " + ("<script>alert(1)</script> =HYPERLINK(\"x\")" if hostile else "ls -la"),
            }
            if s == 0:
                task = f"Task number {i}: fix the failing build"
                if hostile:
                    task = "=HYPERLINK(\"http://evil\",\"x\") <img src=x onerror=alert(1)> " + task
                row.update({"task": task, "model": MODELS[i % 2],
                            "framework": "test", "outcome": "success" if ok else "failure",
                            "score": 1.0 if ok else 0.0})
            lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def clear_messages(window: Any) -> None:
    """Dismiss a window's messages before it closes (their auto-hide timers outlive the window)."""
    with contextlib.suppress(RuntimeError):
        window.message_bar.clear()


def make_window(qtbot: Any, ws_path: Path, traces: Path | None) -> Any:
    """A shown main window (no persisted layout) on the workspace ``ws_path``, with ``traces`` loaded."""
    from analyzer.session import Session
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w, before_close_func=clear_messages)
    w.resize(1500, 950)
    assert w.tagging.open_workspace(ws_path)
    if traces is not None:
        w.open_paths([str(traces)], synchronous=True)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.bridge.flush()
    return w


def isolate_qsettings(tmp: Path) -> None:
    """Point QSettings (INI, user scope) into a temporary folder."""
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp / "qsettings"))


def judge_result(traces: Any, steps_per_run: int = 6) -> AnalysisResult:
    """Analysis rows for failed runs: a decisive step with a category, and one extra finding.

    The review queue and agreement panel consume these exactly as they consume the
    pipeline's output (same columns), but with categories a test can predict.
    """
    runs = []
    for i, row in enumerate(traces.iter_rows(named=True)):
        tid = row["trace_id"]
        if row["outcome"] == "success":
            runs.append(RunAnalysis(run={"trace_id": tid, "value_estimator": "cheap", "n_findings": 0}))
            continue
        cat = CATEGORY_IDS[i % 9]
        step = 1 + (i % (steps_per_run - 1))
        other = CATEGORY_IDS[(i + 4) % 9]
        findings = [
            Finding(trace_id=tid, step=step, category=cat, score=0.8, source="test-detector", rationale="decisive"),
            Finding(trace_id=tid, step=0, category=other, score=0.4, source="test-detector", rationale="early sign",
                    evidence_quote="quoted evidence"),
        ]
        runs.append(RunAnalysis(
            run={"trace_id": tid, "decisive_step": step, "category": cat, "confidence": 0.7,
                 "top_steps": str(step), "top_scores": "0.7", "value_estimator": "cheap", "n_findings": 2,
                 "rationale": "the value curve collapses here"},
            steps=[{"trace_id": tid, "step": s, "value": max(0.0, 1.0 - 0.2 * s), "drop": 0.2 if s else 0.0,
                    "value_estimator": "cheap"} for s in range(steps_per_run)],
            findings=findings))
    return AnalysisResult.from_runs(runs)
