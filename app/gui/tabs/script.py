"""Puppeteer-style scripts: a JavaScript editor, an optional start address, the PNG of the page when
the script ends, its console output and its return value."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QWidget,
)

from app.core.errors import PressroomError
from app.core.files import read_input, write_atomic
from app.core.jobs import Job, RunScript
from app.core.results import Output
from app.core.urls import normalize_url
from app.gui.engine_host import EngineHost
from app.gui.tabs.common import WorkTab
from app.gui.widgets.code_editor import CodeEditor
from app.gui.widgets.message_bar import MessageBar
from app.gui.wording import describe

EXAMPLE = """// The body of an async function: `page` is Puppeteer's page; `await` and `return` work.
await page.setViewport({ width: 1280, height: 800 });
await page.setContent(`
  <style>body { font: 32px sans-serif; display: grid; place-items: center; height: 90vh; }
         button { font: inherit; padding: 12px 28px; }</style>
  <button id="go" onclick="this.textContent = 'Clicked!'">Click me</button>`);
await page.click('#go');
console.log('the button says', await page.$eval('#go', el => el.textContent));
return { title: await page.title(), time: new Date().toISOString() };
"""


class ScriptTab(WorkTab):
    title = "Script"

    def __init__(self, host: EngineHost, messages: MessageBar, parent: QWidget | None = None) -> None:
        super().__init__(host, messages, parent)
        self.path: Path | None = None
        self.editor = CodeEditor("js")
        self.editor.setPlainText(EXAMPLE)
        self.url = QLineEdit()
        self.url.setPlaceholderText("start at this address (optional)")
        self.full_page = QCheckBox("Full page")
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Ctrl+Enter")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Esc")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.busyChanged.connect(self._busy)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Start URL"))
        controls.addWidget(self.url, 1)
        controls.addWidget(self.full_page)
        controls.addWidget(self.run_button)
        controls.addWidget(self.cancel_button)

        self.console = QPlainTextEdit()
        self.console.setReadOnly(True)
        self.console.setPlaceholderText("console.log() output appears here")
        self.result = QPlainTextEdit()
        self.result.setReadOnly(True)
        self.result.setPlaceholderText("the script's return value appears here")
        reports = QTabWidget()
        reports.addTab(self.console, "Console")
        reports.addTab(self.result, "Return value")

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.editor)
        left.addWidget(reports)
        left.setStretchFactor(0, 3)
        self.lay_out(left, (620, 620), controls)

    def _busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def build_job(self) -> Job | None:
        url = normalize_url(self.url.text()) if self.url.text().strip() else None
        name = self.path.stem if self.path else "script"
        return RunScript(self.editor.toPlainText(), url, self.full_page.isChecked(), name)

    def run(self) -> None:
        self.console.clear()
        self.result.clear()
        super().run()

    def display(self, output: Output) -> None:
        self.preview.show_output(output)
        self.console.setPlainText("\n".join(output.console))
        if output.result is not None:
            self.result.setPlainText(json.dumps(json.loads(output.result), indent=2, ensure_ascii=False))
        elif not output.media_type.startswith("image/"):
            self.result.setPlainText(f"(the script returned a {output.media_type} file: it is the output)")

    def open_dialog(self) -> None:
        folder = str(QSettings().value("lastOpenFolder", str(Path.home())))
        chosen, _ = QFileDialog.getOpenFileName(self, "Open a script", folder, "Scripts (*.js *.mjs);;All files (*)")
        if chosen:
            try:
                self.editor.setPlainText(read_input(Path(chosen)).decode("utf-8", "replace"))
            except PressroomError as exc:
                self.messages.show_error(describe(exc))
                return
            self.path = Path(chosen)

    def save_source(self) -> bool:
        path = self.path
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Save the script", str(Path.home() / "script.js"), "Scripts (*.js)")
            if not chosen:
                return False
            path = Path(chosen)
        try:
            write_atomic(path, self.editor.toPlainText().encode("utf-8"))
        except PressroomError as exc:
            self.messages.show_error(describe(exc))
            return False
        self.path = path
        return True
