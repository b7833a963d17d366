"""Validation of jobs and options: an invalid job cannot be built, and the error says why."""

from __future__ import annotations

import pytest

from app.core.errors import InputError, InvalidOption, PressroomError
from app.core.jobs import (
    HtmlToPdf,
    ImageOptions,
    ImageType,
    Length,
    PaperFormat,
    PdfOptions,
    Screenshot,
    WaitOptions,
    parse_page_ranges,
)


@pytest.mark.parametrize(
    ("text", "value", "unit", "points"),
    [
        ("210mm", 210, "mm", 595.28),
        ("8.5in", 8.5, "in", 612),
        ("2cm", 2, "cm", 56.69),
        ("96px", 96, "px", 72),
        (" 1.5 MM ", 1.5, "mm", 4.25),
        ("0", 0, "mm", 0),
        (".5in", 0.5, "in", 36),
    ],
)
def test_length_parse(text: str, value: float, unit: str, points: float) -> None:
    length = Length.parse(text)
    assert (length.value, length.unit) == (value, unit)
    assert length.points == pytest.approx(points, abs=0.01)


@pytest.mark.parametrize(
    ("text", "message"), [("210", "needs a unit"), ("ten mm", "not a length"), ("-5mm", "not a length"), ("5pt", "not a length")]
)
def test_length_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        Length.parse(text)


@pytest.mark.parametrize(
    ("text", "expected"), [("1-3,5", "1-3,5"), (" 2 - 4 , 7 ", "2-4,7"), ("10-", "10-"), ("-3", "-3"), ("", "")]
)
def test_page_ranges(text: str, expected: str) -> None:
    assert parse_page_ranges(text) == expected


@pytest.mark.parametrize("text", ["0", "a-b", "3-1", "1,,2", "-", "1-2-3"])
def test_bad_page_ranges(text: str) -> None:
    with pytest.raises(InvalidOption):
        parse_page_ranges(text)


def test_paper_format_parse_is_case_insensitive() -> None:
    assert PaperFormat.parse("letter") is PaperFormat.LETTER
    with pytest.raises(InvalidOption, match="A3, A4, A5, Letter, Legal, Tabloid"):
        PaperFormat.parse("B5")


def test_pdf_options_validation() -> None:
    with pytest.raises(InvalidOption, match="both width and height"):
        PdfOptions(width=Length.parse("1in"))
    with pytest.raises(InvalidOption, match="scale"):
        PdfOptions(scale=2.5)
    with pytest.raises(InvalidOption, match="more than zero"):
        PdfOptions(width=Length.parse("0"), height=Length.parse("1in"))
    assert PdfOptions(page_ranges=" 1 - 2 ").page_ranges == "1-2"


def test_image_options_validation() -> None:
    with pytest.raises(InvalidOption, match="JPEG and WebP only"):
        ImageOptions(quality=50)
    with pytest.raises(InvalidOption, match="transparency"):
        ImageOptions(type=ImageType.JPEG, omit_background=True)
    with pytest.raises(InvalidOption, match="exclude each other"):
        ImageOptions(selector="#a", full_page=True)
    with pytest.raises(InvalidOption, match="out of range"):
        ImageOptions(width=20000)
    with pytest.raises(InvalidOption, match="out of range"):
        ImageOptions(type=ImageType.WEBP, quality=101)
    assert ImageOptions(type=ImageType.WEBP, quality=0).quality == 0


def test_wait_and_timeout_validation() -> None:
    with pytest.raises(InvalidOption):
        WaitOptions(selector="  ")
    with pytest.raises(InvalidOption):
        WaitOptions(delay_ms=-1)
    with pytest.raises(InvalidOption, match="timeout"):
        HtmlToPdf("<p>", timeout=0)


def test_jobs_are_frozen_and_do_not_print_their_document() -> None:
    job = HtmlToPdf("<p>" + "secret " * 100 + "</p>", name="big")
    assert "secret" not in repr(job)
    with pytest.raises(AttributeError):
        job.name = "other"  # type: ignore[misc]
    assert Screenshot("https://example.com").wait_until.value == "load"


def test_error_tree_and_one_line_messages() -> None:
    error = InvalidOption("bad\nvalue", "fix   it")
    assert isinstance(error, InputError) and isinstance(error, PressroomError)
    assert str(error) == "bad value. fix it"
    assert error.exit_status == 2
