"""Configuration of the local engine, and what it reports about its browser."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.errors import InvalidOption
from app.core.settings import Settings


@dataclass(frozen=True, slots=True)
class LocalEngineConfig:
    browser_path: str | None = None  # None: discover (see discovery.py)
    concurrency: int = 4
    timeout: float = 30.0  # seconds per job, unless the job says otherwise
    context_jobs: int = 100  # a pooled page gets a fresh browser context after this many jobs
    browser_jobs: int = 2000  # the browser is restarted after this many jobs
    launch_timeout: float = 60.0
    download_limit_mb: int = 200  # merges: largest PDF fetched from a URL
    download_timeout: float = 30.0  # merges: seconds to connect to a URL, and between pieces of data
    allow_private_urls: bool = True  # False (the server's default): jobs reach public addresses only

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise InvalidOption(f"concurrency {self.concurrency} must be at least 1")
        if self.timeout <= 0:
            raise InvalidOption(f"timeout {self.timeout:g} s must be more than 0")
        if self.context_jobs < 1 or self.browser_jobs < 1:
            raise InvalidOption("jobs per context and per browser must be at least 1")

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalEngineConfig:
        return cls(
            browser_path=settings["browser_path"] or None,
            concurrency=settings["concurrency"],
            timeout=settings["timeout"],
            context_jobs=settings["context_jobs"],
            browser_jobs=settings["browser_jobs"],
        )


@dataclass(frozen=True, slots=True)
class BrowserInfo:
    executable: str
    version: str
    source: str  # "setting", "playwright" or "system"
