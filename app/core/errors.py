"""The one exception tree of Pressroom.

Every failure that crosses a layer boundary (engine -> CLI, engine -> GUI, engine -> server) is one of
these, raised ``from`` the underlying library error. Each carries a ``message`` (what went wrong, in words
a person understands) and a ``hint`` (what to do about it); ``str(error)`` joins them into one line.

    PressroomError
    ├── InputError                  the request is wrong; changing it fixes it         (CLI exit 2)
    │   ├── InvalidOption           an option value is malformed or out of range
    │   ├── SourceNotFound          an input file or folder does not exist or cannot be read
    │   ├── InvalidUrl              an address that is not a usable http(s)/file URL
    │   ├── OutputNotWritable       the output cannot be written where it was asked for
    │   ├── UnreadablePdf           an input is not a PDF, or too damaged to repair
    │   ├── PdfPasswordError        an encrypted input needs a (different) password
    │   ├── ScriptSyntaxError       a script does not parse (line and column in the message)
    │   ├── NoApiKey                the hosted API needs a key and none is stored
    │   ├── KeyRejected             the hosted API refused the key (HTTP 401/403)
    │   └── RequestRejected         the hosted API refused the request (HTTP 400, 413)
    └── OperationError              the request was fine, the work failed              (CLI exit 1)
        ├── PageLoadError           a page could not be loaded (unreachable, HTTP error status)
        ├── RenderError             the browser failed to produce the output (e.g. the page crashed)
        ├── JobTimeout              the job ran past its time limit
        ├── ScriptFailed            a script threw (its message and line in the message)
        ├── BrowserError            the browser could not be started or stopped unexpectedly
        │   └── BrowserNotFound     no usable Chromium/Chrome/Edge was found
        ├── ServiceError            the hosted API failed (5xx, an answer that is not a file...)
        │   ├── ServiceUnreachable  it could not be reached (refused, DNS, TLS)
        │   └── RateLimited         it said "too many requests" (HTTP 429) for too long
        └── KeychainError           the system keychain is missing, locked or failing

Cancellation is not an error: a cancelled job's future raises ``concurrent.futures.CancelledError``.
"""

from __future__ import annotations


class PressroomError(Exception):
    """Base of every error Pressroom reports to a person."""

    exit_status = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        self.message = _one_line(message)
        self.hint = _one_line(hint) if hint else None
        super().__init__(self.message)

    def __str__(self) -> str:
        if not self.hint:
            return self.message
        stop = "" if self.message.endswith(("?", "!", ".")) else "."
        return f"{self.message}{stop} {self.hint}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, hint={self.hint!r})"


class InputError(PressroomError):
    """The request itself is wrong: an option, an input file, an address."""

    exit_status = 2


class InvalidOption(InputError):
    """An option value is malformed, out of range, or conflicts with another option."""


class SourceNotFound(InputError):
    """An input file or folder does not exist or cannot be read."""


class InvalidUrl(InputError):
    """An address that is not a usable http(s) or file URL."""


class OutputNotWritable(InputError):
    """The output cannot be written where it was asked for."""


class UnreadablePdf(InputError):
    """An input is not a PDF file, or is too damaged to be repaired."""


class PdfPasswordError(InputError):
    """An encrypted input cannot be opened without its password, or the password given is wrong."""


class ScriptSyntaxError(InputError):
    """A script does not parse."""


class NoApiKey(InputError):
    """The hosted API needs a key and none is stored."""


class KeyRejected(InputError):
    """The hosted API refused the key."""


class RequestRejected(InputError):
    """The hosted API refused the request itself (bad request, too large)."""


class OperationError(PressroomError):
    """The request was fine but the work failed."""

    exit_status = 1


class PageLoadError(OperationError):
    """A page could not be loaded: unreachable host, refused connection, HTTP error status."""


class RenderError(OperationError):
    """The browser failed to produce the output."""


class JobTimeout(OperationError):
    """The job did not finish within its time limit."""


class ScriptFailed(OperationError):
    """A script threw an error, or returned something that cannot be reported."""


class BrowserError(OperationError):
    """The browser could not be started, or stopped unexpectedly."""


class BrowserNotFound(BrowserError):
    """No usable Chromium, Chrome or Edge executable was found."""


class ServiceError(OperationError):
    """The hosted API failed to do the work."""


class ServiceUnreachable(ServiceError):
    """The hosted API could not be reached."""


class RateLimited(ServiceError):
    """The hosted API kept answering "too many requests"."""


class KeychainError(OperationError):
    """The system keychain is missing, locked or failing."""


def _one_line(text: str) -> str:
    return " ".join(text.split())
