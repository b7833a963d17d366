"""`pressroom script`: a script file in, a PNG (or the returned file) out, the return value on request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Run, _env, leftovers, write
from tests.conftest import TestSite, close_to, image, pdf_text, rgb


def test_script_with_url_result_and_console(run: Run, tmp_path: Path, site: TestSite) -> None:
    write(
        tmp_path / "order.js",
        "await page.setViewport({ width: 640, height: 480 });\n"
        "await page.type('#name', 'Lin');\n"
        "await page.click('#go');\n"
        "await page.waitForSelector('#out.done');\n"
        "console.log('greeted', await page.$eval('#out', el => el.textContent));\n"
        "return { title: await page.title() };\n",
    )
    status, _, err = run("script", "order.js", "-o", "order.png", "--url", f"{site.url}/form.html", "--result", "result.json")
    assert status == 0, err
    assert json.loads((tmp_path / "result.json").read_text()) == {"title": "Order form"}
    picture = (tmp_path / "order.png").read_bytes()
    assert image(picture).size == (640, 480) and close_to(rgb(picture, 150, 250), (0, 0, 255))
    assert "[log] greeted Hello, Lin" in err and "wrote order.png" in err


def test_returned_pdf_and_full_page(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "doc.js", "await page.setContent('<h1>Printed by a script</h1>');\nreturn await page.pdf();")
    status, _, err = run("script", "doc.js", "-o", "doc.pdf", "--json")
    assert status == 0, err
    assert "Printed by a script" in pdf_text((tmp_path / "doc.pdf").read_bytes())[0]
    write(tmp_path / "tall.js", "await page.setContent('<div style=\"height:2000px\"></div>');")
    status, out, err = run("script", "tall.js", "-o", "tall.png", "--full-page", "--json")
    assert status == 0, err
    assert json.loads(out)["height"] >= 2000


def test_stdin_script(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", "script", "-", "-o", "out.png", "--result", "r.json", "-q"],
        input="return 6 * 7;",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "r.json").read_text()) == 42
    assert image((tmp_path / "out.png").read_bytes()).size == (1280, 800)


@pytest.mark.parametrize(
    ("script", "extra", "status", "message"),
    [
        ("const x = ;", [], 2, "syntax error at line 1, column 11"),
        ("\nthrow new Error('nope');", [], 1, "the script failed at line 2: Error: nope"),
        ("while (true) {}", ["--timeout", "2"], 1, "did not finish within 2 s"),
        ("return 1;", ["--url", "not a url"], 2, "not a web address"),
        ("return 1;", ["--result", "out.png"], 2, "name the same file"),
        ("   ", [], 2, "the script is empty"),
    ],
)
def test_script_errors(run: Run, tmp_path: Path, script: str, extra: list[str], status: int, message: str) -> None:
    write(tmp_path / "s.js", script)
    code, _, err = run("script", "s.js", "-o", "out.png", *extra)
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pressroom: error:") and message in lines[0], err
    assert not (tmp_path / "out.png").exists() and leftovers(tmp_path) == []


def test_missing_script_file(run: Run) -> None:
    code, _, err = run("script", "nope.js", "-o", "out.png")
    assert code == 2 and "nope.js: no such file" in err
