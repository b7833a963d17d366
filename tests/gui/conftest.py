"""Fixtures of the window's tests: Qt offscreen, settings in a temporary place, engines."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.engine import ProgressCallback
from app.core.jobs import Job
from app.core.results import Output
from app.core.settings import Settings
from app.engines.local import LocalEngine
from app.gui.engine_host import EngineHost
from app.gui.main_window import MainWindow


@pytest.fixture(autouse=True)
def qt_settings(qapp: QApplication, tmp_path: Path) -> Iterator[None]:
    """QSettings of each test in its own folder."""
    qapp.setOrganizationName("PressroomTests")
    qapp.setApplicationName("PressroomTests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    from app.gui.style import apply_style

    apply_style(qapp)
    yield
    # Qt's offscreen platform crashes at exit while the clipboard holds data of its own type (a PDF copied
    # by a test): reproduced with six lines of PySide6, not with a real display (xcb). Tests clean up.
    if qapp.platformName() == "offscreen":
        qapp.clipboard().clear()


class SharedEngine:
    """The session's real engine, lent to a window: the window may not close it."""

    name = "local"

    def __init__(self, engine: LocalEngine) -> None:
        self.engine = engine
        self.submitted: list[Job] = []

    def submit(self, job: Job, progress: ProgressCallback | None = None) -> Future[Output]:
        self.submitted.append(job)
        return self.engine.submit(job, progress)

    def start(self) -> Future[object]:
        return self.engine.start()  # type: ignore[return-value]

    def close(self) -> None:
        pass


class FakeEngine:
    """An engine whose answers the test decides: for errors and timings a real one cannot be made to show."""

    name = "local"

    def __init__(self) -> None:
        self.futures: list[Future[Output]] = []
        self.answer: Callable[[Job, Future[Output]], None] | None = None
        self.progress: dict[int, ProgressCallback] = {}  # by id(future): what the answer may report to
        self.closed = False

    def submit(self, job: Job, progress: ProgressCallback | None = None) -> Future[Output]:
        future: Future[Output] = Future()
        self.futures.append(future)
        if progress is not None:
            self.progress[id(future)] = progress
        if self.answer is not None:
            threading.Thread(target=self.answer, args=(job, future), daemon=True).start()
        return future

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def shared(engine: LocalEngine) -> SharedEngine:
    return SharedEngine(engine)


@pytest.fixture
def make_window(qtbot: QtBot, tmp_path: Path) -> Callable[..., MainWindow]:
    def make(engine: object) -> MainWindow:
        settings = Settings(path=tmp_path / "settings.json")
        host = EngineHost(settings, factory=lambda kind, s: engine)  # type: ignore[arg-type,return-value]
        window = MainWindow(host, settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


@pytest.fixture
def window(make_window: Callable[..., MainWindow], shared: SharedEngine) -> MainWindow:
    return make_window(shared)
