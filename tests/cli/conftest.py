"""Fixtures of the command-line tests."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from app.cli import main
from app.engines.local import LocalEngine

ROOT = Path(__file__).parent.parent.parent

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(engine: LocalEngine, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``run("html2pdf", "a.html", "-o", "a.pdf")`` -> (exit status, stdout, stderr), in tmp_path."""
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        status = main(list(argv), engine=engine)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return invoke


def write(path: Path, html: str) -> Path:
    path.write_text(html, encoding="utf-8")
    return path


def leftovers(folder: Path) -> list[str]:
    """Temporary files an atomic write would leave if it went wrong."""
    return [p.name for p in folder.rglob("*") if p.name.endswith(".part")]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}
