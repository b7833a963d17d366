"""The operations themselves, on a pooled page: load, wait, make the file.

Each function takes a ``Slot`` (a warm page with its state) and a deadline on the event loop's clock.
Page state (viewport, media emulation, which document is loaded) is applied here, lazily: a setting is
sent to the browser only when it differs from what the page already has.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from playwright.async_api import BrowserContext, CDPSession, Page, Route
from playwright.async_api import Error as PlaywrightError

from app.core import media
from app.core.errors import InvalidOption, InvalidUrl, PageLoadError, RenderError, SourceNotFound
from app.core.jobs import HtmlToImage, HtmlToPdf, ImageOptions, ImageType, Job, MediaType, Screenshot, WaitOptions
from app.core.results import Output
from app.engines.local.errors import first_line, load_error, translate

T = TypeVar("T")
ColorScheme = Literal["light", "dark"]

BLANK = "about:blank"
# Room kept for a header or footer when the caller gave no margin on that side: Chromium draws them
# inside the page margin, so with no margin they would be invisible.
HEADER_FOOTER_MARGIN = "15mm"
LAZY_SCROLL_MAX_STEPS = 200
LAZY_IMAGE_WAIT_MS = 5000

# Anything in a document that can leave state behind in the page's JavaScript realm (globals, timers,
# top-level let/const that would clash with the next document's) or navigate the page later. A page
# that loaded such a document is navigated to a fresh document before its next job; one that did not
# is simply overwritten by the next ``set_content``, which costs a fraction of a navigation.
_ACTIVE_CONTENT = re.compile(
    r"<\s*(?:script|iframe|frame|object|embed)\b|\bon[a-z]+\s*=|javascript:|http-equiv\s*=\s*['\"]?\s*refresh",
    re.IGNORECASE,
)
# Web fonts come only from @font-face rules (inline, in linked or imported style sheets) or from
# script; a document with none of these has no font to wait for, and the round trip is skipped.
_MAY_LOAD_FONTS = re.compile(r"@font-face|@import|<\s*link\b|<\s*script\b", re.IGNORECASE)

_HAS_TITLE = re.compile(r"<title\b", re.IGNORECASE)

_SCROLL_THROUGH = """
async ({ maxSteps, imageWaitMs }) => {
  const root = document.scrollingElement || document.documentElement;
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const step = Math.max(window.innerHeight, 200);
  for (let y = 0, i = 0; y < root.scrollHeight && i < maxSteps; y += step, i++) {
    window.scrollTo(0, y);
    await frame();
  }
  window.scrollTo(0, root.scrollHeight);
  await frame();
  window.scrollTo(0, 0);
  await frame();
  const pending = Array.from(document.images).filter(img => !img.complete);
  const loaded = Promise.all(pending.map(img => new Promise(resolve => {
    img.addEventListener('load', resolve, { once: true });
    img.addEventListener('error', resolve, { once: true });
  })));
  await Promise.race([loaded, new Promise(r => setTimeout(r, imageWaitMs))]);
  await frame();
}
"""


_CLEAR_WEB_STORAGE = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"


@dataclass(eq=False)
class Slot:
    """A warm page of the pool, in its own browser context, with what we know of its state."""

    context: BrowserContext
    page: Page
    scale: float
    generation: int
    viewport: tuple[int, int]
    jobs: int = 0
    media: Literal["screen"] | None = None  # emulated media type; None = none (print for PDFs)
    color_scheme: ColorScheme = "light"
    file_home: str = BLANK  # address of the engine's empty file, home of jobs with a file base URL
    home: str = BLANK  # the empty document we last navigated to
    home_actual: str = BLANK  # what the page reported after that navigation
    dirty: bool = False  # the loaded document may have left JavaScript state behind
    networked: bool = False  # the document may have talked to web servers (and got cookies back)
    fonts_pending: bool = True  # the document may be loading web fonts
    crashed: bool = False
    tainted: bool = False  # a script changed what a reset cannot restore (user agent, headers...)
    guarded: bool = False  # requests to private addresses are refused (the server's pages)
    origins: set[str] = field(default_factory=set)  # web origins visited since the last reset
    _cdp: CDPSession | None = None

    async def cdp(self) -> CDPSession:
        if self._cdp is None:
            self._cdp = await self.context.new_cdp_session(self.page)
        return self._cdp

    def on_navigated(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            self.origins.add(f"{parts.scheme}://{parts.netloc}")


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.seconds = seconds
        self.at = self.loop.time() + seconds

    @property
    def ms(self) -> float:
        """Milliseconds left, for Playwright's timeout arguments (never 0: that means "no timeout")."""
        return max(1.0, (self.at - self.loop.time()) * 1000)


