"""Finding a Chromium-family browser to drive.

Order: the explicit path (setting ``browser_path`` or ``PRESSROOM_CHROMIUM``), Playwright's own downloaded
Chromium (``python -m playwright install chromium``), then the system's Chrome, Chromium and Edge on
Linux, macOS and Windows. Discovery only looks at the file system; launching is the pool's business,
which tries the candidates in this order until one starts.

Run ``python -m app.engines.local.discovery`` to list what is found (exit status 1 when nothing is).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import BrowserNotFound

INSTALL_HINT = (
    "Install one with 'python -m playwright install chromium' (or your system's chromium package), "
    "or point PRESSROOM_CHROMIUM at a Chrome, Chromium or Edge executable"
)


@dataclass(frozen=True, slots=True)
class BrowserCandidate:
    source: str  # "setting", "playwright" or "system"
    executable: str | None  # None: let Playwright use the browser it downloaded itself

    @property
    def label(self) -> str:
        return self.executable or "Playwright's Chromium"


def playwright_browsers_dir() -> Path:
    """Where ``playwright install`` puts browsers (mirrors Playwright's own rules)."""
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured and configured != "0":
        return Path(configured).expanduser()
    if configured == "0":
        import importlib.util

        spec = importlib.util.find_spec("playwright")
        if spec and spec.origin:
            return Path(spec.origin).parent / "driver" / "package" / ".local-browsers"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "ms-playwright"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"


def _has_playwright_chromium() -> bool:
    folder = playwright_browsers_dir()
    try:
        return any(entry.is_dir() and entry.name.startswith("chromium") for entry in folder.iterdir())
    except OSError:
        return False


def _system_paths() -> list[str]:
    if sys.platform == "win32":
        roots = [os.environ.get(v) for v in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
        tails = [
            r"Google\Chrome\Application\chrome.exe",
            r"Chromium\Application\chrome.exe",
            r"Microsoft\Edge\Application\msedge.exe",
        ]
        return [str(Path(root) / tail) for tail in tails for root in roots if root]
    if sys.platform == "darwin":
        apps = [
            "Google Chrome.app/Contents/MacOS/Google Chrome",
            "Chromium.app/Contents/MacOS/Chromium",
            "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        ]
        return [str(root / app) for app in apps for root in (Path("/Applications"), Path.home() / "Applications")]
    names = ["google-chrome", "google-chrome-stable", "chromium", "chromium-browser", "microsoft-edge", "microsoft-edge-stable"]
    found = [path for name in names if (path := shutil.which(name))]
    return [
        *found,
        "/opt/google/chrome/chrome",
        "/usr/lib/chromium/chromium",
        "/snap/bin/chromium",
        "/opt/microsoft/msedge/msedge",
    ]


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_browsers(explicit: str | None = None) -> list[BrowserCandidate]:
    """Every usable candidate, best first; raises ``BrowserNotFound`` when there is none."""
    if explicit:
        path = os.path.expanduser(explicit)
        if not _is_executable(path):
            raise BrowserNotFound(
                f"the browser set in the settings or PRESSROOM_CHROMIUM ({explicit}) is not an executable file",
                "Fix the path, or clear it to let Pressroom find a browser",
            )
        return [BrowserCandidate("setting", path)]
    candidates: list[BrowserCandidate] = []
    if _has_playwright_chromium():
        candidates.append(BrowserCandidate("playwright", None))
    seen: set[str] = set()
    for path in _system_paths():
        if _is_executable(path):
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                candidates.append(BrowserCandidate("system", path))
    if not candidates:
        raise BrowserNotFound("no Chromium, Chrome or Edge browser was found on this computer", INSTALL_HINT)
    return candidates


def install_command() -> list[str]:
    """The command that downloads Playwright's Chromium: its driver (Node and playwright-core) run directly,
    so it works the same in a virtual environment and in a bundle (where there is no ``python -m``)."""
    import playwright

    driver = Path(playwright.__file__).parent / "driver"
    node = driver / ("node.exe" if sys.platform == "win32" else "node")
    return [str(node), str(driver / "package" / "cli.js"), "install", "chromium"]


def main() -> int:
    try:
        candidates = find_browsers(os.environ.get("PRESSROOM_CHROMIUM"))
    except BrowserNotFound as exc:
        print(f"pressroom: {exc}", file=sys.stderr)
        return 1
    for candidate in candidates:
        print(f"{candidate.source}\t{candidate.label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
