"""Merge PDFs: a list to drop files, folders and links onto, reorder by dragging, with each file's
first page and page count (read on worker threads), a page selection per row, and the merged result."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRunnable,
    QSettings,
    QSize,
    Qt,
    QThreadPool,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QIcon,
    QImage,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPixmap,
    QShortcut,
)
from PySide6.QtPdf import QPdfDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.engine import Progress
from app.core.errors import PressroomError
from app.core.jobs import BookmarkMode, Job, MergePdfs, MergeSource, parse_page_ranges
from app.core.merge_inputs import natural_key, pdfs_in
from app.core.results import Output
from app.gui.engine_host import EngineHost
from app.gui.tabs.common import WorkTab, open_file
from app.gui.widgets.message_bar import MessageBar
from app.gui.wording import describe

ROWS_MIME = "application/x-pressroom-merge-rows"
LOCATION, PASSWORD, SERIAL = Qt.ItemDataRole.UserRole, Qt.ItemDataRole.UserRole + 1, Qt.ItemDataRole.UserRole + 2
THUMB = QSize(48, 64)


class _ThumbnailSignals(QObject):
    ready = Signal(int, object, int)  # serial, QImage (or None), page count (-1: cannot be read)


class _Thumbnail(QRunnable):
    """First page and page count of a PDF, read on a worker thread."""

    def __init__(self, serial: int, path: str, password: str, signals: _ThumbnailSignals) -> None:
        super().__init__()
        self.serial, self.path, self.password, self.signals = serial, path, password, signals

    def run(self) -> None:
        document = QPdfDocument()
        if self.password:
            document.setPassword(self.password)
        document.load(self.path)
        pages = document.pageCount() if document.status() == QPdfDocument.Status.Ready else -1
        image = None
        if pages > 0:
            size = document.pagePointSize(0).toSize().scaled(THUMB * 2, Qt.AspectRatioMode.KeepAspectRatio)
            rendered = document.render(0, size)
            image = None if rendered.isNull() else rendered
        document.close()
        self.signals.ready.emit(self.serial, image, pages)


class MergeList(QTreeWidget):
    """Drop PDFs, folders and links here; drag rows to reorder them."""

    changed = Signal()
    problems = Signal(list)  # messages about drops that could not be added

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["File", "Pages", "Take pages"])
        header_item = self.headerItem()
        if header_item is not None:
            header_item.setToolTip(2, "Which pages of the file: empty for all, or e.g. 1-3,7,10- (double-click to edit)")
        self.setItemDelegateForColumn(2, _RangeDelegate(self))
        self.setRootIsDecorated(False)
        self.setIconSize(THUMB)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setAcceptDrops(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.header().resizeSection(0, 320)
        self._serial = 0
        self._signals = _ThumbnailSignals()
        self._signals.ready.connect(self._thumbnail_ready)
        self.itemChanged.connect(self._edited)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(2)

    # -- adding --

    def add_paths(self, paths: list[Path]) -> list[str]:
        """Add PDFs and folders of PDFs (in natural order); returns the problems found."""
        problems = []
        for path in paths:
            if path.is_dir():
                try:
                    self.add_paths(pdfs_in(path))
                except PressroomError as exc:
                    problems.append(describe(exc))
            elif path.suffix.lower() == ".pdf" and path.is_file():
                self._add(str(path.resolve()), path.name)
            else:
                problems.append(f"{path.name} is not a PDF")
        self.changed.emit()
        return problems

    def add_url(self, url: str) -> None:
        self._add(url, url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or url)
        self.changed.emit()

    def _add(self, location: str, name: str) -> QTreeWidgetItem:
        self._serial += 1
        item = QTreeWidgetItem([name, "…", ""])
        item.setData(0, LOCATION, location)
        item.setData(0, SERIAL, self._serial)
        item.setToolTip(0, location)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDropEnabled)
        self.addTopLevelItem(item)
        if location.startswith(("http://", "https://")):
            item.setText(1, "web")
            item.setIcon(0, QIcon.fromTheme("text-html"))
        else:
            self._read(item)
        return item

    def _read(self, item: QTreeWidgetItem) -> None:
        job = _Thumbnail(int(item.data(0, SERIAL)), str(item.data(0, LOCATION)), str(item.data(0, PASSWORD) or ""), self._signals)
        self.pool.start(job)

    def _thumbnail_ready(self, serial: int, image: QImage | None, pages: int) -> None:
        for item in self.items():
            if item.data(0, SERIAL) == serial:
                item.setText(1, str(pages) if pages >= 0 else "locked or damaged")
                if image is not None:
                    item.setIcon(0, QIcon(QPixmap.fromImage(image)))
                break

    def set_password(self, item: QTreeWidgetItem, password: str) -> None:
        item.setData(0, PASSWORD, password)
        item.setText(1, "…")
        self._read(item)

    # -- reading back --

    def items(self) -> list[QTreeWidgetItem]:
        return [item for i in range(self.topLevelItemCount()) if (item := self.topLevelItem(i)) is not None]

    def sources(self) -> list[MergeSource]:
        return [
            MergeSource(str(item.data(0, LOCATION)), item.text(2).strip(), item.data(0, PASSWORD) or None)
            for item in self.items()
        ]

    def _edited(self, item: QTreeWidgetItem, column: int) -> None:
        if column == 2:
            try:
                parse_page_ranges(item.text(2))
                item.setToolTip(2, "")
                item.setForeground(2, self.palette().text())
            except PressroomError as exc:
                item.setToolTip(2, describe(exc))
                item.setForeground(2, Qt.GlobalColor.red)
        self.changed.emit()

    # -- order --

    def sort_naturally(self) -> None:
        rows = sorted(self.items(), key=lambda item: natural_key(item.text(0)))
        for item in rows:
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        self.addTopLevelItems(rows)
        self.changed.emit()

    def move_rows(self, rows: list[int], before: int) -> None:
        """Move the rows ``rows`` (in their order) so they stand before row ``before``."""
        moving = [item for row in sorted(rows) if (item := self.topLevelItem(row)) is not None]
        before -= sum(1 for row in rows if row < before)
        for item in moving:
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        for offset, item in enumerate(moving):
            self.insertTopLevelItem(max(0, min(before, self.topLevelItemCount())) + offset, item)
        self.clearSelection()
        for item in moving:
            item.setSelected(True)
        self.changed.emit()

    def remove_selected(self) -> None:
        for item in self.selectedItems():
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        self.changed.emit()

    # -- drag and drop --

    def mimeData(self, items: Sequence[QTreeWidgetItem]) -> QMimeData:
        data = QMimeData()
        rows = ",".join(str(self.indexOfTopLevelItem(item)) for item in items)
        data.setData(ROWS_MIME, QByteArray(rows.encode()))
        return data

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.topLevelItemCount() == 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                self.viewport().rect(), Qt.AlignmentFlag.AlignCenter,
                "Drop PDFs, folders of PDFs or links here\n(or use Add PDFs…, Ctrl+O)\n\nDrag rows to change the order",
            )  # fmt: skip
            painter.end()

    def mimeTypes(self) -> list[str]:
        return [ROWS_MIME, "text/uri-list", "text/plain"]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._acceptable(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._acceptable(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def _acceptable(self, data: QMimeData) -> bool:
        return data.hasFormat(ROWS_MIME) or data.hasUrls() or bool(_links(data.text()))

    def dropEvent(self, event: QDropEvent) -> None:
        data = event.mimeData()
        target = self.indexAt(event.position().toPoint())
        before = self._drop_row(target, event)
        if data.hasFormat(ROWS_MIME):  # a reorder within the list
            rows = [int(row) for row in bytes(data.data(ROWS_MIME).data()).decode().split(",") if row]
            self.move_rows(rows, before)
        else:
            start = self.topLevelItemCount()
            urls = data.urls() if data.hasUrls() else [QUrl(link) for link in _links(data.text())]
            local = [Path(url.toLocalFile()) for url in urls if url.isLocalFile()]
            problems = self.add_paths(local) if local else []
            for url in urls:
                if url.scheme() in ("http", "https"):
                    self.add_url(url.toString())
            added = list(range(start, self.topLevelItemCount()))
            if added and before < start:
                self.move_rows(added, before)
            if problems:
                self.problems.emit(problems)
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()

    def _drop_row(self, target: QModelIndex, event: QDropEvent) -> int:
        if not target.isValid():
            return self.topLevelItemCount()
        rect = self.visualRect(target)
        below = event.position().toPoint().y() > rect.center().y()
        return target.row() + (1 if below else 0)


class _RangeDelegate(QStyledItemDelegate):
    """The page-range editor: a line edit that says what it takes."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QWidget:
        editor = QLineEdit(parent)
        editor.setPlaceholderText("all, or e.g. 1-3,7,10-")
        return editor


