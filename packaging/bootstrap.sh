#!/usr/bin/env bash
# Set up everything Pressroom needs on this machine, then run it or its tests.
#
#   packaging/bootstrap.sh run [PRESSROOM ARGS...]   set up, then run `pressroom ARGS...`
#   packaging/bootstrap.sh test [PYTEST ARGS...]     set up (with test tools), then run the test suite
#
# Set-up is idempotent and quick when nothing changed:
#   - a virtual environment in .venv (PRESSROOM_VENV overrides) with Pressroom installed in it;
#   - a browser: one already on the machine, else Playwright's own Chromium
#     (`python -m playwright install chromium`), else - where that download is blocked - the system's
#     Chromium package (Debian/Ubuntu: apt-get install chromium);
#   - the system libraries Qt draws the window with (Debian/Ubuntu);
#   - for the tests, also the fonts and PDF tools the rendering tests read (Debian/Ubuntu).
# System packages need root; as another user the script uses sudo when it is there.
set -euo pipefail

cd "$(dirname "$0")/.."
mode="${1:-}"
case "$mode" in
  run|test) shift ;;
  *) echo "usage: packaging/bootstrap.sh run [pressroom args...] | test [pytest args...]" >&2; exit 2 ;;
esac

say() { printf 'bootstrap: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else return 1
  fi
}

apt_updated=""
apt_install() {  # installs the Debian packages among "$@" that are missing; fails without apt-get
  command -v apt-get >/dev/null 2>&1 || return 1
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing system packages: ${missing[*]}"
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq || return 1
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# -- Python and the virtual environment --------------------------------------------------------------
python=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python="$candidate"; break
  fi
done
[ -n "$python" ] || die "Pressroom needs Python 3.11 or newer; install it and run this again"

venv="${PRESSROOM_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  say "creating the virtual environment $venv"
  if ! "$python" -m venv "$venv" 2>/dev/null; then
    apt_install python3-venv || die "'$python -m venv' does not work here; install your system's venv package"
    rm -rf "$venv"
    "$python" -m venv "$venv"
  fi
fi
py="$venv/bin/python"

extras=""
[ "$mode" = test ] && extras="[test]"
stamp="$venv/.pressroom-installed"  # what was installed, for which pyproject.toml
sum="$(cksum < pyproject.toml | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"
if [ "$have" != "$sum[test]" ] && { [ "$mode" = test ] || [ "$have" != "$sum" ]; }; then
  say "installing Pressroom$extras into $venv"
  log="$venv/pip-install.log"
  if ! { "$py" -m pip install --disable-pip-version-check --upgrade pip &&
         "$py" -m pip install --disable-pip-version-check -e ".$extras"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "installing the Python packages failed (full log: $log)"
  fi
  echo "$sum$extras" > "$stamp"
fi
# Byte-code compiled ahead, so start-up does not recompile (this environment may forbid writing it).
"$py" -m compileall -q app >/dev/null 2>&1 || true

# -- a browser ------------------------------------------------------------------------------------------
if ! "$py" -m app.engines.local.discovery >/dev/null 2>&1; then
  say "no browser found: downloading Playwright's Chromium"
  if ! "$py" -m playwright install chromium >/dev/null 2>&1; then
    say "the download did not work here; using the system's Chromium package instead"
    apt_install chromium || die "no browser could be installed; install Chrome or Chromium, or set PRESSROOM_CHROMIUM to one"
  fi
  "$py" -m app.engines.local.discovery >/dev/null || die "a browser was installed but cannot be found; set PRESSROOM_CHROMIUM"
fi

# -- the window's system libraries -------------------------------------------------------------------------
# Qt's wheels bring Qt itself, not the system libraries it draws with (OpenGL/EGL, fonts, keyboard maps, the
# X11 platform's xcb extensions). A desktop usually has them; a server or container does not.
qt_libraries=(libegl1 libgl1 libfontconfig1 libglib2.0-0 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0 libx11-xcb1
              libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0
              libxcb-shape0 libxcb-xkb1)
if command -v dpkg-query >/dev/null 2>&1 && ! apt_install "${qt_libraries[@]}"; then
  if [ "$mode" = test ]; then
    die "could not install the window's system libraries (${qt_libraries[*]})"
  fi
  say "could not install the window's system libraries; the command line works, the window may not open"
fi

# -- run ------------------------------------------------------------------------------------------------
if [ "$mode" = run ]; then
  exec "$venv/bin/pressroom" "$@"
fi

# Fonts the rendering tests look for, pdftoppm to see PDF pages as a reader does, fc-match to find fonts,
# a real keychain for the key-store tests (gnome-keyring's Secret Service on a private D-Bus session), and
# the freedesktop validators the launcher tests run (desktop-file-validate, appstreamcli).
if command -v apt-get >/dev/null 2>&1; then
  apt_install fonts-liberation fonts-noto-color-emoji fonts-noto-cjk fontconfig poppler-utils dbus gnome-keyring \
              desktop-file-utils appstream ||
    die "could not install the test's system packages (fonts, poppler-utils, dbus, gnome-keyring, desktop-file-utils, appstream)"
else
  say "not a Debian-like system: make sure the Liberation fonts, poppler's pdftoppm, dbus, gnome-keyring, desktop-file-validate and appstreamcli are installed"
fi
exec "$py" -m pytest "$@"
