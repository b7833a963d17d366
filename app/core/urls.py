"""Addresses: checking what users type, folder URLs for relative links, file names from URLs."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.core.errors import InvalidUrl

_HOSTLIKE = re.compile(r"^[\w.-]+\.[a-z]{2,}(:\d+)?(/\S*)?$", re.IGNORECASE)


def normalize_url(text: str) -> str:
    """Return an http(s) or file URL for what a user typed, or raise ``InvalidUrl``.

    ``example.com/docs`` becomes ``https://example.com/docs``; a path to an existing file becomes its
    ``file://`` URL. Anything else without a host, or with another scheme, is refused.
    """
    candidate = text.strip()
    if not candidate:
        raise InvalidUrl("the address is empty", "Give a URL such as https://example.com")
    parts = urlsplit(candidate)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        try:
            port = parts.port
        except ValueError:
            raise InvalidUrl(f"'{text}' has an invalid port", "Check the address") from None
        if not parts.hostname or " " in candidate or (port is not None and port == 0):
            raise InvalidUrl(f"'{text}' is not a valid address", "Give a URL such as https://example.com/page")
        return candidate
    if scheme == "file":
        path = Path(unquote(parts.path))
        if not path.exists():
            raise InvalidUrl(f"'{text}' points to a file that does not exist", "Check the path")
        return candidate
    if not scheme or len(scheme) == 1:  # no scheme, or a Windows drive letter
        path = Path(candidate).expanduser()
        if path.is_file():
            return path.resolve().as_uri()
        if _HOSTLIKE.match(candidate):
            return f"https://{candidate}"
    raise InvalidUrl(
        f"'{text}' is not a web address or an existing file",
        "Give an http(s):// URL, e.g. https://example.com, or the path of an HTML file",
    )


def folder_url(path: Path) -> str:
    """The ``file://`` URL of a folder, with the trailing slash relative links need."""
    uri = path.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


_UNSAFE = re.compile(r"[^\w.-]+")


def name_from_url(url: str) -> str:
    """A file-name stem for a page: ``https://example.com/docs/intro`` -> ``example.com_docs_intro``."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return Path(unquote(parts.path)).stem or "page"
    pieces = [parts.hostname or "page", *(p for p in unquote(parts.path).split("/") if p)]
    stem = _UNSAFE.sub("-", "_".join(pieces)).strip("-_.")
    return (stem or "page")[:120]
