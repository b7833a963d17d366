"""The interface every back end implements: a job in, a cancellable future of an Output out.

Like an httpx transport, it is deliberately small. ``LocalEngine`` (Playwright + Chromium) and, later,
``RemoteEngine`` (the hosted API) implement it; the CLI, the GUI and the server only ever see this.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from app.core.jobs import Job
from app.core.results import Output


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a long job has come: ``fraction`` from 0 to 1, and what it is doing (``reading report.pdf``)."""

    fraction: float
    text: str


ProgressCallback = Callable[[Progress], None]


@runtime_checkable
class Engine(Protocol):
    """Runs jobs. Thread-safe: ``submit`` may be called from any thread."""

    name: str

    def submit(self, job: Job, progress: ProgressCallback | None = None) -> Future[Output]:
        """Start ``job``; the future gives its Output or raises a ``PressroomError``.

        ``future.cancel()`` stops the work itself, not just the wait for it. ``progress``, if given, is
        called (on an engine thread, so it must be quick and thread-safe) as jobs with steps get on - a
        merge reports each input it downloads, reads and copies; jobs that are one step report nothing.
        """
        ...

    def close(self) -> None:
        """Stop all work and free every resource (browser processes, connections). Idempotent."""
        ...
