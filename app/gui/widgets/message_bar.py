"""A message bar above the work area: errors stay until dismissed, notes fade after a while.

Errors are one line, as everywhere in Pressroom (message, then what to do); there are no traceback
dialogs. A message may carry one action button ("Open result", "Settings…").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

STYLES = {
    "error": "QFrame#MessageBar { background: #fde7e9; border: 1px solid #e8a0a7; } QLabel { color: #5c0b12; }",
    "info": "QFrame#MessageBar { background: #e7f0fd; border: 1px solid #9fbbe8; } QLabel { color: #0b2a5c; }",
}


class MessageBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessageBar")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.hide()
        close = QToolButton()
        close.setText("×")
        close.setToolTip("Dismiss")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.action)
        layout.addWidget(close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self._callback: Callable[[], None] | None = None
        self.action.clicked.connect(self._act)
        self.kind = ""
        self.hide()

    def show_error(self, message: str, action: tuple[str, Callable[[], None]] | None = None) -> None:
        self._show("error", message, action, None)

    def show_info(self, message: str, action: tuple[str, Callable[[], None]] | None = None, seconds: float = 8) -> None:
        self._show("info", message, action, seconds)

    def _show(self, kind: str, message: str, action: tuple[str, Callable[[], None]] | None, seconds: float | None) -> None:
        self.kind = kind
        self.setStyleSheet(STYLES[kind])
        self.text.setText(message)
        self._callback = action[1] if action else None
        self.action.setText(action[0] if action else "")
        self.action.setVisible(action is not None)
        self._timer.stop()
        if seconds:
            self._timer.start(int(seconds * 1000))
        self.show()

    def _act(self) -> None:
        if self._callback is not None:
            self._callback()
