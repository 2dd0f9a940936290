import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analyzer.analysis.result import RUN_COLUMNS
from analyzer.frames.build import frame_from_rows
from analyzer.workspace import Workspace, WorkspaceError, judge_analyst_agreement


def test_tag_persists_and_reopens(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.trajscope", author="ana")
    assert ws.set_category([("r1", 3), ("r2", None)], "goal_drift") == 2
    ws.add_tag([("r1", 3)], "needs-review")
    ws.set_note(("r1", 3), "agent forgot the constraint")
    ws.close()
    ws2 = Workspace(tmp_path / "w.trajscope", author="ana")
    a = ws2.get("r1", 3)
    assert a is not None and a.category == "goal_drift" and a.tags == ("needs-review",)
    assert a.note == "agent forgot the constraint"
    assert ws2.get("r2", None).category == "goal_drift"
    frame = ws2.annotations_frame()
    assert frame.height == 2 and set(frame.columns) >= {"trace_id", "step", "category", "tags", "note", "author"}


def test_undo_redo_bulk(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.db")
    targets = [(f"r{i}", None) for i in range(50)]
    ws.set_category(targets, "planning_error")
    ws.set_category(targets[:10], "hallucination")
    assert ws.get("r0", None).category == "hallucination"
    assert ws.undo() == "Tag hallucination"
    assert ws.get("r0", None).category == "planning_error"
    assert ws.undo() == "Tag planning_error"
    assert ws.annotations() == []
    assert ws.redo() == "Tag planning_error"
    assert len(ws.annotations()) == 50
    ws.redo()
    assert ws.get("r9", None).category == "hallucination" and ws.get("r10", None).category == "planning_error"


def test_decisive_accept_reject(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.db")
    ws.mark_decisive("r1", 4, "evidence_action_gap")
    ws.mark_decisive("r1", 2)
    assert ws.decisive_step("r1") == 2
    assert ws.get("r1", 4).status == "accepted"
    ws.accept([("r1", 5, "repeated_action")])
    ws.reject([("r1", 6)])
    assert ws.get("r1", 5).category == "repeated_action"
    assert ws.get("r1", 6).status == "rejected"
    with pytest.raises(WorkspaceError):
        ws.set_category([("r1", 1)], "not_a_category")


def test_jsonl_merge_reports_conflicts_and_loses_nothing(tmp_path: Path) -> None:
    a = Workspace(tmp_path / "a.db", author="alice")
    b = Workspace(tmp_path / "b.db", author="bob")
    a.set_category([("r1", 2)], "goal_drift")
    b.set_category([("r1", 2)], "planning_error")
    b.set_category([("r2", None)], "false_success")
    out = tmp_path / "bob.jsonl"
    assert b.export_jsonl(out) == 2
    with out.open("a") as fh:
        fh.write("{not json\n")
        fh.write('{"trace_id": "r3", "step": 1, "category": "bogus"}\n')
    rep = a.import_jsonl(out)
    assert rep.added == 2 and len(rep.errors) == 2
    assert len(rep.conflicts) == 1 and rep.conflicts[0].ours.author == "alice"
    assert a.get("r1", 2, "alice").category == "goal_drift"
    assert a.get("r1", 2, "bob").category == "planning_error"
    again = a.import_jsonl(out)
    assert again.added == 0 and again.unchanged == 2


def test_bad_workspace_file_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "bad.db"
    p.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(WorkspaceError, match="not a TrajScope workspace"):
        Workspace(p)


def test_agreement_kappa(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.db")
    ws.mark_decisive("r1", 1, "goal_drift")
    ws.mark_decisive("r2", 2, "planning_error")
    ws.mark_decisive("r3", 3, "planning_error")
    runs = frame_from_rows([
        {"trace_id": "r1", "decisive_step": 1, "category": "goal_drift"},
        {"trace_id": "r2", "decisive_step": 5, "category": "planning_error"},
        {"trace_id": "r3", "decisive_step": 3, "category": "goal_drift"},
        {"trace_id": "r4", "decisive_step": 3, "category": "goal_drift"},
    ], RUN_COLUMNS)
    ag = judge_analyst_agreement(runs, ws.annotations_frame())
    assert ag.n == 3
    assert ag.observed == pytest.approx(2 / 3)
    assert ag.confusion[("goal_drift", "planning_error")] == 1
    assert ag.step_agreement == pytest.approx(2 / 3)
    assert ag.kappa is not None and -1 <= ag.kappa <= 1


def test_sigkill_mid_tagging_loses_no_acknowledged_tag(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    script = textwrap.dedent(f"""
        import sys, time
        from analyzer.workspace import Workspace
        ws = Workspace({str(db)!r}, author="k")
        i = 0
        while True:
            ws.set_category([(f"run{{i}}", None)], "repeated_action")
            print(f"ACK {{i}}", flush=True)
            i += 1
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    acked = []
    assert proc.stdout is not None
    for line in proc.stdout:
        acked.append(int(line.split()[1]))
        if len(acked) >= 200:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    ws = Workspace(db, author="k")
    have = {a.trace_id for a in ws.annotations()}
    assert {f"run{i}" for i in acked} <= have
