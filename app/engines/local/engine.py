"""``LocalEngine``: the ``Engine`` interface over a warm Chromium, on a thread of its own.

The browser and its page pool live on a private asyncio loop in a daemon thread; callers on any thread
get ``concurrent.futures.Future`` objects. Cancelling such a future cancels the job's task on the loop,
which closes the page the job was using, so Chromium really stops working on it.

Playwright is imported on the engine thread, the first time the engine starts, so that importing this
module (``pressroom --help``, the GUI's start-up) stays fast and the caller can go on reading its inputs
while the browser starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from concurrent.futures import Future
from types import TracebackType
from typing import TYPE_CHECKING, Any

from app.core.errors import BrowserError
from app.core.jobs import Job
from app.core.results import Output
from app.engines.local.config import BrowserInfo, LocalEngineConfig

if TYPE_CHECKING:
    from app.engines.local.pool import BrowserPool


log = logging.getLogger("pressroom.engine")


def _log_stray_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Errors nobody awaited (e.g. Playwright's, when the driver dies on Ctrl+C) go to the debug log."""
    log.debug("engine loop: %s", context.get("message"), exc_info=context.get("exception"))


class LocalEngine:
    name = "local"

    def __init__(self, config: LocalEngineConfig | None = None) -> None:
        self.config = config or LocalEngineConfig()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: asyncio.Future[BrowserPool] | None = None
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running" if self._thread else "idle"
        return f"<LocalEngine {state} concurrency={self.config.concurrency}>"

    # -- Engine --------------------------------------------------------------------------------------

    def submit(self, job: Job) -> Future[Output]:
        loop = self._ensure_loop()
        return asyncio.run_coroutine_threadsafe(self._run(job), loop)

    def start(self) -> Future[BrowserInfo]:
        """Start the browser now (it otherwise starts with the first job); the future gives its details."""
        loop = self._ensure_loop()
        return asyncio.run_coroutine_threadsafe(self._start(), loop)

    @property
    def browser(self) -> BrowserInfo | None:
        """The running browser, once started."""
        pool = self._pool
        if pool is None or not pool.done() or pool.cancelled() or pool.exception():
            return None
        return pool.result().info

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if not loop.is_closed():
            shutdown = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
            with contextlib.suppress(Exception):  # closing must not raise; the browser dies with its driver anyway
                shutdown.result(timeout=30)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- the loop thread -----------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise BrowserError("the local engine has been closed", "Create a new engine")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                self._thread = threading.Thread(target=self._serve, args=(loop, ready), name="pressroom-engine", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def _serve(self, loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(_log_stray_error)
        self._pool = loop.create_future()
        loop.call_soon(self._create_pool)
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    def _create_pool(self) -> None:
        assert self._pool is not None
        try:
            from app.engines.local.pool import BrowserPool  # imports Playwright, on this thread

            self._pool.set_result(BrowserPool(self.config))
        except Exception as exc:
            self._pool.set_exception(BrowserError(f"the local engine cannot start: {exc}", "Reinstall Pressroom"))

    async def _run(self, job: Job) -> Output:
        assert self._pool is not None
        pool = await asyncio.shield(self._pool)
        return await pool.run(job)

    async def _start(self) -> BrowserInfo:
        assert self._pool is not None
        pool = await asyncio.shield(self._pool)
        return await pool.start()

    async def _shutdown(self) -> None:
        if self._pool is not None and self._pool.done() and not self._pool.exception():
            await self._pool.result().close()
        # Whatever is left (a browser still starting, Playwright's own tasks) ends before the loop does.
        leftovers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=5)