async def step(description: str, action: Awaitable[T]) -> T:
    """Await a Playwright call, translating its errors for ``description`` (e.g. "printing the PDF")."""
    try:
        return await action
    except PlaywrightError as exc:
        raise translate(exc, description) from exc


# -- documents -------------------------------------------------------------------------------------

_BASE_PRESENT = re.compile(r"<base\b[^>]*\bhref\s*=", re.IGNORECASE)
_INSERT_AFTER = (
    re.compile(r"<head\b[^>]*>", re.IGNORECASE),
    re.compile(r"<html\b[^>]*>", re.IGNORECASE),
    re.compile(r"<!doctype\b[^>]*>", re.IGNORECASE),
)


def home_for(base_url: str | None, file_home: str) -> str:
    """The address of the empty document an HTML job is loaded into.

    - no base URL: ``about:blank``;
    - a web base URL: that very address (an empty document served by ourselves, never fetched), so
      the document is same-origin with its fonts and images: Chromium refuses cross-origin web fonts
      without CORS headers, which a document set into ``about:blank`` would always be;
    - a ``file://`` base URL: ``file_home``, an empty file of the engine's own, because a page at
      ``about:blank`` may not load ``file://`` images, style sheets and fonts; ``with_base`` then
      points relative links into the base folder.
    """
    if not base_url:
        return BLANK
    if base_url.startswith("file:"):
        return file_home
    return base_url.split("#", 1)[0]


def with_base(html: str, base_url: str | None) -> str:
    """``html`` with a ``<base href>`` for ``base_url``, unless it has one of its own.

    Chromium compares links with the document's base URL, so ``<a href="#intro">`` stays an internal
    link of the PDF. The element goes into ``<head>`` and never before the doctype (that would switch
    the page into quirks mode).
    """
    if not base_url or not base_url.startswith("file:") or _BASE_PRESENT.search(html):
        return html
    tag = f'<base href="{escape(base_url, quote=True)}">'
    for pattern in _INSERT_AFTER:
        match = pattern.search(html)
        if match:
            return f"{html[: match.end()]}{tag}{html[match.end() :]}"
    return tag + html


def check_base_url(base_url: str) -> None:
    parts = urlsplit(base_url)
    if parts.scheme == "file":
        folder = Path(unquote(parts.path))
        if not base_url.endswith("/"):
            folder = folder.parent
        if not folder.is_dir():
            raise SourceNotFound(f"the base folder {folder} does not exist", "Check --base-url")
    elif parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidUrl(f"'{base_url}' cannot be a base URL", "Use an http(s):// or file:// URL")


async def go_home(slot: Slot, home: str, deadline: Deadline) -> None:
    """Give the page a fresh, empty document at ``home``: a new JavaScript realm, nothing loaded."""
    page = slot.page
    if home.startswith(("http:", "https:")):

        async def empty(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body="")

        def is_home(url: str) -> bool:
            return url == home

        await page.route(is_home, empty)
        try:
            await step(f"opening {home}", page.goto(home, wait_until="commit", timeout=deadline.ms))
        finally:
            await page.unroute(is_home, empty)
    else:
        await step("preparing the page", page.goto(home, timeout=deadline.ms))
    slot.home, slot.home_actual, slot.dirty = home, page.url, False


async def load_html(slot: Slot, html: str, base_url: str | None, wait: WaitOptions, deadline: Deadline) -> None:
    if base_url:
        check_base_url(base_url)
    home = home_for(base_url, slot.file_home)
    if slot.dirty or slot.home != home or slot.page.url != slot.home_actual:
        await go_home(slot, home, deadline)
    slot.dirty = bool(_ACTIVE_CONTENT.search(html)) or wait.expression is not None
    slot.networked = slot.networked or "//" in html or bool(base_url and base_url.startswith("http"))
    slot.fonts_pending = bool(_MAY_LOAD_FONTS.search(html))
    await step("loading the document", slot.page.set_content(with_base(html, base_url), wait_until="load", timeout=deadline.ms))


