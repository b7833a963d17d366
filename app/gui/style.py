"""Look: Fusion, following the system's light or dark colour scheme as it changes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication


def app_icon() -> QIcon:
    """The application's icon: the theme's (when installed with install-desktop), else the bundled files."""
    from app.core.resources import APP_ID, resource

    icon = QIcon()
    folder = resource("icons")
    for path in sorted(folder.glob("pressroom-*.png")):
        icon.addFile(str(path))
    if (folder / "pressroom.svg").is_file():
        icon.addFile(str(folder / "pressroom.svg"))
    return QIcon.fromTheme(APP_ID, icon)


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor(30, 32, 36), QColor(41, 44, 49), QColor(226, 228, 232)
    for role, color in (
        (QPalette.ColorRole.Window, window), (QPalette.ColorRole.WindowText, text), (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, QColor(36, 38, 43)), (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, window), (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.ToolTipBase, base), (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Highlight, QColor(64, 120, 200)), (QPalette.ColorRole.HighlightedText, QColor(255, 255, 255)),
        (QPalette.ColorRole.PlaceholderText, QColor(140, 144, 150)), (QPalette.ColorRole.Link, QColor(120, 170, 240)),
    ):  # fmt: skip
        palette.setColor(role, color)
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(120, 122, 128))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(120, 122, 128))
    return palette


def follow_scheme(app: QApplication, scheme: Qt.ColorScheme) -> None:
    app.setPalette(dark_palette() if scheme == Qt.ColorScheme.Dark else app.style().standardPalette())


def apply_style(app: QApplication) -> None:
    app.setStyle("Fusion")
    hints = app.styleHints()
    hints.colorSchemeChanged.connect(lambda scheme: follow_scheme(app, scheme))
    follow_scheme(app, hints.colorScheme())
