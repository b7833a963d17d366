"""Settings: one schema (key, type, default, label), where the file lives, environment overrides.

The settings file is JSON in the user's configuration folder (``platformdirs``), shared by the CLI and
the window. Environment variables override it for scripted use. Secrets never live here: the API key is
kept in the system keychain (``app.core.secrets``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import InvalidOption

APP_NAME = "pressroom"


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    type: type
    default: Any
    label: str
    env: str | None = None
    help: str = ""
    minimum: float | None = None


SCHEMA: tuple[Setting, ...] = (
    Setting(
        "engine",
        str,
        "local",
        "Engine",
        "PRESSROOM_ENGINE",
        "Where the work runs: 'local' (embedded Chromium) or 'remote' (the hosted API)",
    ),
    Setting(
        "base_url",
        str,
        "",
        "Service base URL",
        "PRESSROOM_BASE_URL",
        "Address of the hosted service's account endpoints (the key check)",
    ),
    Setting(
        "exec_url",
        str,
        "",
        "Service execution URL",
        "PRESSROOM_EXEC_URL",
        "Address of the hosted service's execution endpoints (conversions, merge, scripts)",
    ),
    Setting(
        "origin_header",
        str,
        "service-origin",
        "Origin header name",
        "PRESSROOM_ORIGIN_HEADER",
        "Header that names the integration and operation on every execution request",
    ),
    Setting(
        "integration",
        str,
        "pressroom",
        "Integration name",
        "PRESSROOM_INTEGRATION",
        "The integration name sent in the origin header",
    ),
    Setting(
        "browser_path",
        str,
        "",
        "Browser executable",
        "PRESSROOM_CHROMIUM",
        "Chromium, Chrome or Edge to use; empty: find one automatically",
    ),
    Setting(
        "concurrency", int, 4, "Concurrent jobs", "PRESSROOM_CONCURRENCY", "How many pages render at once in the local engine", 1
    ),
    Setting(
        "timeout",
        float,
        30.0,
        "Job timeout (s)",
        "PRESSROOM_TIMEOUT",
        "Every job stops with an error after this many seconds",
        0.1,
    ),
    Setting(
        "context_jobs",
        int,
        100,
        "Jobs per browser context",
        None,
        "A pooled page gets a fresh browser context after this many jobs",
        1,
    ),
    Setting(
        "browser_jobs",
        int,
        2000,
        "Jobs per browser",
        None,
        "The browser is restarted after this many jobs, to keep memory flat",
        1,
    ),
)
_BY_KEY = {setting.key: setting for setting in SCHEMA}


def config_dir() -> Path:
    """Where Pressroom keeps its settings (``PRESSROOM_CONFIG_DIR`` overrides the platform default)."""
    override = os.environ.get("PRESSROOM_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


class Settings:
    """Values of every setting in ``SCHEMA``: file values, then environment overrides."""

    def __init__(self, values: Mapping[str, Any] | None = None, *, path: Path | None = None) -> None:
        self.path = path
        self._values: dict[str, Any] = {s.key: s.default for s in SCHEMA}
        for key, value in (values or {}).items():
            if key in _BY_KEY:  # unknown keys (from newer versions) are kept out, not fatal
                self._values[key] = _coerce(_BY_KEY[key], value, source=str(path or "settings"))

    @classmethod
    def load(cls, path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        path = path or config_dir() / "settings.json"
        values: dict[str, Any] = {}
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            loaded = {}
        except (OSError, ValueError) as exc:
            raise InvalidOption(f"cannot read the settings file {path}: {exc}", "Fix or delete that file") from exc
        if isinstance(loaded, dict):
            values.update(loaded)
        environ = os.environ if environ is None else environ
        for setting in SCHEMA:
            if setting.env and environ.get(setting.env):
                values[setting.key] = _coerce(setting, environ[setting.env], source=setting.env)
        return cls(values, path=path)

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def save(self) -> None:
        """Write the settings file atomically."""
        from app.core.files import write_atomic

        path = self.path or config_dir() / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(self._values, indent=2, sort_keys=True).encode())

    def set(self, key: str, value: Any) -> None:
        self._values[key] = _coerce(_BY_KEY[key], value, source=key)


def _coerce(setting: Setting, value: Any, *, source: str) -> Any:
    try:
        converted = setting.type(value)
    except (TypeError, ValueError):
        raise InvalidOption(
            f"{source}: '{value}' is not a valid value for {setting.label.lower()}",
            f"Expected a {setting.type.__name__}",
        ) from None
    if setting.minimum is not None and converted < setting.minimum:
        raise InvalidOption(f"{source}: {setting.label.lower()} must be at least {setting.minimum:g}")
    return converted
