"""Batch throughput: `pressroom html2pdf` on 200 documents vs a raw Playwright script with 4 concurrent pages.

Both are whole processes (start-up, browser launch, all conversions, writing the files), run alternately
three times each; the figure is documents per second (median run). Ratio = Pressroom / reference
throughput, so higher is better.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from common import LAUNCH_ARGS, ROOT, alternate, browser_executable, median, timed_run, write_documents

COUNT = 200
ROUNDS = 3


def main() -> str:
    work = Path(tempfile.mkdtemp(prefix="pressroom-bench-"))
    try:
        inputs = [str(p) for p in write_documents(work / "docs", COUNT)]
        env = dict(os.environ, BENCH_EXECUTABLE=browser_executable() or "", BENCH_ARGS=json.dumps(LAUNCH_ARGS))
        ours_cmd = [sys.executable, "-m", "app", "html2pdf", *inputs, "-o", str(work / "ours"), "-q"]
        raw_cmd = [sys.executable, str(ROOT / "benchmarks" / "raw_batch.py"), str(work / "raw"), *inputs]
        ours, raw = alternate(ROUNDS, lambda: timed_run(ours_cmd, env), lambda: timed_run(raw_cmd, env))
        produced = len(list((work / "ours").glob("*.pdf")))
        assert produced == COUNT, f"pressroom wrote {produced} of {COUNT} PDFs"
        ours_rate, raw_rate = COUNT / median(ours), COUNT / median(raw)
        line = (
            f"{'batch of 200 HTML->PDF (docs/s)':<34} pressroom {ours_rate:9.1f} docs/s  reference {raw_rate:9.1f} docs/s  "
            f"ratio {ours_rate / raw_rate:5.2f}x  (target >= 0.9x)"
        )
        print(line, flush=True)
        return line
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
