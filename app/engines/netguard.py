"""Keeping a server's jobs off this computer and its private network (SSRF).

``pressroom serve`` renders what strangers send. Unless started with ``--allow-private-urls``, its jobs may
reach only public addresses: downloads of merge inputs are checked before connecting (and at every
redirect), and pages are checked request by request. Names are resolved and every address they resolve
to must be public, so a name cannot smuggle in 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from urllib.parse import urlsplit

from app.core.errors import InvalidUrl

HINT = "This server fetches only public addresses; start it with --allow-private-urls to allow others"
_CACHE_SECONDS = 60.0


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved or ip.is_unspecified
        or (isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.ip_network("100.64.0.0/10"))
    )  # fmt: skip


def _host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise InvalidUrl(f"{url[:200]} is not a web address", HINT)
    return parts.hostname, parts.port or (443 if parts.scheme in ("https", "wss") else 80)


def check_public(url: str) -> None:
    """Raise ``InvalidUrl`` unless every address of ``url``'s host is public (blocking: resolves the name)."""
    host, port = _host_and_port(url)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return  # the download itself will report that the name does not resolve
    if not all(is_public(str(info[4][0])) for info in infos):
        raise InvalidUrl(f"{url[:200]} points to a private or local address", HINT)


class PublicOnly:
    """The same check for a browser's requests, asynchronous and with a short memory per host."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int], tuple[bool, float]] = {}

    async def allows(self, url: str) -> bool:
        scheme = urlsplit(url).scheme
        if scheme in ("data", "blob", "about"):
            return True
        try:
            host, port = _host_and_port(url)
        except InvalidUrl:
            return False
        now = time.monotonic()
        known = self._known.get((host, port))
        if known is not None and now - known[1] < _CACHE_SECONDS:
            return known[0]
        try:
            ipaddress.ip_address(host)
            addresses = [host]
        except ValueError:
            import asyncio  # here, not at the top: merges import this module and need no event loop

            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except socket.gaierror:
                return True  # unresolvable: the load fails by itself, with the browser's own message
            addresses = [str(info[4][0]) for info in infos]
        allowed = all(is_public(address) for address in addresses)
        self._known[(host, port)] = (allowed, now)
        return allowed
