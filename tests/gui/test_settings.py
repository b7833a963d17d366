"""The settings dialog: the key in a real keychain (gnome-keyring), "Check key" against a double of the
hosted service on loopback, session-only keys when no keychain exists, and the remote engine in the window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core import secrets
from app.core.settings import Settings
from app.gui.dialogs import SettingsDialog
from app.gui.engine_host import EngineHost
from app.gui.main_window import MainWindow
from tests.hosted_double import KEY, Answer, HostedDouble

WAIT = 15_000


@pytest.fixture
def remote_settings(hosted: HostedDouble, tmp_path: Path) -> Settings:
    settings = Settings(path=tmp_path / "settings.json")
    settings.set("base_url", f"{hosted.url}/base")
    settings.set("exec_url", f"{hosted.url}/exec")
    return settings


@pytest.fixture
def empty_keychain(keychain: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secrets.ENVIRONMENT, raising=False)
    secrets.delete_key()


@pytest.fixture
def no_keychain(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """keyring's own 'fail' backend: what keyring picks on a machine without any keychain."""
    monkeypatch.delenv(secrets.ENVIRONMENT, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)
    EngineHost.session_key = None


def test_the_key_goes_to_the_keychain_and_check_key_shows_the_workspace(
    qtbot: QtBot, empty_keychain: None, remote_settings: Settings, hosted: HostedDouble
) -> None:
    dialog = SettingsDialog(remote_settings)
    qtbot.addWidget(dialog)
    assert dialog.key_status.text() == "No key stored."
    dialog.key.setText(f"  {KEY} ")
    assert dialog.key.echoMode() == dialog.key.EchoMode.Password
    dialog.check.click()
    qtbot.waitUntil(lambda: "Acme Reports" in dialog.workspace.text(), timeout=WAIT)
    assert dialog.workspace.text() == "Workspace: Acme Reports (id ws-123) · max requests: 5000 · created 2025-01-01"
    assert secrets.get_key() == KEY
    assert dialog.key.text() == ""
    assert dialog.key_status.text() == f"Stored in the keychain: …{KEY[-4:]}."
    assert dialog.key.placeholderText() == "paste a new key to replace it"
    check = hosted.seen[-1]
    assert (check.method, check.path, check.headers["x-api-key"]) == ("GET", f"/base/core/api-key/{KEY}", KEY)

    dialog.forget.click()
    assert secrets.get_key() is None
    assert dialog.key_status.text() == "No key stored."


def test_a_rejected_key_is_explained_without_showing_it(
    qtbot: QtBot, empty_keychain: None, remote_settings: Settings, hosted: HostedDouble
) -> None:
    hosted.answer(Answer(401, b'{"error":"invalid key"}', "application/json"))
    dialog = SettingsDialog(remote_settings)
    qtbot.addWidget(dialog)
    dialog.key.setText(KEY)
    dialog.check.click()
    qtbot.waitUntil(dialog.check.isEnabled, timeout=WAIT)
    text = dialog.workspace.text()
    assert text == (
        "The service refused the API key (HTTP 401 Unauthorized): invalid key. "
        "Check it with Check key in Settings (Ctrl+,), or paste a new one there"
    )
    assert KEY not in dialog.key_status.text()


def test_without_a_keychain_the_key_is_for_this_session_only(
    qtbot: QtBot, no_keychain: None, remote_settings: Settings, hosted: HostedDouble, tmp_path: Path
) -> None:
    dialog = SettingsDialog(remote_settings)
    qtbot.addWidget(dialog)
    assert dialog.key_status.text().startswith("No system keychain is available to keep the API key:")
    assert "session only" in dialog.key_status.text()
    dialog.key.setText(KEY)
    dialog.check.click()
    qtbot.waitUntil(lambda: "Acme Reports" in dialog.workspace.text(), timeout=WAIT)
    assert EngineHost.session_key == KEY
    assert f"In use now: …{KEY[-4:]}." in dialog.key_status.text()
    dialog.accept()
    dialog.values().save()
    assert KEY not in Path(remote_settings.path or "").read_text()


def test_remote_engine_in_the_window(qtbot: QtBot, empty_keychain: None, remote_settings: Settings, hosted: HostedDouble) -> None:
    """Settings → Remote: the key lands in the keychain (not the settings file), the status bar names the
    workspace, and the HTML → PDF tab renders through the service."""
    local = Settings(path=remote_settings.path)
    window = MainWindow(EngineHost(local), local)
    qtbot.addWidget(window)
    window.show()

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        dialog.engine.setCurrentIndex(dialog.engine.findData("remote"))
        dialog.base_url.setText(remote_settings["base_url"])
        dialog.exec_url.setText(remote_settings["exec_url"])
        dialog.integration.setText("desk")
        dialog.key.setText(KEY)
        dialog.accept()

    QTimer.singleShot(0, fill)
    window.open_settings()
    qtbot.waitUntil(lambda: window.engine_label.text() == "Engine: Remote — Acme Reports", timeout=WAIT)
    assert window.state_label.text() == "key accepted"
    assert secrets.get_key() == KEY
    saved = Path(remote_settings.path or "").read_text()
    assert KEY not in saved and '"engine": "remote"' in saved and '"integration": "desk"' in saved

    with qtbot.waitSignal(window.pdf_tab.preview.shown, timeout=WAIT):
        window.pdf_tab.editor.setPlainText("<h1>Through the service</h1>")
    execution = hosted.seen[-1]
    assert execution.path == f"/exec/__js1-{KEY}"
    assert execution.headers["service-origin"] == "desk/generatePDF"
    assert "Through the service" in execution.json["input"]
    assert window.pdf_tab.preview.info.text().startswith("1 page ·")
    window.close()
