"""The command line: argparse definitions, and turning parsed arguments into option dataclasses."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from enum import StrEnum
from typing import NoReturn, TypeVar

from app import __version__
from app.core.errors import InvalidOption, PressroomError
from app.core.jobs import (
    BookmarkMode,
    ImageOptions,
    ImageType,
    Length,
    Margins,
    MediaType,
    PaperFormat,
    PdfOptions,
    WaitOptions,
    WaitUntil,
    parse_page_ranges,
)
from app.core.merge_inputs import SortOrder

T = TypeVar("T")

EPILOG = """\
examples:
  pressroom html2pdf invoice.html -o invoice.pdf
  pressroom html2pdf reports/*.html -o pdfs/ --format Letter --margin 15mm
  cat page.html | pressroom html2png - -o page.png --full-page --scale 2
  pressroom screenshot https://example.com -o example.png --wait-until networkidle
  pressroom merge cover.pdf chapters/ appendix.pdf:1-4 -o book.pdf

exit status: 0 success, 1 the operation failed, 2 bad usage or input
"""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line: ``pressroom: error: ...`` and a pointer to --help."""

    def error(self, message: str) -> NoReturn:
        hint = f"see '{self.prog} --help'"
        self.exit(2, f"pressroom: error: {message}; {hint}\n")


def _checked(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse ``type=`` that reports Pressroom's validation message."""

    def convert(text: str) -> T:
        try:
            return parse(text)
        except PressroomError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def _number(kind: Callable[[str], T], low: float | None = None, high: float | None = None) -> Callable[[str], T]:
    def convert(text: str) -> T:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a {getattr(kind, '__name__', 'number')}") from None
        if (low is not None and value < low) or (high is not None and value > high):  # type: ignore[operator]
            bounds = f"from {low:g} to {high:g}" if high is not None else f"above {low:g}"
            raise argparse.ArgumentTypeError(f"{text} is out of range (use {bounds})")
        return value

    convert.__name__ = getattr(kind, "__name__", "number")
    return convert


def _enum_choice(enum: type[StrEnum]) -> Callable[[str], str]:
    values: list[str] = [member.value for member in enum]

    def convert(text: str) -> str:
        for value in values:
            if value.lower() == text.lower():
                return value
        raise argparse.ArgumentTypeError(f"'{text}' is not one of {', '.join(values)}")

    return convert


def _add_globals(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Global options, accepted before and after the command.

    On the commands they default to ``SUPPRESS``, so a value given before the command is not reset.
    """

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress else value

    group = parser.add_argument_group("global options")
    group.add_argument(
        "--engine",
        choices=["local", "remote"],
        default=default(None),
        help="where the work runs (default: local, or the 'engine' setting)",
    )
    group.add_argument(
        "--timeout",
        type=_number(float, 0.001, 86400),
        metavar="SECONDS",
        default=default(None),
        help="time limit of each job (default: 30, or the 'timeout' setting)",
    )
    group.add_argument("--json", action="store_true", default=default(False), help="print one JSON summary per output on stdout")
    group.add_argument("-v", "--verbose", action="count", default=default(0), help="log what happens; show tracebacks of errors")
    group.add_argument("-q", "--quiet", action="store_true", default=default(False), help="print errors only")


def _add_wait(parser: argparse.ArgumentParser, *, expression: bool) -> None:
    group = parser.add_argument_group("waiting")
    group.add_argument("--wait-for", metavar="CSS", help="wait until an element matching this selector exists")
    if expression:
        group.add_argument("--wait-expression", metavar="JS", help="wait until this JavaScript expression is true")
    group.add_argument(
        "--delay",
        type=_number(int, 0, 600_000),
        metavar="MS",
        default=0,
        help="wait this many milliseconds more before making the output",
    )


def _add_image_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("image")
    group.add_argument("--width", type=_number(int, 1, 16384), default=1280, help="viewport width in CSS pixels (default 1280)")
    group.add_argument("--height", type=_number(int, 1, 16384), default=800, help="viewport height in CSS pixels (default 800)")
    group.add_argument("--full-page", action="store_true", help="the whole page, not only the viewport")
    group.add_argument(
        "--scale", type=_number(float, 0.1, 8), default=1.0, help="device scale factor, e.g. 2 for a sharp 'retina' image"
    )
    group.add_argument(
        "--type",
        type=_enum_choice(ImageType),
        metavar="png|jpeg|webp",
        help="image format (default: from the output's extension, else png)",
    )
    group.add_argument("--quality", type=_number(int, 0, 100), help="JPEG/WebP quality, 0-100 (default 80)")
    group.add_argument("--selector", metavar="CSS", help="shoot only the first element matching this selector")
    group.add_argument("--omit-background", action="store_true", help="transparent instead of white background (png, webp)")
    group.add_argument("--dark", action="store_true", help="ask the page for its dark color scheme")


COMMANDS = (
    "html2pdf", "html2png", "screenshot", "merge", "script", "key", "serve", "install-desktop", "uninstall-desktop",
)  # fmt: skip


def build_parser() -> Parser:
    parser = Parser(
        prog="pressroom",
        description="Turn HTML into PDF and images, and take screenshots of web pages.\n"
        "Without a command, opens the Pressroom window.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pressroom {__version__}")
    _add_globals(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    pdf = commands.add_parser("html2pdf", help="HTML file(s) to PDF", description="Render HTML files to PDF with Chromium.")
    pdf.add_argument("inputs", nargs="+", metavar="INPUT", help="an .html file, or '-' for standard input")
    pdf.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="output file ('-' for standard output); with several inputs, a folder",
    )
    page = pdf.add_argument_group("page")
    page.add_argument(
        "--format", type=_checked(PaperFormat.parse), help="paper size: A3, A4 (default), A5, Letter, Legal, Tabloid"
    )
    page.add_argument("--width", type=_checked(Length.parse), help="custom page width, e.g. 210mm (with --height)")
    page.add_argument("--height", type=_checked(Length.parse), help="custom page height, e.g. 297mm (with --width)")
    page.add_argument("--landscape", action="store_true", help="landscape orientation")
    page.add_argument("--margin", type=_checked(Length.parse), help="all four margins, e.g. 10mm")
    for side in ("top", "right", "bottom", "left"):
        page.add_argument(f"--margin-{side}", type=_checked(Length.parse), metavar="LENGTH", help=f"the {side} margin")
    page.add_argument("--scale", type=_number(float, 0.1, 2), default=1.0, help="rendering scale, 0.1-2 (default 1)")
    page.add_argument("--no-background", action="store_true", help="leave out background colors and images")
    page.add_argument("--prefer-css-page-size", action="store_true", help="let the document's @page size win")
    page.add_argument(
        "--page-ranges", type=_checked(parse_page_ranges), metavar="RANGES", default="", help="pages to keep, e.g. 1-3,5,10-"
    )
    page.add_argument("--header", metavar="FILE", help="HTML file printed at the top of every page")
    page.add_argument("--footer", metavar="FILE", help="HTML file printed at the bottom of every page")
    page.add_argument(
        "--media",
        type=_enum_choice(MediaType),
        metavar="print|screen",
        default="print",
        help="which CSS media the document is printed with (default print)",
    )
    page.add_argument("--tagged", action="store_true", help="tagged (accessible) PDF")
    page.add_argument("--outline", action="store_true", help="document outline (bookmarks) from the headings; implies --tagged")
    page.add_argument("--base-url", metavar="URL", help="where relative links point (default: the input file's folder)")
    _add_wait(pdf, expression=True)
    _add_globals(pdf, suppress=True)

    png = commands.add_parser(
        "html2png", help="HTML file(s) to an image", description="Render HTML files to PNG, JPEG or WebP with Chromium."
    )
    png.add_argument("inputs", nargs="+", metavar="INPUT", help="an .html file, or '-' for standard input")
    png.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="output file ('-' for standard output); with several inputs, a folder",
    )
    _add_image_options(png)
    png.add_argument("--base-url", metavar="URL", help="where relative links point (default: the input file's folder)")
    _add_wait(png, expression=True)
    _add_globals(png, suppress=True)

    shot = commands.add_parser("screenshot", help="screenshot of web page(s)", description="Load web pages and take screenshots.")
    shot.add_argument("inputs", nargs="+", metavar="URL", help="address of the page (https://...), or an HTML file")
    shot.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="output file ('-' for standard output); with several URLs, a folder"
    )
    _add_image_options(shot)
    load = shot.add_argument_group("loading")
    load.add_argument(
        "--wait-until",
        type=_enum_choice(WaitUntil),
        metavar="load|domcontentloaded|networkidle",
        default="load",
        help="when the page counts as loaded (default load)",
    )
    load.add_argument("--no-scroll", action="store_true", help="do not scroll through the page for lazy content first")
    _add_wait(shot, expression=True)
    _add_globals(shot, suppress=True)

    merge = commands.add_parser(
        "merge",
        help="merge PDFs into one",
        description="Merge PDF files, folders of PDFs and PDFs on the web into one PDF, in the order given.",
        epilog="examples:\n  pressroom merge cover.pdf report.pdf:2-5 appendix/ -o book.pdf\n"
        "  pressroom merge scans/ -o scans.pdf --sort natural --bookmarks per-file\n"
        "  pressroom merge https://example.com/a.pdf b.pdf --password b.pdf=secret -o ab.pdf",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="a PDF file, a folder (its PDFs in natural order) or an http(s) URL; add :PAGES to take only "
        "some pages, in that order, e.g. report.pdf:1-3,7,10-",
    )
    merge.add_argument("-o", "--output", required=True, metavar="OUT.pdf", help="the merged PDF ('-' for standard output)")
    merge.add_argument(
        "--sort",
        type=_enum_choice(SortOrder),
        metavar="natural|name|modified",
        help="sort the inputs (by file name, numbers by value; by name; oldest first) instead of keeping their order",
    )
    merge.add_argument(
        "--bookmarks",
        type=_enum_choice(BookmarkMode),
        metavar="keep|per-file|none",
        default="keep",
        help="keep each input's bookmarks (default); per-file: one entry per input with its bookmarks inside; none",
    )
    merge.add_argument(
        "--password",
        action="append",
        default=[],
        metavar="FILE=SECRET",
        help="the password of an encrypted input (repeat for several)",
    )
    merge.add_argument("--title", help="the title of the merged PDF")
    _add_globals(merge, suppress=True)

    script = commands.add_parser(
        "script",
        help="run a Puppeteer-style script, get a PNG of the page",
        description="Run the body of a Puppeteer script with `page` in scope (top-level await works) on the embedded "
        "browser. The output is a PNG of the page when the script ends - or, if the script returns bytes "
        "(e.g. return await page.pdf()), those bytes.",
        epilog="example script:\n  await page.setViewport({ width: 800, height: 600 });\n"
        "  await page.goto('https://example.com');\n  return await page.title();",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    script.add_argument("source", metavar="SCRIPT.js", help="the script file, or '-' for standard input")
    script.add_argument(
        "-o", "--output", required=True, metavar="OUT.png", help="where the PNG (or returned file) goes; '-' for standard output"
    )
    script.add_argument("--url", metavar="START", help="open this address before the script starts (default: a blank page)")
    script.add_argument("--full-page", action="store_true", help="the final PNG shows the whole page, not only the viewport")
    script.add_argument("--result", metavar="FILE", help="write the script's return value here, as JSON")
    _add_globals(script, suppress=True)

    key = commands.add_parser(
        "key",
        help="the hosted service's API key (kept in the system keychain)",
        description="Store, check or forget the API key of the hosted service.",
    )
    key_commands = key.add_subparsers(dest="key_command", metavar="ACTION", parser_class=Parser, required=True)
    for name, text in (
        (
            "set",
            "store the key in the system keychain; it is asked for (or read from standard input), never given as an argument",
        ),
        ("check", "ask the service about the key: workspace, request limit, dates (--json: the whole record)"),
        ("delete", "forget the stored key"),
    ):
        action = key_commands.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        if name == "set":  # anything given here would be the key, in the shell's history: refused, never echoed
            action.add_argument("given", nargs="*", help=argparse.SUPPRESS)
        _add_globals(action, suppress=True)
    _add_globals(key, suppress=True)

    serve = commands.add_parser(
        "serve",
        help="answer the hosted service's API on this computer",
        description="Serve the hosted service's interface (key check and the five operations) with the local engine.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    serve.add_argument("--port", type=_number(int, 0, 65535), default=8787, help="port (default 8787; 0: any free port)")
    serve.add_argument(
        "--keys",
        metavar="FILE",
        help="accepted keys, one per line, each optionally followed by a name "
        "(default: the key in the keychain or PRESSROOM_API_KEY)",
    )
    serve.add_argument(
        "--allow-private-urls",
        action="store_true",
        help="let jobs reach this computer and private networks (off: public addresses only)",
    )
    serve.add_argument(
        "--max-body-mb", type=_number(float, 0.001, 1024), default=16.0, help="largest request body (default 16 MB)"
    )
    serve.add_argument(
        "--queue", type=_number(int, 1, 10000), default=32, help="jobs accepted at once; more get HTTP 429 (default 32)"
    )
    _add_globals(serve, suppress=True)

    for name, text in (
        ("install-desktop", "add Pressroom to this user's applications menu, with its icon, and let it open HTML and PDF files"),
        ("uninstall-desktop", "remove what install-desktop added"),
    ):
        desktop = commands.add_parser(name, help=text + " (Linux)", description=text[0].upper() + text[1:] + ".")
        _add_globals(desktop, suppress=True)
    return parser


def pdf_options(args: argparse.Namespace, header: str | None, footer: str | None) -> PdfOptions:
    if args.format is not None and (args.width is not None or args.height is not None):
        raise InvalidOption("--format and --width/--height exclude each other", "Give either a paper format or a page size")
    margins = Margins(*(getattr(args, f"margin_{side}") or args.margin for side in ("top", "right", "bottom", "left")))
    return PdfOptions(
        format=args.format or PaperFormat.A4,
        width=args.width,
        height=args.height,
        landscape=args.landscape,
        margins=margins,
        scale=args.scale,
        print_background=not args.no_background,
        prefer_css_page_size=args.prefer_css_page_size,
        page_ranges=args.page_ranges,
        header_html=header,
        footer_html=footer,
        media=MediaType(args.media),
        tagged=args.tagged or args.outline,
        outline=args.outline,
    )


def image_options(args: argparse.Namespace, image_type: ImageType) -> ImageOptions:
    return ImageOptions(
        width=args.width,
        height=args.height,
        full_page=args.full_page,
        scale=args.scale,
        type=image_type,
        quality=args.quality,
        selector=args.selector,
        omit_background=args.omit_background,
        dark=args.dark,
        scroll=not getattr(args, "no_scroll", False),
    )


def wait_options(args: argparse.Namespace) -> WaitOptions:
    return WaitOptions(selector=args.wait_for, expression=getattr(args, "wait_expression", None), delay_ms=args.delay)
