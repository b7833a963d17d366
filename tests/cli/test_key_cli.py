"""`pressroom key ...` and `--engine remote`, as a user runs them: real processes, a real keychain,
and the hosted service's test double. The key must never show on screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core import service
from tests.conftest import pdf_text
from tests.hosted_double import KEY, Answer, HostedDouble

ROOT = Path(__file__).parent.parent.parent
Command = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def pressroom(keychain: dict[str, str], hosted: HostedDouble, tmp_path: Path) -> Command:
    env = {k: v for k, v in keychain.items() if k != "PRESSROOM_API_KEY"}
    env.update(
        PYTHONPATH=str(ROOT),
        PRESSROOM_BASE_URL=hosted.url + "/base",
        PRESSROOM_EXEC_URL=hosted.url + "/exec",
        PRESSROOM_CONFIG_DIR=str(tmp_path / "config"),
    )

    def run(*argv: str, stdin: str = "", extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app", *argv],
            input=stdin,
            capture_output=True,
            text=True,
            env={**env, **(extra or {})},
            cwd=tmp_path,
            timeout=120,
        )

    run("key", "delete", "-q")
    return run


def shown(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def test_key_set_check_delete(pressroom: Command, hosted: HostedDouble) -> None:
    stored = pressroom("key", "set", stdin=KEY + "\n")
    assert stored.returncode == 0, stored.stderr
    assert f"the API key {service.redact(KEY)} is stored" in stored.stderr

    check = pressroom("key", "check")
    assert check.returncode == 0, check.stderr
    assert "Workspace:" in check.stdout and "Acme Reports" in check.stdout
    assert "ws-123" in check.stdout and "5000" in check.stdout
    assert "2025-01-01 00:00 UTC (1735689600000)" in check.stdout  # a date, and the raw number
    assert hosted.seen[-1].headers["x-api-key"] == KEY  # the stored key was the one used

    raw = pressroom("key", "check", "--json")
    record = json.loads(raw.stdout)
    assert record["workspaceId"] == "ws-123" and record["futureField"] == {"nested": True}
    assert record["apiKey"] == service.redact(KEY) and record["apiKeyData"]["value"] == service.redact(KEY)

    gone = pressroom("key", "delete")
    assert gone.returncode == 0 and "removed" in gone.stderr
    missing = pressroom("key", "check")
    assert missing.returncode == 2
    assert (
        missing.stderr.strip()
        == "pressroom: error: no API key is stored. Store yours with 'pressroom key set', or set PRESSROOM_API_KEY"
    )
    for result in (stored, check, raw, gone, missing):
        assert KEY not in shown(result)


def test_the_key_never_goes_on_the_command_line(pressroom: Command) -> None:
    result = pressroom("key", "set", KEY)
    assert result.returncode == 2 and "never given on the command line" in result.stderr
    assert KEY not in shown(result)
    assert pressroom("key", "check").returncode == 2, "nothing was stored"


def test_rejected_key(pressroom: Command, hosted: HostedDouble) -> None:
    pressroom("key", "set", stdin="wrong-key-0000000000000")
    hosted.answer(Answer(401, b'{"error":"unknown key"}', "application/json"))
    result = pressroom("key", "check")
    assert result.returncode == 2
    assert "refused the API key (HTTP 401" in result.stderr and "pressroom key set" in result.stderr
    assert "wrong-key-0000000000000" not in shown(result)


def test_remote_engine_from_the_command_line(pressroom: Command, hosted: HostedDouble, tmp_path: Path) -> None:
    pressroom("key", "set", stdin=KEY)
    (tmp_path / "page.html").write_text("<h1>Remote page</h1>")
    result = pressroom("html2pdf", "page.html", "-o", "page.pdf", "--engine", "remote")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "page.pdf").read_bytes().startswith(b"%PDF-")
    seen = hosted.seen[-1]
    assert seen.path == f"/exec/__js1-{KEY}" and seen.json["input"] == "<h1>Remote page</h1>"
    assert seen.headers["service-origin"] == "pressroom/generatePDF"

    shot = pressroom(
        "screenshot",
        "https://example.com/",
        "-o",
        "shot.png",
        "--engine",
        "remote",
        extra={"PRESSROOM_ORIGIN_HEADER": "x-flow-origin", "PRESSROOM_INTEGRATION": "make"},
    )
    assert shot.returncode == 0, shot.stderr
    assert hosted.seen[-1].headers["x-flow-origin"] == "make/screenshot"

    refused = pressroom("html2pdf", "page.html", "-o", "x.pdf", "--engine", "remote", "--landscape")
    assert refused.returncode == 2 and "takes no PDF options" in refused.stderr
    merge = pressroom("merge", "page.pdf", "page.pdf", "-o", "m.pdf", "--engine", "remote")
    assert merge.returncode == 2 and "is a file on this computer" in merge.stderr

    hosted.answer(Answer(503, b"<html>down for maintenance</html>", "text/html"))
    down = pressroom("html2pdf", "page.html", "-o", "y.pdf", "--engine", "remote", "-v")
    assert down.returncode == 1 and "the service failed (HTTP 503" in down.stderr
    assert not (tmp_path / "y.pdf").exists()
    for item in (result, shot, refused, merge, down):
        assert KEY not in shown(item), "not even in -v tracebacks"


def test_environment_key_without_a_keychain(hosted: HostedDouble, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    env.update(PYTHONPATH=str(ROOT), PRESSROOM_BASE_URL=hosted.url + "/base", PRESSROOM_API_KEY=KEY,
               PRESSROOM_CONFIG_DIR=str(tmp_path))  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "app", "key", "check"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0 and "Acme Reports" in result.stdout and "PRESSROOM_API_KEY" in result.stdout
    env.pop("PRESSROOM_API_KEY")
    stored = subprocess.run([sys.executable, "-m", "app", "key", "set"], input="abcdefghijklmnop", capture_output=True,
                            text=True, env=env, timeout=60)  # fmt: skip
    assert stored.returncode == 1 and "no system keychain is available" in stored.stderr
    assert len(stored.stderr.strip().splitlines()) == 1


def test_remote_pdf_through_the_real_server(keychain: dict[str, str], tmp_path: Path, engine: object) -> None:
    """`--engine remote` all the way to `pressroom serve`: the PDF a user gets is a real one."""
    import threading

    from app.engines.local import LocalEngine
    from app.server.server import KeyBook, PressroomServer, ServerConfig, Workspace

    assert isinstance(engine, LocalEngine)
    server = PressroomServer(engine, KeyBook([Workspace(KEY, "Loopback", 0)]), ServerConfig(port=0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (tmp_path / "doc.html").write_text("<h1>All the way round</h1>")
        env = {**keychain, "PYTHONPATH": str(ROOT), "PRESSROOM_EXEC_URL": server.url, "PRESSROOM_API_KEY": KEY,
               "PRESSROOM_CONFIG_DIR": str(tmp_path / "config")}  # fmt: skip
        result = subprocess.run([sys.executable, "-m", "app", "html2pdf", "doc.html", "-o", "doc.pdf", "--engine", "remote"],
                                capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert "All the way round" in pdf_text((tmp_path / "doc.pdf").read_bytes())[0]
    finally:
        server.shutdown()
        server.server_close()
