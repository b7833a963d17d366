"""Remote overhead: HTML -> PDF through `pressroom serve`, by the RemoteEngine vs a raw httpx POST of the
same request (same body, headers and connection reuse), in the same run; medians of interleaved rounds.
"""

from __future__ import annotations

import threading
import time

import httpx
from common import median, report, simple_document

from app.core import service
from app.core.jobs import HtmlToPdf
from app.core.service import Operation
from app.engines.local import LocalEngine
from app.engines.remote import RemoteConfig, RemoteEngine
from app.server.server import KeyBook, PressroomServer, ServerConfig, Workspace

KEY = "benchmark-key-0123456789"
ROUNDS = 8
PER_ROUND = 10


def main() -> str:
    html = simple_document(3)
    with LocalEngine() as engine:
        server = PressroomServer(engine, KeyBook([Workspace(KEY, "Benchmark", 0)]), ServerConfig(port=0))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        body = {"input": html, "code": service.code_for(Operation.GENERATE_PDF), "returnBinary": "true"}
        headers = {service.DEFAULT_ORIGIN_HEADER: f"{service.DEFAULT_INTEGRATION}/{Operation.GENERATE_PDF.value}"}
        url = server.url + service.execution_path(KEY)
        try:
            with httpx.Client(timeout=60) as raw, RemoteEngine(RemoteConfig(exec_url=server.url), key=KEY) as remote:

                def via_raw() -> float:
                    started = time.perf_counter()
                    response = raw.post(url, json=body, headers=headers)
                    assert response.status_code == 200 and response.content.startswith(b"%PDF-")
                    return time.perf_counter() - started

                def via_engine() -> float:
                    started = time.perf_counter()
                    remote.submit(HtmlToPdf(html)).result()
                    return time.perf_counter() - started

                for _ in range(5):  # warm-up: browser pages, connections
                    via_raw()
                    via_engine()
                raws: list[float] = []
                ours: list[float] = []
                for _ in range(ROUNDS):
                    raws += [via_raw() for _ in range(PER_ROUND)]
                    ours += [via_engine() for _ in range(PER_ROUND)]
        finally:
            server.shutdown()
            server.server_close()
    return report("remote HTML->PDF via serve", median(ours) * 1000, median(raws) * 1000, "ms", "<= 1.1x; raw httpx")


if __name__ == "__main__":
    main()
