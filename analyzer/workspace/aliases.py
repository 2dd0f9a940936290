"""The editable model alias table of a workspace (``model_aliases``, schema 3).

A row ``model -> canonical`` puts the model name ``model`` into the group ``canonical``
(see :mod:`analyzer.metrics.model_names`). Merging models writes one row per merged name;
splitting writes identity rows (``a -> a``), which also undo the automatic folding of provider
prefixes and date stamps (``gpt-4o-mini-2024-07-18`` -> ``gpt-4o-mini``). The table lives in the
workspace, so a split survives a reopen. Every edit is one transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime

from analyzer.metrics.model_names import normalise_model
from analyzer.workspace.faults import WorkspaceError, storage_error
from analyzer.workspace.store import Workspace


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def model_aliases(ws: Workspace) -> dict[str, str]:
    """The alias table (name -> group); empty for a workspace older than schema 3."""
    with ws._lock:
        try:
            return {str(a): str(b) for a, b in ws._db.execute("SELECT model, canonical FROM model_aliases")}
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return {}
            raise storage_error(ws.path, exc, "read") from exc


def merge_models(ws: Workspace, names: Iterable[str], into: str) -> int:
    """Put model names (raw or group names) into the group ``into``; one transaction.

    Names already in another group that points at one of ``names`` follow (the group is
    renamed as a whole).

    Returns:
        Rows written.

    Raises:
        WorkspaceError: Empty target name, or the workspace cannot be written.
    """
    target = into.strip()
    if not target:
        raise WorkspaceError("the merged model needs a name")
    items = [n for n in dict.fromkeys(n.strip() for n in names) if n]
    ts = _now()
    n = 0
    with ws._lock, ws._transaction() as db:
        for name in items:
            # rows pointing at a merged group follow it
            db.execute("UPDATE model_aliases SET canonical=?, timestamp=? WHERE canonical=?", (target, ts, name))
            if name == target and normalise_model(name) == name:
                db.execute("DELETE FROM model_aliases WHERE model=? AND canonical=model", (name,))
                continue
            db.execute("INSERT OR REPLACE INTO model_aliases (model, canonical, timestamp) VALUES (?,?,?)",
                       (name, target, ts))
            n += 1
    return n


def split_models(ws: Workspace, names: Iterable[str]) -> int:
    """Each raw model name becomes its own group again (identity rows); one transaction.

    Returns:
        Rows written.
    """
    items = [n for n in dict.fromkeys(n.strip() for n in names) if n]
    ts = _now()
    with ws._lock, ws._transaction() as db:
        for name in items:
            db.execute("INSERT OR REPLACE INTO model_aliases (model, canonical, timestamp) VALUES (?,?,?)",
                       (name, name, ts))
    return len(items)


def reset_aliases(ws: Workspace, names: Iterable[str] | None = None) -> int:
    """Remove alias rows (of these names, or all): the names go back to the normalisation."""
    with ws._lock, ws._transaction() as db:
        if names is None:
            cur = db.execute("DELETE FROM model_aliases")
            return int(cur.rowcount)
        total = 0
        for name in names:
            total += int(db.execute("DELETE FROM model_aliases WHERE model=?", (name,)).rowcount)
        return total
