#!/usr/bin/env bash
# System packages TrajScope and its tests need (Debian/Ubuntu). `make run`, `make test` and .ci/run
# call this first.
#
#   As root:   installs whatever is missing with apt-get (`apt-get update` first, only when
#              something is missing); nothing is called when everything is there.
#   Otherwise: if something is missing, stops at once (exit 1) with the exact apt-get line to run.
#
# What the packages are for:
#   chromium                             the HTML-report test drives headless Chromium
#   poppler-utils                        pdftoppm/pdftotext read the PDF reports back in the tests
#   libpango-1.0-0 libpangoft2-1.0-0     WeasyPrint (PDF export) renders with Pango
#   libgl1 libegl1 libxkbcommon0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
#                                        the Qt (PySide6) runtime, also offscreen
#   libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0
#   libxcb-keysyms1 libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0
#   libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0
#                                        Qt's xcb platform plugin: the app on an X11 desktop. Every
#                                        library libqxcb.so, its GL integrations and the Qt libraries
#                                        they load link to (objdump -p: NEEDED), by package (dpkg -S);
#                                        tests/test_xcb_platform.py checks that ldd resolves them all
#   xvfb                                 a real X server for the test that starts the app on xcb
#   fonts-dejavu-core fonts-noto-cjk     fonts for the UI, the reports and the Simplified Chinese UI
# and, only when the tool is not there yet: python3 + python3-venv (to create .venv) and g++
# (pip builds llama-cpp-python from source).
#
# Environment:
#   TRAJSCOPE_SYSTEM_PACKAGES  replaces the whole list above, build tools included (space-separated)
#   PYTHON                     the interpreter `make` creates .venv with (default python3)
#   APT_GET                    the apt-get command (default apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."

DEFAULT_PACKAGES="chromium poppler-utils libpango-1.0-0 libpangoft2-1.0-0 libgl1 libegl1 libxkbcommon0 \
libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0 \
libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 \
libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0 xvfb \
fonts-dejavu-core fonts-noto-cjk"
packages="${TRAJSCOPE_SYSTEM_PACKAGES-$DEFAULT_PACKAGES}"
python="${PYTHON:-python3}"
apt_get="${APT_GET:-apt-get}"

say() { echo "system-packages: $*" >&2; }

if ! command -v dpkg-query >/dev/null 2>&1; then
  say "not a Debian/Ubuntu system (no dpkg-query): cannot check, make sure these are installed: $packages"
  exit 0
fi

provided=""
installed() {
  # "ii" = wanted and installed; `dpkg -s` alone also succeeds for a removed package whose
  # configuration files are still there ("rc"), which is not installed.
  local status
  if status="$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" && [[ "$status" == ii* ]]; then
    return 0
  fi
  # or an installed package provides the name (Ubuntu 24.04's libglib2.0-0t64 provides libglib2.0-0)
  if [[ -z "$provided" ]]; then
    provided=" $(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null \
      | awk -F'|' '$1 ~ /^ii/ && $2 != "" {print $2}' | tr ',' '\n' | awk '{print $1}' | tr '\n' ' ') "
  fi
  [[ "$provided" == *" $1 "* ]]
}

missing_now() {
  local pkg out=()
  for pkg in $packages; do
    installed "$pkg" || out+=("$pkg")
  done
  # build tools, by what they provide (a pyenv or python.org Python needs no python3-venv)
  if [[ -z "${TRAJSCOPE_SYSTEM_PACKAGES+set}" ]]; then
    if ! command -v "$python" >/dev/null 2>&1; then
      out+=(python3 python3-venv)
    elif [[ ! -x .venv/bin/python ]] && ! "$python" -c "import ensurepip, venv" >/dev/null 2>&1; then
      out+=(python3-venv)
    fi
    if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
      out+=(g++)
    fi
  fi
  echo "${out[*]:-}"
}

missing="$(missing_now)"
if [[ -z "$missing" ]]; then
  exit 0
fi

line="apt-get install -y --no-install-recommends $missing"
if [[ "$(id -u)" != "0" ]]; then
  say "missing Debian packages: $missing"
  say "install them as root, then run make again:"
  echo "  sudo apt-get update && sudo $line" >&2
  exit 1
fi

say "installing: $missing"
# wait for another apt/dpkg run instead of failing on its lock
"$apt_get" -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086  # one word per package
DEBIAN_FRONTEND=noninteractive "$apt_get" -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
still="$(missing_now)"
if [[ -n "$still" ]]; then
  say "still missing after apt-get install: $still"
  exit 1
fi
