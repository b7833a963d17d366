"""``pressroom install-desktop`` / ``uninstall-desktop``: the launcher, icon and AppStream data for the
current user on Linux (freedesktop.org locations under ``$XDG_DATA_HOME``, by default ``~/.local/share``).

The launcher runs the window of *this* installation - the virtual environment's ``pressroom-gui``, or the
bundle's own executable - by absolute path, so it works without the command on PATH and without a
terminal. HTML and PDF files can be opened with it from a file manager.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import InputError, OperationError
from app.core.files import write_atomic
from app.core.resources import APP_ID, resource

ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
MIME_TYPES = ("text/html", "application/xhtml+xml", "application/pdf")


@dataclass(frozen=True)
class Installed:
    files: tuple[Path, ...]
    launcher: str  # the Exec line's command


def data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME", "").strip()
    return Path(value) if value and Path(value).is_absolute() else Path.home() / ".local" / "share"


def targets(home: Path | None = None) -> dict[str, Path]:
    """Every file install-desktop writes, by what it is."""
    home = home or data_home()
    icons = home / "icons" / "hicolor"
    paths = {
        "desktop": home / "applications" / f"{APP_ID}.desktop",
        "metainfo": home / "metainfo" / f"{APP_ID}.metainfo.xml",
        "svg": icons / "scalable" / "apps" / f"{APP_ID}.svg",
    }
    for size in ICON_SIZES:
        paths[f"png{size}"] = icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
    return paths


def launcher_command() -> list[str]:
    """How to start this installation's window, as an argument list."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its executable opens the window
        return [sys.executable]
    scripts = Path(sys.executable).parent
    for name in ("pressroom-gui", "pressroom-gui.exe"):
        if (scripts / name).is_file():
            return [str(scripts / name)]
    return [sys.executable, "-m", "app.gui"]


def _exec_quote(argument: str) -> str:
    """An argument of a desktop entry's Exec key (Desktop Entry Specification, "The Exec key")."""
    if argument and not any(ch in argument for ch in " \t\n\"'\\><~|&;$*?#()`%="):
        return argument
    escaped = "".join("\\" + ch if ch in '"`$\\' else ch for ch in argument).replace("%", "%%")
    return f'"{escaped}"'


def desktop_entry(command: list[str]) -> str:
    # Exec's own quoting first, then the escaping of every string value (a backslash is written twice).
    exec_line = " ".join(_exec_quote(part) for part in command).replace("\\", "\\\\")
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Pressroom",
            "GenericName=Document Converter",
            "Comment=HTML to PDF and images, web page screenshots, PDF merging and browser scripts",
            f"Exec={exec_line} %F",
            f"TryExec={command[0]}",
            f"Icon={APP_ID}",
            "Terminal=false",
            "StartupNotify=true",
            "Categories=Office;Publishing;",
            f"MimeType={';'.join(MIME_TYPES)};",
            "Keywords=PDF;HTML;convert;merge;screenshot;Puppeteer;",
            "",
        ]
    )


def metainfo() -> str:
    from app import __version__

    return f"""<?xml version="1.0" encoding="UTF-8"?>
<component type="desktop-application">
  <id>{APP_ID}</id>
  <metadata_license>CC0-1.0</metadata_license>
  <project_license>MIT</project_license>
  <name>Pressroom</name>
  <summary>Turn HTML into PDF and images, shoot web pages, merge PDFs</summary>
  <description>
    <p>
      Pressroom converts HTML to PDF, PNG, JPEG and WebP with a live preview of the real output, takes
      screenshots of web pages, merges PDFs while keeping their bookmarks and internal links, and runs
      Puppeteer-style browser scripts.
    </p>
    <p>
      The work runs on this computer with Chromium, or through the hosted conversion service with an API
      key kept in the system keychain.
    </p>
  </description>
  <launchable type="desktop-id">{APP_ID}.desktop</launchable>
  <provides>
    <binary>pressroom</binary>
  </provides>
  <categories>
    <category>Office</category>
  </categories>
  <content_rating type="oars-1.1"/>
  <releases>
    <release version="{__version__}" date="2026-11-21"/>
  </releases>
</component>
"""


def install(home: Path | None = None) -> Installed:
    """Write the launcher, icons and metainfo; refresh the desktop's caches where the tools exist."""
    if sys.platform != "linux":
        raise InputError("install-desktop is for Linux desktops", "On Windows and macOS, use the bundle (see the README)")
    icons = resource("icons")
    if not (icons / "pressroom.svg").is_file():
        raise OperationError(f"the icons are missing from {icons}", "Reinstall Pressroom")
    command = launcher_command()
    paths = targets(home)
    written = []
    contents: dict[str, bytes] = {
        "desktop": desktop_entry(command).encode(),
        "metainfo": metainfo().encode(),
        "svg": (icons / "pressroom.svg").read_bytes(),
    }
    for size in ICON_SIZES:
        contents[f"png{size}"] = (icons / f"pressroom-{size}.png").read_bytes()
    for name, data in contents.items():
        path = paths[name]
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
        written.append(path)
    _refresh(paths["desktop"].parent.parent)
    return Installed(tuple(written), command[0])


def uninstall(home: Path | None = None) -> list[Path]:
    """Remove what install wrote (and nothing else); the paths that were there."""
    removed = []
    paths = targets(home)
    for path in paths.values():
        if path.is_file():
            path.unlink()
            removed.append(path)
    _refresh(paths["desktop"].parent.parent)
    return removed


def _refresh(home: Path) -> None:
    """Tell the desktop about the change: both tools are optional, and failing them changes nothing."""
    for command in (
        ["update-desktop-database", "-q", str(home / "applications")],
        ["gtk-update-icon-cache", "-q", "-t", "-f", str(home / "icons" / "hicolor")],
    ):
        if shutil.which(command[0]) and Path(command[-1]).is_dir():
            subprocess.run(command, capture_output=True, timeout=60, check=False)
