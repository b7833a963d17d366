"""The embedded engine: Playwright driving a Chromium-family browser on this computer."""

from app.engines.local.config import BrowserInfo, LocalEngineConfig
from app.engines.local.engine import LocalEngine

__all__ = ["BrowserInfo", "LocalEngine", "LocalEngineConfig"]
