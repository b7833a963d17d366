"""The local engine under faults: cancel, timeouts, killed browsers and renderers, recycling, shutdown."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError, wait
from pathlib import Path

import psutil
import pytest

from app.core.errors import BrowserNotFound, JobTimeout, RenderError
from app.core.jobs import HtmlToPdf, WaitOptions
from app.engines.local import LocalEngine, LocalEngineConfig
from tests.conftest import TestSite, pdf_text

ASSETS = Path(__file__).parent.parent / "assets"


def chromium_processes(kind: str | None = None, *, besides: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Chromium processes under this test process, except ``besides`` (those of other engines).

    ``kind``: "browser" for the main process, else a ``--type=`` value such as "renderer".
    """
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = proc.cmdline()
        except psutil.Error:
            continue
        if proc.pid in besides or not cmdline or "node" in os.path.basename(cmdline[0]):
            continue
        flags = " ".join(cmdline)
        proc_type = next((a.split("=", 1)[1] for a in cmdline if a.startswith("--type=")), None)
        if proc_type is None and "--remote-debugging-pipe" not in flags:
            continue  # not a browser of ours (e.g. a shell wrapper)
        if kind is None or (proc_type or "browser") == kind:
            found.append(proc)
    return found


class Processes:
    """The Chromium processes of one engine: whatever appeared after it was created."""

    def __init__(self) -> None:
        self.others = frozenset(p.pid for p in chromium_processes())

    def __call__(self, kind: str | None = None) -> list[psutil.Process]:
        return chromium_processes(kind, besides=self.others)


@pytest.fixture
def processes() -> Processes:
    return Processes()


@pytest.fixture
def own_engine(processes: Processes) -> Iterator[LocalEngine]:
    """An engine of the test's own, for tests that break it on purpose."""
    with LocalEngine(LocalEngineConfig(concurrency=2, timeout=30)) as engine:
        engine.start().result(timeout=60)
        yield engine


def text_of(engine: LocalEngine, html: str, **kwargs: object) -> str:
    return pdf_text(engine.submit(HtmlToPdf(html, **kwargs)).result(timeout=60).data)[0]  # type: ignore[arg-type]


