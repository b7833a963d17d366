"""Shared fixtures: a real local engine (real Chromium), a real HTTP server on loopback, PDF/PNG readers."""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

from PIL import Image
from pypdf import PdfReader

from app.core.jobs import HtmlToPdf, PdfOptions
from app.engines.local import LocalEngine, LocalEngineConfig
from tests.hosted_double import HostedDouble

ASSETS = Path(__file__).parent / "assets"


@pytest.fixture(scope="session", autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never read or write the user's real settings."""
    folder = tmp_path_factory.mktemp("config")
    old = os.environ.get("PRESSROOM_CONFIG_DIR")
    os.environ["PRESSROOM_CONFIG_DIR"] = str(folder)
    yield
    if old is None:
        os.environ.pop("PRESSROOM_CONFIG_DIR", None)
    else:
        os.environ["PRESSROOM_CONFIG_DIR"] = old


@pytest.fixture(scope="session")
def engine() -> Iterator[LocalEngine]:
    """One warm local engine for the whole run, as the CLI and the GUI use it."""
    with LocalEngine(LocalEngineConfig(timeout=30)) as shared:
        shared.start().result(timeout=60)
        yield shared


# -- a web server on loopback ----------------------------------------------------------------------


class TestSite:
    """A real HTTP server on 127.0.0.1 serving ``tests/assets`` plus a few special paths.

    /slow/NAME?ms=N   a file of the assets folder, sent after N milliseconds
    /status/N         an HTML page answered with status N
    /ping             counts its hits (``site.hits("/ping")``)
    /cookie           sets a cookie ``visited=yes``
    /echo-cookie      a page whose text is the Cookie header it got
    /echo             a page showing the request's headers as JSON (in <pre id=headers>)
    """

    __test__ = False

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.requests: list[str] = []
        self._lock = threading.Lock()
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: object, **kwargs: object) -> None:
                super().__init__(*args, directory=str(directory), **kwargs)  # type: ignore[arg-type]

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                with site._lock:
                    site.requests.append(parts.path)
                if parts.path.startswith("/slow/"):
                    delay = int(parse_qs(parts.query).get("ms", ["1000"])[0])
                    time.sleep(delay / 1000)
                    self.path = parts.path.removeprefix("/slow")
                    return super().do_GET()
                if parts.path.startswith("/status/"):
                    code = int(parts.path.rsplit("/", 1)[1])
                    return self._send(code, b"<h1>status page</h1>")
                if parts.path == "/ping":
                    return self._send(200, b"pong", "text/plain")
                if parts.path == "/cookie":
                    return self._send(200, b"<p>cookie set</p>", extra={"Set-Cookie": "visited=yes; Path=/"})
                if parts.path == "/echo":
                    headers = {key.lower(): value for key, value in self.headers.items()}
                    body = json.dumps(headers, sort_keys=True)
                    return self._send(200, f"<pre id=headers>{html.escape(body)}</pre>".encode())
                if parts.path == "/echo-cookie":
                    cookie = self.headers.get("Cookie") or "no-cookie"
                    return self._send(200, f"<p id=c>{cookie}</p>".encode())
                return super().do_GET()

            def _send(
                self, code: int, body: bytes, kind: str = "text/html; charset=utf-8", extra: dict[str, str] | None = None
            ) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that hung up early (a cancelled download) is not news

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def hits(self, path: str) -> int:
        with self._lock:
            return sum(1 for seen in self.requests if seen == path)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


WEB_FONT = "Liberation Mono"  # served as a web font; the pages' fallback is the (different) serif font


def web_font_file() -> Path:
    found = subprocess.run(["fc-match", "-f", "%{file}", WEB_FONT], capture_output=True, text=True).stdout
    path = Path(found)
    if "LiberationMono" not in path.name or not path.is_file():
        pytest.fail("the web-font test needs the Liberation fonts (Debian: fonts-liberation)")
    return path


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestSite]:
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(ASSETS, root, dirs_exist_ok=True)
    for name, color in (("red.png", (255, 0, 0)), ("green.png", (0, 200, 0)), ("blue.png", (0, 0, 255))):
        Image.new("RGB", (40, 40), color).save(root / name)
    (root / "fonts").mkdir()
    shutil.copy(web_font_file(), root / "fonts" / "test.ttf")
    server = TestSite(root)
    yield server
    server.close()


SECTIONS = 3  # each report: a title page with a table of contents, then one page per section


def report_html(n: int) -> str:
    toc = "".join(f'<li><a href="#s{k}">Go to section {k}</a></li>' for k in range(1, SECTIONS + 1))
    sections = "".join(
        f'<h2 id="s{k}" style="break-before: page">Section {k} of report {n}</h2><p><a href="#top">Back to the top</a></p>'
        for k in range(1, SECTIONS + 1)
    )
    return f'<title>Report {n}</title><h1 id="top">Report {n}</h1><ul>{toc}</ul>{sections}'


