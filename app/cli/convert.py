"""The conversion commands: plan the outputs, run the jobs on an engine, write the files.

Everything that can be checked before any work starts (options, header/footer files, where outputs go)
is checked first, so a usage mistake costs nothing. Then inputs are read and submitted a few at a time;
results are written as they arrive, atomically, and a failed input is reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from app.cli import parser as cli
from app.core import media, merge_inputs
from app.core.engine import Engine
from app.core.errors import InputError, InvalidOption, PressroomError
from app.core.files import decode_html, read_input, write_atomic
from app.core.jobs import BookmarkMode, HtmlToImage, HtmlToPdf, ImageType, Job, MergePdfs, RunScript, Screenshot, WaitUntil
from app.core.results import Output
from app.core.urls import folder_url, name_from_url, normalize_url

log = logging.getLogger("pressroom.cli")
STDIN = "-"


@dataclass
class Item:
    """One input and where its output goes (``None``: standard output)."""

    label: str
    destination: Path | None
    make_job: Callable[[], Job]
    result_path: Path | None = None  # scripts: where the return value goes, as JSON


class Console:
    """What the user sees on stderr/stdout: result lines, one-line errors, a progress bar."""

    def __init__(self, args: argparse.Namespace, total: int, stdout: IO[str], stderr: IO[str]) -> None:
        self.quiet, self.json, self.verbose = args.quiet, args.json, args.verbose
        self.stdout, self.stderr = stdout, stderr
        self.batch = total > 1
        self.failures: list[PressroomError] = []
        self.written = 0
        self.total = total
        self._bar: Any = None
        if self.batch and not self.quiet and stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, file=stderr, unit="file", dynamic_ncols=True, leave=False)

    def _say(self, line: str) -> None:
        if self._bar is not None:
            self._bar.write(line, file=self.stderr)
        else:
            print(line, file=self.stderr, flush=True)

    def succeeded(self, item: Item, output: Output) -> None:
        where = str(item.destination) if item.destination else "<stdout>"
        if self.json:
            record = {"input": item.label, "output": where, "ok": True, **output.summary()}
            print(json.dumps(record), file=self.stdout, flush=True)
        elif not self.quiet and self._bar is None:
            self._say(f"pressroom: wrote {where} ({_human_size(output.size)})")
        if not self.quiet:
            for line in output.console:
                level, _, text = line.partition(": ")
                self._say(f"[{level}] {text}")
            for warning in output.warnings:
                self._say(f"pressroom: warning: {warning}")
        self.written += 1
        self._advance()

    def failed(self, item: Item, error: PressroomError) -> None:
        self.failures.append(error)
        message = str(error)
        if self.batch and item.label not in message:
            message = f"{item.label}: {message}"
        if self.verbose:
            log.debug("failure of %s", item.label, exc_info=error)
        self._say(f"pressroom: error: {message}")
        if self.json:
            record = {"input": item.label, "ok": False, "error": str(error), "exit_status": error.exit_status}
            print(json.dumps(record), file=self.stdout, flush=True)
        self._advance()

    def _advance(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.batch and not self.quiet and not self.json:
            failed = f", {len(self.failures)} failed" if self.failures else ""
            self._say(f"pressroom: {self.written} of {self.total} files written{failed}")

    @property
    def exit_status(self) -> int:
        if not self.failures:
            return 0
        if not self.batch:
            return self.failures[0].exit_status
        return 1  # a batch that lost items failed, whatever the reasons


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


# -- planning --------------------------------------------------------------------------------------


def plan(args: argparse.Namespace) -> list[Item]:
    """Validate everything that can be validated without doing the work, and list the items."""
    if args.json and args.output == STDIN:
        raise InvalidOption("--json and '-o -' would both write to standard output", "Write the output to a file")
    timeout = args.timeout
    if args.command == "script":
        return [_script_item(args, timeout)]
    if args.inputs.count(STDIN) > 1:
        raise InvalidOption("standard input ('-') can be read only once", "Give '-' a single time")
    if args.command == "merge":
        return [_merge_item(args, timeout)]
    if args.command == "screenshot":
        image_type = _image_type(args)
        options = cli.image_options(args, image_type)
        wait_options = cli.wait_options(args)
        until = WaitUntil(args.wait_until)

        def screenshot_job(text: str) -> Callable[[], Job]:
            def make() -> Job:
                url = normalize_url(text)
                return Screenshot(url, options, wait_options, until, name_from_url(url), timeout)

            return make

        stems = [_url_stem(text) for text in args.inputs]
        destinations = _destinations(args, stems, image_type.extension)
        return [Item(text, dest, screenshot_job(text)) for text, dest in zip(args.inputs, destinations, strict=True)]

    base_url = _base_url(args.base_url) if args.base_url else None
    wait_options = cli.wait_options(args)
    if args.command == "html2pdf":
        header = _read_text(args.header, "--header") if args.header else None
        footer = _read_text(args.footer, "--footer") if args.footer else None
        pdf = cli.pdf_options(args, header, footer)
        extension = ".pdf"
        _warn_if_not_pdf(_single_file_output(args))

        def build(html: str, base: str, name: str) -> Job:
            return HtmlToPdf(html, pdf, wait_options, base, name, timeout)
    else:
        image_type = _image_type(args)
        image = cli.image_options(args, image_type)
        extension = image_type.extension

        def build(html: str, base: str, name: str) -> Job:
            return HtmlToImage(html, image, wait_options, base, name, timeout)

    def html_job(text: str) -> Callable[[], Job]:
        def make() -> Job:
            if text == STDIN:
                html = decode_html(sys.stdin.buffer.read(), "standard input")
                return build(html, base_url or folder_url(Path.cwd()), "stdin")
            path = Path(text)
            html = decode_html(read_input(path), str(path))
            return build(html, base_url or folder_url(path.parent), path.stem)

        return make

    stems = ["stdin" if text == STDIN else Path(text).stem for text in args.inputs]
    destinations = _destinations(args, stems, extension)
    return [Item(text, dest, html_job(text)) for text, dest in zip(args.inputs, destinations, strict=True)]


def _merge_item(args: argparse.Namespace, timeout: float | None) -> Item:
    passwords: dict[str, str] = {}
    for given in args.password:
        name, equals, secret = given.partition("=")
        if not equals or not name:
            raise InvalidOption("--password takes FILE=SECRET", "Write e.g. --password report.pdf=secret")
        passwords[name] = secret
    sources = merge_inputs.expand(args.inputs)
    if args.sort:
        sources = merge_inputs.sort_sources(sources, merge_inputs.SortOrder(args.sort))
    sources = merge_inputs.with_passwords(sources, passwords)
    (destination,) = _destinations(args, ["merged"], ".pdf")  # one output, whatever the number of inputs
    if destination is not None:
        _warn_if_not_pdf(destination)
        target = destination.resolve()
        for source in sources:
            if not source.is_url and Path(source.location).resolve() == target:
                raise InvalidOption(
                    f"the output {destination} is also an input", "Inputs are never overwritten: choose another output"
                )
    job = MergePdfs(
        tuple(sources), BookmarkMode(args.bookmarks), args.title, destination.stem if destination else "merged", timeout
    )
    label = ", ".join(args.inputs) if len(args.inputs) <= 3 else f"{args.inputs[0]} and {len(args.inputs) - 1} more"
    return Item(label, destination, lambda: job)


def _script_item(args: argparse.Namespace, timeout: float | None) -> Item:
    if args.source == STDIN:
        source, stem = sys.stdin.read(), "script"
    else:
        path = Path(args.source)
        source, stem = decode_html(read_input(path), str(path)), path.stem
    if args.result and args.output != STDIN and Path(args.result).resolve() == Path(args.output).resolve():
        raise InvalidOption("--result and -o name the same file", "Give the return value a file of its own")
    if args.result and not Path(args.result).resolve().parent.is_dir():
        raise InvalidOption(f"the folder of --result {args.result} does not exist", "Create it first")
    url = normalize_url(args.url) if args.url else None
    job = RunScript(source, url, args.full_page, stem, timeout)
    (destination,) = _destinations(argparse.Namespace(output=args.output, inputs=[args.source]), [stem], ".png")
    return Item(args.source, destination, lambda: job, result_path=Path(args.result) if args.result else None)


def _single_file_output(args: argparse.Namespace) -> Path | None:
    """The output file named by -o, when there is exactly one (not stdout, not a folder)."""
    if len(args.inputs) != 1 or args.output == STDIN or Path(args.output).is_dir():
        return None
    return Path(args.output)


def _image_type(args: argparse.Namespace) -> ImageType:
    """--type, else the output's extension, else PNG; an image extension Pressroom cannot write is refused."""
    output = _single_file_output(args)
    suffix = output.suffix.lower() if output else ""
    implied = ImageType.from_extension(suffix)
    if args.type:
        chosen = ImageType(args.type)
        if implied is not None and implied is not chosen:
            log.warning("warning: %s will hold a %s image, whatever its extension says", output, chosen.name)
        return chosen
    if suffix and implied is None:
        raise InvalidOption(
            f"cannot tell the image type of {output}: Pressroom writes PNG, JPEG and WebP",
            "Name it .png, .jpg or .webp, or give --type",
        )
    return implied or ImageType.PNG