def wait_until(condition: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def wait_for_quiet(count: object, quiet: float, seconds: float) -> int:
    """Wait until ``count()`` stops changing for ``quiet`` seconds; fails if it never does."""
    deadline = time.monotonic() + seconds
    last, since = count(), time.monotonic()  # type: ignore[operator]
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = count()  # type: ignore[operator]
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return int(last)
    raise AssertionError("the count never stopped changing")


def test_cancel_really_stops_the_page(own_engine: LocalEngine, site: TestSite) -> None:
    html = (ASSETS / "ping.html").read_text()
    future = own_engine.submit(HtmlToPdf(html, wait=WaitOptions(selector="#never"), base_url=site.url + "/", timeout=60))
    wait_until(lambda: site.hits("/ping") >= 3)  # the page is running
    assert future.cancel()
    with pytest.raises(CancelledError):
        future.result()
    settled = wait_for_quiet(lambda: site.hits("/ping"), quiet=0.5, seconds=10)
    time.sleep(1.0)
    assert site.hits("/ping") == settled, "the cancelled page went on working"
    assert "after cancel" in text_of(own_engine, "<p>after cancel</p>")


def test_cancel_of_queued_jobs(own_engine: LocalEngine) -> None:
    blockers = [own_engine.submit(HtmlToPdf("<p>busy</p>", wait=WaitOptions(delay_ms=800))) for _ in range(2)]
    queued = own_engine.submit(HtmlToPdf("<p>queued</p>"))
    assert queued.cancel()
    assert all("busy" in pdf_text(f.result(timeout=60).data)[0] for f in blockers)
    assert queued.cancelled()


def test_a_script_that_hangs_the_page_times_out(own_engine: LocalEngine) -> None:
    started = time.monotonic()
    with pytest.raises(JobTimeout):
        own_engine.submit(HtmlToPdf("<p>x</p><script>while (true) {}</script>", timeout=2)).result(timeout=60)
    assert time.monotonic() - started < 15
    assert "recovered" in text_of(own_engine, "<p>recovered</p>")


def test_killed_browser_is_relaunched(own_engine: LocalEngine, processes: Processes) -> None:
    (browser,) = processes("browser")
    browser.send_signal(signal.SIGKILL)
    browser.wait(10)
    assert "after the crash" in text_of(own_engine, "<p>after the crash</p>")
    (relaunched,) = processes("browser")
    assert relaunched.pid != browser.pid


def test_job_running_when_the_browser_dies_is_retried(own_engine: LocalEngine, processes: Processes) -> None:
    future = own_engine.submit(HtmlToPdf("<p>survivor</p>", wait=WaitOptions(delay_ms=1500)))
    time.sleep(0.7)
    (browser,) = processes("browser")
    browser.send_signal(signal.SIGKILL)
    assert "survivor" in pdf_text(future.result(timeout=60).data)[0]


def test_crashed_renderer_fails_the_job_not_the_engine(own_engine: LocalEngine, processes: Processes) -> None:
    # two pages in the pool: one busy with the doomed job, one idle
    assert "warm" in text_of(own_engine, "<p>warm</p>")
    blocker = own_engine.submit(HtmlToPdf("<p>a</p>", wait=WaitOptions(delay_ms=500)))
    assert "warm" in text_of(own_engine, "<p>warm</p>")
    blocker.result(timeout=60)
    future = own_engine.submit(HtmlToPdf("<p>doomed</p>", wait=WaitOptions(expression="window.never === true"), timeout=60))
    time.sleep(1.0)
    for renderer in processes("renderer"):  # every page's renderer, the idle one's too
        renderer.send_signal(signal.SIGKILL)
    with pytest.raises(RenderError, match="crashed"):
        future.result(timeout=60)
    for n in range(3):
        assert f"next one {n}" in text_of(own_engine, f"<p>next one {n}</p>")


def test_browser_is_recycled_after_n_jobs(processes: Processes) -> None:
    with LocalEngine(LocalEngineConfig(concurrency=2, browser_jobs=3, context_jobs=2)) as engine:
        pids = set()
        for n in range(8):
            assert f"job {n}" in text_of(engine, f"<p>job {n}</p>")
            pids.update(p.pid for p in processes("browser"))
        assert len(pids) >= 3, "a browser per three jobs"
        assert len(processes("browser")) == 1, "retired browsers are gone"


def test_concurrent_jobs_do_not_mix(engine: LocalEngine) -> None:
    futures = {n: engine.submit(HtmlToPdf(f"<h1>Document number {n}</h1>" + "<p>filler</p>" * n)) for n in range(12)}
    wait(futures.values(), timeout=120)
    for n, future in futures.items():
        assert f"Document number {n}" in pdf_text(future.result().data)[0]


def test_missing_browser_is_a_clear_error() -> None:
    with (
        LocalEngine(LocalEngineConfig(browser_path="/nonexistent/chrome")) as engine,
        pytest.raises(BrowserNotFound, match="/nonexistent/chrome"),
    ):
        engine.submit(HtmlToPdf("<p>x</p>")).result(timeout=60)


def test_close_stops_everything(processes: Processes) -> None:
    engine = LocalEngine(LocalEngineConfig(concurrency=2))
    engine.start().result(timeout=60)
    running = engine.submit(HtmlToPdf("<p>x</p>", wait=WaitOptions(selector="#never"), timeout=60))
    queued = [engine.submit(HtmlToPdf("<p>y</p>")) for _ in range(4)]
    wait_until(lambda: processes("renderer"))
    engine.close()
    assert running.done() and all(f.done() for f in queued)
    with pytest.raises(CancelledError):
        running.result()
    wait_until(lambda: not processes())
    engine.close()  # twice is fine
