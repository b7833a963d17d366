"""The ``pressroom`` command.

Errors are one line on stderr starting ``pressroom: error:``; exit status 0 on success, 1 when the
operation failed, 2 for bad usage or input. ``-v`` adds logging and tracebacks.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

from app.core.engine import Engine
from app.core.errors import PressroomError

log = logging.getLogger("pressroom")

WINDOW_HINT = """\
The Pressroom window cannot start: PySide6 is missing (reinstall Pressroom). The commands work without it:
  pressroom html2pdf INPUT... -o OUT     HTML to PDF
  pressroom html2png INPUT... -o OUT     HTML to PNG, JPEG or WebP
  pressroom screenshot URL... -o OUT     screenshot of a web page
  pressroom merge INPUT... -o OUT.pdf    merge PDFs (files, folders, URLs)
  pressroom script SCRIPT.js -o OUT.png  run a Puppeteer-style script
  pressroom key set|check|delete         the hosted service's API key
  pressroom serve                        answer the hosted API on this computer
See 'pressroom --help' and 'pressroom COMMAND --help'."""


def main(argv: Sequence[str] | None = None, *, engine: Engine | None = None) -> int:
    """Run the command line; returns the exit status. ``engine``: use this one instead of making one."""
    from app.cli.parser import COMMANDS, build_parser

    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] not in COMMANDS and not arguments[0].startswith("-"):
        from pathlib import Path

        if all(Path(a).exists() for a in arguments):  # `pressroom report.html` (a file manager's "Open with")
            return _window(arguments)
    try:
        args = build_parser().parse_args(arguments)
    except SystemExit as exc:  # --help, --version, usage errors (already printed)
        return exc.code if isinstance(exc.code, int) else 2
    _configure_logging(args.verbose, args.quiet)
    if args.command is None:
        return _window()
    try:
        return _run(args, engine)
    except PressroomError as exc:
        log.debug("error", exc_info=True)
        print(f"pressroom: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("pressroom: interrupted; nothing more was written", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still one line, the traceback with -v
        log.debug("internal error", exc_info=True)
        print(
            f"pressroom: error: internal error ({type(exc).__name__}: {exc}). Please report it; run with -v for details",
            file=sys.stderr,
        )
        return 1


def _window(files: Sequence[str] = ()) -> int:
    try:
        from app import gui
    except ImportError:
        print(WINDOW_HINT, file=sys.stderr)
        return 1
    problem = gui.display_problem()
    if problem:
        print(
            f"pressroom: error: {problem}. Run it in a desktop session, or use the commands (pressroom --help)", file=sys.stderr
        )
        return 1
    return gui.main(list(files))


def _run(args: object, engine: Engine | None) -> int:
    import argparse

    from app.cli.convert import Console, execute, plan
    from app.core.settings import Settings
    from app.engines import create_engine

    assert isinstance(args, argparse.Namespace)
    settings = Settings.load()
    if args.command in ("install-desktop", "uninstall-desktop"):
        return _desktop(args.command)
    if args.command in ("key", "serve"):
        from app.cli import service

        return service.run(args, settings)
    items = plan(args)  # usage and option errors surface here, before anything starts
    kind = args.engine or settings["engine"]
    owned = engine is None or engine.name != kind
    if owned:
        engine = create_engine(kind, settings)
    assert engine is not None
    try:
        console = Console(args, len(items), sys.stdout, sys.stderr)
        window = 2 * int(settings["concurrency"])
        return execute(engine, items, console, window)
    finally:
        if owned:
            engine.close()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes, not what it was when logging was set up."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _desktop(command: str) -> int:
    from app.cli import desktop

    if command == "install-desktop":
        installed = desktop.install()
        print(f"Installed the Pressroom launcher ({installed.files[0]}) and its icon; it starts {installed.launcher}")
        print("Find Pressroom in the applications menu; 'pressroom uninstall-desktop' removes it.")
    else:
        removed = desktop.uninstall()
        print(f"Removed the Pressroom launcher ({len(removed)} files)." if removed else "Pressroom's launcher was not installed.")
    return 0


def _configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.DEBUG if verbose else logging.ERROR if quiet else logging.WARNING
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("pressroom: %(message)s"))
    root = logging.getLogger("pressroom")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
