"""scripts/system-packages.sh, the system-package step of `make test`, `make run` and .ci/run.

First, every system package the tests rely on is checked by what it provides, so a machine
without one fails with the package's name (and the command to install it), never a skip.
The non-root path runs as a real unprivileged user: as ``nobody`` when the tests run as root
(the script is copied to a folder ``nobody`` can read), as the current user otherwise. The root
path runs the real dpkg checks with a recording stand-in for apt-get and an ``id`` that says 0, so
it installs nothing and works for any user.
"""

from __future__ import annotations

import ctypes.util
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "system-packages.sh"
MISSING = "definitely-not-installed-pkg"
PRESENT = "dpkg bash"  # installed on every Debian/Ubuntu system


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder everyone can read, holding a copy of the script under scripts/."""
    d = Path(tempfile.mkdtemp(prefix="trajscope-syspkg-"))
    d.chmod(0o755)
    (d / "scripts").mkdir(mode=0o755)
    shutil.copy(SCRIPT, d / "scripts" / SCRIPT.name)
    (d / "scripts" / SCRIPT.name).chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


HINT = "run `sudo bash scripts/system-packages.sh` (or `make test` as root), or: sudo apt-get install {pkg}"
PROVIDES: dict[str, tuple[str, ...]] = {
    "chromium": ("exe:chromium",),
    "poppler-utils": ("exe:pdftoppm", "exe:pdftotext"),
    "libpango-1.0-0": ("lib:pango-1.0",),
    "libpangoft2-1.0-0": ("lib:pangoft2-1.0",),
    "libgl1": ("lib:GL",),
    "libegl1": ("lib:EGL",),
    "libxkbcommon0": ("lib:xkbcommon",),
    "libfontconfig1": ("lib:fontconfig",),
    "libfreetype6": ("lib:freetype",),
    "libdbus-1-3": ("lib:dbus-1",),
    "libglib2.0-0": ("lib:glib-2.0", "lib:gthread-2.0"),
    # Qt's xcb platform plugin (tests/test_xcb_platform.py derives the list from libqxcb.so)
    "libx11-6": ("lib:X11",),
    "libx11-xcb1": ("lib:X11-xcb",),
    "libxcb1": ("lib:xcb",),
    "libxcb-cursor0": ("lib:xcb-cursor",),
    "libxcb-glx0": ("lib:xcb-glx",),
    "libxcb-icccm4": ("lib:xcb-icccm",),
    "libxcb-image0": ("lib:xcb-image",),
    "libxcb-keysyms1": ("lib:xcb-keysyms",),
    "libxcb-randr0": ("lib:xcb-randr",),
    "libxcb-render0": ("lib:xcb-render",),
    "libxcb-render-util0": ("lib:xcb-render-util",),
    "libxcb-shape0": ("lib:xcb-shape",),
    "libxcb-shm0": ("lib:xcb-shm",),
    "libxcb-sync1": ("lib:xcb-sync",),
    "libxcb-util1": ("lib:xcb-util",),
    "libxcb-xfixes0": ("lib:xcb-xfixes",),
    "libxcb-xkb1": ("lib:xcb-xkb",),
    "libxkbcommon-x11-0": ("lib:xkbcommon-x11",),
    "xvfb": ("exe:Xvfb",),
    "fonts-dejavu-core": ("font:DejaVuSans.ttf",),
    "fonts-noto-cjk": ("font:NotoSansCJK-Regular.ttc",),
}
"""What each package of the script's default list provides to the tests (keep the two in step)."""


def _provided(what: str) -> bool:
    kind, name = what.split(":", 1)
    if kind == "exe":
        return shutil.which(name) is not None
    if kind == "lib":
        return ctypes.util.find_library(name) is not None
    return bool(glob.glob(f"/usr/share/fonts/**/{name}", recursive=True))


