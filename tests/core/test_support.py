"""Plain-Python helpers of the core: URLs, files, media sniffing, settings."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from PIL import Image

from app.core import media
from app.core.errors import InputError, InvalidOption, InvalidUrl, OutputNotWritable, SourceNotFound
from app.core.files import decode_html, read_input, write_atomic
from app.core.results import Output
from app.core.settings import Settings
from app.core.urls import folder_url, name_from_url, normalize_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://example.com/a?b=1", "https://example.com/a?b=1"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
        ("example.com", "https://example.com"),
        ("docs.python.org/3/", "https://docs.python.org/3/"),
    ],
)
def test_normalize_url(text: str, expected: str) -> None:
    assert normalize_url(text) == expected


@pytest.mark.parametrize(
    "text", ["", "not a url", "ftp://example.com", "http://", "javascript:alert(1)", "http://exa mple.com", "http://host:99999/"]
)
def test_invalid_urls(text: str) -> None:
    with pytest.raises(InvalidUrl):
        normalize_url(text)


def test_local_file_becomes_a_file_url(tmp_path: Path) -> None:
    page = tmp_path / "my page.html"
    page.write_text("x")
    assert normalize_url(str(page)) == page.as_uri()
    assert folder_url(tmp_path).endswith("/") and folder_url(tmp_path).startswith("file://")


def test_name_from_url() -> None:
    assert name_from_url("https://example.com/docs/intro?x=1") == "example.com_docs_intro"
    assert name_from_url("https://example.com/") == "example.com"
    assert name_from_url("file:///tmp/report%20q1.html") == "report q1"


def test_write_atomic_replaces_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.pdf"
    target.write_bytes(b"old")
    write_atomic(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~_umask()
    assert [p.name for p in tmp_path.iterdir()] == ["out.pdf"]


def test_write_atomic_keeps_links_modes_and_devices(tmp_path: Path) -> None:
    real = tmp_path / "real.pdf"
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    write_atomic(link, b"through the link")
    assert link.is_symlink() and real.read_bytes() == b"through the link"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    write_atomic(Path("/dev/null"), b"discarded")  # a device is written into, never replaced
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomic(fifo, b"into the pipe")
        assert os.read(reader, 100) == b"into the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_ctrl_c_during_a_write_leaves_no_leftover(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C just after the temporary file is made (a moment no real part can be timed to hit): the write
    completes, then the interrupt arrives; no .part file stays behind."""
    import signal
    import tempfile

    made = tempfile.mkstemp

    def mkstemp_then_ctrl_c(*args: object, **kwargs: object) -> tuple[int, str]:
        result = made(*args, **kwargs)  # type: ignore[call-overload]
        signal.raise_signal(signal.SIGINT)  # the handler runs now, as a real Ctrl+C would
        return result  # type: ignore[no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_ctrl_c)
    target = tmp_path / "out.pdf"
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"%PDF- all of it")
    assert target.read_bytes() == b"%PDF- all of it"
    assert [p.name for p in tmp_path.iterdir()] == ["out.pdf"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_write_atomic_failure_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(OutputNotWritable, match="does not exist"):
        write_atomic(tmp_path / "missing" / "out.pdf", b"x")
    (tmp_path / "dir.pdf").mkdir()
    with pytest.raises(OutputNotWritable, match="it is a folder"):
        write_atomic(tmp_path / "dir.pdf", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.pdf"]


def test_write_atomic_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    with pytest.raises(OutputNotWritable, match="cannot write"):
        write_atomic(tmp_path / "notes.txt" / "out.pdf", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_read_input_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound, match="no such file"):
        read_input(tmp_path / "nope.html")
    with pytest.raises(SourceNotFound, match="is a folder"):
        read_input(tmp_path)


def test_decode_html() -> None:
    assert decode_html("<p>é</p>".encode()) == "<p>é</p>"
    assert decode_html(b"\xef\xbb\xbf<p>bom</p>") == "<p>bom</p>"
    assert decode_html('<meta charset="iso-8859-1"><p>\xe9</p>'.encode("latin-1")) == '<meta charset="iso-8859-1"><p>é</p>'
    assert decode_html("<p>caf\xe9</p>".encode("cp1252")) == "<p>café</p>"  # not UTF-8: the web's legacy default
    assert decode_html("<p>x</p>".encode("utf-16")) == "<p>x</p>"
    with pytest.raises(InputError, match="not an HTML text file"):
        decode_html(b"\x89PNG\r\n\x1a\n\x00\x00\x00")


def _encoded(kind: str, size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 20, 30)).save(out, kind)
    return out.getvalue()


@pytest.mark.parametrize(("kind", "media_type"), [("PNG", media.PNG), ("JPEG", media.JPEG), ("WEBP", media.WEBP)])
def test_media_sniffing_and_size(kind: str, media_type: str) -> None:
    data = _encoded(kind, (123, 45))
    assert media.sniff(data) == media_type
    assert media.image_size(data) == (123, 45)
    output = Output.from_bytes(data, "shot")
    assert (output.width, output.height, output.media_type) == (123, 45, media_type)
    assert output.pages is None and "bytes" in repr(output)


def test_lossless_webp_size() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (77, 33), (1, 2, 3, 4)).save(out, "WEBP", lossless=True)
    assert media.image_size(out.getvalue()) == (77, 33)


def test_unknown_media() -> None:
    assert media.sniff(b"hello") == "application/octet-stream"
    assert media.image_size(b"hello") is None


def test_settings_defaults_file_and_environment(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path, environ={})
    assert settings["concurrency"] == 4 and settings["timeout"] == 30.0 and settings["engine"] == "local"
    settings.set("concurrency", "2")
    settings.save()
    assert Settings.load(path, environ={})["concurrency"] == 2
    overridden = Settings.load(path, environ={"PRESSROOM_CONCURRENCY": "8", "PRESSROOM_CHROMIUM": "/opt/chrome"})
    assert overridden["concurrency"] == 8 and overridden["browser_path"] == "/opt/chrome"


def test_settings_errors(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    with pytest.raises(InvalidOption, match="cannot read the settings file"):
        Settings.load(path, environ={})
    with pytest.raises(InvalidOption, match="not a valid value"):
        Settings.load(tmp_path / "none.json", environ={"PRESSROOM_CONCURRENCY": "many"})
    with pytest.raises(InvalidOption, match="at least 1"):
        Settings.load(tmp_path / "none.json", environ={"PRESSROOM_CONCURRENCY": "0"})
