"""``RemoteEngine``: the ``Engine`` interface over the hosted API (``shared/spec/service-interface.md``).

Every execution call is ``POST {exec_url}/__js1-{key}`` with a JSON body ``{input, code, returnBinary:
"true"}`` and the origin header ``<integration>/<operation>``; the answer's body is the file. The key
check is ``GET {base_url}/core/api-key/{key}`` with ``x-api-key``. One httpx client (connections kept
alive) lives on a loop thread of the engine's own; cancelling a future cancels the request.

The key is part of the execution URL, so it is redacted (``__js1-…abcd``) in every message and log line
this engine produces, and httpx's own log lines are filtered too. Errors never chain httpx's exceptions
(their text and tracebacks would carry the URL).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import re
import time
from concurrent.futures import Future
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from app.core import media, service
from app.core.engine import ProgressCallback
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
from app.core.jobs import (
    BookmarkMode,
    HtmlToImage,
    HtmlToPdf,
    ImageOptions,
    Job,
    MergePdfs,
    PdfOptions,
    RunScript,
    Screenshot,
    WaitOptions,
    WaitUntil,
)
from app.core.results import Output
from app.core.service import ApiKeyRecord, Operation
from app.core.settings import Settings
from app.engines.loop import LoopThread

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("pressroom.remote")

USER_AGENT = "Pressroom"
LIMIT_HINT = "The hosted service takes inputs up to about 6 MB; use the local engine for larger ones"
KEY_HINT = "Check it with 'pressroom key check', or store a new one with 'pressroom key set'"
EXPECTED = {
    Operation.GENERATE_PDF: (media.PDF,),
    Operation.MERGE_PDFS: (media.PDF,),
    Operation.GENERATE_PNG: (media.PNG, media.JPEG, media.WEBP),
    Operation.SCREENSHOT: (media.PNG, media.JPEG, media.WEBP),
    Operation.PUPPETEER: (media.PNG, media.JPEG, media.WEBP, media.PDF),
}


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    base_url: str = ""
    exec_url: str = ""
    origin_header: str = service.DEFAULT_ORIGIN_HEADER
    integration: str = service.DEFAULT_INTEGRATION
    timeout: float = 60.0  # seconds for a job, unless the job says otherwise
    connect_timeout: float = 10.0
    rate_limit_retries: int = 3  # answers of 429 honoured (waiting Retry-After) before giving up
    max_retry_wait: float = 30.0  # longest Retry-After honoured, seconds

    @classmethod
    def from_settings(cls, settings: Settings) -> RemoteConfig:
        return cls(
            base_url=settings["base_url"],
            exec_url=settings["exec_url"],
            origin_header=settings["origin_header"] or service.DEFAULT_ORIGIN_HEADER,
            integration=settings["integration"] or service.DEFAULT_INTEGRATION,
            timeout=max(float(settings["timeout"]), 60.0),
        )


class _RedactKeys(logging.Filter):
    """httpx logs every request URL at INFO; the execution URL carries the key."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = service.redact_paths(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


for _name in ("httpx", "httpcore"):
    logging.getLogger(_name).addFilter(_RedactKeys())


