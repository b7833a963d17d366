"""The API key, kept in the operating system's keychain through ``keyring``.

Never in a settings file, a log line, an error message, a repr or argv. When no keychain works, the
answer is a clear error - never a silent plaintext file. ``PRESSROOM_API_KEY`` overrides the keychain
for scripted use (CI, servers), and is read only, never stored.
"""

from __future__ import annotations

import os
from typing import Any

from app.core.errors import InvalidOption, KeychainError, NoApiKey

SERVICE = "pressroom"
ACCOUNT = "api-key"
ENVIRONMENT = "PRESSROOM_API_KEY"

NO_KEYCHAIN_HINT = (
    "Use a desktop session with a keychain (GNOME Keyring, KWallet, macOS Keychain, Windows Credential "
    "Manager), or set PRESSROOM_API_KEY for this session only"
)


def _keyring() -> Any:
    """The keyring module with a backend that can really store secrets, or a ``KeychainError``."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError as exc:  # pragma: no cover - keyring is a dependency
        raise KeychainError("the keyring library is missing", "Reinstall Pressroom") from exc
    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 1) <= 0:
        raise KeychainError("no system keychain is available to keep the API key", NO_KEYCHAIN_HINT)
    return keyring


def _translate(exc: Exception, doing: str) -> KeychainError:
    text = str(exc)
    if "dismissed" in text.lower() or "locked" in text.lower():
        return KeychainError(f"the keychain is locked, so the key could not be {doing}", "Unlock your keychain and try again")
    return KeychainError(f"the keychain failed while the key was {doing} ({type(exc).__name__})", NO_KEYCHAIN_HINT)


def check_key_text(key: str) -> str:
    key = key.strip()
    if not key:
        raise InvalidOption("the API key is empty", "Paste the key from your account page")
    if any(ch.isspace() for ch in key) or len(key) > 512:
        raise InvalidOption("that does not look like an API key (it has spaces or is very long)", "Paste the key alone")
    return key


def get_key() -> str | None:
    """The key: ``PRESSROOM_API_KEY`` if set, else the keychain's; None when none is stored."""
    from_environment = os.environ.get(ENVIRONMENT, "").strip()
    if from_environment:
        return from_environment
    keyring = _keyring()
    try:
        stored: str | None = keyring.get_password(SERVICE, ACCOUNT)
    except Exception as exc:
        raise _translate(exc, "read") from None
    return stored or None


def require_key() -> str:
    key = get_key()
    if key is None:
        raise NoApiKey("no API key is stored", "Store yours with 'pressroom key set', or set PRESSROOM_API_KEY")
    return key


def set_key(key: str) -> None:
    key = check_key_text(key)
    keyring = _keyring()
    try:
        keyring.set_password(SERVICE, ACCOUNT, key)
    except Exception as exc:
        raise _translate(exc, "stored") from None


def delete_key() -> bool:
    """Forget the stored key; False if there was none."""
    keyring = _keyring()
    from keyring.errors import PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, ACCOUNT)
    except PasswordDeleteError:
        return False
    except Exception as exc:
        raise _translate(exc, "deleted") from None
    return True


def key_source() -> str:
    """Where the key in use comes from, for display."""
    return "the PRESSROOM_API_KEY environment variable" if os.environ.get(ENVIRONMENT, "").strip() else "the keychain"
