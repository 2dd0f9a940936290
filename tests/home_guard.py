"""Keep a test session out of the user's home folder.

:func:`redirect` (called by ``tests/conftest.py`` as pytest imports it, before any test module or
project module is imported) points ``HOME``, the XDG base folders and TrajScope's own folder
variables at a new temporary folder. platformdirs, ``QSettings``, ``QStandardPaths``, Qt's file
dialog state, Chromium's profile and every subprocess a test starts then write there, including
session- and module-scoped fixtures, which run before the per-test folders of
``tests/conftest.py`` are set (``sample_load`` used to create ``~/.local/share/trajscope``).

The returned :class:`HomeGuard` remembers what the user's real TrajScope folders held; at the end of
the session :meth:`HomeGuard.problems` names everything this session wrote there. An audit hook
records each write by this process with the test that made it, and each process that may run
TrajScope (Python, a shell, make) started without the temporary home (an ``env`` with another
``HOME``, or none). A snapshot of names, sizes
and modification times, taken before and after, sees every change, by subprocesses and Qt's C++
code too: it is a problem when this session could have made it (a write by this process or a
process started without the temporary home); otherwise every process of the session had the
temporary home, the change came from another program (the user's own ``trajscope eval`` writing
the embedding cache meanwhile) and :meth:`HomeGuard.external` lists it as a warning.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

APP = "trajscope"
QT_ORGANIZATION = "TrajScope"
"""``QSettings`` folder of the app (``ui.settings.ORGANIZATION``)."""

REDIRECTED = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
"""Variables pointed into the temporary home."""

OWN_DIRS = ("TRAJSCOPE_DATA_DIR", "TRAJSCOPE_CACHE_DIR", "TRAJSCOPE_MODEL_DIR")
"""TrajScope's folder variables: a value from the user's shell is the user's, so it is removed
(the folders then follow the temporary home; each test sets its own, see ``_isolated_dirs``)."""

_WRITE_EVENTS = frozenset({"open", "os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.truncate",
                           "os.chmod", "os.utime", "os.symlink", "os.link", "shutil.rmtree",
                           "shutil.copyfile", "shutil.copytree", "shutil.move", "sqlite3.connect"})
_MAY_RUN_TRAJSCOPE = re.compile(r"(python|pypy)[\d.]*|trajscope|g?make|(ba|da|z)?sh|env")
"""Programs that may run TrajScope code (which resolves its folders from HOME): Python, the
``trajscope`` script, make and shells. Others (``ldconfig`` started by ``ctypes.util``, Chromium,
poppler) never look for TrajScope's folders."""
_SPAWN_EVENTS = {"subprocess.Popen": (0, 3), "os.posix_spawn": (0, 2), "os.exec": (0, 2), "os.spawn": (1, 3)}
"""Events that start a program: positions of the program and of ``env`` (None: inherited) in their arguments."""
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

Stat = tuple[int, int]
"""(modification time in ns, size) of a file or folder."""


def guarded_paths(env: dict[str, str] | None = None) -> list[Path]:
    """The user's TrajScope folders and files a test must never write.

    Args:
        env: The environment to resolve them in (default: the current one).

    Returns:
        TrajScope's data, config, cache and state folders, the Qt settings folder and Qt's file
        dialog state, the export dialog's default folder and the folders named by the user's own
        ``TRAJSCOPE_*_DIR`` variables.
    """
    env = dict(os.environ if env is None else env)
    saved = {k: os.environ.get(k) for k in (*REDIRECTED, *OWN_DIRS)}
    try:
        for k in saved:
            if k in env:
                os.environ[k] = env[k]
            else:
                os.environ.pop(k, None)
        home = Path(os.path.expanduser("~"))
        config = Path(platformdirs.user_config_dir())
        paths = [Path(platformdirs.user_data_dir(APP)), Path(platformdirs.user_config_dir(APP)),
                 Path(platformdirs.user_cache_dir(APP)), Path(platformdirs.user_state_dir(APP)),
                 config / QT_ORGANIZATION, config / "QtProject.conf", home / "trajscope-export"]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    paths += [Path(env[k]).expanduser() for k in OWN_DIRS if env.get(k, "").strip()]
    return list(dict.fromkeys(p.absolute() for p in paths))


def snapshot(paths: Iterable[Path]) -> dict[str, Stat]:
    """Every file and folder at or under ``paths`` (missing ones left out), with its stat."""
    out: dict[str, Stat] = {}

    def add(p: Path) -> None:
        try:
            st = p.lstat()
        except OSError:
            return
        out[str(p)] = (st.st_mtime_ns, st.st_size)

    for root in paths:
        add(root)
        if root.is_dir() and not root.is_symlink():
            for folder, dirs, files in os.walk(root):
                for name in (*dirs, *files):
                    add(Path(folder) / name)
    return out


