"""The window's link to an engine: jobs off the GUI thread, results back by signals.

``EngineHost`` owns the engine chosen in the settings (local or remote) and re-creates it when the
settings change. ``run(job)`` returns a ``JobHandle`` whose ``finished``/``failed``/``cancelled`` signals
arrive on the GUI thread; ``handle.cancel()`` cancels the job itself. The status bar listens to
``stateChanged`` (the engine in use, and the browser starting / ready / failing).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

from app.core.engine import Engine, Progress
from app.core.errors import BrowserNotFound, PressroomError
from app.core.jobs import Job
from app.core.settings import Settings
from app.gui.wording import describe

log = logging.getLogger("pressroom.gui")

EngineFactory = Callable[[str, Settings], Engine]


def _default_factory(kind: str, settings: Settings) -> Engine:
    if kind == "remote":
        from app.engines.remote import RemoteConfig, RemoteEngine

        return RemoteEngine(RemoteConfig.from_settings(settings), key=EngineHost.session_key)
    from app.engines import create_engine

    return create_engine(kind, settings)


class _Relay(QObject):
    """Carries calls from engine threads to the GUI thread. It lives as long as the program.

    Engine threads never emit signals of short-lived objects: a JobHandle could be deleted on the GUI
    thread while another thread is still inside its signal's emit, which crashes. They emit this one
    object's signal instead; the call runs on the GUI thread, which checks that its target still exists.
    """

    carried = Signal(object)  # a callable without arguments

    def __init__(self) -> None:
        super().__init__()
        self.carried.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @staticmethod
    def _run(call: Callable[[], None]) -> None:
        call()


_relay: _Relay | None = None


def on_gui_thread(call: Callable[[], None]) -> None:
    """Run ``call`` soon on the GUI thread (from any thread; the relay is made on the GUI thread first)."""
    assert _relay is not None, "the relay is made by the first JobHandle or EngineHost, on the GUI thread"
    _relay.carried.emit(call)


def _make_relay() -> None:
    global _relay
    if _relay is None:
        _relay = _Relay()


def _alive(target: QObject, call: Callable[[], None]) -> Callable[[], None]:
    """``call``, or nothing if ``target`` has been deleted by the time it runs."""

    def guarded() -> None:
        if shiboken6.isValid(target):
            call()

    return guarded


class JobHandle(QObject):
    """One submitted job. Exactly one of finished, failed or cancelled is emitted, on the GUI thread;
    before that, ``progressed`` may be emitted (a ``Progress``) by jobs with steps, such as merges."""

    finished = Signal(object)  # Output
    failed = Signal(object)  # PressroomError (or another exception, for bugs)
    cancelled = Signal()
    progressed = Signal(object)  # Progress

    def __init__(self, future: Future[Any] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _make_relay()
        self.done = False
        if future is not None:
            self.attach(future)

    def attach(self, future: Future[Any]) -> None:
        # Always through the relay, so always later: the future finishes on an engine thread, or may be done
        # already - either way the signals must come after the caller has connected to them.
        self.future = future
        future.add_done_callback(lambda done: on_gui_thread(_alive(self, lambda: self._deliver(done))))

    def report(self, progress: Progress) -> None:
        """The engine's progress callback: called on an engine thread, delivered on the GUI thread."""
        on_gui_thread(_alive(self, lambda: self._forward_progress(progress)))

    def _forward_progress(self, progress: Progress) -> None:
        if not self.done:
            self.progressed.emit(progress)

    def cancel(self) -> None:
        self.future.cancel()

    def _deliver(self, future: Future[Any]) -> None:
        if self.done:
            return
        self.done = True
        try:
            output = future.result()
        except CancelledError:
            self.cancelled.emit()
        except BaseException as exc:  # errors reach the message bar, never a traceback dialog
            if not isinstance(exc, PressroomError):
                log.exception("a job failed unexpectedly", exc_info=exc)
            self.failed.emit(exc)
        else:
            self.finished.emit(output)
        self.deleteLater()


class EngineHost(QObject):
    stateChanged = Signal(str, str)  # (engine label, state text)
    browserMissing = Signal(object)  # BrowserNotFound

    session_key: str | None = None  # a key typed in when no keychain works: used for this session only

    def __init__(self, settings: Settings, factory: EngineFactory | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._factory = factory or _default_factory
        self._engine: Engine | None = None
        self.kind = ""
        self.label = ""
        self.state = ""
        _make_relay()

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self.kind = self.settings["engine"]
            self._engine = self._factory(self.kind, self.settings)
            self.label = "Local" if self.kind == "local" else "Remote"
        return self._engine

    def start(self) -> None:
        """Warm the engine up: launch the local browser now, or ask the service about the key."""
        engine = self.engine
        starter = getattr(engine, "start", None)
        if callable(starter):
            self._set_state("browser starting…")
            future: Future[Any] = starter()
            future.add_done_callback(self._settle_later)
        elif hasattr(engine, "check_key"):
            self._set_state("checking the key…")
            check: Future[Any] = engine.check_key()
            check.add_done_callback(self._settle_later)

    def run(self, job: Job) -> JobHandle:
        handle = JobHandle(parent=self)
        handle.attach(self.engine.submit(job, progress=handle.report))
        return handle

    def reconfigure(self, settings: Settings) -> None:
        """New settings: the next job runs on an engine built from them."""
        self.settings = settings
        old, self._engine = self._engine, None
        if old is not None:
            old.close()
        self.start()

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def _set_state(self, text: str) -> None:
        self.state = text
        self.stateChanged.emit(self.label, text)

    def _settle_later(self, future: Future[Any]) -> None:  # on an engine thread
        on_gui_thread(_alive(self, lambda: self._browser_settled(future)))

    def _browser_settled(self, future: Future[Any]) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if isinstance(error, BrowserNotFound):
            self._set_state("no browser")
            self.browserMissing.emit(error)
        elif error is not None:
            self._set_state(f"error: {describe(error)}")
        elif self.kind == "remote":
            record = future.result()
            self.label = f"Remote — {record.name or record.workspace_id or 'workspace'}"
            self._set_state("key accepted")
        else:
            info = future.result()
            self._set_state(f"browser ready ({_browser_name(info.executable)} {info.version.split('.')[0]})")


def _browser_name(executable: str) -> str:
    lowered = executable.lower()
    for name in ("edge", "chrome", "chromium"):
        if name in lowered:
            return {"edge": "Edge", "chrome": "Chrome", "chromium": "Chromium"}[name]
    return "Chromium"