async def wait_for(slot: Slot, wait: WaitOptions, deadline: Deadline) -> None:
    page = slot.page
    if wait.selector:
        await step(f"waiting for '{wait.selector}'", page.wait_for_selector(wait.selector, state="attached", timeout=deadline.ms))
    if wait.expression:
        try:
            await page.wait_for_function(wait.expression, timeout=deadline.ms)
        except PlaywrightError as exc:
            error = translate(exc, f"waiting for '{wait.expression}' to become true")
            if isinstance(error, RenderError) and not slot.crashed:  # the expression itself threw
                raise InvalidOption(
                    f"the wait expression failed: {first_line(exc)}", "Fix the JavaScript of --wait-expression"
                ) from exc
            raise error from exc
    if wait.delay_ms:
        await asyncio.sleep(wait.delay_ms / 1000)
    # Output made before web fonts arrive uses fallback fonts. Chromium 156's printing and Playwright's
    # screenshots wait for the fonts they know of; waiting for document.fonts.ready here makes that
    # explicit, covers fonts a script adds late, and does not depend on the browser's version.
    if slot.fonts_pending:
        await step("waiting for web fonts", page.evaluate("() => document.fonts.ready.then(() => undefined)"))


async def emulate(
    slot: Slot, *, viewport: tuple[int, int] | None, media_type: Literal["screen"] | None, scheme: ColorScheme
) -> None:
    page = slot.page
    if viewport is not None and viewport != slot.viewport:
        await page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        slot.viewport = viewport
    if (media_type, scheme) != (slot.media, slot.color_scheme):
        await page.emulate_media(media=media_type or "null", color_scheme=scheme)
        slot.media, slot.color_scheme = media_type, scheme


# -- operations ------------------------------------------------------------------------------------


async def html_to_pdf(slot: Slot, job: HtmlToPdf, deadline: Deadline) -> Output:
    options = job.options
    await emulate(slot, viewport=None, media_type="screen" if options.media is MediaType.SCREEN else None, scheme="light")
    await load_html(slot, job.html, job.base_url, job.wait, deadline)
    await wait_for(slot, job.wait, deadline)
    if not _HAS_TITLE.search(job.html):
        # Chromium titles an untitled document after its address: "blank.html", "about:blank".
        await step("naming the document", slot.page.evaluate("t => { if (!document.title) document.title = t; }", job.name))
    data = await step("printing the PDF", slot.page.pdf(**pdf_arguments(job)))
    return Output(data, media.PDF, f"{job.name}.pdf")


def pdf_arguments(job: HtmlToPdf) -> dict[str, Any]:
    options = job.options
    args: dict[str, Any] = {
        "landscape": options.landscape,
        "scale": options.scale,
        "print_background": options.print_background,
        "prefer_css_page_size": options.prefer_css_page_size,
        "page_ranges": options.page_ranges,
        "tagged": options.tagged or options.outline,
        "outline": options.outline,
    }
    if options.width and options.height:
        args["width"], args["height"] = options.width.css, options.height.css
    else:
        args["format"] = options.format.value
    margins = {side: length.css for side in ("top", "right", "bottom", "left") if (length := getattr(options.margins, side))}
    if options.header_html is not None or options.footer_html is not None:
        args["display_header_footer"] = True
        # Chromium's default header text is too small to read and its default footer prints the
        # date and URL; give both a readable size and leave out what was not asked for.
        args["header_template"] = _header_footer(options.header_html)
        args["footer_template"] = _header_footer(options.footer_html)
        if options.header_html is not None:
            margins.setdefault("top", HEADER_FOOTER_MARGIN)
        if options.footer_html is not None:
            margins.setdefault("bottom", HEADER_FOOTER_MARGIN)
    if margins:
        args["margin"] = margins
    return args


def _header_footer(html: str | None) -> str:
    if html is None:
        return "<span></span>"
    return f'<div style="font-size:10px;width:100%;margin:0 10mm;">{html}</div>'


