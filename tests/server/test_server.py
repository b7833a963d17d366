"""`pressroom serve`: the remote engine against it for all five operations, and what it must refuse."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.core import service
from app.core.errors import InvalidUrl, KeyRejected, RequestRejected
from app.core.jobs import HtmlToImage, HtmlToPdf, Job, MergePdfs, MergeSource, RunScript, Screenshot
from app.core.service import Operation
from app.engines.local import LocalEngine, LocalEngineConfig
from app.engines.remote import RemoteConfig, RemoteEngine
from app.server.server import KeyBook, PressroomServer, ServerConfig, Workspace
from tests.conftest import TestSite, image, page_size_mm, pdf, pdf_text

KEY = "serve-test-key-5d1e8a0c7b2f"


def start(engine: LocalEngine, **options: object) -> PressroomServer:
    config = ServerConfig(port=0, **options)  # type: ignore[arg-type]
    server = PressroomServer(engine, KeyBook([Workspace(KEY, "Test Workspace", 1_735_689_600)]), config)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def server(engine: LocalEngine) -> Iterator[PressroomServer]:
    running = start(engine)
    yield running
    running.shutdown()
    running.server_close()


@pytest.fixture
def remote(server: PressroomServer) -> Iterator[RemoteEngine]:
    with RemoteEngine(RemoteConfig(base_url=server.url, exec_url=server.url), key=KEY) as client:
        yield client


def both(engine: LocalEngine, remote: RemoteEngine, job: Job) -> tuple[bytes, bytes]:
    return engine.submit(job).result(timeout=90).data, remote.submit(job).result(timeout=90).data


# -- the five operations, equal in content to the local engine's -----------------------------------


def test_html_to_pdf(engine: LocalEngine, remote: RemoteEngine) -> None:
    job = HtmlToPdf("<title>Served</title><h1>Served remotely</h1><p style='break-before:page'>Second page</p>")
    local, served = both(engine, remote, job)
    assert pdf_text(served) == pdf_text(local) and len(pdf(served).pages) == 2
    assert page_size_mm(served) == page_size_mm(local)


def test_html_to_png(engine: LocalEngine, remote: RemoteEngine) -> None:
    local, served = both(engine, remote, HtmlToImage("<body style='margin:0;background:rgb(0,90,180)'><h1>PNG</h1></body>"))
    assert image(served).size == image(local).size == (1280, 800)
    assert image(served).convert("RGB").tobytes() == image(local).convert("RGB").tobytes()


def test_screenshot(engine: LocalEngine, remote: RemoteEngine, site: TestSite) -> None:
    local, served = both(engine, remote, Screenshot(site.url + "/page.html"))
    assert image(served).convert("RGB").tobytes() == image(local).convert("RGB").tobytes()


def test_merge(engine: LocalEngine, remote: RemoteEngine, site: TestSite, reports: list[Path]) -> None:
    for path in reports:
        (site.directory / f"served-{path.name}").write_bytes(path.read_bytes())
    job = MergePdfs(tuple(MergeSource(f"{site.url}/served-{p.name}") for p in reports))
    local, served = both(engine, remote, job)
    assert pdf_text(served) == pdf_text(local) and len(pdf(served).pages) == 12


def test_puppeteer(engine: LocalEngine, remote: RemoteEngine) -> None:
    job = RunScript(
        "await page.setViewport({ width: 500, height: 300 });\nawait page.setContent('<h1 style=\"color:red\">Scripted</h1>');"
    )
    local, served = both(engine, remote, job)
    assert image(served).size == (500, 300)
    assert image(served).convert("RGB").tobytes() == image(local).convert("RGB").tobytes()


def test_key_check_has_the_specs_fields(remote: RemoteEngine) -> None:
    record = remote.check_key().result(timeout=30)
    assert record.name == "Test Workspace" and record.workspace_id and record.max_request_count == 0
    assert set(record.raw) >= set(service.ApiKeyRecord.KNOWN)
    assert record.jwt is not None and all(
        getattr(record.jwt, name) is not None
        for name in ("at_hash", "sub", "email_verified", "iss", "idp_username", "origin_jti", "aud", "token_use",
                     "auth_time", "user_id", "provider_name", "provider_type", "issuer", "primary", "jti", "email")
    )  # fmt: skip
    assert service.as_datetime(record.created_at).year == 2025  # type: ignore[union-attr]


def test_integration_code_forms_are_recognised(server: PressroomServer) -> None:
    """Quotes and whitespace as an integration may send them."""
    code = "const {HTML2PDF}=require('./utils')\n\n   return HTML2PDF( input )"
    body = {"input": "<p>tolerant</p>", "code": code, "returnBinary": "true"}
    response = httpx.post(server.url + service.execution_path(KEY), json=body, headers={"service-origin": "zapier/generatePDF"})
    assert response.status_code == 200 and "tolerant" in pdf_text(response.content)[0]


# -- refusals --------------------------------------------------------------------------------------


def post(server: PressroomServer, body: object, key: str = KEY, **options: object) -> httpx.Response:
    return httpx.post(server.url + service.execution_path(key), json=body, timeout=60, **options)  # type: ignore[arg-type]


def test_other_code_is_refused_and_never_run(server: PressroomServer, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = f"require('fs').writeFileSync({str(marker)!r}, 'x'); return HTML2PDF(input);"
    response = post(server, {"input": "<p>x</p>", "code": code, "returnBinary": "true"})
    assert response.status_code == 400 and "was not run" in response.json()["error"]
    assert not marker.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"input": 42, "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "true"},
            "input must be a non-empty string",
        ),
        ({"input": "x", "code": service.code_for(Operation.MERGE_PDFS), "returnBinary": "true"}, "list of PDF URLs"),
        (
            {"input": "file:///etc/passwd", "code": service.code_for(Operation.SCREENSHOT), "returnBinary": "true"},
            "not an http(s) URL",
        ),
        ({"input": "<p>", "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "false"}, "returnBinary"),
        (
            {"input": "const x = ;", "code": service.code_for(Operation.PUPPETEER), "returnBinary": "true"},
            "syntax error at line 1",
        ),
    ],
)
def test_bad_requests(server: PressroomServer, body: dict[str, object], message: str) -> None:
    response = post(server, body)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


def test_unknown_key_and_wrong_paths(server: PressroomServer) -> None:
    code = service.code_for(Operation.GENERATE_PDF)
    response = post(server, {"input": "<p>", "code": code, "returnBinary": "true"}, key="not-a-key-000000")
    assert response.status_code == 401 and response.json() == {"error": "unknown API key", "status": 401}
    check = httpx.get(server.url + service.key_check_path(KEY))  # no x-api-key header
    assert check.status_code == 401
    assert httpx.get(server.url + "/elsewhere").status_code == 404
    assert httpx.put(server.url + service.execution_path(KEY), content=b"{}").status_code == 405
    assert post(server, None, content=b"not json", headers={"Content-Type": "application/json"}).status_code == 400


def test_body_over_the_limit(engine: LocalEngine) -> None:
    small = start(engine, max_body=1000)
    try:
        code = service.code_for(Operation.GENERATE_PDF)
        response = post(small, {"input": "x" * 5000, "code": code, "returnBinary": "true"})
        assert response.status_code == 413
        with RemoteEngine(RemoteConfig(exec_url=small.url), key=KEY) as client, pytest.raises(RequestRejected, match="413"):
            client.submit(HtmlToPdf("<p>" + "y" * 5000 + "</p>")).result(timeout=30)
    finally:
        small.shutdown()
        small.server_close()


def test_queue_full_and_engine_timeout(engine: LocalEngine, site: TestSite) -> None:
    busy = start(engine, queue=1, job_timeout=2.0)
    try:
        slow = {
            "input": f"{site.url}/slow/page.html?ms=4000",
            "code": service.code_for(Operation.SCREENSHOT),
            "returnBinary": "true",
        }
        results: list[httpx.Response] = []
        first = threading.Thread(target=lambda: results.append(post(busy, slow)))
        first.start()
        time.sleep(0.5)
        second = post(busy, {"input": "<p>", "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "true"})
        assert second.status_code == 429 and second.headers["Retry-After"] == "2"
        first.join(30)
        assert results[0].status_code == 504, results[0].text
    finally:
        busy.shutdown()
        busy.server_close()


def test_private_addresses_are_refused_unless_allowed(site: TestSite, reports: list[Path]) -> None:
    (site.directory / "private.pdf").write_bytes(reports[0].read_bytes())
    with LocalEngine(LocalEngineConfig(concurrency=1, allow_private_urls=False)) as guarded_engine:
        guarded = start(guarded_engine)
        try:
            with RemoteEngine(RemoteConfig(exec_url=guarded.url), key=KEY) as client:
                with pytest.raises(RequestRejected, match="private or local address"):
                    client.submit(MergePdfs((MergeSource(f"{site.url}/private.pdf"),))).result(timeout=60)
                with pytest.raises(RequestRejected, match="private or local address"):
                    client.submit(Screenshot(f"{site.url}/page.html")).result(timeout=60)
                # a public document may not pull a private image either: the image stays away
                html = f'<img src="{site.url}/red.png" style="width:100px;height:100px">'
                hits = site.hits("/red.png")
                client.submit(HtmlToImage(html)).result(timeout=60)
                assert site.hits("/red.png") == hits
        finally:
            guarded.shutdown()
            guarded.server_close()


def test_keys_are_redacted_in_the_log(server: PressroomServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="pressroom")
    post(server, {"input": "<p>", "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "true"})
    post(server, {"input": "<p>", "code": "nope", "returnBinary": "true"}, key="another-secret-key-123")
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert f"__js1-{service.redact(KEY)}" in text
    assert KEY not in text and "another-secret-key-123" not in text


def test_remote_errors_from_the_server(remote: RemoteEngine) -> None:
    with pytest.raises(InvalidUrl, match="cannot open"):
        remote.submit(Screenshot("file:///etc/hostname")).result(timeout=30)
    with (
        RemoteEngine(RemoteConfig(exec_url=remote.config.exec_url), key="bad-key-00000000000") as wrong,
        pytest.raises(KeyRejected),
    ):
        wrong.submit(HtmlToPdf("<p>")).result(timeout=30)


def test_the_serve_command(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text(f"# comment\n{KEY}  Command Workspace\n")
    root = Path(__file__).parent.parent.parent
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", "0", "--keys", str(keys)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        url = re.search(r"http://[\d.]+:\d+", line)
        assert url, line
        check = httpx.get(url.group(0) + service.key_check_path(KEY), headers={"x-api-key": KEY}, timeout=30)
        assert check.status_code == 200 and check.json()["name"] == "Command Workspace"
        body = {"input": "<p>from the command</p>", "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "true"}
        made = httpx.post(url.group(0) + service.execution_path(KEY), json=body, timeout=60)
        assert made.status_code == 200 and "from the command" in pdf_text(made.content)[0]
    finally:
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert KEY not in err and "Traceback" not in err
    assert f"__js1-{service.redact(KEY)}" in err
