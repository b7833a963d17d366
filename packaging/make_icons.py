"""Make the application icon's raster forms from resources/icons/pressroom.svg.

    .venv/bin/python packaging/make_icons.py

Writes resources/icons/pressroom-<size>.png (16 to 512), pressroom.ico (Windows) and pressroom.icns
(macOS). The results are committed; run this again after changing the SVG.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PIL import Image
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication(sys.argv[:1])  # noqa: F841 - Qt needs it to paint
    renderer = QSvgRenderer(str(ICONS / "pressroom.svg"))
    if not renderer.isValid():
        raise SystemExit("make_icons: resources/icons/pressroom.svg is not a valid SVG")
    images: dict[int, Image.Image] = {}
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        buffer.close()
        path = ICONS / f"pressroom-{size}.png"
        path.write_bytes(bytes(data.data()))
        images[size] = Image.open(io.BytesIO(bytes(data.data()))).convert("RGBA")
        print(f"wrote {path.relative_to(ROOT)}")
    images[256].save(ICONS / "pressroom.ico", sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])
    print("wrote resources/icons/pressroom.ico")
    images[512].save(ICONS / "pressroom.icns", append_images=[images[s] for s in (16, 32, 64, 128, 256)])
    print("wrote resources/icons/pressroom.icns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
