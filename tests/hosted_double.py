"""A small, strict stand-in for the hosted service, on loopback: for the faults the real one cannot be
made to show on demand (errors, rate limits, slowness, garbage), and for checking the requests made.

It records every request exactly as received. A test programs the next answers with ``answer(...)``;
without a program it answers like the service: a small PDF or PNG for execution calls (checking the
request's shape strictly, 400 otherwise), and the key record for the key check.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image

from app.core import service

KEY = "hosted-test-key-7f3a9c21b4d8e6f0"
TINY_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)


def tiny_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (20, 10), (0, 128, 255)).save(out, "PNG")
    return out.getvalue()


RECORD = {
    "workspaceId": "ws-123",
    "name": "Acme Reports",
    "maxRequestCount": 5000,
    "apiKeyData": {"value": KEY, "id": "key-42"},
    "apiKey": KEY,
    "timestamp": 1763700000000,
    "createdAt": 1735689600000,
    "jwt": {
        "at_hash": "abc",
        "sub": "user-1",
        "email_verified": True,
        "iss": "https://idp.example",
        "idp:username": "acme",
        "origin_jti": "o-1",
        "aud": "client",
        "token_use": "id",
        "auth_time": 1763690000,
        "userId": "user-1",
        "providerName": "idp",
        "providerType": "OIDC",
        "issuer": "https://idp.example",
        "primary": True,
        "jti": "j-1",
        "email": "owner@example.com",
    },
    "dateCreated": 1735689600000,
    "userId": "user-1",
    "exp": 1763790000,
    "iat": 1763700000,
    "futureField": {"nested": True},
}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/octet-stream"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class HostedDouble:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.program: deque[Answer] = deque()
        self._lock = threading.Lock()
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with double._lock:
                    double.seen.append(seen)
                    answer = double.program.popleft() if double.program else double.default(seen)
                if answer.delay:
                    time.sleep(answer.delay)
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.content_type)
                    self.send_header("Content-Length", str(len(answer.body)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _handle

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: object, client_address: object) -> None:
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, *answers: Answer) -> None:
        self.program.extend(answers)

    def default(self, seen: Seen) -> Answer:
        """The service's normal answers, for requests of exactly the spec's shape."""
        if seen.method == "GET" and seen.path == f"/base{service.key_check_path(KEY)}":
            if seen.headers.get("x-api-key") != KEY:
                return Answer(401, b'{"error":"missing key"}', "application/json")
            return Answer(200, json.dumps(RECORD).encode(), "application/json")
        if seen.method == "POST" and seen.path == f"/exec{service.execution_path(KEY)}":
            try:
                body = seen.json
            except ValueError:
                return Answer(400, b'{"error":"not JSON"}', "application/json")
            operation = service.recognize(body.get("code"))
            if operation is None or set(body) != {"input", "code", "returnBinary"} or body["returnBinary"] != "true":
                return Answer(400, b'{"error":"bad request"}', "application/json")
            if operation in (service.Operation.GENERATE_PDF, service.Operation.MERGE_PDFS):
                return Answer(200, TINY_PDF, "application/pdf")
            return Answer(200, tiny_png(), "image/png")
        return Answer(404, b'{"error":"not found"}', "application/json")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
