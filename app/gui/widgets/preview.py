"""The preview: the engine's real output, a PDF in ``QPdfView`` or an image in a zoomable view.

A failed render shows its message in a banner above the preview and keeps the last good output on
screen. ``shown`` is emitted once a new output has been painted (the preview benchmark listens to it).
"""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QObject, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QPixmap, QWheelEvent
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core import media
from app.core.results import Output


class ImageView(QGraphicsView):
    """A picture that zooms with Ctrl + wheel or the buttons, and fits the view until zoomed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scene = QGraphicsScene(self)
        self._item = QGraphicsPixmapItem()
        self._item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self._scene.addItem(self._item)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.fitting = True

    def set_image(self, image: QImage) -> None:
        self._item.setPixmap(QPixmap.fromImage(image))
        self._scene.setSceneRect(self._item.boundingRect())
        if self.fitting:
            self.fit()

    def fit(self) -> None:
        self.fitting = True
        self.resetTransform()
        rect = self._item.boundingRect()
        if rect.width() > self.viewport().width() or rect.height() > self.viewport().height():
            self.fitInView(self._item, Qt.AspectRatioMode.KeepAspectRatio)

    def zoom(self, factor: float) -> None:
        self.fitting = False
        self.scale(factor, factor)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        else:
            super().wheelEvent(event)

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self.fitting:
            self.fit()


class PreviewPane(QWidget):
    shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.output: Output | None = None
        self._document: QPdfDocument | None = None
        self._buffer: QBuffer | None = None
        self._waiting_for_paint = False

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setStyleSheet("QLabel { background: #b3261e; color: white; padding: 6px 8px; border-radius: 4px; }")
        self.banner.hide()

        self.info = QLabel("")
        self.info.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.busy = QLabel("rendering…")
        self.busy.setVisible(False)
        zoom_out, zoom_in, fit = (QToolButton(), QToolButton(), QToolButton())
        for button, text, tip in (
            (zoom_out, "−", "Zoom out (Ctrl+-)"),
            (zoom_in, "+", "Zoom in (Ctrl++)"),
            (fit, "Fit", "Fit to the view"),
        ):
            button.setText(text)
            button.setToolTip(tip)
        zoom_out.clicked.connect(lambda: self.zoom(1 / 1.25))
        zoom_in.clicked.connect(lambda: self.zoom(1.25))
        fit.clicked.connect(self.fit)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.info)
        bar.addWidget(self.busy)
        bar.addWidget(zoom_out)
        bar.addWidget(zoom_in)
        bar.addWidget(fit)

        self.placeholder = QLabel("The preview appears here.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pdf_view = QPdfView()
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.pdf_view.setPageSpacing(12)
        self.image_view = ImageView()
        self.stack = QStackedWidget()
        for widget in (self.placeholder, self.pdf_view, self.image_view):
            self.stack.addWidget(widget)
            widget.installEventFilter(self)
        self.pdf_view.viewport().installEventFilter(self)
        self.image_view.viewport().installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)

    # -- showing outputs --

    def show_output(self, output: Output) -> None:
        """Show a new output (the last good one until replaced); errors in the banner go away."""
        self.banner.hide()
        if output.media_type == media.PDF:
            self._show_pdf(output.data)
            pages = self._document.pageCount() if self._document else 0
            details = f"{pages} page{'s' if pages != 1 else ''}"
        elif output.media_type.startswith("image/"):
            image = QImage.fromData(QByteArray(output.data))
            if image.isNull():
                self.show_error("the image cannot be shown")
                return
            self.image_view.set_image(image)
            self.stack.setCurrentWidget(self.image_view)
            details = f"{image.width()} × {image.height()} px, {output.media_type.split('/')[1].upper()}"
        else:
            self.show_error(f"a preview of {output.media_type} is not possible; save it instead")
            return
        self.output = output
        size = output.size / 1000
        self.info.setText(f"{details} · {size:.1f} KB · {output.seconds * 1000:.0f} ms")
        self._waiting_for_paint = True
        if (current := self.stack.currentWidget()) is not None:
            current.update()

    def _show_pdf(self, data: bytes) -> None:
        previous = (self._document, self._buffer)
        scroll = self.pdf_view.verticalScrollBar().value()
        buffer = QBuffer(self)
        buffer.setData(QByteArray(data))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        document = QPdfDocument(self)
        document.load(buffer)
        self.pdf_view.setDocument(document)
        self._document, self._buffer = document, buffer
        self.stack.setCurrentWidget(self.pdf_view)
        self.pdf_view.verticalScrollBar().setValue(scroll)  # editing a long document keeps its place
        for old in previous:
            if old is not None:
                old.deleteLater()

    def show_error(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.show()

    def set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)

    @property
    def document(self) -> QPdfDocument | None:
        return self._document if self.stack.currentWidget() is self.pdf_view else None

    # -- zoom --

    def zoom(self, factor: float) -> None:
        if self.stack.currentWidget() is self.pdf_view:
            self.pdf_view.setZoomMode(QPdfView.ZoomMode.Custom)
            self.pdf_view.setZoomFactor(max(0.1, min(8.0, self.pdf_view.zoomFactor() * factor)))
        elif self.stack.currentWidget() is self.image_view:
            self.image_view.zoom(factor)

    def fit(self) -> None:
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.image_view.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._waiting_for_paint and event.type() == QEvent.Type.Paint:
            self._waiting_for_paint = False
            self.shown.emit()
        return False
