"""Downloading the PDFs a merge names by URL: a few at a time, with time and size limits.

Every URL that fails is reported, all together in one error, so a user fixes a list in one go. Files
go to a scratch folder, not memory, so a merge of many large inputs stays small.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app import __version__
from app.core.errors import InvalidOption, InvalidUrl, JobTimeout, PageLoadError, PressroomError, UnreadablePdf
from app.engines.netguard import check_public

if TYPE_CHECKING:
    import httpx

CHUNK = 256 * 1024


@dataclass(frozen=True, slots=True)
class Downloader:
    max_bytes: int = 200 * 2**20  # per file
    timeout: float = 30.0  # seconds to connect, and between two pieces of data
    parallel: int = 4
    allow_private: bool = True  # False: only public addresses, checked at every redirect too (netguard)

    def fetch_all(
        self,
        urls: dict[int, str],
        folder: Path,
        cancelled: threading.Event,
        fetched: Callable[[int, int], None] | None = None,
    ) -> dict[int, Path]:
        """Download ``{index: url}`` into ``folder``; ``{index: file}``, or one error naming every failure.

        ``fetched(done, index)`` is called (from the download threads) as each one finishes.
        """
        import httpx  # only merges of URLs pay for importing it

        limits = httpx.Limits(max_connections=self.parallel)
        headers = {"User-Agent": f"Pressroom/{__version__}", "Accept": "application/pdf, */*;q=0.5"}
        results: dict[int, Path] = {}
        problems: list[PressroomError] = []
        with httpx.Client(timeout=httpx.Timeout(self.timeout), limits=limits, headers=headers, follow_redirects=False) as client:
            finished = itertools.count(1)

            def fetch(index: int, url: str) -> None:
                try:
                    results[index] = self._fetch(client, url, folder / f"{index:05d}.pdf", cancelled)
                except PressroomError as exc:
                    problems.append(exc)
                if fetched is not None:
                    fetched(next(finished), index)

            with ThreadPoolExecutor(self.parallel, thread_name_prefix="pressroom-download") as pool:
                for index, url in urls.items():
                    pool.submit(fetch, index, url)
        if cancelled.is_set():
            return results
        if problems:
            if len(problems) == 1:
                raise problems[0]
            kind = type(problems[0]) if len({type(p) for p in problems}) == 1 else PageLoadError
            listed = "; ".join(p.message for p in problems)
            raise kind(f"{len(problems)} of {len(urls)} downloads failed: {listed}", problems[0].hint)
        return results

    def _fetch(self, client: httpx.Client, url: str, path: Path, cancelled: threading.Event) -> Path:
        import httpx

        hint = "Check the address and that the server is reachable from this computer"
        try:
            with self._open(client, url) as response:
                if response.status_code >= 400:
                    raise PageLoadError(f"{url} answered HTTP {response.status_code} {response.reason_phrase}".rstrip(), hint)
                declared = response.headers.get("Content-Length")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    raise InvalidOption(
                        f"{url} is {int(declared) / 2**20:.0f} MB, more than the {self._limit} limit", "Merge smaller files"
                    )
                size = 0
                with path.open("wb") as stream:
                    for chunk in response.iter_bytes(CHUNK):
                        if cancelled.is_set():
                            return path
                        size += len(chunk)
                        if size > self.max_bytes:
                            raise InvalidOption(f"{url} is more than the {self._limit} limit", "Merge smaller files")
                        stream.write(chunk)
        except httpx.TimeoutException as exc:
            raise JobTimeout(f"{url} did not answer within {self.timeout:g} s", hint) from exc
        except httpx.InvalidURL as exc:
            raise InvalidUrl(f"{url} is not a valid address", "Check it") from exc
        except httpx.ConnectError as exc:
            raise PageLoadError(f"could not connect to {url}: {_reason(exc)}", hint) from exc
        except httpx.HTTPError as exc:
            raise PageLoadError(f"downloading {url} failed: {_reason(exc)}", hint) from exc
        with path.open("rb") as stream:
            if b"%PDF-" not in stream.read(1024):
                kind = response.headers.get("Content-Type", "unknown").split(";")[0]
                raise UnreadablePdf(f"{url} is not a PDF (the server sent {kind})", "Check the address")
        return path

    @contextlib.contextmanager
    def _open(self, client: httpx.Client, url: str) -> Iterator[httpx.Response]:
        """A streamed GET that follows up to 5 redirects, checking every address it is sent to."""
        for _ in range(6):
            if not self.allow_private:
                check_public(url)
            with client.stream("GET", url) as response:
                if response.is_redirect and "location" in response.headers:
                    url = str(response.url.join(response.headers["location"]))
                    continue
                yield response
                return
        raise PageLoadError(f"{url} redirects too many times", "Check the address")

    @property
    def _limit(self) -> str:
        return f"{self.max_bytes / 2**20:g} MB"


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if "Connection refused" in text:
        return "the connection was refused"
    if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo failed" in text:
        return "the host name could not be found"
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "its TLS certificate is not valid"
    return text.split("\n")[0]
