"""One warm browser and a pool of warm pages, living on the engine's asyncio loop.

Why a pool of reused pages: measured on 2 cores, a fresh context + page per job costs ~0.19 s of CPU (a
new renderer process) against ~0.04 s for a reused page. So each pooled page lives in a browser context
of its own (cookies of concurrent jobs never meet), is reset after every job (``render.reset``), and gets
a fresh context every ``context_jobs`` jobs. The browser itself is restarted every ``browser_jobs`` jobs,
once the jobs in flight have finished, and relaunched whenever it dies; a job that was running when it
died is tried once more on the new browser.

Concurrency is a semaphore of ``concurrency`` permits. A job holds its permit from the moment it gets a
page until that page has been reset, so there are never more pages than permits; the caller's future is
resolved before the reset, which runs in the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import mmap
import re
import shutil
import tempfile
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Playwright, Route, async_playwright
from playwright.async_api import Error as PlaywrightError

from app.core.errors import (
    BrowserError,
    InputError,
    JobTimeout,
    PageLoadError,
    PressroomError,
    RenderError,
    ScriptFailed,
)
from app.core.jobs import HtmlToImage, HtmlToPdf, Job, RunScript, Screenshot
from app.core.results import Output
from app.engines.local.config import BrowserInfo, LocalEngineConfig
from app.engines.local.discovery import INSTALL_HINT, BrowserCandidate, find_browsers
from app.engines.local.errors import first_line, is_browser_gone, translate
from app.engines.local.render import RENDERERS, Deadline, Slot, home_for, reset
from app.engines.local.scripting import RunnerPool, run_script
from app.engines.netguard import PublicOnly

log = logging.getLogger("pressroom.engine")

# Debian's Chromium (and Chrome) reach out to Google at start-up and keep trying on a closed network;
# these switch that off. Playwright adds its own automation flags (and --no-sandbox when run as root).
BASE_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
# Features Pressroom switches off, on top of Playwright's own list:
# - RenderDocument: a fresh render frame host per navigation roughly doubles what a navigation costs.
# - LocalNetworkAccessChecks: a document set into a page is not a "secure context", so Chromium would
#   refuse it images and fonts from localhost or the intranet (private addresses) - common in
#   documents made from templates.
EXTRA_DISABLED_FEATURES = ("RenderDocument", "LocalNetworkAccessChecks")
# Playwright passes its own --disable-features; Chromium keeps only the last occurrence of a switch,
# so ours must repeat Playwright's list. It is read from the driver; this is 1.65's, if that fails.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
)


def _playwright_disabled_features() -> list[str]:
    import playwright

    bundle = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "coreBundle.js"
    try:
        with bundle.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start = data.find(b"disabledFeatures = [")
            end = data.find(b"]", start)
            if start < 0 or end < 0:
                return list(PLAYWRIGHT_DISABLED_FEATURES)
            text = re.sub(rb"//[^\n]*", b"", data[start:end]).decode("utf-8", "replace")
    except OSError:
        return list(PLAYWRIGHT_DISABLED_FEATURES)
    found = re.findall(r"[\"']([A-Za-z0-9]+)[\"']", text)
    return found or list(PLAYWRIGHT_DISABLED_FEATURES)


@functools.cache
def launch_args() -> list[str]:
    features = dict.fromkeys([*_playwright_disabled_features(), *EXTRA_DISABLED_FEATURES])
    return [*BASE_ARGS, "--disable-features=" + ",".join(features)]


DEFAULT_VIEWPORT = (1280, 800)
# Playwright's own timeouts get the job's remaining time; the loop's timeout fires this much later,
# so that when a wait times out, the error names what was being waited for.
TIMEOUT_GRACE = 1.0
CLOSE_TIMEOUT = 10.0


@dataclass(eq=False)
class _Browser:
    browser: Browser
    generation: int
    gone: asyncio.Event
    jobs: int = 0

    def on_disconnected(self, _browser: Browser) -> None:
        self.gone.set()


class BrowserPool:
    def __init__(self, config: LocalEngineConfig) -> None:
        self._config = config
        self._playwright: Playwright | None = None
        self._current: _Browser | None = None
        self._candidate: BrowserCandidate | None = None
        self._generation = 0
        self._launch_lock = asyncio.Lock()
        self._permits = asyncio.Semaphore(config.concurrency)
        self._slots: set[Slot] = set()  # every live page of the current browser, busy or idle
        self._reserved = 0  # pages being created
        self._idle: list[Slot] = []
        self._busy = 0  # jobs holding a page (running or being reset)
        self._all_idle = asyncio.Event()
        self._all_idle.set()
        self._background: set[asyncio.Task[Any]] = set()
        self._running: set[asyncio.Task[Any]] = set()
        self._warming: asyncio.Task[None] | None = None
        self._runners = RunnerPool(keep=config.concurrency)
        self._public_only = PublicOnly()
        self._closed = False
        self.info: BrowserInfo | None = None
        # The empty file that jobs with a file:// base URL are loaded into (see render.home_for).
        self._home_dir = Path(tempfile.mkdtemp(prefix="pressroom-"))
        (self._home_dir / "blank.html").write_bytes(b"")
        self._file_home = (self._home_dir / "blank.html").as_uri()

    # -- public --------------------------------------------------------------------------------------

    async def start(self) -> BrowserInfo:
        """Launch the browser and warm one page, so the first job does not pay for it."""
        if self._closed:
            raise BrowserError("the engine has been closed", "Start a new one")
        current = await self._ensure_browser()
        if not self._slots and not self._reserved and self._warming is None:
            self._warming = asyncio.get_running_loop().create_task(self._warm(current))
        if self._warming is not None:
            await asyncio.shield(self._warming)
        assert self.info is not None
        return self.info

    async def _warm(self, current: _Browser) -> None:
        self._reserved += 1
        try:
            slot = await self._new_slot(current, 1.0)
        except Exception:
            log.debug("could not warm a page", exc_info=True)
            return
        finally:
            self._reserved -= 1
            self._warming = None
        self._slots.add(slot)
        self._idle.append(slot)

    async def run(self, job: Job) -> Output:
        if self._closed:
            raise BrowserError("the engine has been closed", "Start a new one")
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        seconds = job.timeout or self._config.timeout
        await self._permits.acquire()
        handed_over = False
        try:
            deadline = Deadline(seconds)
            for attempt in (1, 2):
                current: _Browser | None = None
                try:
                    async with asyncio.timeout_at(deadline.at + TIMEOUT_GRACE):
                        current = await self._ensure_browser()
                        slot = await self._checkout(current, job)
                        started = deadline.loop.time()
                        try:
                            if isinstance(job, RunScript):
                                output = await run_script(slot, job, deadline, self._runners)
                            else:
                                output = await RENDERERS[type(job)](slot, job, deadline)
                        except BaseException as exc:
                            if isinstance(exc, InputError | PageLoadError | ScriptFailed) and not slot.crashed:
                                # The job's own fault (bad selector, 404, a script that threw): the
                                # page is fine, and is reset and reused as after a success.
                                handed_over = True
                                self._spawn(self._checkin(slot))
                                raise
                            self._discard(slot)
                            self._release_busy()
                            if slot.crashed and isinstance(exc, PlaywrightError | PressroomError):
                                raise RenderError(
                                    "the page crashed while rendering",
                                    "The document may need more memory than is available; simplify or split it",
                                ) from exc
                            raise
                except TimeoutError:
                    raise JobTimeout(
                        f"the job did not finish within {seconds:g} s",
                        "Raise the timeout (--timeout), or check that the page finishes loading",
                    ) from None
                except (PlaywrightError, PressroomError) as exc:
                    if attempt == 1 and current is not None and await self._died(current, exc):
                        log.warning("the browser stopped during a job; relaunching and trying the job again")
                        continue
                    if isinstance(exc, PlaywrightError):
                        raise translate(exc, "rendering") from exc
                    raise
                current.jobs += 1
                handed_over = True
                self._spawn(self._checkin(slot))
                return replace(output, seconds=deadline.loop.time() - started)
            raise AssertionError("unreachable")
        finally:
            if not handed_over:
                self._permits.release()
            self._running.discard(task)

    async def close(self) -> None:
        self._closed = True
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        if self._background:
            await asyncio.wait(list(self._background), timeout=CLOSE_TIMEOUT)
        await self._runners.close()
        if self._current is not None:
            await self._retire(self._current)
            self._current = None
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._playwright.stop(), CLOSE_TIMEOUT)
            self._playwright = None
        shutil.rmtree(self._home_dir, ignore_errors=True)

    # -- the browser ---------------------------------------------------------------------------------

    def _usable(self, current: _Browser | None) -> bool:
        return current is not None and not current.gone.is_set() and current.jobs < self._config.browser_jobs

    async def _ensure_browser(self) -> _Browser:
        current = self._current
        if self._usable(current):  # fast path: no await, so nothing can change under us
            assert current is not None
            return current
        async with self._launch_lock:
            current = self._current
            if self._usable(current):
                assert current is not None
                return current
            if current is not None:
                if not current.gone.is_set():
                    log.info("restarting the browser after %d jobs", current.jobs)
                    while self._busy:
                        await self._all_idle.wait()
                await self._retire(current)
                self._current = None
            self._current = await self._launch()
            return self._current

    async def _launch(self) -> _Browser:
        candidates = [self._candidate] if self._candidate else find_browsers(self._config.browser_path)
        failures: list[str] = []
        for candidate in candidates:
            for restart_driver in (False, True):
                if self._playwright is None or restart_driver:
                    await self._restart_driver()
                assert self._playwright is not None
                try:
                    browser = await self._playwright.chromium.launch(
                        executable_path=candidate.executable,
                        args=launch_args(),
                        timeout=self._config.launch_timeout * 1000,
                    )
                except PlaywrightError as exc:
                    if not restart_driver and is_browser_gone(exc):
                        continue  # the driver itself died: start it again and retry
                    failures.append(f"{candidate.label}: {first_line(exc)}")
                    log.debug("could not launch %s", candidate.label, exc_info=True)
                    break
                self._candidate = candidate
                self._generation += 1
                current = _Browser(browser, self._generation, asyncio.Event())
                browser.on("disconnected", current.on_disconnected)
                executable = candidate.executable or self._playwright.chromium.executable_path
                self.info = BrowserInfo(executable, browser.version, candidate.source)
                log.info("browser started: %s %s", executable, browser.version)
                return current
        if self._candidate is not None:
            self._candidate = None  # the browser that used to work is gone: look again
            return await self._launch()
        raise BrowserError(f"no browser could be started ({'; '.join(failures)})", INSTALL_HINT)

    async def _restart_driver(self) -> None:
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._playwright.stop(), CLOSE_TIMEOUT)
        self._playwright = await async_playwright().start()

    async def _retire(self, current: _Browser) -> None:
        for slot in list(self._slots):
            self._slots.discard(slot)
        self._idle.clear()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(current.browser.close(), CLOSE_TIMEOUT)

    async def _died(self, current: _Browser, exc: BaseException) -> bool:
        """Did ``current`` die? The job's error can arrive just before the browser's goodbye.

        A dying browser fails the calls in flight in several ways ("Target closed", "Printing failed"),
        so any failure that is not the user's (bad input, time limit) waits a moment for the goodbye.
        """
        if current.gone.is_set():
            return True
        if isinstance(exc, InputError | JobTimeout):
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(current.gone.wait(), 1.0 if is_browser_gone(exc.__cause__ or exc) else 0.3)
        return current.gone.is_set()

    # -- pages ---------------------------------------------------------------------------------------

    async def _checkout(self, current: _Browser, job: Job) -> Slot:
        self._busy += 1
        self._all_idle.clear()
        try:
            return await self._pick_slot(current, job)
        except BaseException:
            self._release_busy()
            raise

    async def _pick_slot(self, current: _Browser, job: Job) -> Slot:
        if not self._idle and self._warming is not None:
            await asyncio.shield(self._warming)  # the page start() is warming is nearly ready
        for idle in [slot for slot in self._idle if slot.crashed]:  # a page can die while it waits
            self._discard(idle)
        scale = job.options.scale if isinstance(job, HtmlToImage | Screenshot) else 1.0
        wanted_home = home_for(job.base_url, self._file_home) if isinstance(job, HtmlToPdf | HtmlToImage) else None

        def fitness(slot: Slot) -> int:
            return (slot.scale == scale) * 2 + (slot.home == wanted_home and not slot.dirty)

        if self._idle:
            best = max(self._idle, key=fitness)
            if best.scale == scale or len(self._slots) + self._reserved >= self._config.concurrency:
                self._idle.remove(best)
                if best.scale != scale:
                    best = await self._renew(best, scale)
                return best
        self._reserved += 1
        try:
            slot = await self._new_slot(current, scale)
        finally:
            self._reserved -= 1
        self._slots.add(slot)
        return slot

    async def _new_slot(self, current: _Browser, scale: float) -> Slot:
        width, height = DEFAULT_VIEWPORT
        context = await current.browser.new_context(
            viewport={"width": width, "height": height},
            device_scale_factor=scale,
            accept_downloads=False,
            service_workers="block",
        )
        try:
            page = await context.new_page()
        except BaseException:
            with contextlib.suppress(Exception):
                await context.close()
            raise
        slot = Slot(context, page, scale, current.generation, DEFAULT_VIEWPORT, file_home=self._file_home)
        if not self._config.allow_private_urls:
            await context.route("**/*", self._guard_request)
            slot.guarded = True
        page.on("crash", lambda _page: setattr(slot, "crashed", True))
        page.on("framenavigated", lambda frame: slot.on_navigated(frame.url))
        return slot

    async def _guard_request(self, route: Route) -> None:
        if await self._public_only.allows(route.request.url):
            await route.continue_()
        else:
            await route.abort("blockedbyclient")

    async def _renew(self, slot: Slot, scale: float) -> Slot:
        """Replace a page's browser context with a fresh one (optionally at another scale)."""
        self._slots.discard(slot)
        self._reserved += 1
        try:
            self._spawn(self._close_context(slot))
            current = self._current
            if current is None or current.generation != slot.generation:
                raise BrowserError("the browser stopped unexpectedly", "Try again")
            fresh = await self._new_slot(current, scale)
        finally:
            self._reserved -= 1
        self._slots.add(fresh)
        return fresh

    async def _checkin(self, slot: Slot) -> None:
        try:
            current = self._current
            if slot.crashed or current is None or current.generation != slot.generation or self._closed:
                self._discard(slot)
                return
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await reset(slot)
                slot.jobs += 1
                if slot.jobs >= self._config.context_jobs or slot.tainted:
                    slot = await self._renew(slot, slot.scale)
            self._idle.append(slot)
        except Exception:
            log.debug("could not reset a page; dropping it", exc_info=True)
            self._discard(slot)
        finally:
            self._release_busy()
            self._permits.release()

    def _release_busy(self) -> None:
        self._busy -= 1
        if self._busy == 0:
            self._all_idle.set()

    def _discard(self, slot: Slot) -> None:
        """Drop a page whose state is unknown (failed, cancelled, timed out): close its context."""
        self._slots.discard(slot)
        with contextlib.suppress(ValueError):
            self._idle.remove(slot)
        self._spawn(self._close_context(slot))

    async def _close_context(self, slot: Slot) -> None:
        # Closing the context closes its page, which stops whatever the page was still doing.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(slot.context.close(), CLOSE_TIMEOUT)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
