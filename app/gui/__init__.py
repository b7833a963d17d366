"""The Pressroom window (PySide6). Only this package imports Qt."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path


def display_problem() -> str | None:
    """Why no window can open here, or None (Qt would abort the process instead of raising)."""
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM"):
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return "there is no display to open the window on (no DISPLAY or WAYLAND_DISPLAY)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Open the window; ``argv``: files to open (HTML, PDF, scripts)."""
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.errors import PressroomError
    from app.core.resources import APP_ID
    from app.core.settings import Settings
    from app.gui.engine_host import EngineHost
    from app.gui.main_window import MainWindow
    from app.gui.style import app_icon, apply_style

    arguments = list(sys.argv[:1] if argv is None else ["pressroom"]) + list(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication(arguments)
    assert isinstance(app, QApplication)
    app.setOrganizationName("Pressroom")
    app.setApplicationName("Pressroom")
    app.setApplicationDisplayName("Pressroom")
    app.setDesktopFileName(APP_ID)  # Wayland matches the window to the installed launcher by this
    app.setWindowIcon(app_icon())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    apply_style(app)
    problem = None
    try:
        settings = Settings.load()
    except PressroomError as exc:
        settings, problem = Settings(), str(exc)
    host = EngineHost(settings)
    window = MainWindow(host, settings, report_shown=bool(os.environ.get("PRESSROOM_REPORT_SHOWN")))
    window.show()
    if problem:
        window.messages.show_error(f"{problem}. The defaults are used meanwhile.")
    files = [Path(a) for a in arguments[1:] if not a.startswith("-")]
    if files:
        QTimer.singleShot(0, lambda: window.open_paths(files))
    code = app.exec()
    host.close()
    return int(code)