@pytest.fixture(scope="session")
def reports(engine: LocalEngine, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three 4-page reports from one template: same destination names (#top, #s1...) in every file."""
    folder = tmp_path_factory.mktemp("reports")
    paths = []
    for n in (1, 2, 3):
        output = engine.submit(HtmlToPdf(report_html(n), PdfOptions(outline=True))).result(timeout=60)
        path = folder / f"report{n}.pdf"
        path.write_bytes(output.data)
        paths.append(path)
    return paths


# -- the window in a process of its own ------------------------------------------------------------


def assert_window_shown(command: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
    """Start ``command`` (offscreen, reporting) and wait until it says its window was painted; then end it."""
    shown = {**env, "QT_QPA_PLATFORM": "offscreen", "PRESSROOM_REPORT_SHOWN": "1"}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=shown, cwd=cwd)
    try:
        assert process.stderr is not None
        lines: list[str] = []
        while not lines or (lines[-1] and lines[-1].strip() != "pressroom: window shown"):
            lines.append(process.stderr.readline())  # an empty line: the process ended without a window
        assert lines[-1].strip() == "pressroom: window shown", lines
    finally:
        process.terminate()
        process.wait(30)


# -- a double of the hosted service, on loopback ----------------------------------------------------


@pytest.fixture
def hosted() -> Iterator[HostedDouble]:
    double = HostedDouble()
    yield double
    double.close()


# -- a real Secret Service -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def keychain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A real keychain: gnome-keyring's Secret Service, unlocked, on a private D-Bus session.

    Yields the environment that reaches it (for subprocesses); this process uses it too for the session.
    The user's own keyring is never touched (the daemon keeps its files in a temporary folder).
    """
    import keyring.core

    for tool in ("dbus-daemon", "gnome-keyring-daemon"):
        if not shutil.which(tool):
            pytest.fail(f"the keychain tests need {tool} (Debian: dbus and gnome-keyring; packaging/bootstrap.sh installs them)")
    home = tmp_path_factory.mktemp("keyring")
    (home / "run").mkdir(mode=0o700)
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True)
    assert bus.stdout is not None
    address = bus.stdout.readline().strip()
    changes = {"DBUS_SESSION_BUS_ADDRESS": address, "XDG_DATA_HOME": str(home / "data"), "XDG_RUNTIME_DIR": str(home / "run")}
    env = {**os.environ, **changes}
    daemon = subprocess.Popen(
        ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert daemon.stdin is not None
    daemon.stdin.write(b"test-keyring-password")
    daemon.stdin.close()
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        deadline = time.monotonic() + 15
        while True:
            keyring.core.init_backend()
            backend = keyring.get_keyring()
            try:
                if "SecretService" in type(backend).__module__:
                    keyring.get_password("pressroom-test-probe", "probe")
                    break
            except Exception:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the Secret Service did not come up (keyring backend: {backend})")
            time.sleep(0.2)
        yield env
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        with contextlib.suppress(Exception):  # back to whatever this machine had (often no keychain)
            keyring.core.init_backend()
        daemon.terminate()
        bus.terminate()
        daemon.wait(10)
        bus.wait(10)


# -- reading outputs -------------------------------------------------------------------------------


def pdf(data: bytes) -> PdfReader:
    assert data.startswith(b"%PDF-"), data[:20]
    return PdfReader(io.BytesIO(data))


def pdf_text(data: bytes) -> list[str]:
    return [page.extract_text() for page in pdf(data).pages]


def page_size_mm(data: bytes, index: int = 0) -> tuple[float, float]:
    box = pdf(data).pages[index].mediabox
    return round(float(box.width) * 25.4 / 72, 1), round(float(box.height) * 25.4 / 72, 1)


def image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def rgb(data: bytes, x: int, y: int) -> tuple[int, int, int]:
    pixel = image(data).convert("RGB").getpixel((x, y))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


def close_to(color: tuple[int, int, int], expected: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(color, expected, strict=True))


def rasterize(data: bytes, page: int = 1, dpi: int = 36) -> Image.Image:
    """A PDF page as an image, through poppler's pdftoppm (what a reader sees)."""
    assert shutil.which("pdftoppm"), "pdftoppm (poppler-utils) is needed for this test"
    result = subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-png", "-"],
        input=data,
        capture_output=True,
        check=True,
    )
    return Image.open(io.BytesIO(result.stdout)).convert("RGB")


def font_names(data: bytes) -> set[str]:
    """Base font names used by every page of a PDF (subset prefixes removed)."""
    names: set[str] = set()
    for page in pdf(data).pages:
        resources = page.get("/Resources")
        fonts = resources.get_object().get("/Font") if resources else None
        for ref in fonts.get_object().values() if fonts else []:
            base = str(ref.get_object().get("/BaseFont", ""))
            names.add(base.split("+", 1)[-1].lstrip("/"))
    return names
