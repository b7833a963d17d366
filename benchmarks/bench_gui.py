"""The window: time from launch to the window shown, and edit -> preview shown latency.

Launch: `python -m app` (what the `pressroom` and `pressroom-gui` launchers run) until the window has
been painted (it says so on stderr when PRESSROOM_REPORT_SHOWN is set), against a bare PySide6 program
that paints an empty QMainWindow - the floor any Qt window pays. Alternated, 7 rounds, medians.

Preview: the invoice sample (one A4 page) open in the HTML -> PDF tab on the real local engine; one
character typed into the editor, then the time until the new PDF has been painted in the preview
(debounce, render, loading the PDF, painting). Pauses between edits, as a person types. p50 and p95,
against the same document rendered by the engine directly (no window), measured in the same run.

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from common import ROOT, alternate, median, report

ROUNDS = 7
EDITS = 60

BARE_QT = textwrap.dedent(
    """
    import sys
    from PySide6.QtWidgets import QApplication, QMainWindow

    class Window(QMainWindow):
        reported = False

        def paintEvent(self, event):
            super().paintEvent(event)
            if not self.reported:
                self.reported = True
                print("pressroom: window shown", file=sys.stderr, flush=True)

    app = QApplication(sys.argv)
    window = Window()
    window.resize(1280, 820)
    window.show()
    app.exec()
    """
)


def time_to_window(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.strip() == "pressroom: window shown":
                return time.perf_counter() - started
        raise RuntimeError(f"{command} ended without showing a window (exit {process.wait()})")
    finally:
        process.terminate()
        process.wait(30)


def launch() -> str:
    with tempfile.TemporaryDirectory(prefix="pressroom-bench-gui-") as home:
        env = dict(os.environ, PRESSROOM_REPORT_SHOWN="1", PRESSROOM_CONFIG_DIR=home, XDG_CONFIG_HOME=home,
                   PYTHONPATH=str(ROOT))  # fmt: skip
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        bare = Path(home) / "bare_qt.py"
        bare.write_text(BARE_QT, encoding="utf-8")
        ours_cmd, bare_cmd = [sys.executable, "-m", "app"], [sys.executable, str(bare)]
        time_to_window(ours_cmd, env)  # one unmeasured run each: page cache
        time_to_window(bare_cmd, env)
        ours, floor = alternate(ROUNDS, lambda: time_to_window(ours_cmd, env), lambda: time_to_window(bare_cmd, env))
    return report("launch -> window shown (median)", median(ours), median(floor), "s", "<= 1.0 s; ref: empty Qt window")


def preview() -> list[str]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    scratch = tempfile.mkdtemp(prefix="pressroom-bench-gui-")
    os.environ["PRESSROOM_CONFIG_DIR"] = scratch

    from PySide6.QtCore import QSettings, qInstallMessageHandler
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QApplication

    from app.core.jobs import HtmlToPdf
    from app.core.resources import samples
    from app.core.settings import Settings
    from app.gui.engine_host import EngineHost
    from app.gui.main_window import MainWindow
    from app.gui.style import apply_style

    def quiet(_kind: object, _context: object, message: str) -> None:  # the offscreen platform's one remark
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(quiet)
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    app.setOrganizationName("PressroomBench")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, scratch)
    apply_style(app)
    settings = Settings(path=Path(scratch) / "settings.json")
    host = EngineHost(settings)
    window = MainWindow(host, settings)
    window.resize(1280, 820)
    window.show()
    tab = window.pdf_tab
    shown: list[float] = []
    tab.preview.shown.connect(lambda: shown.append(time.perf_counter()))

    def spin(until: float) -> None:
        while time.perf_counter() < until:
            app.processEvents()
            time.sleep(0.001)

    def wait_shown(count: int, limit: float = 60) -> None:
        deadline = time.perf_counter() + limit
        while len(shown) < count:
            if time.perf_counter() > deadline:
                raise RuntimeError("the preview did not update")
            app.processEvents()
            time.sleep(0.0005)

    invoice = samples()["invoice"]
    window.open_sample(invoice)
    wait_shown(1)
    latencies = []
    for i in range(EDITS):
        cursor = tab.editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        tab.editor.setTextCursor(cursor)
        before = len(shown)
        typed = time.perf_counter()
        tab.editor.insertPlainText(" " if i % 2 else "\n")  # one keystroke
        wait_shown(before + 1)
        latencies.append(shown[-1] - typed)
        spin(time.perf_counter() + 0.15)  # a person's pause between edits

    engine = host.engine
    job = HtmlToPdf(tab.editor.toPlainText(), base_url=invoice.parent.as_uri() + "/")
    direct = []
    for _ in range(EDITS):
        started = time.perf_counter()
        engine.submit(job).result()
        direct.append(time.perf_counter() - started)
    window.close()
    host.close()

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20, method="inclusive")[18]

    ms = 1000
    return [
        report("edit -> preview shown p50", median(latencies) * ms, median(direct) * ms, "ms", "<= 150 ms; ref: engine alone"),
        report("edit -> preview shown p95", p95(latencies) * ms, p95(direct) * ms, "ms", "<= 300 ms; ref: engine alone"),
    ]


def main() -> list[str]:
    return [launch(), *preview()]


if __name__ == "__main__":
    main()
