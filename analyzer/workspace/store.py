"""SQLite workspace: every analyst action is written in one transaction the moment it is made.

Durability: WAL journal with ``synchronous=FULL``; each action commits before the call
returns, so a killed process loses nothing that the UI showed as saved.

Data model: one annotation row per (run, step, author); ``step`` is ``-1`` for a run-level
annotation. ``status`` is ``accepted`` (the analyst's label), ``rejected`` (the analyst
rejects the judge's suggestion at that step) or ``decisive`` (the analyst's decisive step
of the run: accepted and decisive; at most one per run and author). Runs are keyed by the
stable content-derived run id, so annotations survive moving files.

Every action is undoable: it records the rows before and after, and :meth:`Workspace.undo`
/ :meth:`Workspace.redo` re-apply that difference in a transaction.

Concurrency: several processes may share one workspace. Every read-modify-write (an action,
an undo, an import) runs inside one ``BEGIN IMMEDIATE`` transaction, so the rows are read under
the write lock and no other writer's change is overwritten; a writer waits up to
:data:`BUSY_TIMEOUT_S` for the lock. Undo and redo re-apply only what the action changed, on top
of whatever the row holds now (another process's tags stay).

Storage faults (read-only file or folder, unwritable parent, full disk, a lock held too long)
raise a :class:`WorkspaceError` that says what is wrong and what to do
(:mod:`analyzer.workspace.faults`); the failed action is rolled back and nothing acknowledged
before it is lost.

Rankers adapted to the analyst's labels (schema version 2) are kept as numbered versions
(params JSON, number of labels, cross-validated step@1 of the shipped and adapted weights);
at most one is active, and none means the shipped weights. Activating another version or
reverting to the shipped weights changes only the active flag, so the history stays.

Outcomes the analyst set (schema version 5) sit on the run-level row (``step`` -1) in the
``outcome`` column (``failure``, ``success`` or ``unknown``; NULL when the analyst did not say), so
marking runs is an undoable action like tagging and travels with the JSONL export.

Failure insights the analyst edited (schema version 4) are kept as run -> insight membership and
insight names and recommendations (empty means "from the rules"). Saving them is one transaction; it is
not on the undo stack of annotations.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer.frames.build import frame_from_rows
from analyzer.frames.columns import ANNOTATION_COLUMNS
from analyzer.taxonomy import CATEGORY_IDS
from analyzer.workspace.faults import WorkspaceError as WorkspaceError
from analyzer.workspace.faults import storage_error

WORKSPACE_SCHEMA_VERSION = 5
STATUSES = ("accepted", "rejected", "decisive")
OUTCOMES = ("failure", "success", "unknown")
"""Outcomes an analyst can give a run (``unknown`` says the file's outcome is not to be trusted)."""
RUN_LEVEL = -1
BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process's write lock before it fails (``WorkspaceError``)."""

_MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE annotations (
            trace_id TEXT NOT NULL,
            step INTEGER NOT NULL,
            author TEXT NOT NULL,
            category TEXT,
            tags TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'accepted',
            timestamp TEXT NOT NULL,
            PRIMARY KEY (trace_id, step, author)
        )""",
        "CREATE INDEX annotations_trace ON annotations(trace_id)",
    ],
    2: [
        # adapted rankers, versioned; at most one is active (none: the shipped weights)
        """CREATE TABLE rankers (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created TEXT NOT NULL,
            author TEXT NOT NULL DEFAULT '',
            params TEXT NOT NULL,
            n_labels INTEGER NOT NULL,
            shipped_step_at_1 REAL,
            adapted_step_at_1 REAL,
            cv_n INTEGER,
            active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1))
        )""",
        "CREATE UNIQUE INDEX rankers_one_active ON rankers(active) WHERE active = 1",
    ],
    # analysis results per (run, analysis version) and the model alias table
    # (analyzer.workspace.results, analyzer.workspace.aliases); IF NOT EXISTS so it applies on any version-2 schema
    3: [
        """CREATE TABLE IF NOT EXISTS analysis_results (
            trace_id TEXT NOT NULL,
            version TEXT NOT NULL,
            run BLOB NOT NULL,
            steps BLOB NOT NULL,
            findings BLOB NOT NULL,
            errors BLOB NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (trace_id, version)
        )""",
        "CREATE INDEX IF NOT EXISTS analysis_results_trace ON analysis_results(trace_id, created)",
        """CREATE TABLE IF NOT EXISTS model_aliases (
            model TEXT PRIMARY KEY,
            canonical TEXT NOT NULL,
            timestamp TEXT NOT NULL
        )""",
    ],
    4: [
        # failure insights as the analyst edited them (split, merge, rename): membership and names
        """CREATE TABLE insights (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            recommendation TEXT NOT NULL DEFAULT '',
            author TEXT NOT NULL DEFAULT '',
            updated TEXT NOT NULL
        )""",
        """CREATE TABLE insight_members (
            trace_id TEXT PRIMARY KEY,
            insight_id TEXT NOT NULL
        )""",
        "CREATE INDEX insight_members_insight ON insight_members(insight_id)",
    ],
    5: [
        # the analyst's outcome of a run, on its run-level annotation row (NULL: not given)
        "ALTER TABLE annotations ADD COLUMN outcome TEXT",
    ],
}


Target = tuple[str, int | None]
"""(run id, step) — step None means the whole run."""


@dataclass(frozen=True)
class Annotation:
    """One annotation row (see module docstring)."""

    trace_id: str
    step: int | None
    author: str
    category: str | None = None
    tags: tuple[str, ...] = ()
    note: str = ""
    status: str = "accepted"
    timestamp: str = ""
    outcome: str | None = None

    def is_empty(self) -> bool:
        """True when the row carries nothing worth keeping."""
        return (self.category is None and not self.tags and not self.note and self.status == "accepted"
                and self.outcome is None)

    def to_json(self) -> dict[str, Any]:
        """Plain dict for JSONL export."""
        d = asdict(self)
        d["tags"] = list(self.tags)
        return d


@dataclass(frozen=True)
class RankerVersion:
    """One stored adapted ranker.

    Attributes:
        id: Version number (increasing).
        created: When it was stored (ISO 8601, UTC).
        author: Analyst who adapted it.
        params: Ranker params as JSON (``RankerParams.to_json()``).
        n_labels: Labelled runs it was fitted on.
        shipped_step_at_1: Cross-validated step@1 of the shipped weights on those labels.
        adapted_step_at_1: The same for the adapted weights (refitted without each held-out run).
        cv_n: Runs in that cross-validation.
        active: True for the version analyses use.
    """

    id: int
    created: str
    author: str
    params: dict[str, Any]
    n_labels: int
    shipped_step_at_1: float | None
    adapted_step_at_1: float | None
    cv_n: int | None
    active: bool


@dataclass
class MergeConflict:
    """Two analysts labelled the same step differently."""

    trace_id: str
    step: int | None
    ours: Annotation
    theirs: Annotation


@dataclass
class ImportReport:
    """What an annotation import did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    conflicts: list[MergeConflict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


Key = tuple[str, int, str]
_Change = tuple[Key, Annotation | None, Annotation | None]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _key(trace_id: str, step: int | None, author: str) -> Key:
    return (trace_id, RUN_LEVEL if step is None else int(step), author)


def _rebase(key: Key, current: Annotation | None, src: Annotation | None, dst: Annotation | None,
            ts: str) -> Annotation | None:
    """The row after moving ``current`` by the difference ``src`` → ``dst`` (undo/redo).

    When the row is still as the action left it, the result is exactly ``dst``. Otherwise only
    the fields the action changed, and still showing the action's value, move; tags are a set
    difference (the action's added tags go, its removed tags come back), so the changes another
    process made meanwhile stay.
    """
    if current == src:
        return dst
    empty = Annotation(trace_id=key[0], step=None if key[1] == RUN_LEVEL else key[1], author=key[2])
    base, s, d = current or empty, src or empty, dst or empty
    moved: dict[str, Any] = {}
    for name in ("category", "note", "status", "outcome"):
        if getattr(s, name) != getattr(d, name) and getattr(base, name) == getattr(s, name):
            moved[name] = getattr(d, name)
    dropped = set(s.tags) - set(d.tags)
    tags = tuple(t for t in base.tags if t not in dropped) + tuple(t for t in d.tags if t not in s.tags
                                                                     and t not in base.tags)
    return replace(base, **moved, tags=tags, timestamp=ts)


class Workspace:
    """An open workspace database.

    Args:
        path: SQLite file (created if missing, unless ``read_only``).
        author: Default author for actions (from settings).
        read_only: Open for reading only (reports): a read-only file opens, every write raises.
        busy_timeout: Seconds a write waits for another process's lock (default :data:`BUSY_TIMEOUT_S`).

    Raises:
        WorkspaceError: The file cannot be opened, is not a workspace, or cannot be written
            (read-only file or folder, unwritable parent folder, full disk); the message says
            what to do.
    """

    def __init__(self, path: str | Path, author: str = "analyst", *, read_only: bool = False,
                 busy_timeout: float | None = None) -> None:
        self.path = Path(path)
        self.author = author
        self.read_only = read_only
        self._lock = threading.RLock()
        self._undo: list[tuple[str, list[_Change]]] = []
        self._redo: list[tuple[str, list[_Change]]] = []
        timeout = BUSY_TIMEOUT_S if busy_timeout is None else busy_timeout
        db: sqlite3.Connection | None = None
        try:
            if read_only:
                db = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, timeout=timeout,
                                     check_same_thread=False, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(str(self.path), timeout=timeout, check_same_thread=False, isolation_level=None)
            self._db = db
            db.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            if read_only:
                self._check_readable()
                cols = {str(r[1]) for r in db.execute("PRAGMA table_info(annotations)").fetchall()}
                if cols and "outcome" not in cols:  # a workspace older than version 5, read as it is
                    self._READ_COLS = self._COLS.replace(", outcome", ", NULL AS outcome")
            else:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                self._migrate()
                self._check_writable()
        except BaseException as exc:
            if db is not None:
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            if isinstance(exc, sqlite3.Error | OSError):
                raise storage_error(self.path, exc, "open") from exc
            raise

    def _check_writable(self) -> None:
        """Fail now, not at the first tag, when the file cannot be written (SQLite opens it read-only)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM meta WHERE 0")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")

    def _check_readable(self) -> None:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
            row = None
        if row is None:
            raise WorkspaceError("not a TrajScope workspace (no schema version). Open another workspace.", self.path)
        if int(row[0]) > WORKSPACE_SCHEMA_VERSION:
            raise WorkspaceError(f"workspace version {row[0]} is newer than this app supports "
                                 f"({WORKSPACE_SCHEMA_VERSION}); update TrajScope", self.path)

    # -- schema --------------------------------------------------------------
    def _migrate(self) -> None:
        db = self._db
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > WORKSPACE_SCHEMA_VERSION:
            raise WorkspaceError(f"{self.path}: workspace version {version} is newer than this app supports "
                                 f"({WORKSPACE_SCHEMA_VERSION}); update TrajScope")
        for v in range(version + 1, WORKSPACE_SCHEMA_VERSION + 1):
            db.execute("BEGIN IMMEDIATE")
            try:
                # re-read under the write lock: another process may have migrated meanwhile
                row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                if row is None or int(row[0]) < v:
                    for sql in _MIGRATIONS[v]:
                        db.execute(sql)
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(v),))
                db.execute("COMMIT")
            except Exception:
                if db.in_transaction:  # SQLite already rolled back after a full disk
                    db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the database (everything is already committed)."""
        with self._lock:
            self._db.close()

    # -- reading -------------------------------------------------------------
    @staticmethod
    def _row(r: Sequence[Any]) -> Annotation:
        step = None if r[1] == RUN_LEVEL else int(r[1])
        tags = tuple(t for t in str(r[4]).split(",") if t)
        return Annotation(trace_id=r[0], step=step, author=r[2], category=r[3], tags=tags, note=r[5],
                          status=r[6], timestamp=r[7], outcome=r[8])

    _COLS = "trace_id, step, author, category, tags, note, status, timestamp, outcome"
    _READ_COLS = _COLS
    """What reads select: an older file opened read-only (not migrated) has no ``outcome`` column."""

    def _get(self, key: Key) -> Annotation | None:
        r = self._db.execute(f"SELECT {self._READ_COLS} FROM annotations WHERE trace_id=? AND step=? AND author=?",
                             key).fetchone()
        return self._row(r) if r else None

    def get(self, trace_id: str, step: int | None, author: str | None = None) -> Annotation | None:
        """The annotation of one run/step by one author (default: this workspace's author)."""
        with self._lock:
            return self._get(_key(trace_id, step, author or self.author))

    def annotations(self, trace_id: str | None = None) -> list[Annotation]:
        """All annotations (of one run, if given), ordered by run and step."""
        with self._lock:
            try:
                if trace_id is None:
                    rows = self._db.execute(f"SELECT {self._READ_COLS} FROM annotations ORDER BY trace_id, step, author")
                else:
                    rows = self._db.execute(
                        f"SELECT {self._READ_COLS} FROM annotations WHERE trace_id=? ORDER BY step, author", (trace_id,))
                return [self._row(r) for r in rows.fetchall()]
            except sqlite3.Error as exc:
                raise storage_error(self.path, exc, "read") from exc

    def annotations_frame(self) -> pl.DataFrame:
        """Annotations as a frame with ANNOTATION_COLUMNS (tags comma-separated)."""
        rows = []
        for a in self.annotations():
            d = a.to_json()
            d["tags"] = ",".join(a.tags)
            rows.append(d)
        return frame_from_rows(rows, ANNOTATION_COLUMNS)

    def decisive_step(self, trace_id: str, author: str | None = None) -> int | None:
        """The analyst's decisive step for a run, if set."""
        with self._lock:
            r = self._db.execute("SELECT step FROM annotations WHERE trace_id=? AND author=? AND status='decisive'",
                                 (trace_id, author or self.author)).fetchone()
            return int(r[0]) if r else None

    def tagged_runs(self) -> set[str]:
        """Ids of runs with at least one annotation."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT DISTINCT trace_id FROM annotations")}

    # -- writing ---------------------------------------------------------------
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: the write lock is held before anything is read.

        Raises:
            WorkspaceError: The lock was not granted in time or the write failed (rolled back).
        """
        db = self._db
        if self.read_only:
            raise WorkspaceError("opened for reading only; nothing can be saved. Open it without read-only to tag.",
                                 self.path)
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc, "save") from exc
        try:
            yield db
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:  # after a full disk SQLite has already rolled back
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error | OSError):
                raise storage_error(self.path, exc, "save") from exc
            raise

    def _put(self, key: Key, row: Annotation | None) -> None:
        """Write (or delete, when empty) one row; inside :meth:`_transaction`."""
        if row is None or row.is_empty():
            self._db.execute("DELETE FROM annotations WHERE trace_id=? AND step=? AND author=?", key)
        else:
            self._db.execute(f"INSERT OR REPLACE INTO annotations ({self._COLS}) VALUES (?,?,?,?,?,?,?,?,?)",
                             (key[0], key[1], key[2], row.category, ",".join(row.tags), row.note, row.status,
                              row.timestamp or _now(), row.outcome))

    def _run(self, label: str, compute: Callable[[], list[_Change]]) -> int:
        """Read, modify and write in one transaction; the action is undoable once it committed.

        Args:
            label: Undo label.
            compute: Reads the current rows (under the write lock) and returns the changes.

        Returns:
            Number of rows changed.
        """
        with self._lock:
            with self._transaction():
                changes = [c for c in compute() if c[1] != c[2]]
                for key, _before, after in changes:
                    self._put(key, after)
            if changes:
                self._undo.append((label, changes))
                self._redo.clear()
            return len(changes)

    def _edit(self, label: str, targets: Iterable[Target], fn: Any, author: str | None = None) -> int:
        author = author or self.author
        items = list(dict.fromkeys(targets))

        def compute() -> list[_Change]:
            changes: list[_Change] = []
            ts = _now()
            for trace_id, step in items:
                key = _key(trace_id, step, author)
                before = self._get(key)
                base = before or Annotation(trace_id=trace_id, step=step, author=author)
                after = fn(base)
                if after is not None:
                    after = replace(after, timestamp=ts)
                changes.append((key, before, after))
            return changes

        return self._run(label, compute)

    def set_category(self, targets: Iterable[Target], category: str | None, author: str | None = None) -> int:
        """Label runs/steps with a taxonomy category (None clears). One undoable action.

        Returns:
            Number of rows changed.
        """
        if category is not None and category not in CATEGORY_IDS:
            raise WorkspaceError(f"unknown category {category!r}")
        return self._edit(f"Tag {category or 'clear'}", targets,
                          lambda a: replace(a, category=category,
                                            status="accepted" if a.status == "rejected" else a.status), author)

    def accept(self, targets: Iterable[tuple[str, int, str]], author: str | None = None) -> int:
        """Accept judge suggestions: ``(run, step, suggested category)`` triples."""
        items = list(targets)
        cats = {(t, s): c for t, s, c in items}
        return self._edit("Accept", [(t, s) for t, s, _ in items],
                          lambda a: replace(a, category=cats[(a.trace_id, a.step)],
                                            status="decisive" if a.status == "decisive" else "accepted"), author)

    def reject(self, targets: Iterable[Target], author: str | None = None) -> int:
        """Reject the judge's suggestion at these steps."""
        return self._edit("Reject", targets, lambda a: replace(a, status="rejected", category=None), author)

    def add_tag(self, targets: Iterable[Target], tag: str, author: str | None = None) -> int:
        """Add a custom tag."""
        tag = tag.strip().replace(",", " ")
        if not tag:
            raise WorkspaceError("empty tag")
        return self._edit(f"Add tag {tag}", targets,
                          lambda a: replace(a, tags=a.tags if tag in a.tags else (*a.tags, tag)), author)

    def remove_tag(self, targets: Iterable[Target], tag: str, author: str | None = None) -> int:
        """Remove a custom tag."""
        return self._edit(f"Remove tag {tag}", targets,
                          lambda a: replace(a, tags=tuple(t for t in a.tags if t != tag)), author)

    def set_note(self, target: Target, note: str, author: str | None = None) -> int:
        """Set the free-text note of a run/step."""
        return self._edit("Note", [target], lambda a: replace(a, note=note), author)

    def set_outcome(self, trace_ids: Iterable[str], outcome: str | None, author: str | None = None) -> int:
        """Give runs the analyst's outcome (None takes it back). One undoable action.

        Args:
            trace_ids: The runs.
            outcome: ``failure``, ``success`` or ``unknown`` (:data:`OUTCOMES`), or None.
            author: Who says so (default: this workspace's author).

        Returns:
            Number of rows changed.
        """
        if outcome is not None and outcome not in OUTCOMES:
            raise WorkspaceError(f"unknown outcome {outcome!r}")
        return self._edit(f"Outcome {outcome or 'clear'}", [(str(t), None) for t in trace_ids],
                          lambda a: replace(a, outcome=outcome), author)

    def analyst_outcomes(self) -> dict[str, str]:
        """Run id -> the analyst's outcome; where analysts disagree the latest word counts."""
        if self._READ_COLS != self._COLS:  # an older file read as it is: no analyst outcomes yet
            return {}
        with self._lock:
            rows = self._db.execute("SELECT trace_id, outcome FROM annotations WHERE step = ? AND outcome IS NOT NULL "
                                    "ORDER BY timestamp", (RUN_LEVEL,)).fetchall()
        return {str(t): str(o) for t, o in rows}

    def mark_decisive(self, trace_id: str, step: int, category: str | None = None, author: str | None = None) -> int:
        """Make ``step`` the analyst's decisive step of the run (demotes any previous one)."""
        who = author or self.author

        def compute() -> list[_Change]:
            prev = self.decisive_step(trace_id, who)
            changes: list[_Change] = []
            ts = _now()
            if prev is not None and prev != step:
                k = _key(trace_id, prev, who)
                b = self._get(k)
                if b is not None:
                    changes.append((k, b, replace(b, status="accepted", timestamp=ts)))
            k = _key(trace_id, step, who)
            b = self._get(k)
            base = b or Annotation(trace_id=trace_id, step=step, author=who)
            changes.append((k, b, replace(base, status="decisive", category=category or base.category, timestamp=ts)))
            return changes

        return self._run("Mark decisive", compute)

    # -- adapted rankers ------------------------------------------------------------------------
    _RANKER_FIELDS = "created, author, params, n_labels, shipped_step_at_1, adapted_step_at_1, cv_n, active"
    _RANKER_COLS = "id, " + _RANKER_FIELDS

    @staticmethod
    def _ranker_row(r: Sequence[Any]) -> RankerVersion:
        try:
            params = orjson.loads(r[3])
        except orjson.JSONDecodeError as exc:
            raise WorkspaceError(f"ranker version {r[0]}: damaged params ({exc})") from None
        return RankerVersion(id=int(r[0]), created=str(r[1]), author=str(r[2]), params=params, n_labels=int(r[4]),
                             shipped_step_at_1=r[5], adapted_step_at_1=r[6], cv_n=r[7], active=bool(r[8]))

    def _ranker_tx(self, statements: Sequence[tuple[str, tuple[Any, ...]]]) -> int | None:
        """Run statements in one write transaction (:meth:`_transaction`); the last inserted row id."""
        last: int | None = None
        with self._transaction() as db:
            for sql, args in statements:
                cur = db.execute(sql, args)
                if sql.lstrip().upper().startswith("INSERT"):
                    last = cur.lastrowid
        return last

    def save_ranker(self, params: dict[str, Any], n_labels: int, shipped_step_at_1: float | None = None,
                    adapted_step_at_1: float | None = None, cv_n: int | None = None, activate: bool = True,
                    author: str | None = None) -> RankerVersion:
        """Store a new ranker version (one transaction); by default it becomes the active one.

        Args:
            params: ``RankerParams.to_json()`` of the adapted ranker.
            n_labels: Labelled runs it was fitted on.
            shipped_step_at_1: Cross-validated step@1 of the shipped weights on the labels.
            adapted_step_at_1: Cross-validated step@1 of the adapted weights.
            cv_n: Runs in that cross-validation.
            activate: Make it the version analyses use.
            author: Who adapted it (default: this workspace's author).

        Returns:
            The stored version.
        """
        if not isinstance(params, dict) or "weights" not in params:
            raise WorkspaceError("not ranker params (no weights)")
        blob = orjson.dumps(params, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
        stmts: list[tuple[str, tuple[Any, ...]]] = []
        if activate:
            stmts.append(("UPDATE rankers SET active = 0 WHERE active = 1", ()))
        stmts.append((f"INSERT INTO rankers ({self._RANKER_FIELDS}) VALUES (?,?,?,?,?,?,?,?)",
                       (_now(), author or self.author, blob, int(n_labels), shipped_step_at_1, adapted_step_at_1,
                        cv_n, 1 if activate else 0)))
        with self._lock:
            new_id = self._ranker_tx(stmts)
            version = self.ranker(int(new_id or 0))
        if version is None:
            raise WorkspaceError("the ranker version was not stored")
        return version

    def ranker(self, version_id: int) -> RankerVersion | None:
        """One stored ranker version."""
        with self._lock:
            r = self._db.execute(f"SELECT {self._RANKER_COLS} FROM rankers WHERE id = ?", (int(version_id),)).fetchone()
        return self._ranker_row(r) if r else None

    def list_rankers(self) -> list[RankerVersion]:
        """Every stored ranker version, newest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {self._RANKER_COLS} FROM rankers ORDER BY id DESC").fetchall()
        return [self._ranker_row(r) for r in rows]

    def active_ranker(self) -> RankerVersion | None:
        """The ranker version analyses use; None means the shipped weights."""
        with self._lock:
            r = self._db.execute(f"SELECT {self._RANKER_COLS} FROM rankers WHERE active = 1").fetchone()
        return self._ranker_row(r) if r else None

    def activate(self, version_id: int) -> RankerVersion:
        """Make a stored version the active one (one transaction)."""
        with self._lock:
            if self.ranker(version_id) is None:
                raise WorkspaceError(f"no ranker version {version_id} in {self.path.name}")
            self._ranker_tx([("UPDATE rankers SET active = 0 WHERE active = 1", ()),
                             ("UPDATE rankers SET active = 1 WHERE id = ?", (int(version_id),))])
            version = self.ranker(version_id)
        if version is None:
            raise WorkspaceError(f"ranker version {version_id} disappeared while it was activated")
        return version

    def revert_to_shipped(self) -> None:
        """Analyses use the shipped weights again; every stored version is kept."""
        with self._lock:
            self._ranker_tx([("UPDATE rankers SET active = 0 WHERE active = 1", ())])

    def decisive_labels(self) -> dict[str, int]:
        """Run id -> decisive step, for runs where the analysts marked exactly one decisive step.

        Runs whose analysts marked different decisive steps are left out (no agreed label).
        Whether the run failed is for the caller to check (the workspace does not know outcomes).
        """
        with self._lock:
            rows = self._db.execute("SELECT trace_id, MIN(step) FROM annotations WHERE status = 'decisive' "
                                    "AND step >= 0 GROUP BY trace_id HAVING COUNT(DISTINCT step) = 1").fetchall()
        return {str(t): int(s) for t, s in rows}

    # -- failure insights ------------------------------------------------------------------
    def saved_insights(self) -> tuple[dict[str, str], dict[str, str]]:
        """The analyst's saved insights: (run id -> insight id, insight id -> analyst name).

        Names are only those the analyst gave; insights named automatically are absent.
        """
        with self._lock:
            try:
                members = dict(self._db.execute("SELECT trace_id, insight_id FROM insight_members").fetchall())
                names = {str(i): str(n) for i, n in self._db.execute("SELECT id, name FROM insights WHERE name != ''")}
            except sqlite3.Error as exc:
                raise storage_error(self.path, exc, "read") from exc
        return {str(k): str(v) for k, v in members.items()}, names

    def saved_recommendations(self) -> dict[str, str]:
        """The analyst's recommendation texts by insight id (insights using the rules' text are absent)."""
        with self._lock:
            try:
                rows = self._db.execute("SELECT id, recommendation FROM insights WHERE recommendation != ''")
                return {str(i): str(r) for i, r in rows.fetchall()}
            except sqlite3.Error as exc:
                raise storage_error(self.path, exc, "read") from exc

    def save_insights(self, assignment: Mapping[str, str], names: Mapping[str, str],
                      author: str | None = None, recommendations: Mapping[str, str] | None = None) -> None:
        """Keep the insights of these runs as they are now (one transaction).

        Runs of ``assignment`` take their insight (runs of other corpora keep theirs); insights
        left without members are dropped; ``names`` are the analyst's names (others are cleared).

        Args:
            assignment: Run id -> insight id, for every clustered run of the corpus.
            names: Insight id -> analyst name.
            author: Who edited (default: this workspace's author).
            recommendations: Insight id -> the analyst's recommendation (others are cleared).
        """
        ts, who = _now(), author or self.author
        recs = recommendations or {}
        with self._lock, self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO insight_members (trace_id, insight_id) VALUES (?, ?)",
                           [(str(t), str(i)) for t, i in assignment.items()])
            live = set(assignment.values())
            db.executemany("INSERT INTO insights (id, name, recommendation, author, updated) VALUES (?, ?, ?, ?, ?) "
                           "ON CONFLICT(id) DO UPDATE SET name=excluded.name, recommendation=excluded.recommendation, "
                           "author=excluded.author, updated=excluded.updated",
                           [(i, names.get(i, ""), recs.get(i, ""), who, ts) for i in sorted(live)])
            db.execute("DELETE FROM insights WHERE id NOT IN (SELECT DISTINCT insight_id FROM insight_members)")

    def clear_insights(self) -> None:
        """Forget every saved insight edit (the next clustering starts afresh)."""
        with self._lock, self._transaction() as db:
            db.execute("DELETE FROM insight_members")
            db.execute("DELETE FROM insights")

    # -- undo/redo ---------------------------------------------------------------
    def can_undo(self) -> bool:
        """True when there is an action to undo."""
        return bool(self._undo)

    def can_redo(self) -> bool:
        """True when there is an action to redo."""
        return bool(self._redo)

    def undo_label(self) -> str | None:
        """Label of the action :meth:`undo` would revert."""
        return self._undo[-1][0] if self._undo else None

    def redo_label(self) -> str | None:
        """Label of the action :meth:`redo` would re-apply."""
        return self._redo[-1][0] if self._redo else None

    def _replay(self, changes: list[_Change], forward: bool) -> None:
        """Re-apply (``forward``) or revert an action's difference on the rows as they are now."""
        ts = _now()
        decisive: dict[tuple[str, str], set[int]] = {}
        for key, before, after in (changes if forward else list(reversed(changes))):
            src, dst = (before, after) if forward else (after, before)
            row = _rebase(key, self._get(key), src, dst, ts)
            self._put(key, row)
            if row is not None and row.status == "decisive":
                decisive.setdefault((key[0], key[2]), set()).add(key[1])
        # at most one decisive step per run and author: one set meanwhile by another process wins
        for (trace_id, author), ours in decisive.items():
            steps = {int(r[0]) for r in self._db.execute(
                "SELECT step FROM annotations WHERE trace_id=? AND author=? AND status='decisive'", (trace_id, author))}
            if steps - ours:
                for s in ours:
                    self._db.execute("UPDATE annotations SET status='accepted' WHERE trace_id=? AND step=? AND author=?",
                                     (trace_id, s, author))

    def undo(self) -> str | None:
        """Revert the last action (one transaction). Returns its label.

        Only what the action changed is reverted: another process's later tags on the same rows stay.
        On a storage error the action stays undoable.
        """
        with self._lock:
            if not self._undo:
                return None
            label, changes = self._undo[-1]
            with self._transaction():
                self._replay(changes, forward=False)
            self._undo.pop()
            self._redo.append((label, changes))
            return label

    def redo(self) -> str | None:
        """Re-apply the last undone action. Returns its label."""
        with self._lock:
            if not self._redo:
                return None
            label, changes = self._redo[-1]
            with self._transaction():
                self._replay(changes, forward=True)
            self._redo.pop()
            self._undo.append((label, changes))
            return label

    # -- sharing -----------------------------------------------------------------
    def export_jsonl(self, path: str | Path) -> int:
        """Write every annotation as JSONL (run id, step, category, tags, note, status, author, timestamp)."""
        rows = self.annotations()
        tmp = Path(str(path) + ".part")
        with tmp.open("wb") as fh:
            for a in rows:
                fh.write(orjson.dumps(a.to_json()) + b"\n")
        tmp.replace(path)
        return len(rows)

    def import_jsonl(self, path: str | Path) -> ImportReport:
        """Merge annotations from another analyst's JSONL export.

        Rows of other authors are added beside ours (never overwrite them); for the same author
        and step the newer timestamp wins. A step labelled with different categories by us and
        by them is reported as a conflict for review. Bad lines are reported and skipped; the
        merge is one transaction (and one undoable action), so nothing is lost on failure.
        """
        report = ImportReport()
        incoming: list[Annotation] = []
        try:
            raw_lines = Path(path).read_bytes().splitlines()
        except OSError as exc:
            report.errors.append(f"{path}: cannot read ({exc.strerror or exc})")
            return report
        for i, line in enumerate(raw_lines, 1):
            if not line.strip():
                continue
            try:
                d = orjson.loads(line)
                if not isinstance(d, dict):
                    raise ValueError("not an object")
                cat = d.get("category")
                if cat is not None and cat not in CATEGORY_IDS:
                    raise ValueError(f"unknown category {cat!r}")
                status = d.get("status") or "accepted"
                if status not in STATUSES:
                    raise ValueError(f"unknown status {status!r}")
                step = d.get("step")
                outcome = d.get("outcome")
                if outcome is not None and (outcome not in OUTCOMES or (step is not None and step != RUN_LEVEL)):
                    raise ValueError(f"unknown outcome {outcome!r}" if outcome not in OUTCOMES
                                     else "an outcome belongs to a run, not a step")
                incoming.append(Annotation(
                    trace_id=str(d["trace_id"]), step=None if step is None or step == RUN_LEVEL else int(step),
                    author=str(d.get("author") or "unknown"), category=cat,
                    tags=tuple(str(t) for t in (d.get("tags") or [])), note=str(d.get("note") or ""),
                    status=status, timestamp=str(d.get("timestamp") or _now()), outcome=outcome))
            except (orjson.JSONDecodeError, KeyError, ValueError, TypeError) as exc:
                report.errors.append(f"{path} line {i}: {exc}")

        def compute() -> list[_Change]:
            changes: list[_Change] = []
            for a in incoming:
                key = _key(a.trace_id, a.step, a.author)
                before = self._get(key)
                if before is None:
                    changes.append((key, None, a))
                    report.added += 1
                elif before == a or before.timestamp >= a.timestamp:
                    report.unchanged += 1
                else:
                    changes.append((key, before, a))
                    report.updated += 1
                if a.category is not None:
                    for other in self.annotations(a.trace_id):
                        if (other.step == a.step and other.author != a.author and other.category is not None
                                and other.category != a.category):
                            report.conflicts.append(MergeConflict(a.trace_id, a.step, other, a))
            return changes

        self._run(f"Import {Path(path).name}", compute)
        return report
