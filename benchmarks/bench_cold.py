"""Cold one-shot: `pressroom html2pdf one.html -o one.pdf` vs a raw Python Playwright script doing the same.

Whole processes, run alternately 7 times each; the figure is the median wall time.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from common import LAUNCH_ARGS, ROOT, alternate, browser_executable, median, report, timed_run, write_documents

ROUNDS = 7


def main() -> str:
    work = Path(tempfile.mkdtemp(prefix="pressroom-bench-"))
    try:
        (source,) = write_documents(work / "docs", 1)
        env = dict(os.environ, BENCH_EXECUTABLE=browser_executable() or "", BENCH_ARGS=json.dumps(LAUNCH_ARGS))
        ours_cmd = [sys.executable, "-m", "app", "html2pdf", str(source), "-o", str(work / "ours.pdf"), "-q"]
        raw_cmd = [sys.executable, str(ROOT / "benchmarks" / "raw_cold.py"), str(source), str(work / "raw.pdf")]
        timed_run(ours_cmd, env)  # one unmeasured run each: page cache, compiled bytecode
        timed_run(raw_cmd, env)
        ours, raw = alternate(ROUNDS, lambda: timed_run(ours_cmd, env), lambda: timed_run(raw_cmd, env))
        return report("CLI cold one-shot (median)", median(ours), median(raw), "s", "<= 1.3x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
