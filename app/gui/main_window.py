"""The main window: a tab per operation, a message bar, the engine and browser state in the status bar."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QTabWidget, QVBoxLayout, QWidget

from app import __version__
from app.core.errors import BrowserNotFound
from app.core.resources import samples
from app.core.settings import Settings
from app.gui.dialogs import FirstRunDialog, SettingsDialog
from app.gui.engine_host import EngineHost
from app.gui.tabs.common import WorkTab
from app.gui.tabs.document import DocumentTab, HtmlToPdfTab, HtmlToPngTab
from app.gui.tabs.merge import MergeTab
from app.gui.tabs.screenshot import ScreenshotTab
from app.gui.tabs.script import ScriptTab
from app.gui.widgets.message_bar import MessageBar

Shortcut = str | QKeySequence.StandardKey

MAX_RECENT = 8


class MainWindow(QMainWindow):
    def __init__(self, host: EngineHost, settings: Settings, report_shown: bool = False) -> None:
        super().__init__()
        self.host = host
        self.settings = settings
        self._report_shown = report_shown
        self.setWindowTitle("Pressroom")
        self.messages = MessageBar()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.pdf_tab = HtmlToPdfTab(host, self.messages)
        self.png_tab = HtmlToPngTab(host, self.messages)
        self.screenshot_tab = ScreenshotTab(host, self.messages)
        self.merge_tab = MergeTab(host, self.messages)
        self.script_tab = ScriptTab(host, self.messages)
        self.work_tabs: list[WorkTab] = [self.pdf_tab, self.png_tab, self.screenshot_tab, self.merge_tab, self.script_tab]
        for tab in self.work_tabs:
            self.tabs.addTab(tab, tab.title)
        for document in (self.pdf_tab, self.png_tab):
            document.fileOpened.connect(self._remember)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.messages)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.engine_label = QLabel()
        self.state_label = QLabel()
        self.statusBar().addPermanentWidget(self.engine_label)
        self.statusBar().addPermanentWidget(self.state_label)
        host.stateChanged.connect(self._state)
        host.browserMissing.connect(self._browser_missing)
        self._state("Local" if settings["engine"] == "local" else "Remote", "")

        self._build_menus()
        self._restore()
        self._first_show = True

    # -- menus and shortcuts --

    def _action(self, text: str, slot: Callable[[], object], shortcut: Shortcut | list[str] | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            shortcuts = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self._action("&Open…", lambda: self.current.open_dialog(), QKeySequence.StandardKey.Open))
        self.recent_menu = file_menu.addMenu("Open &Recent")
        samples_menu = file_menu.addMenu("&Samples")
        for name, path in samples().items():
            samples_menu.addAction(self._action(name.capitalize(), partial(self.open_sample, path)))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Save Output…", lambda: self.current.save_output(), QKeySequence.StandardKey.Save))
        file_menu.addAction(self._action("Save Source", self._save_source, "Ctrl+Shift+S"))
        file_menu.addAction(self._action("Open Output in Viewer", lambda: self.current.open_in_viewer(), "Ctrl+Shift+O"))
        file_menu.addSeparator()
        file_menu.addAction(self._action("Se&ttings…", self.open_settings, "Ctrl+,"))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))
        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(self._action("&Copy Output", lambda: self.current.copy_output(), "Ctrl+Shift+C"))
        run_menu = bar.addMenu("&Run")
        run_menu.addAction(self._action("&Run", lambda: self.current.run(), ["Ctrl+Return", "Ctrl+Enter"]))
        run_menu.addAction(self._action("&Cancel", lambda: self.current.cancel(), "Escape"))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&About Pressroom", self._about))
        self._fill_recent()

    @property
    def current(self) -> WorkTab:
        widget = self.tabs.currentWidget()
        assert isinstance(widget, WorkTab)
        return widget

    # -- files --

    def open_paths(self, paths: list[Path]) -> None:
        """Files given on the command line or by the desktop: each to the tab that takes it."""
        pdfs = [p for p in paths if p.suffix.lower() == ".pdf" or p.is_dir()]
        if pdfs:
            self.merge_tab.list.add_paths(pdfs)
            self.tabs.setCurrentWidget(self.merge_tab)
        for path in paths:
            if path.suffix.lower() in (".html", ".htm", ".xhtml"):
                self.pdf_tab.open_file(path)
                self.tabs.setCurrentWidget(self.pdf_tab)
            elif path.suffix.lower() in (".js", ".mjs"):
                self.script_tab.editor.setPlainText(path.read_text(encoding="utf-8", errors="replace"))
                self.script_tab.path = path
                self.tabs.setCurrentWidget(self.script_tab)

    def open_sample(self, path: Path) -> None:
        tab = self.current if isinstance(self.current, DocumentTab) else self.pdf_tab
        self.tabs.setCurrentWidget(tab)
        tab.load_sample(path)

    def _save_source(self) -> None:
        saver = getattr(self.current, "save_source", None)
        if callable(saver):
            saver()

    def _remember(self, path: str) -> None:
        store = QSettings()
        recent = [p for p in _strings(store.value("recentFiles", [])) if p != path]
        store.setValue("recentFiles", [path, *recent][:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = _strings(QSettings().value("recentFiles", []))
        for path in recent:
            self.recent_menu.addAction(path, partial(self.open_paths, [Path(path)]))
        self.recent_menu.setEnabled(bool(recent))

    # -- engine --

    def _state(self, engine: str, state: str) -> None:
        self.engine_label.setText(f"Engine: {engine}")
        self.state_label.setText(state)

    def _browser_missing(self, error: BrowserNotFound) -> None:
        dialog = FirstRunDialog(error.message, self)
        if dialog.exec() and dialog.chosen_browser:
            self.settings.set("browser_path", dialog.chosen_browser)
            self._save_settings(self.settings)
        elif dialog.result():
            self.host.reconfigure(self.settings)

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            self._save_settings(dialog.values())

    def _save_settings(self, settings: Settings) -> None:
        try:
            settings.save()
        except Exception as exc:  # a settings file that cannot be written must not end the session
            self.messages.show_error(f"The settings could not be saved: {exc}")
        self.settings = settings
        self.host.reconfigure(settings)

    def _about(self) -> None:
        QMessageBox.about(
            self, "About Pressroom",
            f"<b>Pressroom {__version__}</b><br>HTML to PDF and images, screenshots, PDF merging and browser scripts, "
            "on this computer or through the hosted service.",
        )  # fmt: skip

    # -- window state --

    def _restore(self) -> None:
        store = QSettings()
        geometry = store.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 820)
        for tab in self.work_tabs:
            state = store.value(f"splitters/{type(tab).__name__}")
            if tab.splitter is not None and isinstance(state, QByteArray):
                tab.splitter.restoreState(state)
        index = int(str(store.value("lastTab", 0)) or 0)
        if 0 <= index < self.tabs.count():
            self.tabs.setCurrentIndex(index)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._first_show:
            self._first_show = False
            if self._report_shown:
                print("pressroom: window shown", file=sys.stderr, flush=True)
            QTimer.singleShot(0, self.host.start)  # the browser starts once the window is up

    def closeEvent(self, event: QCloseEvent) -> None:
        unsaved = [tab for tab in (self.pdf_tab, self.png_tab) if tab.has_unsaved_changes]
        if unsaved:
            names = ", ".join(tab.path.name for tab in unsaved if tab.path)
            answer = QMessageBox.question(
                self, "Unsaved changes", f"{names} has unsaved changes. Save them before closing?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            )  # fmt: skip
            if answer == QMessageBox.StandardButton.Cancel or (
                answer == QMessageBox.StandardButton.Save and not all(tab.save_source() for tab in unsaved)
            ):
                event.ignore()
                return
        store = QSettings()
        store.setValue("geometry", self.saveGeometry())
        store.setValue("lastTab", self.tabs.currentIndex())
        for tab in self.work_tabs:
            if tab.splitter is not None:
                store.setValue(f"splitters/{type(tab).__name__}", tab.splitter.saveState())
        for tab in self.work_tabs:
            tab.cancel()
        self.host.close()
        super().closeEvent(event)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value] if isinstance(value, list) else []
