"""Shared helpers of the benchmarks: the same browser and flags for Pressroom and the references."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Byte-code compiled ahead, as installing (or packaging/bootstrap.sh) leaves it: start-up is measured,
# not compiling sources that this environment may forbid caching.
import compileall  # noqa: E402

compileall.compile_dir(ROOT / "app", quiet=1)

from app.engines.local.discovery import find_browsers  # noqa: E402
from app.engines.local.pool import launch_args  # noqa: E402

LAUNCH_ARGS = launch_args()


def browser_executable() -> str | None:
    """What Pressroom would launch (None: Playwright's own Chromium), so both sides use the same."""
    return find_browsers(os.environ.get("PRESSROOM_CHROMIUM"))[0].executable


def simple_document(i: int) -> str:
    rows = "".join(f"<tr><td>{j}</td><td>item {j}</td><td>{j * 3.5:.2f}</td></tr>" for j in range(20))
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>Doc {i}</title>"
        "<style>body{font-family:sans-serif} td{padding:2px 8px;border-bottom:1px solid #ccc}</style></head>"
        f"<body><h1>Document {i}</h1><p>Lorem ipsum dolor sit amet.</p><table>{rows}</table></body></html>"
    )


def write_documents(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"doc{i:04d}.html"
        path.write_text(simple_document(i), encoding="utf-8")
        paths.append(path)
    return paths


def median(values: list[float]) -> float:
    return statistics.median(values)


def timed_run(command: list[str], env: dict[str, str] | None = None) -> float:
    """Wall time of a command; raises if it fails."""
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed ({result.returncode}): {result.stderr[-2000:]}")
    return elapsed


def alternate(rounds: int, *runs: Callable[[], float]) -> list[list[float]]:
    """Run each measurement ``rounds`` times, interleaved, so drift hits all sides alike."""
    results: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for i, run in enumerate(runs):
            results[i].append(run())
    return results


def tree_memory(process: psutil.Process | None = None) -> tuple[int, int]:
    """Memory of a process and all its descendants (bytes): summed RSS, and PSS where the OS has it.

    Summed RSS counts pages shared between Chromium's processes once per process, so it overstates;
    PSS (proportional set size) splits shared pages between their users and adds up to the truth.
    """
    process = process or psutil.Process()
    rss = pss = 0
    for proc in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            info = proc.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
    return rss, pss


def report(name: str, ours: float, reference: float, unit: str, target: str, lower_is_better: bool = True) -> str:
    ratio = ours / reference
    line = (
        f"{name:<34} pressroom {ours:9.3f} {unit:<7} reference {reference:9.3f} {unit:<7} ratio {ratio:5.2f}x  (target {target})"
    )
    print(line, flush=True)
    return line
