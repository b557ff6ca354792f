#!/usr/bin/env bash
# Make the machine ready to run Throughline from this checkout:
#   1. a Python 3.11+ virtual environment in .venv with the project installed (editable);
#   2. the Debian packages Qt needs (offscreen and under Xvfb), a CJK font and poppler-utils,
#      installed only when something is missing and apt-get can be used.
# Safe to run again: it does only what is still missing.
set -euo pipefail

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
STAMP="$VENV/.installed"
# The exact versions the tests passed with (make lock refreshes them); pyproject.toml keeps the
# ranges for people who install the package into an environment of their own.
CONSTRAINTS=packaging/constraints.txt

DEBIAN_PACKAGES=(
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libfreetype6 libxkbcommon0 libdbus-1-3 libx11-6
  fonts-dejavu-core xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 poppler-utils
  fonts-wqy-microhei fontconfig
)

say() { echo "setup: $*"; }

can_apt() {
  command -v apt-get >/dev/null 2>&1 || return 1
  [ "$(id -u)" = 0 ] && return 0
  command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null
}

apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  say "installing Debian packages: $*"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- Python and the virtual environment ---------------------------------------------------
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  if can_apt; then apt_install python3 python3-venv; else
    say "python3 (3.11 or newer) is not installed; install it and run this again"; exit 1
  fi
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  say "Python 3.11 or newer is needed; $PYTHON is $("$PYTHON" --version 2>&1)"; exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    # Debian's python3 ships without ensurepip until python3-venv is installed.
    if can_apt; then apt_install python3-venv; fi
    "$PYTHON" -m venv "$VENV"
  fi
fi
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ] || [ "$CONSTRAINTS" -nt "$STAMP" ]; then
  say "installing the project into $VENV (versions from $CONSTRAINTS)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -c "$CONSTRAINTS" -e '.[test]'
  touch "$STAMP"
fi

# --- System libraries for Qt, fonts, PDF checks -------------------------------------------
qt_ok() {
  QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -c \
    "from PySide6.QtWidgets import QApplication; QApplication([])" >/dev/null 2>&1
}
missing=()
qt_ok || missing+=("Qt's system libraries")
command -v pdftoppm >/dev/null 2>&1 || missing+=("poppler-utils")
{ command -v fc-list >/dev/null 2>&1 && fc-list :lang=zh | grep -q .; } || missing+=("a CJK font")
if [ ${#missing[@]} -gt 0 ]; then
  if can_apt; then
    apt_install "${DEBIAN_PACKAGES[@]}"
  else
    say "missing: ${missing[*]}; on Debian/Ubuntu install: ${DEBIAN_PACKAGES[*]}"
  fi
fi
if ! qt_ok; then
  say "Qt still cannot start offscreen; the missing library is named by:"
  QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -c \
    "from PySide6.QtWidgets import QApplication; QApplication([])" 2>&1 | tail -3
  exit 1
fi

# --- Translations: compile resources/translations/*.ts to .qm (generated, not in git) ---------
# The app also compiles a missing or stale .qm into the user cache at start (gui/i18n.py).
for ts in resources/translations/*.ts; do
  [ -e "$ts" ] || continue
  qm="${ts%.ts}.qm"
  if [ ! -f "$qm" ] || [ "$ts" -nt "$qm" ]; then
    say "compiling $ts"
    "$VENV/bin/pyside6-lrelease" -silent "$ts" -qm "$qm"
  fi
done
