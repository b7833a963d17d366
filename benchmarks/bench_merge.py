"""Merge: `pressroom merge` of 100 inputs x 10 pages vs `qpdf --empty --pages ... -- out.pdf`, same run.

Inputs are reports rendered by Chromium from one template, each with an outline and internal links that
use the same destination names in every file. Both sides are whole processes, alternated five times;
the figure is the median. Pressroom's result is checked: every bookmark and every internal link must
land on the right page of its own document (qpdf's result has no outline at all).
Also printed: peak memory of merging 1000 inputs (target <= 500 MB), for Pressroom and for qpdf.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, alternate, median

from app.core.jobs import HtmlToPdf, PdfOptions
from app.engines.local import LocalEngine

FILES = 100
SECTIONS = 9  # pages per file: a contents page and nine sections
MANY = 1000


def report(n: int) -> str:
    toc = "".join(f'<li><a href="#s{k}">Section {k}</a></li>' for k in range(1, SECTIONS + 1))
    body = "".join(
        f'<h2 id="s{k}" style="break-before:page">Section {k} of report {n}</h2><p>Text.</p><a href="#top">Top</a>'
        for k in range(1, SECTIONS + 1)
    )
    return f'<title>Report {n}</title><h1 id="top">Report {n}</h1><ul>{toc}</ul>{body}'


def make_inputs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    with LocalEngine() as engine:
        futures = [engine.submit(HtmlToPdf(report(n), PdfOptions(outline=True))) for n in range(FILES)]
        paths = []
        for n, future in enumerate(futures):
            path = folder / f"report{n:03d}.pdf"
            path.write_bytes(future.result().data)
            paths.append(path)
    return paths


def check(data: bytes) -> str:
    """Every bookmark and internal link lands on the right page of its own document."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    pages = SECTIONS + 1
    assert len(reader.pages) == FILES * pages
    numbers = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    marks = 0
    for top in [item for item in reader.outline if not isinstance(item, list)]:
        assert reader.get_destination_page_number(top) % pages == 0
        marks += 1
    links = 0
    for i, page in enumerate(reader.pages):
        for ref in page.get("/Annots", []):
            target = numbers[ref.get_object()["/Dest"][0].idnum]
            assert target // pages == i // pages, f"link on page {i} lands in another document ({target})"
            links += 1
    assert marks == FILES and links == FILES * 2 * SECTIONS, (marks, links)
    return f"{marks} top bookmarks and {links} links land in their own document"


def peak_rss_mb(command: list[str]) -> float:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise RuntimeError(f"{command[:3]} failed: {process.stderr.read().decode()[-500:] if process.stderr else ''}")
    return usage.ru_maxrss / 1024  # kilobytes on Linux


def main() -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="pressroom-bench-merge-"))
    try:
        inputs = [str(p) for p in make_inputs(work / "in")]
        ours_cmd = [sys.executable, "-m", "app", "merge", *inputs, "-o", str(work / "ours.pdf"), "-q"]
        qpdf_cmd = ["qpdf", "--empty", "--pages", *inputs, "--", str(work / "qpdf.pdf")]

        def timed(command: list[str]) -> float:
            started = time.perf_counter()
            subprocess.run(command, check=True, cwd=ROOT)
            return time.perf_counter() - started

        timed(ours_cmd)
        timed(qpdf_cmd)
        ours, qpdf = alternate(5, lambda: timed(ours_cmd), lambda: timed(qpdf_cmd))
        verdict = check((work / "ours.pdf").read_bytes())
        lines = [
            f"{'merge 100 x 10 pages (median)':<34} pressroom {median(ours):9.3f} s       reference {median(qpdf):9.3f} s       "
            f"ratio {median(ours) / median(qpdf):5.2f}x  (target <= 1.5x; qpdf, no outline)  [{verdict}]"
        ]
        print(lines[0], flush=True)

        many = []
        for i in range(MANY):  # 1000 inputs: ten copies of each report
            copy = work / "many" / f"part{i:04d}.pdf"
            copy.parent.mkdir(exist_ok=True)
            shutil.copyfile(inputs[i % FILES], copy)
            many.append(str(copy))
        ours_peak = peak_rss_mb([sys.executable, "-m", "app", "merge", *many, "-o", str(work / "many.pdf"), "-q"])
        qpdf_peak = peak_rss_mb(["qpdf", "--empty", "--pages", *many, "--", str(work / "many-qpdf.pdf")])
        lines.append(
            f"{'merge 1000 inputs, peak memory':<34} pressroom {ours_peak:9.0f} MB      reference {qpdf_peak:9.0f} MB      "
            f"(target <= 500 MB; {MANY * (SECTIONS + 1)} pages, {os.path.getsize(work / 'many.pdf') / 2**20:.0f} MB out)"
        )
        print(lines[1], flush=True)
        return lines
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
