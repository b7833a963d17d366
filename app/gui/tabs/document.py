"""HTML -> PDF and HTML -> PNG: an HTML editor, the job's options, and a live preview of the real output.

Typing or changing an option schedules a render a short moment later (the debounce); the engine keeps
its pages warm, so a render costs tens of milliseconds. At most one render runs at a time: edits made
meanwhile are coalesced into one more render of the newest text, and only the newest render is shown.
A failed render shows its message over the preview, which keeps the last good output.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import PressroomError
from app.core.files import decode_html, read_input, write_atomic
from app.core.jobs import HtmlToImage, HtmlToPdf, ImageOptions, Job, PdfOptions, WaitOptions
from app.core.results import Output
from app.core.urls import folder_url
from app.gui.engine_host import EngineHost
from app.gui.tabs.common import WorkTab
from app.gui.widgets.code_editor import CodeEditor
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.options_form import OptionsForm
from app.gui.wording import describe

DEBOUNCE_MS = 60


def scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class DocumentTab(WorkTab):
    fileOpened = Signal(str)
    job_kind: type[HtmlToPdf] | type[HtmlToImage] = HtmlToPdf
    options_kind: type = PdfOptions
    options_title = "Page"

    def __init__(self, host: EngineHost, messages: MessageBar, parent: QWidget | None = None) -> None:
        super().__init__(host, messages, parent)
        self.path: Path | None = None  # the file being edited; its folder is the base for relative links
        self.base_folder: Path | None = None
        self.document_name = "document"  # the output's suggested name when there is no file
        self.saved_text = ""
        self._generation = 0
        self._pending = False

        self.editor = CodeEditor("html")
        self.options = OptionsForm(self.options_kind)
        self.wait = OptionsForm(WaitOptions, labels={"selector": "Wait for element"})
        settings_tabs = QTabWidget()
        settings_tabs.addTab(scrolled(self.options), self.options_title)
        settings_tabs.addTab(scrolled(self.wait), "Waiting")

        self.file_label = QLabel("Untitled")
        self.live = QCheckBox("Live preview")
        self.live.setChecked(True)
        self.live.setToolTip("Render again a moment after every change")
        self.run_button = QPushButton("Render")
        self.run_button.setToolTip("Render now (Ctrl+Enter)")
        self.run_button.clicked.connect(self.run)
        top = QHBoxLayout()
        top.addWidget(self.file_label, 1)
        top.addWidget(self.live)
        top.addWidget(self.run_button)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(top)
        editing = QSplitter(Qt.Orientation.Vertical)
        editing.addWidget(self.editor)
        editing.addWidget(settings_tabs)
        editing.setStretchFactor(0, 3)
        editing.setStretchFactor(1, 2)
        left_layout.addWidget(editing)

        self.lay_out(left, (560, 680))

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._render)
        self.editor.textChanged.connect(self._changed)
        self.options.changed.connect(self._changed)
        self.wait.changed.connect(self._changed)
        self.live.toggled.connect(self._live_toggled)

    # -- rendering --

    def _live_toggled(self, on: bool) -> None:
        if on:
            self._changed()

    def build_job(self) -> Job | None:
        html = self.editor.toPlainText()
        if not html.strip():
            return None
        base = folder_url(self.base_folder) if self.base_folder else None
        name = self.path.stem if self.path else self.document_name
        return self.job_kind(html, self.options.value(), self.wait.value(), base, name)

    def _changed(self) -> None:
        self._generation += 1
        self.editor_changed()
        if self.live.isChecked():
            self._debounce.start()

    def editor_changed(self) -> None:
        dirty = self.editor.toPlainText() != self.saved_text
        name = self.path.name if self.path else "Untitled"
        self.file_label.setText(f"{name} •" if dirty else name)

    def run(self) -> None:
        self._debounce.stop()
        self._render()

    def _render(self) -> None:
        if self.handle is not None:
            self._pending = True  # one more render, of the newest text, when this one is done
            return
        try:
            job = self.build_job()
        except PressroomError as exc:
            self.preview.show_error(describe(exc))
            return
        if job is None:
            return
        generation = self._generation
        self.handle = self.host.run(job)
        self.handle.finished.connect(lambda output: self._rendered(output, None, generation))
        self.handle.failed.connect(lambda error: self._rendered(None, error, generation))
        self.handle.cancelled.connect(lambda: self._rendered(None, None, generation))
        self.preview.set_busy(True)
        self.busyChanged.emit(True)

    def _rendered(self, output: Output | None, error: BaseException | None, generation: int) -> None:
        self.handle = None
        self.preview.set_busy(False)
        self.busyChanged.emit(False)
        newest = generation == self._generation
        if newest and output is not None:
            self.output = output
            self.preview.show_output(output)
            self.outputChanged.emit()
        elif newest and error is not None:
            self.preview.show_error(describe(error))
        if self._pending:
            self._pending = False
            self._render()

    # -- files --

    @property
    def has_unsaved_changes(self) -> bool:
        return self.path is not None and self.editor.toPlainText() != self.saved_text

    def open_dialog(self) -> None:
        folder = str(QSettings().value("lastOpenFolder", str(Path.home())))
        chosen, _ = QFileDialog.getOpenFileName(
            self, "Open an HTML file", folder, "HTML files (*.html *.htm *.xhtml);;All files (*)"
        )
        if chosen:
            self.open_file(Path(chosen))

    def open_file(self, path: Path) -> bool:
        try:
            text = decode_html(read_input(path), str(path))
        except PressroomError as exc:
            self.messages.show_error(describe(exc))
            return False
        QSettings().setValue("lastOpenFolder", str(path.parent))
        self.path, self.base_folder, self.saved_text = path, path.parent, text
        self.editor.setPlainText(text)
        self.fileOpened.emit(str(path))
        self.run()
        return True

    def load_sample(self, path: Path) -> None:
        self.path, self.base_folder, self.document_name = None, path.parent, path.stem
        self.saved_text = ""
        self.editor.setPlainText(path.read_text(encoding="utf-8"))
        self.file_label.setText(f"Sample: {path.stem}")
        self.run()

    def save_source(self) -> bool:
        """Save the HTML (Ctrl+Shift+S): to its file, or to one chosen now."""
        path = self.path
        if path is None:
            folder = str(QSettings().value("lastOpenFolder", str(Path.home())))
            chosen, _ = QFileDialog.getSaveFileName(
                self, "Save the HTML", str(Path(folder) / "document.html"), "HTML files (*.html)"
            )
            if not chosen:
                return False
            path = Path(chosen)
        text = self.editor.toPlainText()
        try:
            write_atomic(path, text.encode("utf-8"))
        except PressroomError as exc:
            self.messages.show_error(describe(exc))
            return False
        self.path, self.base_folder, self.saved_text = path, path.parent, text
        self.editor_changed()
        self.fileOpened.emit(str(path))
        return True


class HtmlToPdfTab(DocumentTab):
    title = "HTML → PDF"
    job_kind = HtmlToPdf
    options_kind = PdfOptions
    options_title = "Page"


class HtmlToPngTab(DocumentTab):
    title = "HTML → PNG"
    job_kind = HtmlToImage
    options_kind = ImageOptions
    options_title = "Image"
