"""``pressroom serve``: the hosted API's two paths, answered by an engine on this computer.

``GET /core/api-key/{key}`` (with ``x-api-key``) answers the key record; ``POST /__js1-{key}`` runs the
operation whose utility call the body's ``code`` is - the five calls exactly as the integrations send
them, compared with quotes and whitespace ignored. Any other code is refused with 400 and never run:
this server never evaluates code it is sent. Statuses: 401 unknown key (JSON error), 411 no length,
413 body too large, 429 queue full (with Retry-After), 504 the job ran out of time.

Built on the standard library's threading HTTP server: one thread per connection, the work itself on
the engine. Keys never appear whole in its log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app import __version__
from app.core import media, service
from app.core.engine import Engine
from app.core.errors import (
    InputError,
    InvalidOption,
    JobTimeout,
    PageLoadError,
    PressroomError,
    RateLimited,
    ScriptFailed,
    ServiceUnreachable,
)
from app.core.jobs import HtmlToImage, HtmlToPdf, Job, MergePdfs, MergeSource, RunScript, Screenshot
from app.core.service import Operation

log = logging.getLogger("pressroom.server")

MAX_MERGE_INPUTS = 200


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8787
    max_body: int = 16 * 2**20  # bytes
    queue: int = 32  # jobs accepted at once (running and waiting); more get 429
    job_timeout: float = 60.0
    origin_header: str = service.DEFAULT_ORIGIN_HEADER


# -- keys ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Workspace:
    key: str
    name: str
    created: float  # epoch seconds

    @property
    def workspace_id(self) -> str:
        return hashlib.sha256(b"workspace:" + self.key.encode()).hexdigest()[:24]

    def record(self) -> dict[str, Any]:
        """A key record of the spec's shape (section 2.1). maxRequestCount 0: no limit here."""
        now = time.time()
        user = "user-" + self.workspace_id[:12]
        key_id = hashlib.sha256(b"key:" + self.key.encode()).hexdigest()[:16]
        return {
            "workspaceId": self.workspace_id,
            "name": self.name,
            "maxRequestCount": 0,
            "apiKeyData": {"value": self.key, "id": key_id},
            "apiKey": self.key,
            "timestamp": int(now * 1000),
            "createdAt": int(self.created * 1000),
            "jwt": {
                "at_hash": hashlib.sha256(self.key.encode()).hexdigest()[:22],
                "sub": user,
                "email_verified": False,
                "iss": "pressroom-serve",
                "idp:username": self.name,
                "origin_jti": str(uuid.uuid4()),
                "aud": "pressroom",
                "token_use": "id",
                "auth_time": int(now),
                "userId": user,
                "providerName": "pressroom",
                "providerType": "local",
                "issuer": "pressroom-serve",
                "primary": True,
                "jti": str(uuid.uuid4()),
                "email": f"{user}@localhost",
            },
            "dateCreated": int(self.created * 1000),
            "userId": user,
            "exp": int(now) + 3600,
            "iat": int(now),
        }


class KeyBook:
    """The keys this server accepts, compared in constant time."""

    def __init__(self, workspaces: list[Workspace]) -> None:
        if not workspaces:
            raise InvalidOption(
                "the server has no API keys to accept", "Give --keys FILE, or store a key with 'pressroom key set'"
            )
        self._workspaces = workspaces

    @classmethod
    def from_file(cls, path: Path) -> KeyBook:
        """One key per line, optionally followed by a workspace name; '#' starts a comment."""
        try:
            text = path.read_text(encoding="utf-8")
            created = path.stat().st_mtime
        except OSError as exc:
            raise InvalidOption(f"cannot read the keys file {path}: {exc.strerror or exc}") from exc
        workspaces = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            key, _, name = line.partition(" ")
            if len(key) < 12:
                raise InvalidOption(f"{path}, line {number}: a key must have at least 12 characters")
            workspaces.append(Workspace(key, name.strip() or "Pressroom", created))
        return cls(workspaces)

    def find(self, key: str) -> Workspace | None:
        found = None
        for workspace in self._workspaces:
            if hmac.compare_digest(workspace.key.encode(), key.encode()):
                found = workspace
        return found


# -- requests --------------------------------------------------------------------------------------


def job_for(operation: Operation, payload: object, timeout: float) -> Job:
    """The job an execution request asks for; a bad ``input`` is an ``InputError`` (400)."""
    if operation is Operation.MERGE_PDFS:
        if not isinstance(payload, list) or not payload or not all(isinstance(u, str) for u in payload):
            raise InvalidOption("input must be a list of PDF URLs")
        if len(payload) > MAX_MERGE_INPUTS:
            raise InvalidOption(f"at most {MAX_MERGE_INPUTS} PDFs can be merged at once")
        for url in payload:
            if not url.startswith(("http://", "https://")) or not urlsplit(url).hostname:
                raise InvalidOption(f"{url!r} is not an http(s) URL")
        return MergePdfs(tuple(MergeSource(url) for url in payload), timeout=timeout)
    if not isinstance(payload, str) or not payload.strip():
        raise InvalidOption("input must be a non-empty string")
    if operation is Operation.GENERATE_PDF:
        return HtmlToPdf(payload, timeout=timeout)
    if operation is Operation.GENERATE_PNG:
        return HtmlToImage(payload, timeout=timeout)
    if operation is Operation.SCREENSHOT:
        if not payload.startswith(("http://", "https://")) or not urlsplit(payload).hostname:
            raise InvalidOption(f"{payload[:100]!r} is not an http(s) URL")
        return Screenshot(payload, name="screenshot", timeout=timeout)
    return RunScript(payload, timeout=timeout)


