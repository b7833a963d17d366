"""Back ends behind the ``Engine`` interface, chosen by name; each is imported only when chosen."""

from __future__ import annotations

from app.core.engine import Engine
from app.core.errors import InvalidOption
from app.core.settings import Settings

ENGINES = ("local", "remote")


def create_engine(kind: str, settings: Settings) -> Engine:
    """The engine called ``kind``, configured from ``settings``."""
    if kind == "local":
        from app.engines.local import LocalEngine, LocalEngineConfig

        return LocalEngine(LocalEngineConfig.from_settings(settings))
    if kind == "remote":
        from app.engines.remote import RemoteConfig, RemoteEngine

        return RemoteEngine(RemoteConfig.from_settings(settings))
    raise InvalidOption(f"unknown engine '{kind}'", f"Use one of: {', '.join(ENGINES)}")