def _links(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith(("http://", "https://", "file://"))]


class MergeTab(WorkTab):
    title = "Merge PDFs"

    def __init__(self, host: EngineHost, messages: MessageBar, parent: QWidget | None = None) -> None:
        super().__init__(host, messages, parent)
        self.list = MergeList()
        self.list.problems.connect(lambda problems: self.messages.show_error("; ".join(problems)))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        QShortcut(QKeySequence.StandardKey.Delete, self.list, self.list.remove_selected)

        buttons = QHBoxLayout()
        for text, tip, slot in (
            ("Add PDFs…", "Ctrl+O", self.open_dialog),
            ("Add folder…", "", self._add_folder),
            ("Add URL…", "", self._add_url),
            ("Remove", "Delete", self.list.remove_selected),
            ("Sort by name", "Natural order: part2 before part10", self.list.sort_naturally),
            ("Clear", "", self.list.clear),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)

        self.bookmarks = QComboBox()
        for mode, text in (
            (BookmarkMode.KEEP, "keep each file's"),
            (BookmarkMode.PER_FILE, "one per file"),
            (BookmarkMode.NONE, "none"),
        ):
            self.bookmarks.addItem(text, mode.value)
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("title of the merged PDF (optional)")
        form = QFormLayout()
        form.addRow("Bookmarks", self.bookmarks)
        form.addRow("Title", self.title_edit)

        self.merge_button = QPushButton("Merge")
        self.merge_button.setToolTip("Ctrl+Enter")
        self.merge_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.step = QLabel()
        self.step.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open result")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_in_viewer)
        run_row = QHBoxLayout()
        run_row.addWidget(self.merge_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.open_button)
        self.busyChanged.connect(self._busy)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.list, 1)
        left_layout.addLayout(form)
        left_layout.addLayout(run_row)
        left_layout.addWidget(self.step)
        self.lay_out(left, (760, 480))

    def _busy(self, busy: bool) -> None:
        self.merge_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setValue(0)
        self.progress.setTextVisible(busy)
        self.step.setText("Starting…" if busy else "")
        if busy:
            self.open_button.setEnabled(False)

    def show_progress(self, progress: Progress) -> None:
        self.progress.setValue(round(progress.fraction * 1000))
        self.step.setText(progress.text[:1].upper() + progress.text[1:] + "…")

    def build_job(self) -> Job | None:
        sources = self.list.sources()
        if not sources:
            self.messages.show_info("Drop PDFs, folders or links on the list first.")
            return None
        title = self.title_edit.text().strip() or None
        return MergePdfs(tuple(sources), BookmarkMode(self.bookmarks.currentData()), title)

    def display(self, output: Output) -> None:
        self.preview.show_output(output)
        self.open_button.setEnabled(True)
        pages = output.pages
        self.messages.show_info(f"Merged: {pages} pages. Save it with Ctrl+S.", ("Open result", self.open_in_viewer))

    # -- adding --

    def open_dialog(self) -> None:
        folder = str(QSettings().value("lastOpenFolder", str(Path.home())))
        chosen, _ = QFileDialog.getOpenFileNames(self, "Add PDFs", folder, "PDF documents (*.pdf)")
        if chosen:
            QSettings().setValue("lastOpenFolder", str(Path(chosen[0]).parent))
            self._report(self.list.add_paths([Path(c) for c in chosen]))

    def _add_folder(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Add the PDFs of a folder", str(Path.home()))
        if chosen:
            self._report(self.list.add_paths([Path(chosen)]))

    def _add_url(self) -> None:
        url, accepted = QInputDialog.getText(self, "Add a PDF from the web", "Address of the PDF:")
        if accepted and url.strip():
            if not url.strip().startswith(("http://", "https://")):
                self.messages.show_error(f"{url.strip()} is not a web address. Give one that starts with https://")
                return
            self.list.add_url(url.strip())

    def _report(self, problems: list[str]) -> None:
        if problems:
            self.messages.show_error("; ".join(problems))

    def _menu(self, position: Any) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Set password…", lambda: self._ask_password(item))
        menu.addAction("Remove", self.list.remove_selected)
        location = str(item.data(0, LOCATION))
        if not location.startswith(("http://", "https://")):
            menu.addAction("Open", lambda: open_file(Path(location)))
        menu.exec(self.list.viewport().mapToGlobal(position))

    def _ask_password(self, item: QTreeWidgetItem) -> None:
        password, accepted = QInputDialog.getText(self, "Password", f"Password of {item.text(0)}:", QLineEdit.EchoMode.Password)
        if accepted:
            self.list.set_password(item, password)
