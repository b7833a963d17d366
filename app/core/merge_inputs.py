"""Turning what a user gives a merge (files, folders, URLs, ``file.pdf:1-3`` page selections) into
``MergeSource`` objects, and the orders a merge list can be sorted in. Used by the CLI and the window.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from enum import StrEnum
from pathlib import Path

from app.core.errors import InvalidOption, SourceNotFound
from app.core.jobs import MergeSource

_DIGITS = re.compile(r"(\d+)")
_RANGES = re.compile(r"^[\d\s,-]+$")


class SortOrder(StrEnum):
    NATURAL = "natural"  # by file name, numbers by value: report2 before report10
    NAME = "name"  # by file name, character by character
    MODIFIED = "modified"  # oldest first; URLs (no date known) keep their order, after the files


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders ``page2.pdf`` before ``page10.pdf`` (case-insensitive)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part.casefold()) for part in _DIGITS.split(name) if part)


def split_pages(text: str) -> tuple[str, str]:
    """``"report.pdf:1-3,7"`` -> ``("report.pdf", "1-3,7")``; text without a page suffix -> ``(text, "")``.

    A file that really is called ``name.pdf:3`` wins over the reading as a page selection.
    """
    location, colon, suffix = text.rpartition(":")
    if not colon or not location or not _RANGES.match(suffix) or Path(text).exists():
        return text, ""
    return location, suffix


def pdfs_in(folder: Path) -> list[Path]:
    """The PDF files directly inside ``folder``, in natural order."""
    try:
        entries = [entry for entry in folder.iterdir() if entry.suffix.lower() == ".pdf" and entry.is_file()]
    except OSError as exc:
        raise SourceNotFound(f"{folder}: cannot be read ({exc.strerror or exc})") from exc
    if not entries:
        raise SourceNotFound(f"the folder {folder} has no PDF files", "Give the PDF files, or another folder")
    return sorted(entries, key=lambda path: natural_key(path.name))


def expand(texts: Iterable[str]) -> list[MergeSource]:
    """Sources for what the user typed: URLs as they are, folders as their PDFs, files with their pages."""
    sources: list[MergeSource] = []
    for text in texts:
        location, pages = split_pages(text)
        if location.startswith(("http://", "https://")):
            sources.append(MergeSource(location, pages))
            continue
        path = Path(location).expanduser()
        if path.is_dir():
            sources.extend(MergeSource(str(pdf), pages) for pdf in pdfs_in(path))
        else:
            sources.append(MergeSource(str(path), pages))
    return sources


def sort_sources(sources: Sequence[MergeSource], order: SortOrder) -> list[MergeSource]:
    if order is SortOrder.MODIFIED:
        files = [s for s in sources if not s.is_url]
        urls = [s for s in sources if s.is_url]

        def modified(source: MergeSource) -> float:
            try:
                return os.stat(source.location).st_mtime
            except OSError:
                return float("inf")  # a missing file sorts last; the merge will report it

        return sorted(files, key=modified) + urls
    if order is SortOrder.NAME:
        return sorted(sources, key=lambda source: source.display_name)
    return sorted(sources, key=lambda source: natural_key(source.display_name))


def with_passwords(sources: Sequence[MergeSource], passwords: dict[str, str]) -> list[MergeSource]:
    """Attach passwords given as ``{file: secret}``; a file is matched by path or by name.

    Every password must match an input, so a typo does not go unnoticed (the message never shows it).
    """
    unused = dict(passwords)
    result: list[MergeSource] = []
    for source in sources:
        secret = None
        for key in list(passwords):
            if _same_input(key, source):
                secret = passwords[key]
                unused.pop(key, None)
                break
        result.append(MergeSource(source.location, source.pages, secret) if secret is not None else source)
    if unused:
        names = ", ".join(sorted(unused))
        raise InvalidOption(f"--password was given for {names}, which is not among the inputs", "Check the file name before '='")
    return result


def _same_input(key: str, source: MergeSource) -> bool:
    if key == source.location or key == source.display_name:
        return True
    if source.is_url:
        return False
    try:
        return Path(key).expanduser().resolve() == Path(source.location).resolve()
    except OSError:
        return False
