"""Scripts: a trivial script job vs an HTML -> PNG job of the same page, on one warm engine, same run.

The script is what a user would write for it: `await page.setContent(html);` and the PNG of the page
that every script job returns. Both are submitted one at a time, interleaved in rounds; medians.
"""

from __future__ import annotations

import time

from common import median, report, simple_document

from app.core.jobs import HtmlToImage, RunScript
from app.engines.local import LocalEngine

ROUNDS = 8
PER_ROUND = 10


def main() -> str:
    html = simple_document(7)
    image_job = HtmlToImage(html)
    script_job = RunScript(f"await page.setContent({html!r});")
    with LocalEngine() as engine:
        engine.start().result()

        def timed(job: object, count: int) -> list[float]:
            times = []
            for _ in range(count):
                started = time.perf_counter()
                engine.submit(job).result()  # type: ignore[arg-type]
                times.append(time.perf_counter() - started)
            return times

        timed(image_job, 5)  # warm-up: pages, the script runner
        timed(script_job, 5)
        images: list[float] = []
        scripts: list[float] = []
        for _ in range(ROUNDS):
            images += timed(image_job, PER_ROUND)
            scripts += timed(script_job, PER_ROUND)
    return report("trivial script vs HTML->PNG", median(scripts) * 1000, median(images) * 1000, "ms", "<= 2x")


if __name__ == "__main__":
    main()
