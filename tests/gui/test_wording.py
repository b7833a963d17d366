"""Every hint the engines give in command-line terms reads in the window's terms."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from app.core import errors
from app.core.errors import InvalidOption, JobTimeout, PressroomError
from app.core.jobs import ImageOptions, ImageType
from app.gui.wording import describe

ROOT = Path(__file__).parent.parent.parent
ERROR_NAMES = {name for name, value in inspect.getmembers(errors, inspect.isclass) if issubclass(value, PressroomError)}


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join("NAME" if isinstance(part, ast.FormattedValue) else (_text(part) or "") for part in node.values)
    return None  # e.g. a *HINT constant: found where it is assigned


def engine_hints() -> list[str]:
    """Every hint (second argument of an error of the tree) and every *HINT constant in core and engines."""
    hints = []
    for path in [*sorted((ROOT / "app/core").rglob("*.py")), *sorted((ROOT / "app/engines").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ERROR_NAMES:
                if len(node.args) >= 2 and (text := _text(node.args[1])):
                    hints.append(text)
            elif (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id.endswith("HINT") for t in node.targets)
                and (text := _text(node.value))
            ):
                hints.append(text)
    return hints


def test_hints_are_found() -> None:
    hints = engine_hints()
    assert len(hints) > 40
    assert "Raise --timeout, or try --wait-until domcontentloaded" in hints


# Commands meant to be typed as written: the self-host server's advice to its operator, and a reinstall.
COMMANDS_TO_TYPE = ("--allow-private-urls", "pip install")


@pytest.mark.parametrize(
    "hint", [h for h in engine_hints() if ("--" in h or "pressroom " in h) and not any(c in h for c in COMMANDS_TO_TYPE)]
)
def test_no_command_line_terms_reach_the_window(hint: str) -> None:
    text = describe(PressroomError("something failed", hint))
    assert "--" not in text and "'pressroom" not in text, text


@pytest.mark.parametrize("hint", [h for h in engine_hints() if any(c in h for c in COMMANDS_TO_TYPE)])
def test_commands_to_type_are_kept_as_written(hint: str) -> None:
    assert describe(PressroomError("something failed", hint)) == f"Something failed. {hint}"


def test_real_errors_in_window_terms() -> None:
    with pytest.raises(InvalidOption) as caught:
        ImageOptions(type=ImageType.JPEG, omit_background=True)
    assert describe(caught.value) == (
        "JPEG has no transparency, so the background cannot be omitted. Choose the PNG or WebP format"
    )
    timeout = JobTimeout("loading http://127.0.0.1/ timed out", "Raise --timeout, or try --wait-until domcontentloaded")
    assert describe(timeout) == (
        "Loading http://127.0.0.1/ timed out. Raise the time limit per job in Settings (Ctrl+,), "
        "or try 'Loaded at: domcontentloaded'"
    )
    assert describe(PressroomError("report.pdf is encrypted")) == "report.pdf is encrypted"  # a name keeps its spelling
    assert describe(ValueError("boom")).startswith("Something went wrong inside Pressroom (ValueError: boom).")
