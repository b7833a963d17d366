"""Finding Pressroom's resources (sample documents, icons) wherever it runs: a checkout, an installed
package (``share/pressroom``), or a PyInstaller bundle. Every resource is found through here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_ID = "io.pressroom.Pressroom"  # the desktop entry's name, the icon's name in icon themes, the AppStream id


def resources_dir() -> Path:
    candidates = []
    if os.environ.get("PRESSROOM_RESOURCES"):
        candidates.append(Path(os.environ["PRESSROOM_RESOURCES"]))
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        candidates.append(Path(bundle) / "resources")
    candidates.append(Path(__file__).resolve().parent.parent.parent / "resources")  # a checkout
    candidates.append(Path(sys.prefix) / "share" / "pressroom")  # an installed wheel's data files
    for candidate in candidates:
        if (candidate / "samples").is_dir():
            return candidate
    return candidates[-1]


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def samples() -> dict[str, Path]:
    """Sample documents by name (``invoice``, ``report``, ``certificate``...)."""
    folder = resource("samples")
    return {path.stem: path for path in sorted(folder.glob("*.html"))} if folder.is_dir() else {}
