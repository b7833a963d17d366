"""Take the README's screenshots of every tab, on the real local engine, in a real X session.

    apt-get install -y xvfb libxcb-icccm4 libxcb-keysyms1
    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python packaging/screenshots.py

Writes ``resources/screenshots/*.png``. Pages for the Screenshot tab come from a server on 127.0.0.1
(nothing leaves this computer); settings and the keychain are kept in a temporary folder.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "resources" / "screenshots"
SIZE = (1360, 860)


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="pressroom-shots-"))
    os.environ["PRESSROOM_CONFIG_DIR"] = str(scratch / "config")
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication, QWidget

    from app.core.jobs import HtmlToPdf, ImageOptions, PdfOptions
    from app.core.resources import samples
    from app.core.settings import Settings
    from app.gui.dialogs import SettingsDialog
    from app.gui.engine_host import EngineHost
    from app.gui.main_window import MainWindow
    from app.gui.style import apply_style, follow_scheme

    app = QApplication(sys.argv[:1])
    app.setOrganizationName("PressroomShots")
    app.setApplicationName("PressroomShots")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(scratch / "qsettings"))
    apply_style(app)
    follow_scheme(app, Qt.ColorScheme.Light)

    site = _serve(ROOT / "resources" / "samples")
    settings = Settings(path=scratch / "settings.json")
    host = EngineHost(settings)
    window = MainWindow(host, settings)
    window.resize(*SIZE)
    window.show()
    OUT.mkdir(parents=True, exist_ok=True)

    def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise SystemExit(f"screenshots: gave up waiting for {what}")
            app.processEvents()
            time.sleep(0.01)

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def shoot(widget: QWidget, name: str) -> None:
        settle()
        path = OUT / f"{name}.png"
        widget.grab().save(str(path))
        print(f"wrote {path.relative_to(ROOT)}")

    def rendered(tab: object, action: Callable[[], None]) -> None:
        shown: list[bool] = []
        tab.preview.shown.connect(lambda: shown.append(True))  # type: ignore[attr-defined]
        action()
        wait_until(lambda: bool(shown), f"the preview of {tab.title}")  # type: ignore[attr-defined]

    wait_until(lambda: "ready" in window.state_label.text(), "the browser")
    sample = samples()

    rendered(window.pdf_tab, lambda: window.open_sample(sample["invoice"]))
    shoot(window, "html-to-pdf")

    window.tabs.setCurrentWidget(window.png_tab)
    rendered(window.png_tab, lambda: window.open_sample(sample["certificate"]))
    shoot(window, "html-to-png")

    window.tabs.setCurrentWidget(window.screenshot_tab)
    window.screenshot_tab.url.setText(f"{site}/report.html")
    window.screenshot_tab.options.set_value(ImageOptions(full_page=True))
    rendered(window.screenshot_tab, window.screenshot_tab.run)
    shoot(window, "screenshot")

    folder = scratch / "pdfs"
    folder.mkdir()
    for name in ("invoice", "report", "certificate"):
        html = sample[name].read_text(encoding="utf-8")
        job = HtmlToPdf(html, PdfOptions(outline=True), base_url=sample[name].parent.as_uri() + "/")
        (folder / f"{name}.pdf").write_bytes(host.engine.submit(job).result(timeout=60).data)
    merge = window.merge_tab
    window.tabs.setCurrentWidget(merge)
    merge.list.add_paths([folder / "report.pdf", folder / "invoice.pdf", folder / "certificate.pdf"])
    merge.list.items()[0].setText(2, "1-3")
    merge.bookmarks.setCurrentIndex(merge.bookmarks.findData("per-file"))
    wait_until(lambda: all(not item.icon(0).isNull() for item in merge.list.items()), "the thumbnails")
    rendered(merge, merge.run)
    shoot(window, "merge")

    window.tabs.setCurrentWidget(window.script_tab)
    rendered(window.script_tab, window.script_tab.run)
    shoot(window, "script")

    follow_scheme(app, Qt.ColorScheme.Dark)
    window.tabs.setCurrentWidget(window.pdf_tab)
    shoot(window, "dark")
    follow_scheme(app, Qt.ColorScheme.Light)

    dialog = SettingsDialog(settings, window)
    dialog.show()
    shoot(dialog, "settings")
    dialog.close()

    window.close()
    host.close()
    return 0


def _serve(folder: Path) -> str:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[assignment,method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


if __name__ == "__main__":
    raise SystemExit(main())
