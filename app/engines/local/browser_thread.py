"""The browser's own thread: a private asyncio loop running the page pool (``pool.py``).

Callers on any thread get ``concurrent.futures.Future`` objects from ``asyncio.run_coroutine_threadsafe``.
Cancelling one cancels the job's task on the loop, which closes the page the job was using, so Chromium
really stops working on it. Playwright is imported on this thread, when the first browser job arrives,
so the caller goes on reading its inputs while the browser starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from concurrent.futures import Future
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


class BrowserThread:
    def __init__(self, config: LocalEngineConfig) -> None:
        self.config = config
        self._loop = asyncio.new_event_loop()
        self._pool: asyncio.Future[BrowserPool] | None = None
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), name="pressroom-browser", daemon=True)
        self._thread.start()
        ready.wait()

    def submit(self, job: Job) -> Future[Output]:
        return asyncio.run_coroutine_threadsafe(self._run(job), self._loop)

    def start(self) -> Future[BrowserInfo]:
        return asyncio.run_coroutine_threadsafe(self._start(), self._loop)

    @property
    def info(self) -> BrowserInfo | None:
        pool = self._pool
        if pool is None or not pool.done() or pool.cancelled() or pool.exception():
            return None
        return pool.result().info

    def close(self) -> None:
        if not self._loop.is_closed():
            shutdown = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
            with contextlib.suppress(Exception):  # closing must not raise; the browser dies with its driver anyway
                shutdown.result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    # -- on the loop ---------------------------------------------------------------------------------

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.set_exception_handler(_log_stray_error)
        ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    def _browser_pool(self) -> asyncio.Future[BrowserPool]:
        if self._pool is None:
            self._pool = self._loop.create_future()
            try:
                from app.engines.local.pool import BrowserPool  # imports Playwright, on this thread

                self._pool.set_result(BrowserPool(self.config))
            except Exception as exc:
                self._pool.set_exception(BrowserError(f"the local engine cannot start: {exc}", "Reinstall Pressroom"))
        return self._pool

    async def _run(self, job: Job) -> Output:
        pool = await asyncio.shield(self._browser_pool())
        return await pool.run(job)

    async def _start(self) -> BrowserInfo:
        pool = await asyncio.shield(self._browser_pool())
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
