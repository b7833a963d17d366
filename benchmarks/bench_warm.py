"""Warm single HTML -> PDF job: Pressroom's LocalEngine vs raw Playwright set_content + pdf on a reused page.

Both run in this process, on the same browser executable and flags, interleaved in rounds; the figure is
the median time of one job, submitted and awaited one at a time.
"""

from __future__ import annotations

import asyncio
import time

from common import LAUNCH_ARGS, browser_executable, median, report, simple_document
from playwright.async_api import async_playwright

from app.core.jobs import HtmlToPdf, PdfOptions
from app.engines.local import LocalEngine

ROUNDS = 10
PER_ROUND = 20


def main() -> str:
    documents = [simple_document(i) for i in range(PER_ROUND)]
    loop = asyncio.new_event_loop()
    pw = loop.run_until_complete(async_playwright().start())
    browser = loop.run_until_complete(pw.chromium.launch(executable_path=browser_executable(), args=LAUNCH_ARGS))
    page = loop.run_until_complete(browser.new_page())

    async def raw_round() -> list[float]:
        times = []
        for html in documents:
            started = time.perf_counter()
            await page.set_content(html)
            await page.pdf(format="A4", print_background=True)
            times.append(time.perf_counter() - started)
        return times

    engine = LocalEngine()
    engine.start().result()
    jobs = [HtmlToPdf(html, PdfOptions()) for html in documents]

    def our_round() -> list[float]:
        times = []
        for job in jobs:
            started = time.perf_counter()
            engine.submit(job).result()
            times.append(time.perf_counter() - started)
        return times

    loop.run_until_complete(raw_round())  # warm-up of both
    our_round()
    raw: list[float] = []
    ours: list[float] = []
    for _ in range(ROUNDS):
        raw += loop.run_until_complete(raw_round())
        ours += our_round()
    engine.close()
    loop.run_until_complete(browser.close())
    loop.run_until_complete(pw.stop())
    loop.close()
    return report("warm HTML->PDF job (median)", median(ours) * 1000, median(raw) * 1000, "ms", "<= 1.25x")


if __name__ == "__main__":
    main()
