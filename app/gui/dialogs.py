"""The settings dialog, and the first-run dialog shown when no browser can be found."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from PySide6.QtCore import QProcess, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core import secrets, service
from app.core.errors import KeychainError, PressroomError
from app.core.settings import Settings
from app.gui.engine_host import EngineHost, JobHandle
from app.gui.wording import describe, sentence


class SettingsDialog(QDialog):
    """Engine, the hosted service's addresses and key (kept in the keychain), the local browser."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(620)
        self.settings = settings
        self.keychain_ok = True

        self.engine = QComboBox()
        self.engine.addItem("Local: the browser on this computer (no key, no network)", "local")
        self.engine.addItem("Remote: the hosted service (needs an API key)", "remote")
        self.engine.setCurrentIndex(max(0, self.engine.findData(settings["engine"])))

        self.base_url = QLineEdit(settings["base_url"])
        self.exec_url = QLineEdit(settings["exec_url"])
        self.integration = QLineEdit(settings["integration"])
        self.origin_header = QLineEdit(settings["origin_header"])
        for edit, hint in ((self.base_url, "https://… (key check)"), (self.exec_url, "https://… (conversions)")):
            edit.setPlaceholderText(hint)
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_status = QLabel()
        self.key_status.setWordWrap(True)
        self.forget = QPushButton("Forget key")
        self.forget.clicked.connect(self._forget)
        self.check = QPushButton("Check key")
        self.check.clicked.connect(self.check_key)
        self.workspace = QLabel()
        self.workspace.setWordWrap(True)
        self.workspace.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.forget)
        key_row.addWidget(self.check)
        remote = QGroupBox("Hosted service")
        remote_form = QFormLayout(remote)
        remote_form.addRow("Base URL", self.base_url)
        remote_form.addRow("Execution URL", self.exec_url)
        remote_form.addRow("Integration name", self.integration)
        remote_form.addRow("Origin header", self.origin_header)
        remote_form.addRow("API key", key_row)
        remote_form.addRow("", self.key_status)
        remote_form.addRow("", self.workspace)

        self.browser = QLineEdit(settings["browser_path"])
        self.browser.setPlaceholderText("found automatically")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_browser)
        browser_row = QHBoxLayout()
        browser_row.addWidget(self.browser, 1)
        browser_row.addWidget(browse)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(float(settings["timeout"]))
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 32)
        self.concurrency.setValue(int(settings["concurrency"]))
        local = QGroupBox("Local engine")
        local_form = QFormLayout(local)
        local_form.addRow("Browser", browser_row)
        local_form.addRow("Time limit per job", self.timeout)
        local_form.addRow("Pages at once", self.concurrency)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        form.addRow("Engine", self.engine)
        layout.addLayout(form)
        layout.addWidget(remote)
        layout.addWidget(local)
        layout.addWidget(buttons)
        self._show_key_state()

    def _show_key_state(self) -> None:
        try:
            stored = secrets.get_key()
        except KeychainError as exc:
            self.keychain_ok = False
            session = EngineHost.session_key
            self.key_status.setText(
                f"{sentence(exc.message)}: a key typed here is used for this session only and not stored."
                + (f" In use now: {service.redact(session)}." if session else "")
            )
            self.forget.setEnabled(False)
            self.key.setPlaceholderText("paste your API key (kept until Pressroom closes)")
            return
        if stored and secrets.key_source() != "the keychain":
            status = f"In use: {service.redact(stored)}, from {secrets.key_source()} (it overrides the keychain)."
        else:
            status = f"Stored in the keychain: {service.redact(stored)}." if stored else "No key stored."
        self.key_status.setText(status)
        self.key.setPlaceholderText("paste a new key to replace it" if stored else "paste your API key")
        self.forget.setEnabled(stored is not None)

    def _forget(self) -> None:
        try:
            secrets.delete_key()
        except PressroomError as exc:
            self.key_status.setText(describe(exc))
            return
        self._show_key_state()

    def _choose_browser(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, "Choose Chrome, Chromium or Edge", "/usr/bin" if sys.platform != "win32" else ""
        )
        if chosen:
            self.browser.setText(chosen)

    def store_key(self) -> bool:
        """Keep a typed key: in the keychain, or (without one) for this session only."""
        typed = self.key.text().strip()
        if not typed:
            return True
        try:
            key = secrets.check_key_text(typed)
            if self.keychain_ok:
                secrets.set_key(key)
            else:
                EngineHost.session_key = key
        except PressroomError as exc:
            self.key_status.setText(describe(exc))
            return False
        self.key.clear()
        self._show_key_state()
        return True

    def values(self) -> Settings:
        updated = Settings(self.settings.as_dict(), path=self.settings.path)
        updated.set("engine", self.engine.currentData())
        for name, edit in (("base_url", self.base_url), ("exec_url", self.exec_url), ("integration", self.integration),
                           ("origin_header", self.origin_header), ("browser_path", self.browser)):  # fmt: skip
            updated.set(name, edit.text().strip())
        updated.set("timeout", self.timeout.value())
        updated.set("concurrency", self.concurrency.value())
        return updated

    def check_key(self) -> None:
        """Ask the service about the key (on a worker thread; the answer fills the workspace line)."""
        if not self.store_key():
            return
        from app.engines.remote import RemoteConfig, RemoteEngine

        self.workspace.setText("Checking…")
        self.check.setEnabled(False)
        engine = RemoteEngine(
            RemoteConfig.from_settings(self.values()), key=EngineHost.session_key if not self.keychain_ok else None
        )
        future = engine.check_key()
        self._checking = (engine, future)
        handle = JobHandle(future, self)  # the same queued delivery as jobs
        handle.finished.connect(self._checked)
        handle.failed.connect(lambda error: self._checked_error(error))

    def _checked(self, record: service.ApiKeyRecord) -> None:
        self.check.setEnabled(True)
        self._checking[0].close()
        created = service.as_datetime(record.created_at if record.created_at is not None else record.date_created)
        limit = "-" if record.max_request_count is None else f"{record.max_request_count:g}"
        self.workspace.setText(
            f"Workspace: {record.name or '-'} (id {record.workspace_id or '-'}) · max requests: {limit}"
            + (f" · created {created:%Y-%m-%d}" if created else "")
        )

    def _checked_error(self, error: BaseException) -> None:
        self.check.setEnabled(True)
        self._checking[0].close()
        self.workspace.setText(describe(error))

    def accept(self) -> None:
        if self.store_key():
            super().accept()


