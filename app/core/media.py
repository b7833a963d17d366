"""What a blob of output bytes is: its media type and, for images, its pixel size.

Reads only the first bytes of the data (magic numbers and image headers), so it is cheap enough to run
on every output.
"""

from __future__ import annotations

import struct

PDF = "application/pdf"
PNG = "image/png"
JPEG = "image/jpeg"
WEBP = "image/webp"

EXTENSIONS = {PDF: ".pdf", PNG: ".png", JPEG: ".jpg", WEBP: ".webp"}


def sniff(data: bytes) -> str:
    """The media type of ``data`` by its signature; ``application/octet-stream`` when unknown."""
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    return "application/octet-stream"


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height in pixels of a PNG, JPEG or WebP image, or None if it is not one of those."""
    kind = sniff(data)
    try:
        if kind == PNG:
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if kind == JPEG:
            return _jpeg_size(data)
        if kind == WEBP:
            return _webp_size(data)
    except (struct.error, IndexError):
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return int(width), int(height)
        pos += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return int(width & 0x3FFF), int(height & 0x3FFF)
    return None
