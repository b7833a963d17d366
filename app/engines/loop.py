"""A private asyncio loop on a daemon thread, for engines whose work is asynchronous.

Callers on any thread get ``concurrent.futures.Future`` objects (``asyncio.run_coroutine_threadsafe``):
cancelling one cancels its task on the loop, so the work itself stops, not just the wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger("pressroom.engine")


def _log_stray_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Errors nobody awaited (e.g. Playwright's, when the driver dies on Ctrl+C) go to the debug log."""
    log.debug("engine loop: %s", context.get("message"), exc_info=context.get("exception"))


class LoopThread:
    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), name=name, daemon=True)
        self._thread.start()
        ready.wait()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def stop(self, shutdown: Callable[[], Awaitable[None]] | None = None, timeout: float = 30) -> None:
        """Run ``shutdown`` on the loop, end every task left, stop the loop and join the thread."""
        if not self.loop.is_closed():
            finished = self.run(self._shutdown(shutdown))
            with contextlib.suppress(Exception):  # closing must not raise
                finished.result(timeout=timeout)
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)

    async def _shutdown(self, shutdown: Callable[[], Awaitable[None]] | None) -> None:
        if shutdown is not None:
            await shutdown()
        leftovers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=5)

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(_log_stray_error)
        ready.set()
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()
