"""All of Pressroom's benchmarks in one run; prints each line as it is measured, then a summary.

Needs qpdf (Debian: apt-get install qpdf) for the merge reference.

usage: python benchmarks/run_all.py [--quick]   (--quick skips the 1000-job soak)
"""

from __future__ import annotations

import platform
import sys

import bench_batch
import bench_cold
import bench_gui
import bench_merge
import bench_remote
import bench_script
import bench_warm
import soak
from common import browser_executable


def main() -> None:
    from importlib.metadata import version

    print(
        f"# {platform.node()}: Python {platform.python_version()}, Playwright {version('playwright')}, "
        f"browser {browser_executable() or 'Playwright Chromium'}",
        flush=True,
    )
    lines = [
        bench_warm.main(),
        bench_batch.main(),
        bench_cold.main(),
        *bench_merge.main(),
        bench_script.main(),
        bench_remote.main(),
        *bench_gui.main(),
    ]
    if "--quick" not in sys.argv:
        lines.append(soak.main())
    print("\n# summary")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
