"""One frozen dataclass per operation, with its options.

A job is a complete, validated description of one piece of work. Engines take jobs and return an
``Output``; the CLI, the GUI and the server build jobs. Options are their own dataclasses so that a GUI
options panel can map one-to-one onto them. Validation happens on construction: an invalid job cannot
exist, and the error says which value is wrong and what is accepted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from enum import StrEnum

from app.core.errors import InvalidOption


class PaperFormat(StrEnum):
    A3 = "A3"
    A4 = "A4"
    A5 = "A5"
    LETTER = "Letter"
    LEGAL = "Legal"
    TABLOID = "Tabloid"

    @classmethod
    def parse(cls, text: str) -> PaperFormat:
        for member in cls:
            if member.value.lower() == text.strip().lower():
                return member
        raise InvalidOption(f"unknown paper format '{text}'", f"Use one of {_names(cls)}")


class MediaType(StrEnum):
    PRINT = "print"
    SCREEN = "screen"


class ImageType(StrEnum):
    PNG = "png"
    JPEG = "jpeg"
    WEBP = "webp"

    @property
    def media_type(self) -> str:
        return f"image/{self.value}"

    @property
    def extension(self) -> str:
        return ".jpg" if self is ImageType.JPEG else f".{self.value}"

    @classmethod
    def from_extension(cls, suffix: str) -> ImageType | None:
        return {".png": cls.PNG, ".jpg": cls.JPEG, ".jpeg": cls.JPEG, ".webp": cls.WEBP}.get(suffix.lower())


class WaitUntil(StrEnum):
    LOAD = "load"
    DOMCONTENTLOADED = "domcontentloaded"
    NETWORKIDLE = "networkidle"


_LENGTH = re.compile(r"^\s*(?P<value>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>mm|cm|in|px)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Length:
    """A CSS length with an explicit unit, as Chromium's printing takes it."""

    value: float
    unit: str = "mm"

    def __post_init__(self) -> None:
        if self.unit not in ("mm", "cm", "in", "px"):
            raise InvalidOption(f"unknown length unit '{self.unit}'", "Use mm, cm, in or px")
        if not math.isfinite(self.value) or self.value < 0:
            raise InvalidOption(f"length {self.value} must be zero or more")

    @classmethod
    def parse(cls, text: str) -> Length:
        """Parse ``"210mm"``, ``"8.5in"``, ``"1cm"``, ``"96px"``; a bare ``"0"`` needs no unit."""
        match = _LENGTH.match(text)
        if not match:
            raise InvalidOption(f"'{text}' is not a length", "Write a number with a unit, e.g. 210mm, 8.5in, 2cm or 96px")
        value = float(match["value"])
        unit = (match["unit"] or "").lower()
        if not unit:
            if value != 0:
                raise InvalidOption(f"'{text}' needs a unit", f"Write e.g. {text.strip()}mm; units are mm, cm, in and px")
            unit = "mm"
        return cls(value, unit)

    @property
    def css(self) -> str:
        return f"{self.value:g}{self.unit}"

    @property
    def points(self) -> float:
        per_unit = {"mm": 72 / 25.4, "cm": 72 / 2.54, "in": 72.0, "px": 0.75}
        return self.value * per_unit[self.unit]

    def __str__(self) -> str:
        return self.css


@dataclass(frozen=True, slots=True)
class Margins:
    """Page margins; ``None`` on a side leaves Chromium's default (no margin) there."""

    top: Length | None = None
    right: Length | None = None
    bottom: Length | None = None
    left: Length | None = None

    @classmethod
    def uniform(cls, length: Length) -> Margins:
        return cls(length, length, length, length)


@dataclass(frozen=True, slots=True)
class WaitOptions:
    """What to wait for after the page has loaded, before the output is made."""

    selector: str | None = None
    expression: str | None = None
    delay_ms: int = 0

    def __post_init__(self) -> None:
        if self.selector is not None and not self.selector.strip():
            raise InvalidOption("the wait-for selector is empty", "Give a CSS selector such as '#chart'")
        if self.expression is not None and not self.expression.strip():
            raise InvalidOption("the wait expression is empty", "Give a JavaScript expression such as 'window.ready === true'")
        if self.delay_ms < 0 or self.delay_ms > 600_000:
            raise InvalidOption(f"delay {self.delay_ms} ms is out of range", "Use 0 to 600000 milliseconds")


