"""The `pressroom` command: the contract's options, exit statuses, one-line errors, atomic outputs.

Most tests call ``main()`` in this process with the shared warm engine (the same code path as the real
command, minus browser start-up); a few run the real ``python -m app`` to check what a user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Run, _env, leftovers, write
from tests.conftest import TestSite, close_to, image, page_size_mm, pdf_text, rgb

# -- html2pdf --------------------------------------------------------------------------------------


def test_html2pdf_one_file(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "invoice.html", "<h1>Invoice 42</h1>")
    status, out, err = run("html2pdf", "invoice.html", "-o", "invoice.pdf")
    assert status == 0, err
    data = (tmp_path / "invoice.pdf").read_bytes()
    assert "Invoice 42" in pdf_text(data)[0]
    assert page_size_mm(data) == pytest.approx((210, 297), abs=0.6)
    assert "wrote invoice.pdf" in err and out == ""


def test_html2pdf_page_options(run: Run, tmp_path: Path) -> None:
    pages = "".join(f'<p style="break-after:page">Page {n}</p>' for n in range(1, 5))
    write(tmp_path / "doc.html", "<style>html{background:rgb(0,128,0)}</style>" + pages)
    status, _, err = run(
        "html2pdf",
        "doc.html",
        "-o",
        "doc.pdf",
        "--format",
        "letter",
        "--landscape",
        "--margin",
        "10mm",
        "--margin-top",
        "20mm",
        "--scale",
        "0.9",
        "--no-background",
        "--page-ranges",
        "2-3",
        "--media",
        "screen",
        "--tagged",
    )
    assert status == 0, err
    data = (tmp_path / "doc.pdf").read_bytes()
    assert page_size_mm(data) == pytest.approx((279.4, 215.9), abs=0.6)
    assert [t.strip() for t in pdf_text(data)] == ["Page 2", "Page 3"]


def test_html2pdf_custom_size_header_footer_outline(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "doc.html", "<h1>Chapter one</h1><p style='break-after:page'>a</p><h1>Chapter two</h1>")
    write(tmp_path / "header.html", "<span>TOP OF PAGE</span>")
    write(tmp_path / "footer.html", '<span>Folio <span class="pageNumber"></span></span>')
    status, _, err = run(
        "html2pdf",
        "doc.html",
        "-o",
        "doc.pdf",
        "--width",
        "150mm",
        "--height",
        "200mm",
        "--header",
        "header.html",
        "--footer",
        "footer.html",
        "--outline",
    )
    assert status == 0, err
    data = (tmp_path / "doc.pdf").read_bytes()
    assert page_size_mm(data) == pytest.approx((150, 200), abs=0.6)
    text = pdf_text(data)
    assert all("TOP OF PAGE" in page for page in text)
    assert "Folio 2" in text[1]
    from tests.conftest import pdf

    assert [item.title for item in pdf(data).outline] == ["Chapter one", "Chapter two"]


def test_html2pdf_waits_and_base_url(run: Run, tmp_path: Path, site: TestSite) -> None:
    html = (
        "<p id=t>early</p><script>setTimeout(() => { document.getElementById('t').textContent = 'LATE';"
        " window.ok = true; const d = document.createElement('div'); d.id = 'done'; document.body.append(d); }, 400)</script>"
    )
    write(tmp_path / "late.html", html)
    for flags in (["--wait-for", "#done"], ["--wait-expression", "window.ok === true"], ["--delay", "800"]):
        status, _, err = run("html2pdf", "late.html", "-o", "late.pdf", *flags)
        assert status == 0, err
        assert "LATE" in pdf_text((tmp_path / "late.pdf").read_bytes())[0], flags
    write(tmp_path / "img.html", '<img src="red.png" style="width:200px;height:200px">')
    status, _, err = run("html2pdf", "img.html", "-o", "img.pdf", "--base-url", site.url + "/")
    assert status == 0, err
    assert site.hits("/red.png") >= 1


def test_stdin_to_stdout_bytes(tmp_path: Path) -> None:
    """The real command in a pipe: HTML in, PDF bytes out, nothing else on stdout."""
    result = subprocess.run(
        [sys.executable, "-m", "app", "html2pdf", "-", "-o", "-", "-q"],
        input=b"<h1>Through a pipe</h1>",
        capture_output=True,
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Through a pipe" in pdf_text(result.stdout)[0]
    assert result.stderr == b""


def test_batch_to_a_folder_with_json(run: Run, tmp_path: Path) -> None:
    for n in range(5):
        write(tmp_path / f"doc{n}.html", f"<h1>Batch item {n}</h1>")
    status, out, err = run("html2pdf", *(f"doc{n}.html" for n in range(5)), "-o", "out", "--json")
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["input"] for r in records) == [f"doc{n}.html" for n in range(5)]
    for record in records:
        assert record["ok"] and record["pages"] == 1 and record["media_type"] == "application/pdf"
        n = record["input"][3]
        assert f"Batch item {n}" in pdf_text(Path(record["output"]).read_bytes())[0]


def test_batch_keeps_going_past_failures(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "good1.html", "<p>one</p>")
    write(tmp_path / "good2.html", "<p>two</p>")
    write(tmp_path / "slow.html", "<p>x</p>")
    status, out, err = run(
        "html2pdf",
        "good1.html",
        "missing.html",
        "slow.html",
        "good2.html",
        "-o",
        "out",
        "--wait-for",
        "#never",
        "--timeout",
        "1",
        "--json",
    )
    assert status == 1
    lines = [line for line in err.splitlines() if line.startswith("pressroom: error:")]
    assert len(lines) == 4, err  # both good ones time out too: they wait for #never
    assert any("missing.html: no such file" in line for line in lines)
    assert not list((tmp_path / "out").glob("*.pdf")), "failed items write nothing"
    assert leftovers(tmp_path) == []
    assert len([json.loads(line) for line in out.splitlines()]) == 4


def test_batch_mixed_success_and_failure(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.html", "<p>a</p>")
    write(tmp_path / "b.html", "<p>b</p>")
    status, _, err = run("html2pdf", "a.html", "nope.html", "b.html", "-o", "out")
    assert status == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.pdf", "b.pdf"]
    assert err.count("pressroom: error:") == 1 and "nope.html" in err


def test_two_inputs_with_one_name(run: Run, tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    write(tmp_path / "x" / "same.html", "a")
    write(tmp_path / "y" / "same.html", "b")
    status, _, err = run("html2pdf", "x/same.html", "y/same.html", "-o", "out")
    assert status == 2 and "would both be written" in err


# -- html2png and screenshot -----------------------------------------------------------------------


def test_html2png_options(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path / "box.html",
        '<body style="margin:0"><div id=b style="width:60px;height:40px;background:rgb(0,0,255)"></div>'
        '<div style="height:2000px"></div></body>',
    )
    status, _, err = run("html2png", "box.html", "-o", "box.png", "--width", "300", "--height", "200", "--scale", "2")
    assert status == 0, err
    data = (tmp_path / "box.png").read_bytes()
    assert image(data).size == (600, 400) and close_to(rgb(data, 50, 30), (0, 0, 255))
    status, _, err = run("html2png", "box.html", "-o", "full.png", "--width", "300", "--full-page")
    assert status == 0 and image((tmp_path / "full.png").read_bytes()).size == (300, 2040)
    status, _, err = run("html2png", "box.html", "-o", "el.png", "--selector", "#b", "--omit-background")
    assert status == 0 and image((tmp_path / "el.png").read_bytes()).size == (60, 40)


def test_html2png_type_from_extension_or_flag(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "p.html", "<p>picture</p>")
    assert run("html2png", "p.html", "-o", "p.jpg")[0] == 0
    assert image((tmp_path / "p.jpg").read_bytes()).format == "JPEG"
    assert run("html2png", "p.html", "-o", "p.webp", "--quality", "50")[0] == 0
    assert image((tmp_path / "p.webp").read_bytes()).format == "WEBP"
    assert run("html2png", "p.html", "-o", "out", "--type", "jpeg", "--dark", "--wait-for", "p", "--delay", "10")[0] == 0
    assert image((tmp_path / "out").read_bytes()).format == "JPEG"


def test_mismatched_extensions_are_warned_about(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "p.html", "<p>picture</p>")
    status, _, err = run("html2png", "p.html", "-o", "p.png", "--type", "webp")
    assert status == 0 and "p.png will hold a WEBP image" in err
    assert image((tmp_path / "p.png").read_bytes()).format == "WEBP"
    status, _, err = run("html2pdf", "p.html", "-o", "p.html.out")
    assert status == 0 and "will hold a PDF" in err


def test_screenshot_command(run: Run, tmp_path: Path, site: TestSite) -> None:
    status, _, err = run(
        "screenshot",
        site.url + "/page.html",
        "-o",
        "shot.png",
        "--width",
        "300",
        "--height",
        "250",
        "--wait-until",
        "networkidle",
    )
    assert status == 0, err
    data = (tmp_path / "shot.png").read_bytes()
    assert image(data).size == (300, 250) and close_to(rgb(data, 70, 55), (255, 0, 0))
    status, _, err = run(
        "screenshot", site.url + "/lazy.html", site.url + "/page.html", "-o", "shots", "--full-page", "--no-scroll"
    )
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "shots").iterdir()) == ["127.0.0.1_lazy.html.png", "127.0.0.1_page.html.png"]


# -- errors: one line, the right exit status, nothing written -----------------------------------------


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["html2pdf", "missing.html", "-o", "x.pdf"], 2, "missing.html: no such file"),
        (["html2pdf", "folder", "-o", "x.pdf"], 2, "is a folder"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--format", "B5"], 2, "unknown paper format 'B5'"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--width", "210"], 2, "needs a unit"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--width", "210mm"], 2, "both width and height"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--format", "A4", "--width", "1in", "--height", "1in"], 2, "exclude each other"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--scale", "3"], 2, "out of range"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--page-ranges", "3-1"], 2, "runs backwards"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--page-ranges", "9"], 2, "beyond the last page"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--header", "nope.html"], 2, "--header nope.html: no such file"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--base-url", "ftp://x"], 2, "--base-url"),
        (["html2pdf", "ok.html", "-o", "no/such/dir/x.pdf"], 2, "does not exist"),
        (["html2pdf", "ok.html", "ok.html", "-o", "-"], 2, "several inputs"),
        (["html2pdf", "-", "-", "-o", "x"], 2, "only once"),
        (["html2pdf", "ok.html", "-o", "-", "--json"], 2, "both write to standard output"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--wait-expression", "nothing.here"], 2, "wait expression failed"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--wait-for", "#never", "--timeout", "1"], 1, "timed out"),
        (["html2png", "ok.html", "-o", "x.png", "--quality", "50"], 2, "JPEG and WebP only"),
        (["html2png", "ok.html", "-o", "x.jpg", "--omit-background"], 2, "no transparency"),
        (["html2png", "ok.html", "-o", "x.png", "--selector", "#nothing"], 2, "no element matches"),
        (["html2png", "ok.html", "-o", "x.png", "--width", "0"], 2, "out of range"),
        (["html2png", "ok.html", "-o", "x.gif"], 2, "Pressroom writes PNG, JPEG and WebP"),
        (["screenshot", "not a url", "-o", "x.png"], 2, "not a web address"),
        (["screenshot", "ftp://example.com/", "-o", "x.png"], 2, "not a web address"),
        (["screenshot", "http://127.0.0.1:9/", "-o", "x.png"], 1, "could not load"),
        (["html2pdf", "ok.html", "-o", "x.pdf", "--engine", "remote"], 2, "execution URL is not set"),
        (["html2pdf", "ok.html"], 2, "-o/--output"),
        (["frobnicate"], 2, "invalid choice"),
    ],
)
def test_errors(run: Run, tmp_path: Path, argv: list[str], status: int, message: str) -> None:
    write(tmp_path / "ok.html", "<p>fine</p>")
    (tmp_path / "folder").mkdir()
    code, _, err = run(*argv)
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pressroom: error: "), err
    assert message in lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.png").exists() and not (tmp_path / "x.jpg").exists()
    assert leftovers(tmp_path) == []


def test_failed_run_keeps_the_old_file_whole(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "ok.html", "<p>fine</p>")
    (tmp_path / "keep.pdf").write_bytes(b"%PDF-1.4 previous version")
    status, _, _ = run("html2pdf", "ok.html", "-o", "keep.pdf", "--wait-for", "#never", "--timeout", "1")
    assert status == 1
    assert (tmp_path / "keep.pdf").read_bytes() == b"%PDF-1.4 previous version"
    assert leftovers(tmp_path) == []


def test_real_command_errors_are_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "html2pdf", "missing.html", "-o", "out.pdf"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == "pressroom: error: missing.html: no such file. Check the path\n"
    assert not (tmp_path / "out.pdf").exists()


def test_real_command_verbose_shows_the_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "-v", "html2pdf", "missing.html", "-o", "out.pdf"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 2
    assert "Traceback" in result.stderr and result.stderr.rstrip().endswith("no such file. Check the path")


def test_real_command_converts(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<h1>Real command</h1>")
    result = subprocess.run(
        [sys.executable, "-m", "app", "html2pdf", "page.html", "-o", "page.pdf", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["ok"] and record["pages"] == 1 and record["output"] == "page.pdf"
    assert "Real command" in pdf_text((tmp_path / "page.pdf").read_bytes())[0]


def test_no_command_without_a_display_says_so(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pressroom` alone opens the window (tests/gui); with nowhere to show it, one line and the way out."""
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    status, out, err = run()
    assert status == 1 and out == ""
    assert err.startswith("pressroom: error: there is no display to open the window on") and "pressroom --help" in err