async def html_to_image(slot: Slot, job: HtmlToImage, deadline: Deadline) -> Output:
    options = job.options
    await _prepare_image_page(slot, options)
    await load_html(slot, job.html, job.base_url, job.wait, deadline)
    return await _shoot(slot, options, job.wait, job.name, deadline)


async def screenshot(slot: Slot, job: Screenshot, deadline: Deadline) -> Output:
    options = job.options
    await _prepare_image_page(slot, options)
    slot.dirty = slot.networked = slot.fonts_pending = True  # a web page can do anything
    try:
        response = await slot.page.goto(job.url, wait_until=job.wait_until.value, timeout=deadline.ms)
    except PlaywrightError as exc:
        raise load_error(exc, job.url) from exc
    if response is not None and response.status >= 400:
        raise PageLoadError(
            f"{job.url} answered HTTP {response.status} {response.status_text}".rstrip(),
            "Check the address; the page may have moved or need a login",
        )
    return await _shoot(slot, options, job.wait, job.name, deadline)


async def _prepare_image_page(slot: Slot, options: ImageOptions) -> None:
    await emulate(slot, viewport=(options.width, options.height), media_type=None, scheme="dark" if options.dark else "light")


async def _shoot(slot: Slot, options: ImageOptions, wait: WaitOptions, name: str, deadline: Deadline) -> Output:
    page = slot.page
    await wait_for(slot, wait, deadline)
    if options.full_page and options.scroll:
        await step(
            "scrolling through the page",
            page.evaluate(_SCROLL_THROUGH, {"maxSteps": LAZY_SCROLL_MAX_STEPS, "imageWaitMs": LAZY_IMAGE_WAIT_MS}),
        )
    jpeg = options.type is ImageType.JPEG
    shot: dict[str, Any] = {
        "type": "jpeg" if jpeg else "png",
        "omit_background": options.omit_background,
        "timeout": deadline.ms,
    }
    if jpeg:
        shot["quality"] = 80 if options.quality is None else options.quality
    if options.selector:
        element = await step(f"finding '{options.selector}'", page.query_selector(options.selector))
        if element is None:
            raise InvalidOption(
                f"no element matches '{options.selector}'", "Check the selector, or wait for the element with --wait-for"
            )
        data = await step("taking the element screenshot", element.screenshot(**shot))
    else:
        data = await step("taking the screenshot", page.screenshot(full_page=options.full_page, **shot))
    if options.type is ImageType.WEBP:
        data = await asyncio.to_thread(png_to_webp, data, 80 if options.quality is None else options.quality)
    return Output.from_bytes(data, name)


def png_to_webp(png: bytes, quality: int) -> bytes:
    """Chromium's screenshot API through Playwright makes PNG and JPEG only; WebP is converted."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        out = io.BytesIO()
        image.save(out, "WEBP", quality=quality, method=4)
        return out.getvalue()


Renderer = Callable[[Slot, Any, Deadline], Awaitable[Output]]
RENDERERS: dict[type[Job], Renderer] = {
    HtmlToPdf: html_to_pdf,
    HtmlToImage: html_to_image,
    Screenshot: screenshot,
}


async def reset(slot: Slot) -> None:
    """Leave the page as the next job expects it: no cookies, no storage, no leftover script state.

    Viewport and media emulation are restored lazily by the next job (``emulate``), which sends only
    what differs; the document is replaced here only if the last one could have left state behind.
    """
    page = slot.page
    if slot.dirty:
        # The renderer commits localStorage writes to the browser in batches, a moment later; a clear
        # from the browser side alone can be overtaken by them. So the page clears its own first.
        await page.evaluate(_CLEAR_WEB_STORAGE)
    if slot.origins or slot.dirty:
        cdp = await slot.cdp()
        origins = set(slot.origins)
        if page.url.startswith("file:"):
            origins.add("file://")
        for origin in origins:
            await cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        slot.origins.clear()
    if slot.networked:
        await slot.context.clear_cookies()
        slot.networked = False
    if slot.dirty or page.url != slot.home_actual:
        await go_home(slot, slot.home, Deadline(15))
        slot.origins.clear()