_PAGE_RANGE = re.compile(r"^\s*(\d*)\s*(-)?\s*(\d*)\s*$")


def parse_page_ranges(text: str) -> str:
    """Validate a page-range list like ``1-3,5,10-`` and return it in Chromium's spelling."""
    if not text.strip():
        return ""
    parts: list[str] = []
    for piece in text.split(","):
        match = _PAGE_RANGE.match(piece)
        start, dash, end = match.groups() if match else ("", None, "")
        if not match or (not start and not end) or (not dash and not start):
            raise InvalidOption(f"'{text}' is not a page range", "Write pages and ranges like 1-3,5,10-")
        if any(n and int(n) < 1 for n in (start, end)):
            raise InvalidOption(f"page numbers in '{text}' start at 1", "Write pages and ranges like 1-3,5,10-")
        if start and end and int(start) > int(end):
            raise InvalidOption(f"range '{piece.strip()}' runs backwards", f"Write {end}-{start}")
        parts.append(f"{start}{'-' if dash else ''}{end}")
    return ",".join(parts)


@dataclass(frozen=True, slots=True)
class PdfOptions:
    """Options of HTML -> PDF (Chromium's print-to-PDF)."""

    format: PaperFormat = PaperFormat.A4
    width: Length | None = None  # width and height together replace the paper format
    height: Length | None = None
    landscape: bool = False
    margins: Margins = Margins()
    scale: float = 1.0
    print_background: bool = True
    prefer_css_page_size: bool = False
    page_ranges: str = ""
    header_html: str | None = None
    footer_html: str | None = None
    media: MediaType = MediaType.PRINT
    tagged: bool = False
    outline: bool = False  # Chromium writes an outline only into tagged PDFs; outline implies tagged

    def __post_init__(self) -> None:
        if (self.width is None) != (self.height is None):
            raise InvalidOption("a custom page size needs both width and height", "Give both, e.g. --width 210mm --height 297mm")
        for side, length in (("width", self.width), ("height", self.height)):
            if length is not None and length.value == 0:
                raise InvalidOption(f"page {side} must be more than zero")
        if not (0.1 <= self.scale <= 2.0):
            raise InvalidOption(f"scale {self.scale:g} is out of range", "Chromium prints at a scale from 0.1 to 2")
        object.__setattr__(self, "page_ranges", parse_page_ranges(self.page_ranges))


@dataclass(frozen=True, slots=True)
class ImageOptions:
    """Options of HTML -> image and URL screenshots."""

    width: int = 1280
    height: int = 800
    full_page: bool = False
    scale: float = 1.0  # device scale factor: 2 gives a "retina" image of twice the pixels
    type: ImageType = ImageType.PNG
    quality: int | None = None  # JPEG/WebP only; None means 80
    selector: str | None = None  # shoot only the first element matching this CSS selector
    omit_background: bool = False
    dark: bool = False  # prefers-color-scheme: dark
    scroll: bool = True  # scroll through the page first so lazy content loads (full-page shots)

    def __post_init__(self) -> None:
        for name, value in (("width", self.width), ("height", self.height)):
            if not (1 <= value <= 16384):
                raise InvalidOption(f"viewport {name} {value} is out of range", "Use 1 to 16384 pixels")
        if not (0.1 <= self.scale <= 8):
            raise InvalidOption(f"scale {self.scale:g} is out of range", "Use a device scale factor from 0.1 to 8")
        if self.quality is not None:
            if self.type is ImageType.PNG:
                raise InvalidOption("quality applies to JPEG and WebP only", "Drop --quality, or add --type jpeg or --type webp")
            if not (0 <= self.quality <= 100):
                raise InvalidOption(f"quality {self.quality} is out of range", "Use 0 to 100")
        if self.omit_background and self.type is ImageType.JPEG:
            raise InvalidOption("JPEG has no transparency, so the background cannot be omitted", "Use --type png or --type webp")
        if self.selector is not None and not self.selector.strip():
            raise InvalidOption("the element selector is empty", "Give a CSS selector such as '#chart'")
        if self.selector is not None and self.full_page:
            raise InvalidOption("an element shot and a full-page shot exclude each other", "Use either --selector or --full-page")


