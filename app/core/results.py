"""The result of every operation, whatever engine made it."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app.core import media


@dataclass(frozen=True, eq=False)
class Output:
    """A finished file: its bytes, what they are, and what is known about them."""

    data: bytes = field(repr=False)
    media_type: str
    suggested_name: str  # file name with extension, e.g. "invoice.pdf"
    width: int | None = None  # pixels, for images
    height: int | None = None
    seconds: float = 0.0  # time the engine spent on the job
    warnings: tuple[str, ...] = ()
    console: tuple[str, ...] = ()  # a script's console messages, "level: text"
    result: str | None = None  # a script's return value, as JSON text

    @classmethod
    def from_bytes(cls, data: bytes, stem: str, **extra: Any) -> Output:
        """Build an Output whose type and image size are read from the data itself."""
        kind = media.sniff(data)
        size = media.image_size(data)
        width, height = size if size else (None, None)
        return cls(data, kind, stem + media.EXTENSIONS.get(kind, ".bin"), width, height, **extra)

    @property
    def size(self) -> int:
        return len(self.data)

    @cached_property
    def pages(self) -> int | None:
        """Number of pages of a PDF (read on first use: parsing costs time), else None."""
        if self.media_type != media.PDF:
            return None
        from pypdf import PdfReader  # lazy: only callers that show page counts pay for pypdf

        return len(PdfReader(io.BytesIO(self.data)).pages)

    def summary(self) -> dict[str, Any]:
        """A JSON-able description (no data)."""
        info: dict[str, Any] = {"media_type": self.media_type, "bytes": self.size}
        if self.media_type == media.PDF:
            info["pages"] = self.pages
        if self.width is not None:
            info["width"], info["height"] = self.width, self.height
        info["seconds"] = round(self.seconds, 3)
        if self.warnings:
            info["warnings"] = list(self.warnings)
        if self.console:
            info["console"] = list(self.console)
        if self.result is not None:
            info["result"] = json.loads(self.result)
        return info

    def __repr__(self) -> str:
        return f"Output({self.suggested_name!r}, {self.media_type}, {self.size} bytes)"
