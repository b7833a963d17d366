"""`pressroom merge`: inputs as users type them, errors with the contract's exit statuses, no partial file."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from tests.cli.conftest import Run, _env, leftovers
from tests.conftest import SECTIONS, TestSite, pdf_text


def first_lines(data: bytes) -> list[str]:
    return [" ".join(text.split())[:22].rstrip() for text in pdf_text(data)]


@pytest.fixture
def here(tmp_path: Path, reports: list[Path]) -> Path:
    """The reports copied into the test's folder, plus a folder of numbered parts."""
    for path in reports:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    parts = tmp_path / "parts"
    parts.mkdir()
    for n, source in ((10, reports[2]), (2, reports[1]), (1, reports[0])):
        (parts / f"part{n}.pdf").write_bytes(source.read_bytes())
    return tmp_path


def test_merge_files_folders_and_pages(run: Run, here: Path) -> None:
    status, _, err = run("merge", "report3.pdf:1", "parts", "report1.pdf:2-3", "-o", "book.pdf", "--title", "The book")
    assert status == 0, err
    data = (here / "book.pdf").read_bytes()
    assert first_lines(data)[0] == "Report 3 Go to section"
    lines = first_lines(data)
    # the folder in natural order: part1 (report 1), part2 (report 2), part10 (report 3)
    assert [lines[i][:8] for i in (1, 1 + 4, 1 + 8)] == ["Report 1", "Report 2", "Report 3"]
    assert lines[-2:] == ["Section 1 of report 1", "Section 2 of report 1"]
    reader = PdfReader(io.BytesIO(data))
    assert reader.metadata is not None and reader.metadata.title == "The book"
    assert "wrote book.pdf" in err


def test_sort_and_bookmarks(run: Run, here: Path) -> None:
    status, out, err = run(
        "merge",
        "parts/part10.pdf",
        "parts/part2.pdf",
        "parts/part1.pdf",
        "-o",
        "sorted.pdf",
        "--sort",
        "natural",
        "--bookmarks",
        "per-file",
        "--json",
    )
    assert status == 0, err
    record = json.loads(out)
    assert record["ok"] and record["pages"] == 3 * (SECTIONS + 1)
    reader = PdfReader(io.BytesIO((here / "sorted.pdf").read_bytes()))
    top = [item.title for item in reader.outline if not isinstance(item, list)]
    assert top == ["Report 1", "Report 2", "Report 3"]
    status, _, _ = run("merge", "report1.pdf", "report2.pdf", "-o", "plain.pdf", "--bookmarks", "none")
    assert status == 0 and PdfReader(str(here / "plain.pdf")).outline == []


def test_passwords(run: Run, here: Path) -> None:
    writer = PdfWriter(clone_from=str(here / "report1.pdf"))
    writer.encrypt(user_password="open sesame", owner_password="owner", algorithm="AES-256")
    writer.write(here / "locked.pdf")
    status, _, err = run("merge", "locked.pdf", "report2.pdf", "-o", "out.pdf")
    assert status == 2
    assert err.strip() == "pressroom: error: locked.pdf is encrypted. Give its password: --password locked.pdf=PASSWORD"
    status, _, err = run("merge", "locked.pdf", "report2.pdf", "-o", "out.pdf", "--password", "locked.pdf=wrong")
    assert status == 2 and "does not open it" in err and "=wrong" not in err
    status, _, err = run("merge", "locked.pdf", "report2.pdf", "-o", "out.pdf", "--password", "locked.pdf=open sesame")
    assert status == 0, err
    assert len(pdf_text((here / "out.pdf").read_bytes())) == 2 * (SECTIONS + 1)
    assert "open sesame" not in err


def test_urls(run: Run, here: Path, site: TestSite, reports: list[Path]) -> None:
    (site.directory / "cli-report.pdf").write_bytes(reports[1].read_bytes())
    status, _, err = run("merge", f"{site.url}/cli-report.pdf:1", "report1.pdf:1", "-o", "web.pdf")
    assert status == 0, err
    assert [line[:8] for line in first_lines((here / "web.pdf").read_bytes())] == ["Report 2", "Report 1"]
    status, _, err = run("merge", f"{site.url}/status/404", "report1.pdf", "-o", "web2.pdf")
    assert status == 1 and "answered HTTP 404" in err and not (here / "web2.pdf").exists()


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["merge", "missing.pdf", "-o", "x.pdf"], 2, "missing.pdf: no such file"),
        (["merge", "notes.txt", "-o", "x.pdf"], 2, "notes.txt is not a PDF file"),
        (["merge", "report1.pdf:9", "-o", "x.pdf"], 2, "report1.pdf has 4 pages; page 9"),
        (["merge", "report1.pdf:3-1", "-o", "x.pdf"], 2, "runs backwards"),
        (["merge", "report1.pdf", "-o", "report1.pdf"], 2, "is also an input"),
        (["merge", "report1.pdf", "-o", "x.pdf", "--password", "other.pdf=s3cret"], 2, "other.pdf, which is not among"),
        (["merge", "report1.pdf", "-o", "x.pdf", "--password", "nosecret"], 2, "FILE=SECRET"),
        (["merge", "report1.pdf", "-o", "x.pdf", "--sort", "size"], 2, "not one of natural, name, modified"),
        (["merge", "report1.pdf", "-o", "x.pdf", "--bookmarks", "all"], 2, "not one of keep, per-file, none"),
        (["merge", "empty", "-o", "x.pdf"], 2, "has no PDF files"),
        (["merge", "report1.pdf", "-o", "nowhere/x.pdf"], 2, "does not exist"),
    ],
)
def test_merge_errors(run: Run, here: Path, argv: list[str], status: int, message: str) -> None:
    (here / "notes.txt").write_text("not a pdf")
    (here / "empty").mkdir()
    before = (here / "report1.pdf").read_bytes()
    code, _, err = run(*argv)
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pressroom: error: ") and message in lines[0], err
    assert "s3cret" not in err
    assert not (here / "x.pdf").exists() and leftovers(here) == []
    assert (here / "report1.pdf").read_bytes() == before


def test_real_merge_command_to_stdout(here: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "merge", "report1.pdf:1", "report2.pdf:1", "-o", "-", "-q"],
        capture_output=True,
        cwd=here,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert [line[:8] for line in first_lines(result.stdout)] == ["Report 1", "Report 2"]
