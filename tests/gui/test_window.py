"""The window, offscreen, on the real local engine: every tab end to end, the merge list, the settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QMimeData, QPoint, QPointF, QSettings, Qt, QThread, QTimer, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QCheckBox, QFileDialog, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from app.core.errors import RenderError
from app.core.jobs import Job
from app.core.resources import samples
from app.core.results import Output
from app.gui.main_window import MainWindow
from app.gui.tabs.merge import ROWS_MIME
from tests.conftest import TestSite, assert_window_shown
from tests.gui.conftest import FakeEngine, SharedEngine

WAIT = 30_000  # ms: the first render may start the browser


def pdf_text(window: MainWindow) -> str:
    document = window.pdf_tab.preview.document
    assert document is not None
    return " ".join(document.getAllText(page).text() for page in range(document.pageCount()))


def wait_shown(qtbot: QtBot, preview: object, action: Callable[[], None]) -> None:
    with qtbot.waitSignal(preview.shown, timeout=WAIT):  # type: ignore[attr-defined]
        action()


def test_tabs_status_and_engine_state(qtbot: QtBot, window: MainWindow) -> None:
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "HTML → PDF",
        "HTML → PNG",
        "Screenshot",
        "Merge PDFs",
        "Script",
    ]
    assert window.engine_label.text() == "Engine: Local"
    qtbot.waitUntil(lambda: "browser ready" in window.state_label.text(), timeout=WAIT)


def test_live_pdf_preview_follows_typing_and_options(qtbot: QtBot, window: MainWindow) -> None:
    tab = window.pdf_tab
    wait_shown(qtbot, tab.preview, lambda: tab.editor.setPlainText("<h1>Live preview text</h1>"))
    assert "Live preview text" in pdf_text(window)
    portrait = tab.preview.document.pagePointSize(0)  # type: ignore[union-attr]
    assert portrait.height() > portrait.width()
    landscape_box = tab.options.editor("landscape")
    assert isinstance(landscape_box, QCheckBox)
    wait_shown(qtbot, tab.preview, lambda: landscape_box.setChecked(True))
    size = tab.preview.document.pagePointSize(0)  # type: ignore[union-attr]
    assert size.width() > size.height()
    # what is saved is what is shown
    assert tab.output is not None and tab.output.media_type == "application/pdf"


def test_only_the_newest_render_is_shown(qtbot: QtBot, window: MainWindow, shared: SharedEngine) -> None:
    tab = window.pdf_tab
    wait_shown(qtbot, tab.preview, lambda: tab.editor.setPlainText("<p>start</p>"))
    before = len(shared.submitted)
    for n in range(1, 8):  # typing faster than renders finish
        tab.editor.setPlainText(f"<p>version {n}</p>")
        qtbot.wait(15)
    qtbot.waitUntil(lambda: "version 7" in pdf_text(window) and not tab.busy, timeout=WAIT)
    assert len(shared.submitted) - before < 7, "edits made during a render are coalesced"


def test_render_error_keeps_the_last_good_preview(qtbot: QtBot, window: MainWindow) -> None:
    tab = window.pdf_tab
    wait_shown(qtbot, tab.preview, lambda: tab.editor.setPlainText("<p>good one</p>"))
    pages = tab.options.editor("page_ranges")
    assert isinstance(pages, QLineEdit)
    pages.setText("9")  # beyond the only page: the engine refuses
    qtbot.waitUntil(lambda: tab.preview.banner.isVisible(), timeout=WAIT)
    assert "beyond the last page" in tab.preview.banner.text()
    assert "good one" in pdf_text(window)
    width = tab.options.editor("width")
    width.setText("12 parsecs")  # not a length: refused before any render
    qtbot.waitUntil(lambda: "is not a length" in tab.preview.banner.text(), timeout=WAIT)
    assert tab.options.error.isVisible()


def test_html_to_png_tab(qtbot: QtBot, window: MainWindow) -> None:
    window.tabs.setCurrentWidget(window.png_tab)
    tab = window.png_tab
    html = "<body style='margin:0;background:rgb(200,30,30)'>png</body>"
    wait_shown(qtbot, tab.preview, lambda: tab.editor.setPlainText(html))
    assert tab.output is not None and (tab.output.width, tab.output.height) == (1280, 800)
    assert "1280 × 800 px" in tab.preview.info.text()
    tab.copy_output()  # an image goes to the clipboard as an image, for pasting anywhere
    copied = QGuiApplication.clipboard().image()
    assert (copied.width(), copied.height()) == (1280, 800)
    assert copied.pixelColor(640, 700).getRgb()[:3] == (200, 30, 30)


def test_screenshot_tab(qtbot: QtBot, window: MainWindow, site: TestSite) -> None:
    window.tabs.setCurrentWidget(window.screenshot_tab)
    tab = window.screenshot_tab
    tab.url.setText(site.url + "/page.html")
    wait_shown(qtbot, tab.preview, lambda: qtbot.keyClick(tab.url, Qt.Key.Key_Return))
    assert tab.output is not None and tab.output.media_type == "image/png"


def test_script_tab(qtbot: QtBot, window: MainWindow) -> None:
    window.tabs.setCurrentWidget(window.script_tab)
    tab = window.script_tab
    wait_shown(qtbot, tab.preview, lambda: qtbot.keyClick(window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier))
    assert "the button says Clicked!" in tab.console.toPlainText()
    assert json.loads(tab.result.toPlainText())["title"] == ""


def drop(widget: object, data: QMimeData, at: QPoint | None = None) -> None:
    view = widget.viewport()  # type: ignore[attr-defined]
    point = QPointF(at if at is not None else QPoint(10, view.height() - 5))
    event = QDropEvent(point, Qt.DropAction.CopyAction | Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)  # fmt: skip
    widget.dropEvent(event)  # type: ignore[attr-defined]


def test_merge_tab_drops_reorders_thumbnails_and_merges(
    qtbot: QtBot, window: MainWindow, reports: list[Path], site: TestSite, tmp_path: Path
) -> None:
    window.tabs.setCurrentWidget(window.merge_tab)
    tab = window.merge_tab
    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile(str(p)) for p in reports])  # as a file manager drops them
    drop(tab.list, files)
    assert [item.text(0) for item in tab.list.items()] == ["report1.pdf", "report2.pdf", "report3.pdf"]
    qtbot.waitUntil(lambda: all(item.text(1) == "4" for item in tab.list.items()), timeout=WAIT)
    assert all(not item.icon(0).isNull() for item in tab.list.items()), "first-page thumbnails"

    link = QMimeData()
    (site.directory / "web.pdf").write_bytes(reports[0].read_bytes())
    link.setText(f"{site.url}/web.pdf")  # as a browser drops a link
    drop(tab.list, link)
    assert tab.list.items()[-1].text(1) == "web"

    moving = QMimeData()  # drag the third row to the top
    moving.setData(ROWS_MIME, QByteArray(b"2"))
    first = tab.list.visualItemRect(tab.list.items()[0])
    drop(tab.list, moving, QPoint(first.center().x(), first.top() + 2))
    assert [item.text(0) for item in tab.list.items()] == ["report3.pdf", "report1.pdf", "report2.pdf", "web.pdf"]
    tab.list.sort_naturally()
    assert [item.text(0) for item in tab.list.items()] == ["report1.pdf", "report2.pdf", "report3.pdf", "web.pdf"]

    tab.list.items()[1].setText(2, "1")  # only the first page of report 2
    seen: list[tuple[int, str]] = []
    with qtbot.waitSignal(tab.preview.shown, timeout=WAIT):
        tab.run()
        assert tab.handle is not None
        tab.handle.progressed.connect(lambda _: seen.append((tab.progress.value(), tab.step.text())))
    assert tab.output is not None and tab.output.pages == 4 + 1 + 4 + 4
    assert tab.open_button.isEnabled()
    assert "Reading report2.pdf (2 of 4)…" in [text for _, text in seen]
    assert seen[-1] == (1000, "Writing the merged PDF…")
    assert [value for value, _ in seen] == sorted(value for value, _ in seen)
    assert tab.step.text() == "" and window.messages.text.text() == "Merged: 13 pages. Save it with Ctrl+S."


def test_merge_cancel(qtbot: QtBot, make_window: Callable[..., MainWindow], reports: list[Path]) -> None:
    fake = FakeEngine()  # a merge that never ends by itself
    window = make_window(fake)
    tab = window.merge_tab
    tab.list.add_paths(reports[:1])
    tab.run()
    assert tab.busy and tab.cancel_button.isEnabled() and tab.step.text() == "Starting…"
    tab.cancel()
    qtbot.waitUntil(lambda: not tab.busy, timeout=5000)
    assert window.messages.text.text() == "Cancelled." and tab.merge_button.isEnabled()
    assert fake.futures[0].cancelled()


def test_the_event_loop_keeps_ticking_during_a_long_job(qtbot: QtBot, make_window: Callable[..., MainWindow]) -> None:
    fake = FakeEngine()

    def slow(job: Job, future: Future[Output]) -> None:
        time.sleep(1.5)
        future.set_result(Output(b"%PDF-1.4\n%%EOF\n", "application/pdf", "x.pdf"))

    fake.answer = slow
    window = make_window(fake)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(50)
    window.pdf_tab.editor.setPlainText("<p>slow</p>")
    qtbot.waitUntil(lambda: window.pdf_tab.busy, timeout=5000)
    qtbot.waitUntil(lambda: not window.pdf_tab.busy, timeout=10_000)
    timer.stop()
    assert len(ticks) >= 15, "the window stayed responsive while the engine worked"


def test_errors_reach_the_message_bar_not_a_traceback(qtbot: QtBot, make_window: Callable[..., MainWindow]) -> None:
    fake = FakeEngine()
    fake.answer = lambda job, future: future.set_exception(RenderError("the page crashed while rendering", "Simplify it"))
    window = make_window(fake)
    window.tabs.setCurrentWidget(window.screenshot_tab)
    window.screenshot_tab.url.setText("https://example.com")
    window.screenshot_tab.run()
    qtbot.waitUntil(lambda: window.messages.isVisible(), timeout=5000)
    assert window.messages.text.text() == "The page crashed while rendering. Simplify it"
    fake.answer = lambda job, future: future.set_exception(ZeroDivisionError("a bug"))
    window.screenshot_tab.run()
    qtbot.waitUntil(lambda: "went wrong inside Pressroom (ZeroDivisionError: a bug)" in window.messages.text.text(), timeout=5000)
    window.screenshot_tab.url.setText("not a url at all")
    window.screenshot_tab.run()
    assert "not a web address" in window.messages.text.text()


def test_saving_proposes_a_name(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    tab = window.pdf_tab
    wait_shown(qtbot, tab.preview, lambda: tab.load_sample(samples()["invoice"]))
    QSettings().setValue("lastSaveFolder", str(tmp_path))
    proposed: list[str] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QFileDialog)
        proposed.append(dialog.selectedFiles()[0])
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        assert isinstance(name, QLineEdit)
        name.setText("mine.pdf")  # as a user types it
        dialog.accept()

    QTimer.singleShot(300, answer)
    saved = tab.save_output()
    assert proposed == [str(tmp_path / "invoice.pdf")]
    assert saved == tmp_path / "mine.pdf" and saved.read_bytes() == tab.output.data  # type: ignore[union-attr]
    tab.copy_output()
    assert QGuiApplication.clipboard().mimeData().hasFormat("application/pdf")


def test_saving_never_replaces_a_file_without_asking(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    tab = window.pdf_tab
    wait_shown(qtbot, tab.preview, lambda: tab.editor.setPlainText("<p>new</p>"))
    existing = tmp_path / "precious.pdf"
    existing.write_bytes(b"%PDF-1.4 the user's own file")
    QSettings().setValue("lastSaveFolder", str(tmp_path))
    asked: list[str] = []

    def refuse_to_replace() -> None:
        question = QApplication.activeModalWidget()
        assert isinstance(question, QMessageBox), question
        asked.append(question.text())
        question.button(QMessageBox.StandardButton.No).click()  # type: ignore[union-attr]
        QTimer.singleShot(100, give_up)

    def give_up() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QFileDialog)
        dialog.reject()

    def choose_existing() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QFileDialog)
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        assert isinstance(name, QLineEdit)
        name.setText("precious.pdf")
        QTimer.singleShot(100, refuse_to_replace)
        dialog.accept()

    QTimer.singleShot(300, choose_existing)
    assert tab.save_output() is None
    assert len(asked) == 1 and "precious.pdf already exists" in asked[0]
    assert existing.read_bytes() == b"%PDF-1.4 the user's own file"


def test_window_remembers_geometry_tab_and_recent_files(
    qtbot: QtBot, make_window: Callable[..., MainWindow], shared: SharedEngine, tmp_path: Path
) -> None:
    page = tmp_path / "remembered.html"
    page.write_text("<p>remember me</p>")
    first = make_window(shared)
    first.resize(first.minimumSizeHint().width() + 20, 500)
    size = (first.width(), first.height())
    first.pdf_tab.open_file(page)
    first.tabs.setCurrentIndex(3)
    first.close()
    second = make_window(shared)
    assert second.tabs.currentIndex() == 3
    assert (second.width(), second.height()) == size
    assert [action.text() for action in second.recent_menu.actions()] == [str(page)]


def test_files_from_the_command_line_open_in_their_tabs(window: MainWindow, reports: list[Path], tmp_path: Path) -> None:
    page = tmp_path / "given.html"
    page.write_text("<p>given</p>")
    window.open_paths([reports[0], page])
    assert window.pdf_tab.path == page and window.pdf_tab.editor.toPlainText() == "<p>given</p>"
    assert [item.text(0) for item in window.merge_tab.list.items()] == ["report1.pdf"]


def test_dark_mode_follows_the_system(qtbot: QtBot, window: MainWindow) -> None:
    """What the window does when the system scheme changes (the offscreen platform cannot change it)."""
    from app.gui.style import follow_scheme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        follow_scheme(app, Qt.ColorScheme.Dark)
        qtbot.waitUntil(lambda: window.palette().window().color().lightness() < 100, timeout=5000)
        assert window.pdf_tab.editor.palette().base().color().lightness() < 100
    finally:
        follow_scheme(app, Qt.ColorScheme.Light)
    qtbot.waitUntil(lambda: window.palette().window().color().lightness() > 150, timeout=5000)


def test_the_pressroom_command_opens_the_window(tmp_path: Path) -> None:
    root = Path(__file__).parent.parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "PRESSROOM_CONFIG_DIR": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    assert_window_shown([sys.executable, "-m", "app"], env)
    headless = {k: v for k, v in env.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-m", "app"], capture_output=True, text=True, env=headless, timeout=60)
    assert result.returncode == 1 and "no display" in result.stderr


@pytest.mark.parametrize("scheme", ["offline"])
def test_first_run_download_failure_is_explained(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, scheme: str) -> None:
    from app.gui.dialogs import FirstRunDialog

    monkeypatch.setenv("PLAYWRIGHT_DOWNLOAD_HOST", "http://127.0.0.1:9")  # nowhere: the download fails for real
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(Path(os.environ.get("TMPDIR", "/tmp")) / "pressroom-no-browsers"))
    dialog = FirstRunDialog("no Chromium, Chrome or Edge browser was found on this computer")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start_download()
    assert dialog.progress.isVisible()
    qtbot.waitUntil(lambda: "did not work" in dialog.status.text(), timeout=60_000)
    assert dialog.download.isEnabled() and not dialog.progress.isVisible()


def test_the_application_icon(qapp: QApplication) -> None:
    from app.gui.style import app_icon

    icon = app_icon()
    sizes = {(size.width(), size.height()) for size in icon.availableSizes()}
    assert {(16, 16), (32, 32), (48, 48), (256, 256), (512, 512)} <= sizes
    image = icon.pixmap(64, 64).toImage()
    assert image.pixelColor(32, 4).blue() > 180 and image.pixelColor(0, 0).alpha() == 0  # the blue tile, rounded


def test_many_jobs_settling_on_engine_threads(qtbot: QtBot, make_window: Callable[..., MainWindow]) -> None:
    """Results and progress arrive from engine threads while finished handles are being deleted: each job
    settles exactly once, on the GUI thread, and nothing touches a deleted handle (that used to crash)."""
    from app.core.engine import Progress
    from app.core.jobs import HtmlToPdf

    fake = FakeEngine()
    done = Output(b"%PDF-1.4\n%%EOF\n", "application/pdf", "x.pdf")

    def answer(job: Job, future: Future[Output]) -> None:
        for step in range(20):
            fake.progress[id(future)](Progress(step / 20, "working"))
        future.set_result(done)

    fake.answer = answer
    window = make_window(fake)
    settled: list[int] = []
    progressed: list[int] = []
    gui_thread = QThread.currentThread()
    for number in range(200):
        handle = window.host.run(HtmlToPdf("<p>x</p>"))
        handle.finished.connect(lambda _, n=number: settled.append(n) if QThread.currentThread() is gui_thread else None)
        handle.progressed.connect(lambda _, n=number: progressed.append(n))
        if number % 10 == 0:
            qtbot.wait(1)
    qtbot.waitUntil(lambda: len(settled) == 200, timeout=20_000)
    assert sorted(settled) == list(range(200))
    qtbot.wait(50)
    assert len(settled) == 200