class RemoteEngine:
    name = "remote"

    def __init__(self, config: RemoteConfig, key: str | None = None) -> None:
        """``key``: the API key; None takes it from ``PRESSROOM_API_KEY`` or the keychain when needed."""
        self.config = config
        self._key = key
        self._thread: LoopThread | None = None
        self._client: httpx.AsyncClient | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<RemoteEngine exec_url={self.config.exec_url!r} key={'set' if self._key else 'from keychain'}>"

    # -- Engine --------------------------------------------------------------------------------------

    def submit(self, job: Job, progress: ProgressCallback | None = None) -> Future[Output]:
        """The service answers each job in one request, so ``progress`` is never called."""
        return self._loop().run(self._execute(job))

    def check_key(self) -> Future[ApiKeyRecord]:
        """The key check: the workspace details tied to the key."""
        return self._loop().run(self._check_key())

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._thread.stop(self._close_client)

    def __enter__(self) -> RemoteEngine:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- requests ------------------------------------------------------------------------------------

    def _loop(self) -> LoopThread:
        if self._closed:
            raise ServiceError("the remote engine has been closed", "Create a new engine")
        if self._thread is None:
            self._thread = LoopThread("pressroom-remote")
        return self._thread

    def key(self) -> str:
        if self._key is None:
            from app.core import secrets

            self._key = secrets.require_key()
        return self._key

    async def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            timeout = httpx.Timeout(self.config.timeout, connect=self.config.connect_timeout)
            self._client = httpx.AsyncClient(timeout=timeout, headers={"User-Agent": USER_AGENT}, follow_redirects=False)
        return self._client

    async def _close_client(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def _execute(self, job: Job) -> Output:
        operation, payload = request_for(job)
        exec_url = _address(self.config.exec_url, "execution", "PRESSROOM_EXEC_URL")
        key = self.key()
        body = {"input": payload, "code": service.code_for(operation), "returnBinary": "true"}
        headers = {self.config.origin_header: f"{self.config.integration}/{operation.value}"}
        started = time.monotonic()
        timeout = job.timeout or self.config.timeout
        try:
            async with asyncio.timeout(timeout):
                response = await self._send("POST", exec_url + service.execution_path(key), key, json=body, headers=headers)
        except TimeoutError:
            raise JobTimeout(f"the service did not answer within {timeout:g} s", "Try again, or raise --timeout") from None
        data = response.content
        _check_file(operation, response, data, key)
        return Output.from_bytes(data, job.name, seconds=time.monotonic() - started)

    async def _check_key(self) -> ApiKeyRecord:
        base_url = _address(self.config.base_url, "base", "PRESSROOM_BASE_URL")
        key = self.key()
        response = await self._send("GET", base_url + service.key_check_path(key), key, headers={"x-api-key": key})
        try:
            record = ApiKeyRecord.from_json(response.json())
        except ValueError:
            raise ServiceError(
                f"the key check answered something that is not a key record: {_snippet(response.content, key)}",
                "Check PRESSROOM_BASE_URL",
            ) from None
        return record

    async def _send(self, method: str, url: str, key: str, **arguments: Any) -> httpx.Response:
        """One request, with 429 handled; anything but a 2xx answer becomes a ``PressroomError``."""
        import httpx

        client = await self._http()
        for attempt in range(self.config.rate_limit_retries + 1):
            try:
                response = await client.request(method, url, **arguments)
            except httpx.TimeoutException:
                raise JobTimeout(
                    f"the service at {_host(url)} did not answer in time", "Try again later, or raise --timeout"
                ) from None
            except httpx.ConnectError as exc:
                raise ServiceUnreachable(f"could not connect to {_host(url)}: {_reason(exc)}", _reach_hint()) from None
            except httpx.HTTPError as exc:
                reason = service.redact_text(_reason(exc), key)
                raise ServiceUnreachable(f"the connection to {_host(url)} failed: {reason}", _reach_hint()) from None
            if response.status_code != 429:
                break
            wait = _retry_after(response)
            if attempt == self.config.rate_limit_retries or wait > self.config.max_retry_wait:
                raise RateLimited(
                    f"the service is busy: too many requests (HTTP 429); try again in {wait:g} s", "Wait, then run it again"
                )
            log.info("the service asks to wait %g s (HTTP 429); waiting", wait)
            await asyncio.sleep(wait)
        if response.is_success:
            return response
        raise _status_error(response, key)


# -- building requests -----------------------------------------------------------------------------


def request_for(job: Job) -> tuple[Operation, Any]:
    """The operation and ``input`` for a job; what the API cannot express is refused, not dropped."""
    if isinstance(job, HtmlToPdf):
        _defaults_only("PDF", [("options", job.options, PdfOptions()), ("wait", job.wait, WaitOptions())])
        return Operation.GENERATE_PDF, _with_web_base(job.html, job.base_url)
    if isinstance(job, HtmlToImage):
        _defaults_only("image", [("options", job.options, ImageOptions()), ("wait", job.wait, WaitOptions())])
        return Operation.GENERATE_PNG, _with_web_base(job.html, job.base_url)
    if isinstance(job, Screenshot):
        _defaults_only("screenshot", [("options", job.options, ImageOptions()), ("wait", job.wait, WaitOptions()),
                                      ("wait-until", job.wait_until, WaitUntil.LOAD)])  # fmt: skip
        if not job.url.startswith(("http://", "https://")):
            raise InvalidUrl(
                f"the hosted service cannot open {job.url}", "Give it an http(s):// address, or use the local engine"
            )
        return Operation.SCREENSHOT, job.url
    if isinstance(job, MergePdfs):
        local = [s.location for s in job.sources if not s.is_url]
        if local:
            raise InvalidOption(
                f"the hosted service merges only PDFs on the web, and {local[0]} is a file on this computer",
                "Use the local engine for files, or give http(s):// addresses",
            )
        if any(s.pages or s.password for s in job.sources) or job.bookmarks is not BookmarkMode.KEEP or job.title:
            raise InvalidOption("the hosted service merges whole files only (no pages, passwords, bookmark modes or title)",
                                "Use the local engine for those")  # fmt: skip
        return Operation.MERGE_PDFS, [s.location for s in job.sources]
    if isinstance(job, RunScript):
        if job.full_page:
            raise InvalidOption("the hosted service shoots the viewport only", "Leave out --full-page, or use the local engine")
        source = job.source if not job.url else f"await page.goto({json.dumps(job.url)});\n{job.source}"
        return Operation.PUPPETEER, source
    raise InvalidOption(f"the hosted service cannot run a {type(job).__name__} job")


def _defaults_only(what: str, parts: list[tuple[str, Any, Any]]) -> None:
    changed = [name for name, value, default in parts if value != default]
    if changed:
        raise InvalidOption(
            f"the hosted service takes no {what} {' or '.join(changed)}: it always uses its own defaults",
            "Leave those options out, or use the local engine",
        )


_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)