def _warn_if_not_pdf(output: Path | None) -> None:
    if output is not None and output.suffix and output.suffix.lower() != ".pdf":
        log.warning("warning: %s will hold a PDF, whatever its extension says", output)


def _url_stem(text: str) -> str:
    try:
        return name_from_url(normalize_url(text))
    except InputError:
        return name_from_url(text)


def _destinations(args: argparse.Namespace, stems: list[str], extension: str) -> list[Path | None]:
    out = args.output
    if len(stems) == 1:
        if out == STDIN:
            return [None]
        path = Path(out)
        if path.is_dir():
            return [path / f"{stems[0]}{extension}"]
        if not path.parent.is_dir():
            raise InvalidOption(f"the output folder {path.parent} does not exist", "Create it first, or choose another output")
        return [path]
    if out == STDIN:
        raise InvalidOption("several inputs cannot all go to standard output", "Give an output folder with -o")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InvalidOption(f"with several inputs the output must be a folder, and {folder} is a file", "Give a folder with -o")
    destinations = [folder / f"{stem}{extension}" for stem in stems]
    seen: dict[Path, str] = {}
    for text, dest in zip(args.inputs, destinations, strict=True):
        if dest in seen:
            raise InvalidOption(
                f"{seen[dest]} and {text} would both be written to {dest}", "Convert them in separate runs or rename one"
            )
        seen[dest] = text
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidOption(f"cannot create the output folder {folder}: {exc.strerror or exc}") from exc
    return list(destinations)