@dataclass(frozen=True, slots=True)
class HtmlToPdf:
    """Render an HTML document to PDF."""

    html: str = field(repr=False)
    options: PdfOptions = PdfOptions()
    wait: WaitOptions = WaitOptions()
    base_url: str | None = None  # relative links resolve against it; None: no base (about:blank)
    name: str = "document"  # suggested output name, without extension
    timeout: float | None = None  # seconds; None: the engine's default

    def __post_init__(self) -> None:
        _check_timeout(self.timeout)


@dataclass(frozen=True, slots=True)
class HtmlToImage:
    """Render an HTML document to an image."""

    html: str = field(repr=False)
    options: ImageOptions = ImageOptions()
    wait: WaitOptions = WaitOptions()
    base_url: str | None = None
    name: str = "document"
    timeout: float | None = None

    def __post_init__(self) -> None:
        _check_timeout(self.timeout)


@dataclass(frozen=True, slots=True)
class Screenshot:
    """Load a web page and take a screenshot of it."""

    url: str
    options: ImageOptions = ImageOptions()
    wait: WaitOptions = WaitOptions()
    wait_until: WaitUntil = WaitUntil.LOAD
    name: str = "screenshot"
    timeout: float | None = None

    def __post_init__(self) -> None:
        _check_timeout(self.timeout)


class BookmarkMode(StrEnum):
    """What a merge does with the inputs' outlines (bookmarks)."""

    KEEP = "keep"  # each input's outline, pointing at its pages in the result
    PER_FILE = "per-file"  # one top-level entry per input (its title, else its file name), its outline inside
    NONE = "none"


@dataclass(frozen=True, slots=True)
class MergeSource:
    """One input of a merge: a PDF file or an http(s) URL, optionally some of its pages."""

    location: str  # a file path, or an http(s):// URL
    pages: str = ""  # pages to take, in this order: "1-3,7,10-"; empty: all
    password: str | None = field(default=None, repr=False)  # to open an encrypted input

    def __post_init__(self) -> None:
        if not self.location.strip():
            raise InvalidOption("a merge input is empty", "Give a PDF file, a folder or an http(s):// URL")
        object.__setattr__(self, "pages", parse_page_ranges(self.pages))

    @property
    def is_url(self) -> bool:
        return self.location.startswith(("http://", "https://"))

    @property
    def display_name(self) -> str:
        """The file name, for messages and per-file bookmarks."""
        tail = self.location.split("?", 1)[0].rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
        return tail or self.location


@dataclass(frozen=True, slots=True)
class MergePdfs:
    """Merge PDFs into one, in the order given."""

    sources: tuple[MergeSource, ...]
    bookmarks: BookmarkMode = BookmarkMode.KEEP
    title: str | None = None  # the result's title; None: the first input's title, if it has one
    name: str = "merged"
    timeout: float | None = None  # seconds for the whole merge; None: no limit (downloads have their own)

    def __post_init__(self) -> None:
        if not self.sources:
            raise InvalidOption("nothing to merge", "Give at least one PDF")
        _check_timeout(self.timeout)


@dataclass(frozen=True, slots=True)
class RunScript:
    """Run a Puppeteer-style script (the body of an async function with ``page`` in scope)."""

    source: str = field(repr=False)
    url: str | None = None  # where the page is before the script starts; None: about:blank
    full_page: bool = False  # the screenshot taken when the script ends
    name: str = "script"
    timeout: float | None = None

    def __post_init__(self) -> None:
        if not self.source.strip():
            raise InvalidOption("the script is empty", "Give a script such as: await page.goto('https://example.com');")
        _check_timeout(self.timeout)


Job = HtmlToPdf | HtmlToImage | Screenshot | MergePdfs | RunScript


def _check_timeout(timeout: float | None) -> None:
    if timeout is not None and not (0 < timeout <= 86_400):
        raise InvalidOption(f"timeout {timeout:g} s is out of range", "Use a number of seconds above 0")


def _names(enum: type[StrEnum]) -> str:
    return ", ".join(member.value for member in enum)
