"""The remote engine against a strict test double of the hosted service: exact requests, every fault."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError

import pytest

from app.core import service
from app.core.errors import (
    InvalidOption,
    InvalidUrl,
    JobTimeout,
    KeyRejected,
    PressroomError,
    RateLimited,
    RequestRejected,
    ServiceError,
    ServiceUnreachable,
)
from app.core.jobs import HtmlToImage, HtmlToPdf, Job, MergePdfs, MergeSource, PdfOptions, RunScript, Screenshot
from app.core.service import Operation
from app.engines.remote import RemoteConfig, RemoteEngine
from tests.hosted_double import KEY, RECORD, Answer, HostedDouble


@pytest.fixture
def remote(hosted: HostedDouble) -> Iterator[RemoteEngine]:
    config = RemoteConfig(base_url=hosted.url + "/base/", exec_url=hosted.url + "/exec", timeout=5, max_retry_wait=2)
    with RemoteEngine(config, key=KEY) as engine:
        yield engine


JOBS: list[tuple[Job, Operation, object]] = [
    (HtmlToPdf("<h1>Hi</h1>"), Operation.GENERATE_PDF, "<h1>Hi</h1>"),
    (HtmlToImage("<p>png</p>"), Operation.GENERATE_PNG, "<p>png</p>"),
    (Screenshot("https://example.com/page"), Operation.SCREENSHOT, "https://example.com/page"),
    (
        MergePdfs((MergeSource("https://example.com/a.pdf"), MergeSource("https://example.com/b.pdf"))),
        Operation.MERGE_PDFS,
        ["https://example.com/a.pdf", "https://example.com/b.pdf"],
    ),
    (RunScript("await page.goto('https://example.com');"), Operation.PUPPETEER, "await page.goto('https://example.com');"),
]


@pytest.mark.parametrize(("job", "operation", "payload"), JOBS, ids=[op.value for _, op, _ in JOBS])
def test_execution_requests_are_exactly_the_specs(
    remote: RemoteEngine, hosted: HostedDouble, job: Job, operation: Operation, payload: object
) -> None:
    output = remote.submit(job).result(timeout=30)
    (seen,) = hosted.seen
    assert seen.method == "POST"
    assert seen.path == f"/exec/__js1-{KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["service-origin"] == f"pressroom/{operation.value}"
    assert "x-api-key" not in seen.headers
    assert seen.json == {"input": payload, "code": service.code_for(operation), "returnBinary": "true"}
    assert output.media_type == (
        "application/pdf" if operation in (Operation.GENERATE_PDF, Operation.MERGE_PDFS) else "image/png"
    )


def test_the_code_calls_the_one_utility_on_input() -> None:
    assert service.code_for(Operation.GENERATE_PDF) == 'const { HTML2PDF } = require("./utils");\nreturn HTML2PDF(input);'
    assert "return PDF_MERGE(files)" in service.code_for(Operation.MERGE_PDFS)
    assert 'axios.get(url, { responseType: "arraybuffer" })' in service.code_for(Operation.MERGE_PDFS)


def test_header_name_and_integration_are_settings(hosted: HostedDouble) -> None:
    config = RemoteConfig(exec_url=hosted.url + "/exec", origin_header="x-vendor-origin", integration="acme-flow")
    with RemoteEngine(config, key=KEY) as engine:
        engine.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
    assert hosted.seen[0].headers["x-vendor-origin"] == "acme-flow/generatePDF"
    assert "service-origin" not in hosted.seen[0].headers


def test_key_check(remote: RemoteEngine, hosted: HostedDouble) -> None:
    record = remote.check_key().result(timeout=30)
    (seen,) = hosted.seen
    assert (seen.method, seen.path, seen.headers["x-api-key"]) == ("GET", f"/base/core/api-key/{KEY}", KEY)
    assert (record.workspace_id, record.name, record.max_request_count) == ("ws-123", "Acme Reports", 5000)
    assert record.api_key_data_id == "key-42" and record.user_id == "user-1"
    assert (record.created_at, record.date_created, record.timestamp, record.exp, record.iat) == (
        1735689600000,
        1735689600000,
        1763700000000,
        1763790000,
        1763700000,
    )
    assert record.jwt is not None and record.jwt.idp_username == "acme" and record.jwt.email == "owner@example.com"
    assert record.jwt.email_verified is True and record.jwt.auth_time == 1763690000 and record.jwt.primary is True
    assert record.extra == {"futureField": {"nested": True}}  # unknown fields are tolerated and kept
    assert KEY not in repr(record)
    assert service.as_datetime(record.created_at).year == 2025  # type: ignore[union-attr]
    assert service.as_datetime(record.exp).year == 2025  # type: ignore[union-attr]


def test_a_garbled_key_record(remote: RemoteEngine, hosted: HostedDouble) -> None:
    hosted.answer(Answer(200, b"<html>login page</html>", "text/html"))
    with pytest.raises(ServiceError, match="not a key record"):
        remote.check_key().result(timeout=30)


# -- what the API cannot express is refused, not dropped -------------------------------------------


def test_unsupported_requests(remote: RemoteEngine, hosted: HostedDouble) -> None:
    with pytest.raises(InvalidOption, match="no PDF options"):
        remote.submit(HtmlToPdf("<p>x</p>", PdfOptions(landscape=True))).result(timeout=30)
    with pytest.raises(InvalidOption, match="is a file on this computer"):
        remote.submit(MergePdfs((MergeSource("/home/me/report.pdf"),))).result(timeout=30)
    with pytest.raises(InvalidOption, match="whole files only"):
        remote.submit(MergePdfs((MergeSource("https://example.com/a.pdf", "1-2"),))).result(timeout=30)
    with pytest.raises(InvalidUrl, match="cannot open file:///tmp/page.html"):
        remote.submit(Screenshot("file:///tmp/page.html")).result(timeout=30)
    assert hosted.seen == [], "nothing was sent"


def test_web_base_url_travels_in_the_document(remote: RemoteEngine, hosted: HostedDouble) -> None:
    remote.submit(HtmlToPdf("<html><head></head><body>x</body></html>", base_url="https://cdn.example.com/a/")).result(timeout=30)
    assert hosted.seen[0].json["input"] == '<html><head><base href="https://cdn.example.com/a/"></head><body>x</body></html>'


def test_script_start_url_becomes_a_goto(remote: RemoteEngine, hosted: HostedDouble) -> None:
    remote.submit(RunScript("return 1;", url="https://example.com/")).result(timeout=30)
    assert hosted.seen[0].json["input"] == 'await page.goto("https://example.com/");\nreturn 1;'


# -- faults ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (
            Answer(400, b'{"error":"input must be HTML"}', "application/json"),
            RequestRejected,
            "HTTP 400 Bad Request): input must be HTML",
        ),
        (Answer(401, b'{"message":"invalid key"}', "application/json"), KeyRejected, "refused the API key (HTTP 401"),
        (Answer(403, b"", "text/plain"), KeyRejected, "refused the API key (HTTP 403"),
        (Answer(404, b"<html>Not found</html>", "text/html"), ServiceError, "has no such address (HTTP 404"),
        (Answer(413, b"Payload Too Large", "text/plain"), RequestRejected, "too large for the service (HTTP 413"),
        (
            Answer(500, b'{"error":"boom"}', "application/json"),
            ServiceError,
            "the service failed (HTTP 500 Internal Server Error): boom",
        ),
        (Answer(502, b"<html><body>Bad gateway</body></html>", "text/html"), ServiceError, "the service failed (HTTP 502"),
        (
            Answer(200, b"<html><body>Please log in</body></html>", "text/html"),
            ServiceError,
            "answered with text/html instead of a PDF",
        ),
        (
            Answer(200, b'{"error":"quota exceeded"}', "application/json"),
            ServiceError,
            'instead of a PDF: {"error":"quota exceeded"}',
        ),
        (Answer(200, b"", "application/pdf"), ServiceError, "empty body"),
    ],
)
def test_faults_become_clear_errors(
    remote: RemoteEngine, hosted: HostedDouble, answer: Answer, error: type[PressroomError], message: str
) -> None:
    hosted.answer(answer)
    with pytest.raises(error) as caught:
        remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
    assert message in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(caught.value)


def test_413_hint_names_the_limit(remote: RemoteEngine, hosted: HostedDouble) -> None:
    hosted.answer(Answer(413, b"", "text/plain"))
    with pytest.raises(RequestRejected, match="6 MB"):
        remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)


def test_rate_limit_is_honoured_then_reported(remote: RemoteEngine, hosted: HostedDouble) -> None:
    hosted.answer(Answer(429, b"slow down", headers={"Retry-After": "1"}))
    started = time.monotonic()
    assert remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30).media_type == "application/pdf"
    assert time.monotonic() - started >= 0.9, "it waited as asked"
    assert len(hosted.seen) == 2
    hosted.seen.clear()
    hosted.answer(*[Answer(429, b"", headers={"Retry-After": "0"})] * 10)
    with pytest.raises(RateLimited, match="too many requests"):
        remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
    assert len(hosted.seen) == 4, "three retries, then the error"
    hosted.program.clear()
    hosted.answer(Answer(429, b"", headers={"Retry-After": "3600"}))
    with pytest.raises(RateLimited, match="try again in"):
        remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)  # too long a wait: reported at once


def test_slow_service_times_out(remote: RemoteEngine, hosted: HostedDouble) -> None:
    hosted.answer(Answer(200, b"%PDF-1.4", delay=3))
    with pytest.raises(JobTimeout, match="did not answer"):
        remote.submit(HtmlToPdf("<p>x</p>", timeout=1)).result(timeout=30)


def test_cancel_stops_waiting(remote: RemoteEngine, hosted: HostedDouble) -> None:
    hosted.answer(Answer(200, b"%PDF-1.4", delay=3))
    future = remote.submit(HtmlToPdf("<p>x</p>"))
    time.sleep(0.3)
    assert future.cancel()
    with pytest.raises(CancelledError):
        future.result()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_connection_refused() -> None:
    config = RemoteConfig(exec_url=f"http://127.0.0.1:{_closed_port()}/exec")
    with RemoteEngine(config, key=KEY) as engine, pytest.raises(ServiceUnreachable, match="connection was refused") as caught:
        engine.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
    assert KEY not in str(caught.value)


def test_tls_failure(hosted: HostedDouble) -> None:
    config = RemoteConfig(exec_url=hosted.url.replace("http://", "https://") + "/exec")
    with RemoteEngine(config, key=KEY) as engine, pytest.raises(ServiceUnreachable) as caught:
        engine.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
    assert "secure connection failed" in str(caught.value) or "TLS" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__, "httpx's error (with the URL) is not chained"


def test_missing_addresses() -> None:
    with RemoteEngine(RemoteConfig(), key=KEY) as engine:
        with pytest.raises(InvalidOption, match="execution URL is not set.*PRESSROOM_EXEC_URL"):
            engine.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
        with pytest.raises(InvalidOption, match="PRESSROOM_BASE_URL"):
            engine.check_key().result(timeout=30)


def test_the_key_is_never_shown(remote: RemoteEngine, hosted: HostedDouble, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    hosted.answer(
        Answer(500, json.dumps({"error": f"bad key {KEY} in /__js1-{KEY}"}).encode(), "application/json"),
        Answer(429, b"", headers={"Retry-After": "0"}),
    )
    messages = []
    for _ in range(2):
        try:
            remote.submit(HtmlToPdf("<p>x</p>")).result(timeout=30)
        except PressroomError as exc:
            messages.append(str(exc))
    remote.check_key().result(timeout=30)
    assert f"__js1-{service.redact(KEY)}" in " ".join(messages)
    assert all(KEY not in message for message in messages)
    assert caplog.records, "httpx logged its requests"
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert KEY not in repr(remote)
    assert RECORD["apiKey"] == KEY  # (the double does send it back in the record)