_PERCENT = re.compile(r"(\d{1,3})%")


class FirstRunDialog(QDialog):
    """No browser: download Playwright's Chromium (with progress), or point at an installed one."""

    def __init__(self, problem: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("A browser is needed")
        self.chosen_browser: str | None = None
        text = QLabel(
            f"<b>{problem}</b><br><br>Pressroom renders with a Chromium-family browser. It can download "
            "Chromium for you (about 150 MB), or use Chrome, Chromium or Edge if one is installed somewhere "
            "it did not look."
        )
        text.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.download = QPushButton("Download Chromium")
        self.download.clicked.connect(self.start_download)
        choose = QPushButton("Choose a browser…")
        choose.clicked.connect(self._choose)
        later = QPushButton("Not now")
        later.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.download)
        row.addWidget(choose)
        row.addStretch(1)
        row.addWidget(later)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(row)
        self.process: QProcess | None = None

    def start_download(self) -> None:
        self.download.setEnabled(False)
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText("Downloading Chromium…")
        process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.readyReadStandardOutput.connect(self._read)
        process.finished.connect(self._downloaded)
        process.errorOccurred.connect(self._not_started)
        from app.engines.local.discovery import install_command

        program, *arguments = install_command()
        process.start(program, arguments)
        self.process = process

    def _read(self) -> None:
        assert self.process is not None
        text = bytes(self.process.readAllStandardOutput().data()).decode("utf-8", "replace")
        for match in _PERCENT.finditer(text):
            self.progress.setValue(min(100, int(match.group(1))))

    def _downloaded(self, code: int, _status: QProcess.ExitStatus) -> None:
        self.progress.hide()
        self.download.setEnabled(True)
        if code == 0:
            self.status.setText("Chromium is installed.")
            self.accept()
        else:
            self.status.setText(
                "The download did not work: this computer may be offline, or the download site blocked. Connect to the "
                "internet and try again, install Chrome or Chromium yourself and choose it here, or use the hosted "
                "service (Settings)."
            )

    def _not_started(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # otherwise "finished" follows and reports it
            self.progress.hide()
            self.download.setEnabled(True)
            self.status.setText(
                "The downloader could not start (Playwright's driver is missing or damaged). Reinstall Pressroom, "
                "or install Chrome or Chromium yourself and choose it here."
            )

    def _choose(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, "Choose Chrome, Chromium or Edge", "/usr/bin" if sys.platform != "win32" else ""
        )
        if chosen and Path(chosen).is_file():
            self.chosen_browser = chosen
            self.accept()
