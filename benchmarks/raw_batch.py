"""Reference for the batch benchmark: a plain Playwright script, 4 pages pulling from a queue.

usage: raw_batch.py OUT_FOLDER INPUT...
"""

import asyncio
import sys
from pathlib import Path

from playwright.async_api import async_playwright

CONCURRENCY = 4


async def main(out: Path, inputs: list[Path], executable: str | None, args: list[str]) -> None:
    queue: asyncio.Queue[Path] = asyncio.Queue()
    for path in inputs:
        queue.put_nowait(path)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=args)

        async def worker() -> None:
            page = await browser.new_page()
            while not queue.empty():
                path = queue.get_nowait()
                await page.set_content(path.read_text(encoding="utf-8"))
                (out / (path.stem + ".pdf")).write_bytes(await page.pdf(format="A4", print_background=True))

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        await browser.close()


if __name__ == "__main__":
    import json
    import os

    executable = os.environ.get("BENCH_EXECUTABLE") or None
    launch_args = json.loads(os.environ.get("BENCH_ARGS", "[]"))
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(main(out_dir, [Path(p) for p in sys.argv[2:]], executable, launch_args))
