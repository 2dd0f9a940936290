"""Adapted rankers in the workspace: versions, activation, revert, reopening, migration; analyze --workspace."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from analyzer.attribution.adapted import workspace_ranker
from analyzer.attribution.ranker import Ranker
from analyzer.workspace import Workspace, WorkspaceError
from analyzer.workspace.store import WORKSPACE_SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]


def _params(bump: float, n: int = 7) -> dict:
    base = Ranker.load().params
    return replace(base, weights=[w + bump for w in base.weights],
                   meta={"kind": "adapted", "n_labels": n, "base_version": base.version}).to_json()


def test_versions_activate_revert_and_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "w.trajscope"
    ws = Workspace(path, author="ana")
    assert ws.active_ranker() is None and ws.list_rankers() == []
    v1 = ws.save_ranker(_params(0.1), 7, 0.2, 0.5, 7)
    v2 = ws.save_ranker(_params(0.2, 9), 9, 0.3, 0.4, 9)
    assert v2.id > v1.id and v2.active and v2.author == "ana" and v2.n_labels == 9
    assert [v.id for v in ws.list_rankers()] == [v2.id, v1.id]
    assert ws.active_ranker() == v2 and not ws.ranker(v1.id).active
    # an older version can be picked again; the other one stays stored
    assert ws.activate(v1.id).active
    assert ws.active_ranker().id == v1.id and len(ws.list_rankers()) == 2
    ws.revert_to_shipped()
    assert ws.active_ranker() is None and len(ws.list_rankers()) == 2
    assert ws.save_ranker(_params(0.3), 5, activate=False).active is False
    assert ws.active_ranker() is None
    ws.activate(v2.id)
    ws.close()
    again = Workspace(path, author="bo")
    active = again.active_ranker()
    assert active is not None and active.id == v2.id and active.params == v2.params
    assert active.shipped_step_at_1 == 0.3 and active.adapted_step_at_1 == 0.4 and active.cv_n == 9
    assert [v.id for v in again.list_rankers()] == [v2.id + 1, v2.id, v1.id]
    ranker, line = workspace_ranker(again)
    assert ranker is not None and line.startswith(f"adapted #{v2.id} (9 labels")
    assert ranker.weights.tolist() == Ranker(Ranker.load().params.__class__.from_json(v2.params)).weights.tolist()
    again.revert_to_shipped()
    assert workspace_ranker(again) == (None, f"shipped weights ({Ranker.load().params.version}); "
                                             "no adapted ranker is active")
    again.close()


def test_bad_version_and_bad_params_are_clear_errors(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.trajscope")
    with pytest.raises(WorkspaceError, match="no ranker version 42"):
        ws.activate(42)
    with pytest.raises(WorkspaceError, match="no weights"):
        ws.save_ranker({"version": "x"}, 5)
    bad = _params(0.0)
    bad["weights"] = bad["weights"][:3]
    v = ws.save_ranker(bad, 5)
    with pytest.raises(ValueError, match=f"adapted ranker #{v.id}: bad ranker params"):
        workspace_ranker(ws)
    # at most one version is active, even if two writers race (the unique index holds)
    ws.save_ranker(_params(0.1), 5, activate=False)
    with pytest.raises(sqlite3.IntegrityError):
        ws._db.execute("UPDATE rankers SET active = 1")
    ws.close()


def test_version_1_workspace_migrates_and_keeps_its_annotations(tmp_path: Path) -> None:
    from analyzer.workspace.store import _MIGRATIONS

    path = tmp_path / "old.trajscope"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for sql in _MIGRATIONS[1]:
        db.execute(sql)
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    db.execute("INSERT INTO annotations VALUES ('r1', 2, 'ana', NULL, '', '', 'decisive', '2026-01-01T00:00:00')")
    db.commit()
    db.close()
    ws = Workspace(path, author="ana")
    assert ws.decisive_step("r1") == 2 and ws.active_ranker() is None
    ws.save_ranker(_params(0.1), 5)
    ws.close()
    version = sqlite3.connect(path).execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    assert int(version) == WORKSPACE_SCHEMA_VERSION


def test_decisive_labels_need_exactly_one_decisive_step(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w.trajscope", author="ana")
    ws.mark_decisive("r1", 3)
    ws.mark_decisive("r2", 1)
    ws.mark_decisive("r2", 4)  # moves the mark: still one decisive step
    ws.mark_decisive("r3", 2)
    ws.mark_decisive("r3", 5, author="bo")  # two analysts disagree: no label
    ws.mark_decisive("r4", 0)
    ws.mark_decisive("r4", 0, author="bo")  # two analysts agree: one label
    ws.set_category([("r5", 2)], "goal_drift")  # a tag is not a decisive mark
    assert ws.decisive_labels() == {"r1": 3, "r2": 4, "r4": 0}
    ws.close()


def test_analyze_with_workspace_uses_and_names_its_active_ranker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main

    samples = ROOT / "sample_traces"
    ws_path = tmp_path / "w.trajscope"
    ws = Workspace(ws_path)
    base = Ranker.load().params
    # a deliberately different ranker: it prefers the last step of every run
    flipped = replace(base, weights=[-w for w in base.weights], meta={"kind": "adapted", "n_labels": 6,
                                                                       "base_version": base.version})
    v = ws.save_ranker(flipped.to_json(), 6, 0.1, 0.5, 6)
    ws.close()
    out_shipped, out_adapted = tmp_path / "shipped", tmp_path / "adapted"
    assert main(["analyze", str(samples), "--no-judge", "--no-embed", "--quiet", "--no-cache", "--out",
                 str(out_shipped)]) in (0, 1)
    capsys.readouterr()
    assert main(["analyze", str(samples), "--no-judge", "--no-embed", "--quiet", "--no-cache", "--out",
                 str(out_adapted), "--workspace", str(ws_path)]) in (0, 1)
    err = capsys.readouterr().err
    assert f"ranker: adapted #{v.id} (6 labels, based on {base.version})" in err
    a = pl.read_csv(out_adapted / "traces.csv").sort("trace_id")
    s = pl.read_csv(out_shipped / "traces.csv").sort("trace_id")
    assert a.height == s.height
    assert a["decisive_step"].to_list() != s["decisive_step"].to_list()
    # the result is exactly what the pipeline gives with that ranker
    from analyzer.loading import load
    from analyzer.pipeline import analyze

    res = load([samples])
    direct = analyze(res.traces, res.steps, ranker=Ranker(flipped)).runs.sort("trace_id")
    assert a["decisive_step"].to_list() == direct["decisive_step"].to_list()
    # revert: the shipped weights again, and the command says so
    ws = Workspace(ws_path)
    ws.revert_to_shipped()
    ws.close()
    assert main(["analyze", str(samples), "--no-judge", "--no-embed", "--quiet", "--no-cache", "--out",
                 str(tmp_path / "again"), "--workspace", str(ws_path)]) in (0, 1)
    assert "ranker: shipped weights" in capsys.readouterr().err
    assert pl.read_csv(tmp_path / "again" / "traces.csv").sort("trace_id")["decisive_step"].to_list() == \
        s["decisive_step"].to_list()


def test_analyze_with_a_foreign_workspace_is_bad_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main

    samples = ROOT / "sample_traces"
    assert main(["analyze", str(samples), "--workspace", str(tmp_path)]) == 2
    assert "not a file" in capsys.readouterr().err
    junk = tmp_path / "junk.trajscope"
    junk.write_bytes(b"this is not sqlite" * 100)
    assert main(["analyze", str(samples), "--workspace", str(junk)]) == 2
    assert "not a TrajScope workspace" in capsys.readouterr().err
