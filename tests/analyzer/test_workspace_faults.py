"""Workspace under concurrency and storage faults: two writers lose nothing; faults are clear errors.

Root ignores file permission bits, so the permission cases run in a forked child that drops to
``nobody`` when the tests run as root (and stays the same user otherwise): the read-only file,
folder and parent are then real for SQLite and the OS either way. A full disk is simulated with
``RLIMIT_FSIZE`` in a forked child (``SIGXFSZ`` ignored), which works for any user. After every
fault the workspace is reopened and each acknowledged action is checked.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import pwd
import resource
import shutil
import signal
import sqlite3
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from analyzer.workspace import Workspace, WorkspaceError

STEPS = [("r1", 1), ("r1", 2), ("r2", None)]


def _drop_privileges() -> None:
    """Become ``nobody`` when running as root (permission bits then apply)."""
    if os.geteuid() != 0:
        return
    nobody = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)
    assert os.geteuid() != 0


def _in_child(fn: Callable[..., Any], *args: Any, unprivileged: bool = True) -> Any:
    """Run ``fn(*args)`` in a forked child (as ``nobody`` if we are root) and return its result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        os.close(r)
        try:
            if unprivileged:
                _drop_privileges()
            result: tuple[str, Any] = ("ok", fn(*args))
        except BaseException as exc:  # report anything to the parent
            result = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        try:
            data = pickle.dumps(result)
        except Exception as exc:
            data = pickle.dumps(("error", f"unpicklable result: {exc}"))
        with os.fdopen(w, "wb") as fh:
            fh.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    assert data, f"child died (wait status {status})"
    kind, value = pickle.loads(data)
    if kind == "error":
        pytest.fail(f"child failed: {value}")
    return value


