"""Screenshot of a web page: the address, the image options, when the page counts as loaded."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QWidget,
)

from app.core.jobs import ImageOptions, Job, Screenshot, WaitOptions, WaitUntil
from app.core.urls import name_from_url, normalize_url
from app.gui.engine_host import EngineHost
from app.gui.tabs.common import WorkTab
from app.gui.tabs.document import scrolled
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.options_form import OptionsForm


class ScreenshotTab(WorkTab):
    title = "Screenshot"

    def __init__(self, host: EngineHost, messages: MessageBar, parent: QWidget | None = None) -> None:
        super().__init__(host, messages, parent)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com — or the path of an HTML file")
        self.url.returnPressed.connect(self.run)
        self.take = QPushButton("Take screenshot")
        self.take.setToolTip("Ctrl+Enter")
        self.take.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.busyChanged.connect(self._busy)
        row = QHBoxLayout()
        row.addWidget(self.url, 1)
        row.addWidget(self.take)
        row.addWidget(self.cancel_button)

        self.options = OptionsForm(ImageOptions)
        self.wait = OptionsForm(WaitOptions, labels={"selector": "Wait for element"})
        self.wait_until = QComboBox()
        for member in WaitUntil:
            self.wait_until.addItem(member.value, member.value)
        self.wait.layout_.insertRow(0, "Loaded at", self.wait_until)
        settings = QTabWidget()
        settings.addTab(scrolled(self.options), "Image")
        settings.addTab(scrolled(self.wait), "Loading")

        form = QFormLayout()
        form.addRow("Address", row)
        self.lay_out(settings, (300, 940), form)

    def _busy(self, busy: bool) -> None:
        self.take.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def build_job(self) -> Job | None:
        if not self.url.text().strip():
            self.messages.show_info("Type the address of a page first.")
            return None
        url = normalize_url(self.url.text())
        until = WaitUntil(self.wait_until.currentData())
        return Screenshot(url, self.options.value(), self.wait.value(), until, name_from_url(url))
