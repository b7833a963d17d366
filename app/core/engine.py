"""The interface every back end implements: a job in, a cancellable future of an Output out.

Like an httpx transport, it is deliberately small. ``LocalEngine`` (Playwright + Chromium) and, later,
``RemoteEngine`` (the hosted API) implement it; the CLI, the GUI and the server only ever see this.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol, runtime_checkable

from app.core.jobs import Job
from app.core.results import Output


@runtime_checkable
class Engine(Protocol):
    """Runs jobs. Thread-safe: ``submit`` may be called from any thread."""

    name: str

    def submit(self, job: Job) -> Future[Output]:
        """Start ``job``; the future gives its Output or raises a ``PressroomError``.

        ``future.cancel()`` stops the work itself, not just the wait for it.
        """
        ...

    def close(self) -> None:
        """Stop all work and free every resource (browser processes, connections). Idempotent."""
        ...