def status_for(error: PressroomError) -> HTTPStatus:
    if isinstance(error, JobTimeout):
        return HTTPStatus.GATEWAY_TIMEOUT
    if isinstance(error, InputError):
        return HTTPStatus.BAD_REQUEST
    if isinstance(error, PageLoadError | ServiceUnreachable):
        return HTTPStatus.BAD_GATEWAY
    if isinstance(error, ScriptFailed):
        return HTTPStatus.UNPROCESSABLE_ENTITY
    if isinstance(error, RateLimited):
        return HTTPStatus.TOO_MANY_REQUESTS
    return HTTPStatus.INTERNAL_SERVER_ERROR


class PressroomServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, engine: Engine, keys: KeyBook, config: ServerConfig) -> None:
        self.engine = engine
        self.keys = keys
        self.config = config
        self.slots = threading.BoundedSemaphore(config.queue)
        super().__init__((config.host, config.port), Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def handle_error(self, request: object, client_address: object) -> None:
        log.debug("a connection failed", exc_info=True)


class Handler(BaseHTTPRequestHandler):
    server: PressroomServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: without this, +40 ms (delayed ACK)
    server_version = f"Pressroom/{__version__}"
    sys_version = ""

    # -- plumbing --

    def log_message(self, format: str, *args: Any) -> None:
        log.debug(service.redact_paths(format % args))

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: HTTPStatus, message: str, extra: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": message, "status": status.value}).encode()
        self._send(status, body, "application/json", extra)
        self._log(status, message)

    def _log(self, status: HTTPStatus, what: str) -> None:
        path = service.redact_paths(self.path)
        log.info("%s %s %s -> %d %s", self.client_address[0], self.command, path, status.value, what)

    def _key_from(self, prefix: str) -> str | None:
        path = urlsplit(self.path).path
        return path[len(prefix) :] if path.startswith(prefix) and len(path) > len(prefix) else None

    # -- the key check --

    def do_GET(self) -> None:
        key = self._key_from("/core/api-key/")
        if key is None:
            self._error(HTTPStatus.NOT_FOUND, "no such path")
            return
        workspace = self.server.keys.find(key)
        header = self.headers.get("x-api-key", "")
        if workspace is None or not hmac.compare_digest(header.encode(), key.encode()):
            self._error(HTTPStatus.UNAUTHORIZED, "unknown API key, or the x-api-key header does not carry it")
            return
        self._send(HTTPStatus.OK, json.dumps(workspace.record()).encode(), "application/json")
        self._log(HTTPStatus.OK, f"key check of {workspace.name}")

    # -- execution --

    def do_POST(self) -> None:
        key = self._key_from("/" + service.EXECUTION_PREFIX)
        if key is None:
            self._error(HTTPStatus.NOT_FOUND, "no such path")
            return
        if self.server.keys.find(key) is None:
            self._error(HTTPStatus.UNAUTHORIZED, "unknown API key")
            return
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._error(HTTPStatus.LENGTH_REQUIRED, "the request needs a Content-Length")
            return
        if int(length) > self.server.config.max_body:
            self.close_connection = True  # the body is not read
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is larger than {self.server.config.max_body} bytes")
            return
        body = self.rfile.read(int(length))
        try:
            request = json.loads(body)
            if not isinstance(request, dict):
                raise ValueError
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "the body is not a JSON object")
            return
        operation = service.recognize(request.get("code"))
        if operation is None:
            self._error(HTTPStatus.BAD_REQUEST, "code is not one of the service's utility calls; it was not run")
            return
        if request.get("returnBinary") not in ("true", True):
            self._error(HTTPStatus.BAD_REQUEST, 'returnBinary must be "true": this server answers with the file')
            return
        try:
            job = job_for(operation, request.get("input"), self.server.config.job_timeout)
        except PressroomError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        if not self.server.slots.acquire(blocking=False):
            self._error(HTTPStatus.TOO_MANY_REQUESTS, "too many requests at once; try again shortly", {"Retry-After": "2"})
            return
        started = time.monotonic()
        try:
            output = self.server.engine.submit(job).result()
        except PressroomError as exc:
            self._error(status_for(exc), str(exc))
            return
        except Exception as exc:  # a bug: the client gets a 500, the log the details
            log.exception("job failed")
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error ({type(exc).__name__})")
            return
        finally:
            self.server.slots.release()
        self._send(
            HTTPStatus.OK, output.data, output.media_type if output.media_type != "application/octet-stream" else media.PNG
        )
        origin = self.headers.get(self.server.config.origin_header, "-")
        elapsed = (time.monotonic() - started) * 1000
        self._log(HTTPStatus.OK, f"{operation.value} for {origin}, {len(output.data)} bytes in {elapsed:.0f} ms")

    def do_PUT(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "use POST (execution) or GET (key check)")

    do_DELETE = do_PATCH = do_PUT
