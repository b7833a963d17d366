"""``LocalEngine``: the ``Engine`` interface over this computer - a warm Chromium, and pikepdf for merges.

Browser jobs run on the browser's own thread (``browser_thread.py``, started with the first of them).
Merges need no browser: they run on worker threads, and never import Playwright or start Chromium. Every
job's future can be cancelled at any time, and cancelling stops the work itself.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING

from app.core.engine import ProgressCallback
from app.core.errors import BrowserError, JobTimeout
from app.core.jobs import Job, MergePdfs
from app.core.results import Output
from app.engines.local.config import BrowserInfo, LocalEngineConfig

if TYPE_CHECKING:
    from app.engines.local.browser_thread import BrowserThread


class LocalEngine:
    name = "local"

    def __init__(self, config: LocalEngineConfig | None = None) -> None:
        self.config = config or LocalEngineConfig()
        self._lock = threading.Lock()
        self._browser: BrowserThread | None = None
        self._workers: ThreadPoolExecutor | None = None
        self._merges: set[threading.Event] = set()  # the cancel switches of merges under way
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running" if self._browser or self._workers else "idle"
        return f"<LocalEngine {state} concurrency={self.config.concurrency}>"

    # -- Engine --------------------------------------------------------------------------------------

    def submit(self, job: Job, progress: ProgressCallback | None = None) -> Future[Output]:
        if isinstance(job, MergePdfs):
            return self._submit_merge(job, progress)
        return self._browser_thread().submit(job)

    def start(self) -> Future[BrowserInfo]:
        """Start the browser now (it otherwise starts with the first browser job); the future gives its details."""
        return self._browser_thread().start()

    @property
    def browser(self) -> BrowserInfo | None:
        """The running browser, once started."""
        return self._browser.info if self._browser is not None else None

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            browser, workers = self._browser, self._workers
            for cancelled in self._merges:
                cancelled.set()
        if browser is not None:
            browser.close()
        if workers is not None:
            workers.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise BrowserError("the local engine has been closed", "Create a new engine")

    def _browser_thread(self) -> BrowserThread:
        with self._lock:
            self._check_open()
            if self._browser is None:
                from app.engines.local.browser_thread import BrowserThread

                self._browser = BrowserThread(self.config)
            return self._browser

    def _submit_merge(self, job: MergePdfs, progress: ProgressCallback | None) -> Future[Output]:
        """Run a merge on a worker thread; cancelling the future (or the job's timeout) stops it.

        The future stays "pending" until the result is there, so ``cancel()`` works at any moment; a
        callback then flips the switch the merge checks between files and while it writes.
        """
        from app.engines.local.download import Downloader
        from app.engines.local.merge import MergeCancelled, merge_pdfs

        future: Future[Output] = Future()
        cancelled, timed_out = threading.Event(), threading.Event()
        future.add_done_callback(lambda done: cancelled.set() if done.cancelled() else None)
        downloader = Downloader(
            max_bytes=self.config.download_limit_mb * 2**20,
            timeout=self.config.download_timeout,
            allow_private=self.config.allow_private_urls,
        )

        def work() -> None:
            def time_out() -> None:
                timed_out.set()
                cancelled.set()

            timer = None
            if job.timeout is not None:
                timer = threading.Timer(job.timeout, time_out)
                timer.daemon = True
                timer.start()
            try:
                output = merge_pdfs(job, downloader, cancelled, progress)
            except MergeCancelled:
                if timed_out.is_set() and future.set_running_or_notify_cancel():
                    future.set_exception(JobTimeout(f"the merge did not finish within {job.timeout:g} s", "Raise the timeout"))
                elif not future.cancelled() and future.set_running_or_notify_cancel():  # the engine closed
                    future.set_exception(BrowserError("the engine was closed during the merge", "Run it again"))
                return
            except BaseException as exc:
                if future.set_running_or_notify_cancel():
                    future.set_exception(exc)
                return
            finally:
                if timer is not None:
                    timer.cancel()
                with self._lock:
                    self._merges.discard(cancelled)
            if future.set_running_or_notify_cancel():
                future.set_result(output)

        with self._lock:
            self._check_open()
            if self._workers is None:
                self._workers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="pressroom-merge")
            self._merges.add(cancelled)
            self._workers.submit(work)
        return future
