"""The browser's own thread: a private asyncio loop running the page pool (``pool.py``).

Playwright is imported on this thread, when the first browser job arrives, so the caller goes on
reading its inputs while the browser starts.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import TYPE_CHECKING

from app.core.errors import BrowserError
from app.core.jobs import Job
from app.core.results import Output
from app.engines.local.config import BrowserInfo, LocalEngineConfig
from app.engines.loop import LoopThread

if TYPE_CHECKING:
    from app.engines.local.pool import BrowserPool


class BrowserThread:
    def __init__(self, config: LocalEngineConfig) -> None:
        self.config = config
        self._pool: asyncio.Future[BrowserPool] | None = None
        self._thread = LoopThread("pressroom-browser")

    def submit(self, job: Job) -> Future[Output]:
        return self._thread.run(self._run(job))

    def start(self) -> Future[BrowserInfo]:
        return self._thread.run(self._start())

    @property
    def info(self) -> BrowserInfo | None:
        pool = self._pool
        if pool is None or not pool.done() or pool.cancelled() or pool.exception():
            return None
        return pool.result().info

    def close(self) -> None:
        self._thread.stop(self._close_pool)

    # -- on the loop ---------------------------------------------------------------------------------

    def _browser_pool(self) -> asyncio.Future[BrowserPool]:
        if self._pool is None:
            self._pool = self._thread.loop.create_future()
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

    async def _close_pool(self) -> None:
        if self._pool is not None and self._pool.done() and not self._pool.exception():
            await self._pool.result().close()
