"""Turning Playwright's errors into Pressroom's error tree, with words a person understands."""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from app.core.errors import (
    BrowserError,
    InvalidOption,
    InvalidUrl,
    JobTimeout,
    PageLoadError,
    PressroomError,
    RenderError,
)

_NET_REASONS = {
    "ERR_NAME_NOT_RESOLVED": "the host name could not be found",
    "ERR_NAME_RESOLUTION_FAILED": "the host name could not be looked up",
    "ERR_CONNECTION_REFUSED": "the connection was refused",
    "ERR_CONNECTION_RESET": "the connection was reset",
    "ERR_CONNECTION_CLOSED": "the server closed the connection",
    "ERR_EMPTY_RESPONSE": "the server sent an empty response",
    "ERR_CONNECTION_TIMED_OUT": "the connection timed out",
    "ERR_TIMED_OUT": "the connection timed out",
    "ERR_ADDRESS_UNREACHABLE": "the address is unreachable",
    "ERR_INTERNET_DISCONNECTED": "this computer is offline",
    "ERR_NETWORK_CHANGED": "the network changed during the load",
    "ERR_UNSAFE_PORT": "browsers refuse that port",
    "ERR_FILE_NOT_FOUND": "the file does not exist",
    "ERR_ACCESS_DENIED": "access to the file was denied",
    "ERR_ABORTED": "the load was aborted (the address may serve a download rather than a page)",
    "ERR_TOO_MANY_REDIRECTS": "the page redirects in a loop",
    "ERR_INVALID_URL": "the address is not valid",
    "ERR_SSL_PROTOCOL_ERROR": "the secure connection failed",
}
_NET_ERROR = re.compile(r"net::(ERR_[A-Z_0-9]+)")
_SELECTOR_ERROR = re.compile(r"while parsing (css )?selector|is not a valid selector|Unexpected token", re.IGNORECASE)
_CLOSED = ("has been closed", "Target closed", "Connection closed", "Browser closed", "browser has disconnected")


def first_line(exc: BaseException) -> str:
    """Playwright's message without its API prefix ("Page.goto: ") and call log."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return re.sub(r"^[A-Za-z]+\.[a-z_A-Z]+: ", "", text)


def is_browser_gone(exc: BaseException) -> bool:
    return isinstance(exc, PlaywrightError) and any(marker in str(exc) for marker in _CLOSED)


def load_error(exc: PlaywrightError, url: str) -> PressroomError:
    """An error from loading ``url`` (navigation)."""
    if isinstance(exc, PlaywrightTimeout):
        return JobTimeout(f"loading {url} timed out", "Raise --timeout, or try --wait-until domcontentloaded")
    match = _NET_ERROR.search(str(exc))
    if match:
        code = match.group(1)
        if code == "ERR_BLOCKED_BY_CLIENT":  # only Pressroom's own guard blocks requests
            from app.engines.netguard import HINT

            return InvalidUrl(f"{url} points to a private or local address", HINT)
        certificate = code.startswith("ERR_CERT_")
        reason = f"its TLS certificate is not valid ({code})" if certificate else _NET_REASONS.get(code, code)
        return PageLoadError(
            f"could not load {url}: {reason}", "Check the address and that the site is reachable from this computer"
        )
    return translate(exc, f"loading {url}")


def translate(exc: PlaywrightError, step: str) -> PressroomError:
    """A Playwright error raised during ``step`` (e.g. "waiting for '#chart'")."""
    message = first_line(exc)
    if isinstance(exc, PlaywrightTimeout):
        return JobTimeout(f"{step} timed out", "Raise --timeout, or check that the page gets there")
    if "crash" in message.lower():
        return RenderError(
            f"the page crashed while {step}",
            "The document may need more memory than is available; simplify or split it",
        )
    if is_browser_gone(exc):
        return BrowserError("the browser stopped unexpectedly", "Try again; Pressroom restarts the browser by itself")
    if _SELECTOR_ERROR.search(message):
        return InvalidOption(f"invalid CSS selector: {message}", "Check the selector's syntax")
    if "Page range" in message:
        detail = "is beyond the last page" if "exceeds" in message else "is not a valid page range"
        return InvalidOption(f"the page range {detail}", "Give pages that exist, like 1-3,5")
    return RenderError(f"{step} failed: {message}")