def _with_web_base(html: str, base_url: str | None) -> str:
    """The service cannot see this computer: a web base URL travels in the document as ``<base>``."""
    if not base_url or not base_url.startswith(("http://", "https://")) or "<base" in html.lower():
        return html
    tag = f'<base href="{base_url}">'
    match = _HEAD.search(html)
    return html[: match.end()] + tag + html[match.end() :] if match else tag + html


def _address(url: str, which: str, variable: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise InvalidOption(
            f"the hosted service's {which} URL is not set" if not url else f"the {which} URL {url} is not an http(s) address",
            f"Set it in the settings, or with {variable}",
        )
    return url.rstrip("/")


# -- reading answers -------------------------------------------------------------------------------


def _check_file(operation: Operation, response: httpx.Response, data: bytes, key: str) -> None:
    if not data:
        raise ServiceError("the service answered with an empty body instead of a file", "Try again; if it persists, report it")
    kind = media.sniff(data)
    if kind in EXPECTED[operation]:
        return
    declared = response.headers.get("Content-Type", "").split(";")[0] or "no type"
    what = "a PDF" if EXPECTED[operation] == (media.PDF,) else "an image"
    raise ServiceError(
        f"the service answered with {declared} instead of {what}: {_snippet(data, key)}", "Try again; if it persists, report it"
    )


def _status_error(response: httpx.Response, key: str) -> PressroomError:
    code = response.status_code
    detail = _detail(response.content, key)
    status = f"HTTP {code}{' ' + response.reason_phrase if response.reason_phrase else ''}"
    if code in (401, 403):
        return KeyRejected(f"the service refused the API key ({status}){detail}", KEY_HINT)
    if code == 413:
        return RequestRejected(f"the request is too large for the service ({status}){detail}", LIMIT_HINT)
    if code == 400:
        return RequestRejected(f"the service refused the request ({status}){detail}", "Check the input")
    if code == 404:
        return ServiceError(f"the service has no such address ({status}){detail}", "Check the service URLs in the settings")
    if code >= 500:
        return ServiceError(f"the service failed ({status}){detail}", "Try again later, or use the local engine")
    return ServiceError(f"the service answered {status}{detail}", "Check the service URLs in the settings")


def _detail(body: bytes, key: str) -> str:
    """The service's own words about an error, from a JSON or text body, shortened."""
    text = ""
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict):
            for name in ("error", "message", "detail", "errorMessage"):
                if isinstance(parsed.get(name), str):
                    text = parsed[name]
                    break
    except ValueError:
        if not body.lstrip().startswith(b"<"):  # not an HTML page
            text = body.decode("utf-8", "replace")
    text = " ".join(service.redact_text(text, key).split())[:200]
    return f": {text}" if text else ""


def _snippet(body: bytes, key: str) -> str:
    text = " ".join(body[:400].decode("utf-8", "replace").split())
    text = service.redact_text(text, key)
    return (text[:160] + "…") if len(text) > 160 else text or "(nothing)"


def _retry_after(response: httpx.Response) -> float:
    """Seconds the service asks to wait: Retry-After in seconds or as a date; 1 when it does not say."""
    value = response.headers.get("Retry-After", "").strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 1.0
    return round(max(0.0, when.timestamp() - time.time()), 1)


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and what caused it, down the chain (anyio wraps the socket's error)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 10:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _reason(exc: Exception) -> str:
    for cause in _causes(exc):
        if isinstance(cause, ConnectionRefusedError):
            return "the connection was refused"
    text = " ".join(str(cause) for cause in _causes(exc)) or type(exc).__name__
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate" in text.lower():
        return "its TLS certificate is not valid"
    if "SSL" in text or "TLS" in text:
        return "the secure connection failed"
    if "refused" in text.lower():
        return "the connection was refused"
    if "Name or service not known" in text or "getaddrinfo" in text or "nodename" in text:
        return "the host name could not be found"
    return text.splitlines()[0]


def _reach_hint() -> str:
    return "Check the service URLs in the settings and your network connection"
