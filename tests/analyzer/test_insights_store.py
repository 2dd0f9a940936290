"""Insight edits in the workspace (schema version 4): kept across reopening, migrated from version 2."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from planted_insights import planted_corpus

from analyzer.embedding import HashingEmbedder
from analyzer.insights import compute_insights
from analyzer.workspace import Workspace
from analyzer.workspace.store import _MIGRATIONS, WORKSPACE_SCHEMA_VERSION


def test_edits_survive_reopening(tmp_path: Path) -> None:
    c = planted_corpus(80, seed=1)
    fresh = compute_insights(c.runs, c.traces, c.steps, HashingEmbedder())
    a, b = fresh.insights[0], fresh.insights[1]
    edited = fresh.merge(a.id, b.id)
    merged = edited.insights[0]
    third = next(i for i in edited.insights if i.size > 1 and i.id != merged.id)
    edited = edited.rename(merged.id, "Both together").split(third.id).recommend_text(merged.id, "Add a check")
    assert len(edited) == len(fresh)
    path = tmp_path / "w.trajscope"
    ws = Workspace(path, author="ana")
    ws.save_insights(edited.assignment(), edited.names, recommendations=edited.recommendations)
    ws.close()

    ws = Workspace(path, author="ana")
    assignment, names = ws.saved_insights()
    assert ws.saved_recommendations() == {merged.id: "Add a check"}
    again = compute_insights(c.runs, c.traces, c.steps, HashingEmbedder()).with_saved(
        assignment, names, ws.saved_recommendations())
    assert again.assignment() == edited.assignment()
    assert [(i.id, i.name, i.size) for i in again.insights] == [(i.id, i.name, i.size) for i in edited.insights]
    assert again.get(merged.id).name == "Both together"  # type: ignore[union-attr]
    assert again.get(merged.id).recommendation.text == "Add a check"  # type: ignore[union-attr]

    # a later save drops insights left without members; runs of other corpora keep theirs
    ws.save_insights({"other-corpus-run": "ins-elsewhere"}, {})
    ws.save_insights(fresh.assignment(), {})
    assignment, names = ws.saved_insights()
    assert assignment["other-corpus-run"] == "ins-elsewhere"
    assert names == {}
    ids = {r[0] for r in sqlite3.connect(path).execute("SELECT id FROM insights")}
    assert ids == set(fresh.assignment().values()) | {"ins-elsewhere"}
    ws.clear_insights()
    assert ws.saved_insights() == ({}, {})


def test_version_2_workspace_migrates_to_4(tmp_path: Path) -> None:
    path = tmp_path / "old.trajscope"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for v in (1, 2):
        for sql in _MIGRATIONS[v]:
            db.execute(sql)
    db.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    db.execute("INSERT INTO annotations VALUES ('r1', 2, 'ana', NULL, '', '', 'decisive', '2026-01-01T00:00:00')")
    db.commit()
    db.close()
    ws = Workspace(path, author="ana")
    assert ws.decisive_step("r1") == 2 and ws.saved_insights() == ({}, {})
    ws.save_insights({"r1": "ins-1"}, {"ins-1": "Mine"})
    ws.close()
    version = sqlite3.connect(path).execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    assert int(version) == WORKSPACE_SCHEMA_VERSION >= 4  # and on to the current version
    assert Workspace(path, read_only=True).saved_insights() == ({"r1": "ins-1"}, {"ins-1": "Mine"})