@dataclass
class HomeGuard:
    """The temporary home of a test session and the watch over the real one.

    Attributes:
        home: The temporary home folder.
        real_env: The redirected variables as they were before (None: unset).
        guarded: The real folders and files watched (:func:`guarded_paths`).
        before: Their :func:`snapshot` at the start of the session.
        current: Who is running now (a test id and phase), for :attr:`writes`.
        writes: ``(who, event, path)`` of each write this process attempted in ``guarded``.
        launches: ``(who, program, why)`` of each process that may run TrajScope started without the
            temporary home.
        stray: Files written into the temporary home's own TrajScope data and config folders:
            by code that ran outside a test's own folders (a session- or module-scoped fixture,
            or a Qt timer firing between tests). Shown in the summary, not an error.
        active: False once the session is over.
    """

    home: Path
    real_env: dict[str, str | None]
    guarded: list[Path]
    before: dict[str, Stat]
    current: str = "(collection)"
    writes: list[tuple[str, str, str]] = field(default_factory=list)
    launches: list[tuple[str, str, str]] = field(default_factory=list)
    stray: list[tuple[str, str, str]] = field(default_factory=list)
    active: bool = True
    _prefixes: tuple[str, ...] = ()
    _stray_prefixes: tuple[str, ...] = ()

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        """``sys.addaudithook`` callback: record writes into the guarded paths (never raises)."""
        if not self.active or not args or (event not in _WRITE_EVENTS and event not in _SPAWN_EVENTS):
            return
        with contextlib.suppress(Exception):  # a hook that raises would break the operation it watches
            if event in _SPAWN_EVENTS:
                program, env = _SPAWN_EVENTS[event]
                self._launch(args[program], args[env] if len(args) > env else None)
            else:
                self._audit(event, args)

    def _launch(self, program: Any, env: Any) -> None:
        """Record a process that may run TrajScope, started with an environment that leaves the temporary home."""
        if env is None:
            return  # it inherits os.environ: the temporary home
        program = os.fsdecode(program)
        if program != sys.executable and not _MAY_RUN_TRAJSCOPE.fullmatch(os.path.basename(program)):
            return
        env = {os.fsdecode(k): os.fsdecode(v) for k, v in dict(env).items()}
        home = str(self.home) + os.sep
        why = [] if env.get("HOME") else ["no HOME (the user's real home from the password database)"]
        why += [f"{k}={env[k]}" for k in (*REDIRECTED, *OWN_DIRS)
                if env.get(k) and not (os.path.abspath(env[k]) + os.sep).startswith(home)
                and (k in REDIRECTED or (os.path.abspath(env[k]) + os.sep).startswith(self._prefixes))]
        if why:
            self.launches.append((self.current, program, ", ".join(why)))

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            mode, flags = (args[1], args[2]) if len(args) > 2 else (None, 0)
            if isinstance(mode, str):
                if not any(c in mode for c in "wax+"):
                    return
            elif not (isinstance(flags, int) and flags & _WRITE_FLAGS):
                return
        for raw in args[:2] if event in ("os.rename", "shutil.copyfile", "shutil.copytree", "shutil.move",
                                         "os.symlink", "os.link") else args[:1]:
            if isinstance(raw, int) or raw is None:
                continue
            try:
                path = os.path.abspath(os.fsdecode(raw))
            except TypeError:
                continue
            under = path + os.sep  # the prefixes end with a separator: the folder itself or below it
            if under.startswith(self._prefixes):
                self.writes.append((self.current, event, path))
            elif under.startswith(self._stray_prefixes) and event != "os.mkdir":
                self.stray.append((self.current, event, path))

    def changes(self) -> list[str]:
        """What changed in the real folders since the session started (the snapshots differ)."""
        after = snapshot(self.guarded)
        lines: list[str] = []
        for path in sorted(set(self.before) | set(after)):
            old, new = self.before.get(path), after.get(path)
            if old != new:
                what = "created" if old is None else "removed" if new is None else "modified"
                lines.append(f"{what}: {path}")
        return lines

    def problems(self) -> list[str]:
        """What this session wrote, or may have written, into the real folders (empty when nothing).

        A write of this process is always a problem. A change the snapshots see is one when a
        process of this session may have made it: one started without the temporary home.
        """
        writes = [f"{who}: {event} {path}" for who, event, path in dict.fromkeys(self.writes)]
        launches = [f"{who}: started {program} without the temporary home ({why})"
                    for who, program, why in dict.fromkeys(self.launches)]
        changes = self.changes()
        if writes or (launches and changes):
            return writes + launches + changes
        return []

    def external(self) -> list[str]:
        """Changes in the real folders that no process of this session can have made."""
        return [] if self.writes or self.launches else self.changes()

    def report(self, problems: list[str]) -> str:
        """The failure message for :meth:`problems`."""
        return ("The test session wrote into the user's real TrajScope folders; tests must use "
                f"their temporary home ({self.home}) and tmp_path:\n  " + "\n  ".join(problems))

    def close(self) -> None:
        """Stop recording, restore the variables and delete the temporary home."""
        self.active = False
        for k, v in self.real_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.home, ignore_errors=True)


def redirect() -> HomeGuard:
    """Point the home, XDG and TrajScope folders at a new temporary home; start the guard.

    Returns:
        The guard (its snapshot of the real folders is taken first).
    """
    real_env = {k: os.environ.get(k) for k in (*REDIRECTED, *OWN_DIRS, "PYENV_ROOT")}
    guarded = guarded_paths()
    real_home = Path(os.path.expanduser("~"))
    home = Path(tempfile.mkdtemp(prefix="trajscope-test-home-")).resolve()
    if not os.environ.get("PYENV_ROOT") and (real_home / ".pyenv").is_dir():
        os.environ["PYENV_ROOT"] = str(real_home / ".pyenv")  # pyenv shims on PATH find their Pythons
    os.environ["HOME"] = str(home)
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        os.environ[var] = str(home / sub)
    for var in OWN_DIRS:
        os.environ.pop(var, None)
    guard = HomeGuard(home=home, real_env=real_env, guarded=guarded, before=snapshot(guarded))
    guard._prefixes = tuple(dict.fromkeys(p + os.sep for g in guarded for p in (str(g), str(g.resolve()))))
    guard._stray_prefixes = tuple(str(Path(p).resolve()) + os.sep for p in (
        platformdirs.user_data_dir(APP), platformdirs.user_config_dir(APP)))
    sys.addaudithook(guard.audit)
    return guard
