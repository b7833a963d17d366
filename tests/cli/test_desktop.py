"""`pressroom install-desktop` / `uninstall-desktop`, as a user runs them: the launcher, icons and
metainfo land in the XDG locations, pass the freedesktop validators, and the launcher opens the window."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from app.cli.desktop import ICON_SIZES, desktop_entry
from app.core.resources import APP_ID
from tests.cli.conftest import ROOT, _env
from tests.conftest import assert_window_shown


def pressroom(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, env=env, timeout=120)


def entry(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line)


@pytest.fixture
def data_home(tmp_path: Path) -> Path:
    return tmp_path / "share"


@pytest.fixture
def env(data_home: Path, tmp_path: Path) -> dict[str, str]:
    return {**_env(), "XDG_DATA_HOME": str(data_home), "PRESSROOM_CONFIG_DIR": str(tmp_path / "config")}


def test_install_and_uninstall(data_home: Path, env: dict[str, str]) -> None:
    result = pressroom("install-desktop", env=env)
    assert result.returncode == 0, result.stderr
    desktop = data_home / "applications" / f"{APP_ID}.desktop"
    assert f"Installed the Pressroom launcher ({desktop})" in result.stdout

    fields = entry(desktop)
    assert fields["Name"] == "Pressroom" and fields["Terminal"] == "false" and fields["Icon"] == APP_ID
    assert set(fields["MimeType"].rstrip(";").split(";")) == {"text/html", "application/xhtml+xml", "application/pdf"}
    command = exec_arguments(fields["Exec"])
    assert command[-1] == "%F"
    launcher = Path(command[0])
    assert launcher == Path(sys.executable).parent / "pressroom-gui" and os.access(launcher, os.X_OK)
    checked = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True)
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout

    metainfo = data_home / "metainfo" / f"{APP_ID}.metainfo.xml"
    checked = subprocess.run(
        ["appstreamcli", "validate", "--no-net", "--pedantic", str(metainfo)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    icons = data_home / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / f"{APP_ID}.svg").read_bytes() == (ROOT / "resources/icons/pressroom.svg").read_bytes()
    for size in ICON_SIZES:
        with Image.open(icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png") as icon:
            assert icon.size == (size, size) and icon.mode == "RGBA"
            assert icon.getpixel((0, 0))[3] == 0 and icon.getpixel((size // 2, size // 8))[3] == 255  # rounded, opaque

    (data_home / "applications" / "someone-else.desktop").write_text("[Desktop Entry]\n")
    result = pressroom("uninstall-desktop", env=env)
    assert result.returncode == 0 and result.stdout.startswith(f"Removed the Pressroom launcher ({3 + len(ICON_SIZES)} files)")
    left = sorted(p.relative_to(data_home).as_posix() for p in data_home.rglob("*") if p.is_file() and "cache" not in p.name)
    assert left == ["applications/someone-else.desktop"]
    assert pressroom("uninstall-desktop", env=env).stdout.strip() == "Pressroom's launcher was not installed."


def test_the_launcher_opens_the_window_with_the_file(data_home: Path, env: dict[str, str], tmp_path: Path) -> None:
    """The Exec line, run as a file manager runs it for "Open with Pressroom" on an HTML file."""
    assert pressroom("install-desktop", env=env).returncode == 0
    page = tmp_path / "letter.html"
    page.write_text("<p>Dear reader</p>")
    exec_value = entry(data_home / "applications" / f"{APP_ID}.desktop")["Exec"]
    command = [str(page) if part == "%F" else part for part in exec_arguments(exec_value)]
    assert_window_shown(command, env, cwd=tmp_path)


def test_a_file_instead_of_a_command_opens_the_window(env: dict[str, str], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<p>hi</p>")
    headless = {k: v for k, v in env.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    result = pressroom(str(page), env=headless)  # the window's route: here, no display to open it on
    assert result.returncode == 1 and result.stderr.startswith("pressroom: error: there is no display"), result.stderr
    result = pressroom(str(tmp_path / "missing.html"), env=headless)  # not a file: the usual usage error
    assert result.returncode == 2 and "invalid choice" in result.stderr


def exec_arguments(value: str) -> list[str]:
    """An Exec value as the Desktop Entry Specification reads it: string escapes, then the quoting."""
    return shlex.split(value.replace("\\\\", "\\"))


def test_exec_quoting(tmp_path: Path) -> None:
    odd = '/opt/My Apps/100% "x"/pressroom-gui'
    text = desktop_entry([odd])
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert exec_line == r'Exec="/opt/My Apps/100%% \\"x\\"/pressroom-gui" %F'
    assert exec_arguments(exec_line[5:]) == ['/opt/My Apps/100%% "x"/pressroom-gui', "%F"]  # %% is the launcher's
    (tmp_path / "odd.desktop").write_text(text)
    checked = subprocess.run(["desktop-file-validate", str(tmp_path / "odd.desktop")], capture_output=True, text=True)
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