@pytest.mark.parametrize("package", sorted(PROVIDES))
def test_system_package_is_there(package: str) -> None:
    kinds = {"exe": "program", "lib": "library", "font": "font"}
    missing = [f"{kinds[w.split(':')[0]]} {w.split(':', 1)[1]}" for w in PROVIDES[package] if not _provided(w)]
    assert not missing, f"{', '.join(missing)} not found: Debian package {package} is missing; {HINT.format(pkg=package)}"


def test_the_check_covers_the_scripts_package_list() -> None:
    text = SCRIPT.read_text()
    listed = text.split('DEFAULT_PACKAGES="', 1)[1].split('"', 1)[0].replace("\\\n", " ").split()
    assert sorted(listed) == sorted(PROVIDES)


def _env(**extra: str) -> dict[str, str]:
    # HOME: the test session's temporary one (tests/home_guard.py), never the user's
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": os.environ["HOME"], **extra}


def test_non_root_with_a_missing_package_stops_with_the_apt_line(public_dir: Path) -> None:
    kwargs: dict[str, object] = {}
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        kwargs = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    run = subprocess.run(["bash", str(public_dir / "scripts" / SCRIPT.name)], capture_output=True, text=True,
                         env=_env(TRAJSCOPE_SYSTEM_PACKAGES=f"{PRESENT} {MISSING}"),
                         timeout=60, check=False, **kwargs)  # type: ignore[call-overload]
    assert run.returncode == 1, run.stderr
    assert f"missing Debian packages: {MISSING}\n" in run.stderr
    assert f"sudo apt-get update && sudo apt-get install -y --no-install-recommends {MISSING}\n" in run.stderr
    assert "dpkg" not in run.stderr.split("apt-get install", 1)[1]  # installed packages are not listed


def _fake_root(tmp_path: Path) -> tuple[dict[str, str], Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    (bin_dir / "id").write_text('#!/bin/sh\n[ "$1" = "-u" ] && echo 0 || exec /usr/bin/id "$@"\n')
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = _env(APT_GET=str(bin_dir / "apt-get"))
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env, log


def test_as_root_nothing_missing_calls_no_apt(tmp_path: Path) -> None:
    env, log = _fake_root(tmp_path)
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False,
                         env={**env, "TRAJSCOPE_SYSTEM_PACKAGES": PRESENT})
    assert run.returncode == 0, run.stderr
    assert not log.exists()


def test_a_name_an_installed_package_provides_counts_as_installed(tmp_path: Path) -> None:
    # like Ubuntu 24.04's libglib2.0-0t64, which provides libglib2.0-0; every Debian/Ubuntu system
    # has an awk package (mawk or gawk) that provides "awk"
    env, log = _fake_root(tmp_path)
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False,
                         env={**env, "TRAJSCOPE_SYSTEM_PACKAGES": "awk"})
    assert run.returncode == 0, run.stderr
    assert not log.exists()


def test_as_root_missing_packages_run_apt_update_then_install(tmp_path: Path) -> None:
    env, log = _fake_root(tmp_path)
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False,
                         env={**env, "TRAJSCOPE_SYSTEM_PACKAGES": f"{PRESENT} {MISSING}"})
    calls = log.read_text().splitlines()
    assert calls == ["-o DPkg::Lock::Timeout=600 update -qq",
                     f"-o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends {MISSING}"]
    # the stand-in installed nothing, so the script says so and fails
    assert run.returncode == 1 and f"still missing after apt-get install: {MISSING}" in run.stderr


def test_ci_and_make_share_the_step() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/system-packages.sh" in ci and ci.rstrip().endswith("make test")
    assert "apt-get" not in ci
    # under `make test` this runs as a sub-make: no "Entering directory" lines, and no inherited level
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    make = subprocess.run(["make", "--no-print-directory", "-n", "test", "run"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False, env=env)
    assert make.returncode == 0, make.stderr
    lines = [ln for ln in make.stdout.splitlines() if not ln.startswith("make[")]
    assert lines[0].endswith("bash scripts/system-packages.sh")
