"""The app on a real X11 desktop: Qt's xcb platform plugin loads, and the main window shows.

Every other UI test runs offscreen, so none of them loads ``libqxcb.so``: a desktop missing one of
its libraries (``libxcb-icccm4`` and ``libxcb-keysyms1`` were, on a Debian desktop) stopped
``make run`` with "xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin".
These tests check that ``ldd`` resolves every library of the plugin and of the Qt libraries it
loads, that ``scripts/system-packages.sh`` installs the package of each, and start the app on
Xvfb with ``QT_QPA_PLATFORM=xcb``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "system-packages.sh"
ARTIFACTS = ROOT / "test-artifacts"
HINT = "run `sudo bash scripts/system-packages.sh` (or `make test` as root)"

XCB_FILES = (
    "plugins/platforms/libqxcb.so",
    "plugins/xcbglintegrations/libqxcb-glx-integration.so",
    "plugins/xcbglintegrations/libqxcb-egl-integration.so",
    "lib/libQt6XcbQpa.so.6",
    "lib/libQt6Widgets.so.6",
    "lib/libQt6Gui.so.6",
    "lib/libQt6DBus.so.6",
    "lib/libQt6Core.so.6",
)
"""The xcb platform plugin, its GL integrations and the Qt libraries they load (under PySide6/Qt)."""

BASE_PACKAGES = frozenset({"libc6", "libgcc-s1", "libstdc++6", "zlib1g", "libzstd1"})
"""Packages of every Debian/Ubuntu system (apt itself needs them); the script need not list them."""

SCREEN = (1920, 1200)


def _qt_dir() -> Path:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("PySide6 is not installed (the `ui` extra)")
    return Path(next(iter(spec.submodule_search_locations))) / "Qt"


def _ldd(path: Path) -> dict[str, str | None]:
    """Library name -> the file ldd resolved it to (None: not found)."""
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True, timeout=60).stdout
    libs: dict[str, str | None] = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (not found|(\S+))", line)
        if m:
            libs[m.group(1)] = None if m.group(2) == "not found" else m.group(3)
    return libs


def _needed(path: Path) -> list[str]:
    """The libraries a file links to directly (its DT_NEEDED entries)."""
    out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=True, timeout=60).stdout
    return re.findall(r"^\s*NEEDED\s+(\S+)", out, flags=re.MULTILINE)


def _package_of(path: str) -> str | None:
    """The Debian package that installed a file (dpkg -S), trying the merged-/usr aliases."""
    real = os.path.realpath(path)
    tries = [path, real]
    for p in (path, real):
        tries.append(p.removeprefix("/usr") if p.startswith("/usr/lib") else "/usr" + p)
    for p in dict.fromkeys(tries):
        run = subprocess.run(["dpkg-query", "-S", p], capture_output=True, text=True, timeout=60)
        if run.returncode == 0 and run.stdout.strip():
            return run.stdout.split(":", 1)[0].strip()
    return None


def _script_packages() -> set[str]:
    text = SCRIPT.read_text()
    return set(text.split('DEFAULT_PACKAGES="', 1)[1].split('"', 1)[0].replace("\\\n", " ").split())


def test_ldd_resolves_every_library_of_the_xcb_platform_plugin() -> None:
    qt = _qt_dir()
    missing: dict[str, list[str]] = {}
    for rel in XCB_FILES:
        path = qt / rel
        assert path.is_file(), f"{path} is not in this PySide6"
        for lib, where in _ldd(path).items():
            if where is None:
                missing.setdefault(lib, []).append(path.name)
    assert not missing, "Qt's xcb platform plugin cannot load (the app cannot start on an X11 desktop): " + "; ".join(
        f"{lib} not found (needed by {', '.join(users)})" for lib, users in sorted(missing.items())) + f"; {HINT}"


def test_system_packages_installs_the_package_of_every_xcb_library() -> None:
    qt = _qt_dir()
    if shutil.which("dpkg-query") is None:
        pytest.skip("not a Debian/Ubuntu system: scripts/system-packages.sh does not apply")
    listed = _script_packages()
    bundled = {p.name for p in (qt / "lib").iterdir()}
    unlisted: dict[str, str] = {}
    for rel in XCB_FILES:
        resolved = _ldd(qt / rel)
        for lib in _needed(qt / rel):
            if lib in bundled or lib.startswith("ld-linux"):
                continue
            where = resolved.get(lib)
            assert where, f"{lib} (needed by {rel}) not found; {HINT}"
            pkg = _package_of(where)
            assert pkg, f"{lib} ({where}) belongs to no Debian package"
            if pkg not in listed and pkg not in BASE_PACKAGES:
                unlisted[lib] = pkg
    assert not unlisted, "scripts/system-packages.sh does not install: " + ", ".join(
        f"{pkg} ({lib})" for lib, pkg in sorted(unlisted.items()))


@contextmanager
def _xvfb(width: int, height: int) -> Iterator[str]:
    """Start Xvfb on a free display number (it picks one and says which: -displayfd); stop it after."""
    xvfb = shutil.which("Xvfb")
    assert xvfb, f"Xvfb not found: Debian package xvfb is missing; {HINT}"
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x24",
                             "-nolisten", "tcp", "-noreset"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_fd)
    try:
        number = b""
        deadline = time.monotonic() + 30
        while not number.endswith(b"\n") and time.monotonic() < deadline and proc.poll() is None:
            ready, _w, _x = select.select([read_fd], [], [], 0.5)
            if ready:
                chunk = os.read(read_fd, 16)
                if not chunk:
                    break
                number += chunk
        err = b"" if proc.poll() is None else (proc.stderr.read() if proc.stderr else b"")
        assert number.strip().isdigit(), f"Xvfb did not start: {err.decode(errors='replace')[-2000:]}"
        yield f":{int(number)}"
    finally:
        os.close(read_fd)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def test_the_app_starts_on_a_real_x_server_and_shows_its_main_window(tmp_path: Path) -> None:
    _qt_dir()
    out = tmp_path / "xcb_main_window.png"
    with _xvfb(*SCREEN) as display:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "XAUTHORITY")}
        env.update(QT_QPA_PLATFORM="xcb", DISPLAY=display, QT_LOGGING_RULES="qt.qpa.screen=true")
        proc = subprocess.run([sys.executable, "-m", "ui.cli", "open", "sample_traces", "--screenshot", str(out)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    # the xcb plugin loaded and talked to this X server (QT_QPA_PLATFORM=xcb never falls back)
    assert "QXcbScreen(" in proc.stderr and f"geometry={SCREEN[0]}x{SCREEN[1]}+0+0" in proc.stderr, proc.stderr[-4000:]

    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert (img.width(), img.height()) == (1600, 1000)  # ui.app.SCREENSHOT_SIZE
    colors = {img.pixel(x, y) for x in range(0, img.width(), 8) for y in range(0, img.height(), 8)}
    assert len(colors) > 50, f"the screenshot is nearly blank ({len(colors)} colours)"
    assert out.stat().st_size > 50_000
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(out, ARTIFACTS / out.name)