def _expect_error(fn: Callable[[], Any]) -> str:
    """The WorkspaceError message ``fn`` raises (fails when it raises anything else or nothing)."""
    try:
        fn()
    except WorkspaceError as exc:
        return str(exc)
    raise AssertionError("no WorkspaceError raised")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder the unprivileged child owns (``nobody`` when we are root)."""
    d = Path(tempfile.mkdtemp(prefix="trajscope-ws-faults-"))
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(d, nobody.pw_uid, nobody.pw_gid)
    yield d
    for p in [d, *d.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(d, ignore_errors=True)


def _tags(path: Path) -> dict[tuple[str, int | None], set[str]]:
    ws = Workspace(path)
    try:
        return {(a.trace_id, a.step): set(a.tags) for a in ws.annotations()}
    finally:
        ws.close()


# -- two writers ---------------------------------------------------------------------------------------------
def _writer(path: str, name: str, n: int, barrier: Any, out: Any) -> None:
    ws = Workspace(path, author="analyst")  # the same author: both write the very same rows
    acked: list[str] = []
    barrier.wait()
    for i in range(n):
        tag = f"{name}{i}"
        try:
            ws.add_tag(STEPS, tag)
        except WorkspaceError:
            continue  # not acknowledged (e.g. lock wait timed out): not expected to be there
        acked.append(tag)
    ws.close()
    out.put((name, acked))


def test_two_processes_tagging_the_same_steps_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.trajscope"
    Workspace(path).close()
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    out = ctx.Queue()
    n = 150
    procs = [ctx.Process(target=_writer, args=(str(path), name, n, barrier, out)) for name in ("a", "b")]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    acked = results["a"] + results["b"]
    assert len(acked) >= n  # the lock wait is long enough for nearly everything to be acknowledged
    final = _tags(path)
    for target in STEPS:
        missing = set(acked) - final[target]
        assert not missing, f"{len(missing)} acknowledged tags lost at {target}"


def test_undo_keeps_another_writers_changes_on_the_same_row(tmp_path: Path) -> None:
    path = tmp_path / "w.trajscope"
    a, b = Workspace(path), Workspace(path)
    a.add_tag([("r1", 1)], "mine")
    b.add_tag([("r1", 1)], "theirs")
    b.set_note(("r1", 1), "their note")
    assert a.undo() == "Add tag mine"
    row = b.get("r1", 1)
    assert row is not None and row.tags == ("theirs",) and row.note == "their note"
    assert a.redo() == "Add tag mine"
    row = b.get("r1", 1)
    assert row is not None and set(row.tags) == {"mine", "theirs"}
    # a decisive step set meanwhile by the other writer wins over an undo that would add a second one
    a.mark_decisive("r1", 3)
    a.mark_decisive("r1", 4)
    b.mark_decisive("r1", 5)
    a.undo()  # would make step 3 decisive again
    assert a.decisive_step("r1") == 5
    assert [x.step for x in a.annotations("r1") if x.status == "decisive"] == [5]
    a.close()
    b.close()


def test_a_held_lock_is_a_clear_error_and_the_action_stays_unsaved(tmp_path: Path) -> None:
    path = tmp_path / "w.trajscope"
    ws = Workspace(path, busy_timeout=0.2)
    ws.add_tag([("r1", 1)], "before")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    msg = _expect_error(lambda: ws.add_tag([("r1", 1)], "during"))
    assert "busy" in msg and "Repeat the action" in msg
    assert ws.undo_label() == "Add tag before"  # the failed action is not on the undo stack
    other.execute("ROLLBACK")
    other.close()
    assert ws.add_tag([("r1", 1)], "after") == 1
    ws.close()
    assert _tags(path)[("r1", 1)] == {"before", "after"}


# -- permissions ---------------------------------------------------------------------------------------------
def _read_only_file(d: Path) -> dict[str, Any]:
    p = d / "ws.trajscope"
    ws = Workspace(p)
    ws.add_tag(STEPS, "kept")
    ws.close()
    p.chmod(0o444)
    out: dict[str, Any] = {"open": _expect_error(lambda: Workspace(p))}
    ro = Workspace(p, read_only=True)  # reports can still read it
    out["read"] = {(a.trace_id, a.step): a.tags for a in ro.annotations()}
    out["write"] = _expect_error(lambda: ro.add_tag(STEPS, "lost"))
    ro.close()
    p.chmod(0o644)
    return out


def test_read_only_workspace_file(shared_dir: Path) -> None:
    out = _in_child(_read_only_file, shared_dir)
    path = shared_dir / "ws.trajscope"
    assert out["open"].startswith(str(path)) and "file is read-only" in out["open"] and "chmod u+w" in out["open"]
    assert "reading only" in out["write"]
    assert out["read"] == {t: ("kept",) for t in STEPS}
    assert _tags(path) == {t: {"kept"} for t in STEPS}


def _read_only_folder(d: Path) -> dict[str, Any]:
    sub = d / "ro"
    sub.mkdir()
    p = sub / "ws.trajscope"
    ws = Workspace(p)
    ws.add_tag(STEPS, "kept")
    ws.close()
    sub.chmod(0o555)
    out: dict[str, Any] = {"open": _expect_error(lambda: Workspace(p)), "new": _expect_error(lambda: Workspace(sub / "new.trajscope"))}
    sub.chmod(0o755)
    # the folder turns read-only while the workspace is open: what is acknowledged stays
    ws = Workspace(p)
    sub.chmod(0o555)
    acked = []
    for tag in ("during1", "during2"):
        try:
            ws.add_tag(STEPS, tag)
            acked.append(tag)
        except WorkspaceError:
            pass
    ws.close()
    sub.chmod(0o755)
    out["acked"] = acked
    return out


def test_read_only_workspace_folder(shared_dir: Path) -> None:
    out = _in_child(_read_only_folder, shared_dir)
    folder = shared_dir / "ro"
    for msg in (out["open"], out["new"]):
        assert f"the folder {folder} is not writable" in msg and "-wal" in msg and "chmod u+w" in msg, msg
    assert "not a TrajScope workspace" not in out["open"]
    expected = {"kept", *out["acked"]}
    assert _tags(folder / "ws.trajscope") == {t: expected for t in STEPS}


def _unwritable_parent(d: Path) -> dict[str, str]:
    parent = d / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    return {"nested": _expect_error(lambda: Workspace(parent / "sub" / "ws.trajscope")),
            "direct": _expect_error(lambda: Workspace(parent / "ws.trajscope"))}


def test_unwritable_parent_folder(shared_dir: Path) -> None:
    out = _in_child(_unwritable_parent, shared_dir)
    parent = shared_dir / "locked"
    assert f"cannot create the folder {parent / 'sub'}: permission denied in {parent}" in out["nested"]
    assert "Choose a workspace in a folder you can write to" in out["nested"]
    assert f"the folder {parent} is not writable" in out["direct"]
    assert not (parent / "sub").exists()


# -- full disk ---------------------------------------------------------------------------------------------------
def _full_disk(d: Path) -> dict[str, Any]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing us
    p = d / "ws.trajscope"
    ws = Workspace(p)
    acked = []
    for i in range(5):
        ws.add_tag(STEPS, f"t{i}")
        acked.append(f"t{i}")
    size = max(f.stat().st_size for f in d.iterdir())
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    many = [(f"run{j}", s) for j in range(200) for s in range(20)]
    out: dict[str, Any] = {"action": _expect_error(lambda: ws.add_tag(many, "x" * 200))}
    out["undo_label"] = ws.undo_label()
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    ws.add_tag(STEPS, "after")  # the same open workspace works again once there is room
    acked.append("after")
    ws.close()
    out["acked"] = acked
    return out


def test_full_disk_is_a_clear_error_and_loses_nothing(shared_dir: Path) -> None:
    out = _in_child(_full_disk, shared_dir, unprivileged=False)
    msg = out["action"]
    assert "file-size limit" in msg and "ulimit -f" in msg and "everything saved before it is kept" in msg, msg
    assert "no transaction is active" not in msg
    assert out["undo_label"] == "Add tag t4"
    final = _tags(shared_dir / "ws.trajscope")
    assert set(final) == set(STEPS)
    for t in STEPS:
        assert final[t] == set(out["acked"])
