"""The key store against a real Secret Service (gnome-keyring), and without any keychain."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core import secrets
from app.core.errors import InvalidOption, NoApiKey

KEY = "store-test-key-1a2b3c4d5e6f"


@pytest.fixture
def clean(keychain: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secrets.ENVIRONMENT, raising=False)
    secrets.delete_key()


def test_set_get_delete(clean: None) -> None:
    assert secrets.get_key() is None
    with pytest.raises(NoApiKey, match="pressroom key set"):
        secrets.require_key()
    secrets.set_key(f"  {KEY}\n")
    assert secrets.get_key() == KEY
    assert secrets.key_source() == "the keychain"
    assert secrets.delete_key() is True
    assert secrets.get_key() is None
    assert secrets.delete_key() is False


def test_environment_overrides_the_keychain(clean: None, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.set_key(KEY)
    monkeypatch.setenv(secrets.ENVIRONMENT, "from-the-environment-123")
    assert secrets.get_key() == "from-the-environment-123"
    assert "environment" in secrets.key_source()


def test_the_key_is_not_written_anywhere_else(clean: None) -> None:
    secrets.set_key(KEY)
    config = Path(os.environ["PRESSROOM_CONFIG_DIR"])
    for path in [p for p in config.rglob("*") if p.is_file()]:
        assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("text", ["", "   ", "two words", "x" * 600])
def test_nonsense_is_refused(text: str) -> None:
    with pytest.raises(InvalidOption):
        secrets.check_key_text(text)


def test_without_any_keychain() -> None:
    """No D-Bus session: keyring falls back to its 'fail' backend, and Pressroom says so clearly."""
    env = {k: v for k, v in os.environ.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", secrets.ENVIRONMENT)}
    code = (
        "from app.core import secrets\n"
        "from app.core.errors import KeychainError\n"
        "try:\n    secrets.set_key('abcdefghijklmnop')\nexcept KeychainError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                            cwd=Path(__file__).parent.parent.parent)  # fmt: skip
    assert result.stdout.startswith("no system keychain is available to keep the API key"), result.stdout + result.stderr
    assert "PRESSROOM_API_KEY" in result.stdout
