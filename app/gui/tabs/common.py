"""What every tab shares: running a job (busy state, Cancel), and doing things with its output
(save with a proposed name, copy, open in the system viewer)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QByteArray, QMimeData, QSettings, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QImage
from PySide6.QtWidgets import QFileDialog, QLayout, QSplitter, QVBoxLayout, QWidget

from app.core import media
from app.core.engine import Progress
from app.core.errors import PressroomError
from app.core.files import write_atomic
from app.core.jobs import Job
from app.core.results import Output
from app.gui.engine_host import EngineHost, JobHandle
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.preview import PreviewPane
from app.gui.wording import describe

FILTERS = {
    media.PDF: "PDF documents (*.pdf)",
    media.PNG: "PNG images (*.png)",
    media.JPEG: "JPEG images (*.jpg *.jpeg)",
    media.WEBP: "WebP images (*.webp)",
}
_VIEWER_COPIES = tempfile.TemporaryDirectory(prefix="pressroom-open-")  # removed when Pressroom exits


class WorkTab(QWidget):
    """A tab that runs jobs. Subclasses build the job (``build_job``) and show the result (``display``)."""

    title = ""
    busyChanged = Signal(bool)
    outputChanged = Signal()

    def __init__(self, host: EngineHost, messages: MessageBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.messages = messages
        self.output: Output | None = None
        self.handle: JobHandle | None = None
        self.preview = PreviewPane()
        self.splitter: QSplitter | None = None  # editors | preview: its position is remembered

    def lay_out(self, left: QWidget, sizes: tuple[int, int], *above: QLayout) -> None:
        """The tab's layout: rows ``above``, then ``left`` beside the preview, split ``sizes`` at first (the
        preview gets room; the user's own split is remembered by the window)."""
        splitter = self.splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.preview)
        splitter.setSizes(list(sizes))
        splitter.setStretchFactor(0, sizes[0])
        splitter.setStretchFactor(1, sizes[1])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for row in above:
            layout.addLayout(row)
        layout.addWidget(splitter, 1)

    # -- running --

    @property
    def busy(self) -> bool:
        return self.handle is not None

    def build_job(self) -> Job | None:
        raise NotImplementedError

    def run(self) -> None:
        """Run now (Ctrl+Enter)."""
        if self.busy:
            return
        try:
            job = self.build_job()
        except PressroomError as exc:
            self.messages.show_error(describe(exc))
            return
        if job is None:
            return
        self.messages.hide()
        self.handle = self.host.run(job)
        self.handle.finished.connect(self._finished)
        self.handle.failed.connect(self._failed)
        self.handle.cancelled.connect(self._cancelled)
        self.handle.progressed.connect(self.show_progress)
        self.busyChanged.emit(True)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    def _settle(self) -> None:
        self.handle = None
        self.busyChanged.emit(False)

    def _finished(self, output: Output) -> None:
        self._settle()
        self.output = output
        self.display(output)
        self.outputChanged.emit()

    def _failed(self, error: BaseException) -> None:
        self._settle()
        self.messages.show_error(describe(error))

    def _cancelled(self) -> None:
        self._settle()
        self.messages.show_info("Cancelled.")

    def display(self, output: Output) -> None:
        self.preview.show_output(output)

    def show_progress(self, progress: Progress) -> None:
        """A step of a long job (tabs with a progress bar show it)."""

    # -- the output --

    def save_output(self) -> Path | None:
        """Ask where to save the output (a name is proposed; an existing file is replaced only if confirmed)."""
        if self.output is None:
            self.messages.show_info("There is nothing to save yet: run it first (Ctrl+Enter).")
            return None
        settings = QSettings()
        folder = Path(str(settings.value("lastSaveFolder", str(Path.home()))))
        suggested = str(folder / self.output.suggested_name)
        chosen, _ = QFileDialog.getSaveFileName(self, "Save the output", suggested, FILTERS.get(self.output.media_type, ""))
        if not chosen:
            return None
        path = Path(chosen)
        try:
            write_atomic(path, self.output.data)
        except PressroomError as exc:
            self.messages.show_error(describe(exc))
            return None
        settings.setValue("lastSaveFolder", str(path.parent))
        self.messages.show_info(f"Saved {path.name}.", ("Open", lambda: open_file(path)))
        return path

    def copy_output(self) -> None:
        if self.output is None:
            return
        clipboard = QGuiApplication.clipboard()
        if self.output.media_type.startswith("image/"):
            clipboard.setImage(QImage.fromData(QByteArray(self.output.data)))
        else:
            data = QMimeData()
            data.setData(self.output.media_type, QByteArray(self.output.data))
            clipboard.setMimeData(data)
        self.messages.show_info("Copied.", seconds=3)

    def open_in_viewer(self) -> None:
        """Open the output with the system's viewer (a copy in a temporary folder)."""
        if self.output is None:
            return
        path = Path(_VIEWER_COPIES.name) / self.output.suggested_name
        write_atomic(path, self.output.data)
        open_file(path)

    def open_dialog(self) -> None:  # Ctrl+O; tabs that open files override it
        pass


def open_file(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
