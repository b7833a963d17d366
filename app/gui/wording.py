"""Errors in the window's words.

The engines' errors carry a hint for what to do, written for the command line ("raise --timeout",
"'pressroom key set'"). In the window the same advice must name what a person can click, so the hint's
command-line terms are rewritten here; the message itself (what went wrong) is kept as it is.
"""

from __future__ import annotations

import re

from app.core.errors import PressroomError

SETTINGS = "Settings (Ctrl+,)"

# (pattern, replacement), applied in order to the hint only.
_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"Store yours with 'pressroom key set', or set PRESSROOM_API_KEY", f"Paste your key in {SETTINGS}"),
        (r"Check it with 'pressroom key check', or store a new one with 'pressroom key set'",
         f"Check it with Check key in {SETTINGS}, or paste a new one there"),
        (r"Raise the timeout \(--timeout\)", f"Raise the time limit per job in {SETTINGS}"),
        (r"Raise --timeout", f"Raise the time limit per job in {SETTINGS}"),
        (r"raise --timeout", f"raise the time limit per job in {SETTINGS}"),
        (r"try --wait-until domcontentloaded", "try 'Loaded at: domcontentloaded'"),
        (r"Give both, e.g. --width 210mm --height 297mm", "Give both Width and Height, e.g. 210mm and 297mm"),
        (r"Drop --quality, or add --type jpeg or --type webp", "Set Quality to its default, or choose the JPEG or WebP format"),
        (r"Use --type png or --type webp", "Choose the PNG or WebP format"),
        (r"Use either --selector or --full-page", "Use either 'Only the element' or 'Full page'"),
        (r"Leave out --full-page, or use the local engine", f"Untick 'Full page', or use the local engine ({SETTINGS})"),
        (r"Check --base-url", "Check the base folder"),
        (r"Fix the JavaScript of --wait-expression", "Fix the JavaScript of 'Wait for JavaScript'"),
        (r"wait for the element with --wait-for", "wait for it with 'Wait for element'"),
        (r"Give its password: --password .*", "Give its password: right-click its row, Set password…"),
    )
)  # fmt: skip


def describe(error: BaseException) -> str:
    """One line for the message bar: what went wrong and what to do, in the window's terms."""
    if not isinstance(error, PressroomError):
        return f"Something went wrong inside Pressroom ({type(error).__name__}: {error}). Please report it."
    message = sentence(error.message)
    hint = error.hint
    if hint:
        for pattern, replacement in _HINTS:
            hint = pattern.sub(replacement, hint)
    if not hint:
        return message
    stop = "" if message.endswith(("?", "!", ".")) else "."
    return f"{message}{stop} {hint}"


def sentence(message: str) -> str:
    """Messages start in lower case (they follow "pressroom: error:" on the command line); in the window they
    are sentences. A first word that is a name (report.pdf, http://…, #chart, JPEG) keeps its spelling."""
    first = message.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        return message[:1].upper() + message[1:]
    return message
