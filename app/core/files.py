"""Reading inputs and writing outputs safely.

Outputs are written atomically: the bytes go to a temporary file in the destination folder, are flushed
to disk, and only then renamed over the destination. A failed or interrupted run therefore never leaves
a partial or empty file behind, and an existing file is either kept whole or replaced whole.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from app.core.errors import InputError, OutputNotWritable, SourceNotFound

_umask_lock = threading.Lock()
_umask: int | None = None


def _file_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file (mkstemp makes 0600 files)."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = os.umask(0o022)
            os.umask(_umask)
    return 0o666 & ~_umask


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is never seen half-written.

    A symbolic link is written through (the link stays, its target gets the data); an existing file
    keeps its permissions. Devices and pipes (``/dev/stdout``, a FIFO) are written straight into:
    there is no file to replace.
    """
    try:
        existing: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise OutputNotWritable(f"cannot write {path}: {exc.strerror or exc}", "Choose another output") from exc
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise OutputNotWritable(f"cannot write {path}: it is a folder", "Give a file name")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_straight(path, data)
        return
    target = Path(os.path.realpath(path))
    with _uninterrupted():  # Ctrl+C lands after the write, or before it: never between mkstemp and the cleanup
        _replace(path, target, data, existing)


def _replace(path: Path, target: Path, data: bytes, existing: os.stat_result | None) -> None:
    folder = target.parent
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        if not folder.is_dir():
            raise OutputNotWritable(
                f"cannot write {path}: the folder {folder} does not exist", "Create it first, or choose another output"
            ) from None
        raise OutputNotWritable(f"cannot write {path}: {exc.strerror or exc}", "Choose another output folder") from exc
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp_name, stat.S_IMODE(existing.st_mode) if existing else _file_mode())
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise OutputNotWritable(
                f"cannot write {path}: {exc.strerror or exc}", "Check the disk space and permissions, or choose another output"
            ) from exc
        raise


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold Ctrl+C (SIGINT) back until the block is done, then deliver it as it would have been.

    Only the main thread receives Python's KeyboardInterrupt, and only there can the handler be swapped;
    elsewhere the block simply runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[FrameType | None] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda _signum, frame: held.append(frame))
    except ValueError:  # not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            if callable(previous):
                previous(signal.SIGINT, held[0])
            elif previous == signal.SIG_DFL:
                signal.raise_signal(signal.SIGINT)


def _write_straight(path: Path, data: bytes) -> None:
    try:
        with open(path, "wb") as stream:
            stream.write(data)
    except OSError as exc:
        raise OutputNotWritable(f"cannot write {path}: {exc.strerror or exc}", "Choose another output") from exc


@contextlib.contextmanager
def reading(name: object, folder_hint: str) -> Iterator[None]:
    """Turn every way reading the input ``name`` can fail into one clear ``SourceNotFound``."""
    try:
        yield
    except FileNotFoundError:
        raise SourceNotFound(f"{name}: no such file", "Check the path") from None
    except IsADirectoryError:
        raise SourceNotFound(f"{name}: is a folder, not a file", folder_hint) from None
    except PermissionError:
        raise SourceNotFound(f"{name}: permission denied", "Check that you may read the file") from None
    except OSError as exc:
        raise SourceNotFound(f"{name}: cannot be read ({exc.strerror or exc})") from exc


def read_input(path: Path) -> bytes:
    """Read an input file, turning every way that can fail into one clear ``InputError``."""
    with reading(path, "Give the HTML file inside it"):
        return path.read_bytes()


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)


def decode_html(data: bytes, source: str = "input") -> str:
    """Decode HTML bytes the way a browser would: BOM, then ``<meta charset>``, then UTF-8.

    Bytes that are not valid in the chosen encoding fall back to Windows-1252 (the web's default for
    legacy pages) rather than failing, since that is what a browser shows too.
    """
    if b"\x00" in data[:1024] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(f"{source} is not an HTML text file", "Give an .html file")
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    declared = _META_CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(codecs.lookup(declared.group(1).decode("ascii")).name)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")
