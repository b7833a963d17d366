"""Reference for the cold-start benchmark: the shortest honest Playwright script for one HTML -> PDF.

usage: raw_cold.py INPUT.html OUTPUT.pdf
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from playwright.async_api import async_playwright


async def main() -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=os.environ.get("BENCH_EXECUTABLE") or None,
            args=json.loads(os.environ.get("BENCH_ARGS", "[]")),
        )
        page = await browser.new_page()
        await page.set_content(Path(sys.argv[1]).read_text(encoding="utf-8"))
        Path(sys.argv[2]).write_bytes(await page.pdf(format="A4", print_background=True))
        await browser.close()


asyncio.run(main())