def test_help_does_not_load_the_browser_stack() -> None:
    code = "import sys; from app.cli import main; main(['--help']) ; print('playwright' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=60)
    assert result.stdout.strip().endswith("False")
    assert "html2pdf" in result.stdout


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    import pty
    import re

    for n in range(3):
        write(tmp_path / f"p{n}.html", f"<p>{n}</p>")
    primary, secondary = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "html2pdf", "p0.html", "p1.html", "p2.html", "-o", "out", "--delay", "300"],
        stdout=subprocess.DEVNULL,
        stderr=secondary,
        cwd=tmp_path,
        env=_env(),
    )
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=120) == 0
    os.close(primary)
    assert re.search(rb"\d/3 \[", seen), seen.decode(errors="replace")
    assert len(list((tmp_path / "out").glob("*.pdf"))) == 3


def test_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    """Ctrl+C reaches the whole process group (Python, the driver, Chromium), as from a terminal."""
    import signal
    import time

    names = []
    for n in range(40):
        names.append(write(tmp_path / f"doc{n:02d}.html", f"<p>{n}</p>").name)
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "html2pdf", *names, "-o", "out", "--delay", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=_env(),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list((tmp_path / "out").glob("*.pdf")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.decode().rstrip().endswith("pressroom: interrupted; nothing more was written")
    assert "Traceback" not in err.decode()
    written = list((tmp_path / "out").iterdir())
    assert 0 < len(written) < 40
    assert all(p.suffix == ".pdf" and pdf_text(p.read_bytes()) for p in written), f"only whole PDFs, no leftovers: {written}"