def _base_url(text: str) -> str:
    if "://" not in text:
        path = Path(text).expanduser()
        if not path.is_dir():
            raise InvalidOption(f"--base-url {text} is not a URL or an existing folder", "Give an http(s):// URL or a folder")
        return folder_url(path)
    if not text.startswith(("http://", "https://", "file://")):
        raise InvalidOption(f"--base-url {text} must be an http(s):// or file:// URL")
    return normalize_url(text) if not text.startswith("file://") else text


def _read_text(name: str, option: str) -> str:
    try:
        return decode_html(read_input(Path(name)), name)
    except PressroomError as exc:
        raise type(exc)(f"{option} {exc.message}", exc.hint) from exc


# -- running ---------------------------------------------------------------------------------------


def execute(engine: Engine, items: list[Item], console: Console, window: int) -> int:
    """Run every item on ``engine``, ``window`` at a time, writing each output as it arrives."""
    pending: dict[Future[Output], Item] = {}
    queue: Iterator[Item] = iter(items)

    def submit_next() -> bool:
        for item in queue:
            try:
                job = item.make_job()
            except PressroomError as exc:
                console.failed(item, exc)
                continue
            pending[engine.submit(job)] = item
            return True
        return False

    try:
        while len(pending) < window and submit_next():
            pass
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                item = pending.pop(future)
                try:
                    output = future.result()
                    _deliver(item, output)
                except PressroomError as exc:
                    console.failed(item, exc)
                else:
                    console.succeeded(item, output)
                submit_next()
    finally:
        for future in pending:
            future.cancel()
        console.close()
    return console.exit_status


def _deliver(item: Item, output: Output) -> None:
    if item.result_path is not None:
        value = json.loads(output.result) if output.result is not None else None
        write_atomic(item.result_path, (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode())
    suffix = item.destination.suffix.lower() if item.destination is not None else ""
    expected = media.EXTENSIONS.get(output.media_type, "")
    if suffix and suffix != expected and not (suffix == ".jpeg" and expected == ".jpg"):
        log.warning("warning: %s holds %s data, which is what the script returned", item.destination, output.media_type)
    if item.destination is None:
        sys.stdout.buffer.write(output.data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(item.destination, output.data)
