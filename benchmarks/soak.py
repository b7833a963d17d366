"""Soak: 1000 jobs through one LocalEngine; reports failures and memory growth.

A mix of HTML -> PDF (plain and scripted), HTML -> PNG and page screenshots from a local server, eight
in flight. Memory is that of this process plus every browser and driver process under it, sampled every
50 jobs. Pooled pages get a fresh browser context every 100 jobs, so memory is a saw-tooth; the figure
compares the mean of the samples over jobs 100-300 (after warm-up) with the mean over the last 200 jobs.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, wait
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from statistics import mean
from tempfile import TemporaryDirectory

from common import simple_document, tree_memory

from app.core.jobs import HtmlToImage, HtmlToPdf, ImageOptions, Job, Screenshot
from app.core.results import Output
from app.engines.local import LocalEngine

JOBS = 1000
WARM_UP = 100
WINDOW = 200
SAMPLE_EVERY = 50
IN_FLIGHT = 8


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def job_for(i: int, site: str) -> Job:
    kind = i % 4
    if kind == 0:
        return HtmlToPdf(simple_document(i))
    if kind == 1:  # a document with script: the page is reset by navigation afterwards
        return HtmlToPdf(simple_document(i) + f"<script>const n = {i}; document.title = 'doc ' + n;</script>")
    if kind == 2:
        return HtmlToImage(simple_document(i), ImageOptions(width=800, height=600))
    return Screenshot(f"{site}/page{i % 10}.html", ImageOptions(width=800, height=600))


def main() -> str:
    with TemporaryDirectory() as folder:
        for n in range(10):
            Path(folder, f"page{n}.html").write_text(simple_document(n))
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=folder))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        site = f"http://127.0.0.1:{server.server_address[1]}"
        failures: list[str] = []
        started = time.perf_counter()
        early: list[tuple[int, int]] = []
        late: list[tuple[int, int]] = []
        with LocalEngine() as engine:
            pending: set[Future[Output]] = set()
            for i in range(JOBS + 1):
                if i % SAMPLE_EVERY == 0 and WARM_UP <= i <= WARM_UP + WINDOW:
                    early.append(tree_memory())
                if i % SAMPLE_EVERY == 0 and i >= JOBS - WINDOW:
                    late.append(tree_memory())
                if i == JOBS:
                    break
                pending.add(engine.submit(job_for(i, site)))
                if len(pending) >= IN_FLIGHT:
                    done, pending = wait(pending, return_when="FIRST_COMPLETED")
                    failures += [str(f.exception()) for f in done if f.exception()]
            done, _ = wait(pending)
            failures += [str(f.exception()) for f in done if f.exception()]
        server.shutdown()
    baseline = (mean(m[0] for m in early), mean(m[1] for m in early))
    final = (mean(m[0] for m in late), mean(m[1] for m in late))
    seconds = time.perf_counter() - started
    rss_growth = (final[0] - baseline[0]) / baseline[0] * 100
    pss_growth = (final[1] - baseline[1]) / baseline[1] * 100
    line = (
        f"{'soak of 1000 mixed jobs':<34} failures {len(failures)}  "
        f"mean RSS {baseline[0] / 2**20:.0f} -> {final[0] / 2**20:.0f} MB "
        f"({rss_growth:+.1f}%), PSS {baseline[1] / 2**20:.0f} -> {final[1] / 2**20:.0f} MB ({pss_growth:+.1f}%)  "
        f"{JOBS / seconds:.1f} jobs/s  (target 0 failures, RSS growth <= 15%)"
    )
    print(line, flush=True)
    for failure in failures[:5]:
        print("  failure:", failure)
    return line


if __name__ == "__main__":
    main()
