"""A source editor: line numbers, syntax highlighting for HTML (with its CSS and script) and JavaScript."""

from __future__ import annotations

import re
from typing import ClassVar

from PySide6.QtCore import QRect, QRegularExpression, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import QPlainTextEdit, QWidget


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


def _palette(dark: bool) -> dict[str, QTextCharFormat]:
    colors = (
        {
            "tag": "#7aa2f7",
            "attr": "#e0af68",
            "string": "#9ece6a",
            "comment": "#737aa2",
            "keyword": "#bb9af7",
            "number": "#ff9e64",
        }
        if dark
        else {
            "tag": "#1f4fbf",
            "attr": "#8a4b00",
            "string": "#2a7d2a",
            "comment": "#7a7a7a",
            "keyword": "#7a1fa2",
            "number": "#b35c00",
        }
    )
    return {name: _format(color, bold=name in ("tag", "keyword"), italic=name == "comment") for name, color in colors.items()}


JS_KEYWORDS = [
    "await",
    "async",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "let",
    "new",
    "null",
    "of",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
]


class _Highlighter(QSyntaxHighlighter):
    rules: ClassVar[list[tuple[QRegularExpression, str]]] = []
    block_comment = (QRegularExpression(r"/\*"), QRegularExpression(r"\*/"))

    def __init__(self, document: QTextDocument, dark: bool) -> None:
        super().__init__(document)
        self.formats = _palette(dark)

    def set_dark(self, dark: bool) -> None:
        self.formats = _palette(dark)
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        for expression, kind in self.rules:
            matches = expression.globalMatch(text)
            while matches.hasNext():
                match = matches.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), self.formats[kind])
        self._comments(text)

    def _comments(self, text: str) -> None:
        """Block comments, which may span lines (block state 1: inside one)."""
        opening, closing = self.block_comment
        self.setCurrentBlockState(0)
        start = 0 if self.previousBlockState() == 1 else opening.match(text).capturedStart()
        while start >= 0:
            end = closing.match(text, start)
            if end.hasMatch():
                length = end.capturedEnd() - start
            else:
                self.setCurrentBlockState(1)
                length = len(text) - start
            self.setFormat(start, length, self.formats["comment"])
            start = opening.match(text, start + length).capturedStart() if end.hasMatch() else -1


class JsHighlighter(_Highlighter):
    rules: ClassVar[list[tuple[QRegularExpression, str]]] = [
        (QRegularExpression(r"\b(" + "|".join(JS_KEYWORDS) + r")\b"), "keyword"),
        (QRegularExpression(r"\b\d+(\.\d+)?\b"), "number"),
        (QRegularExpression(r"\bpage\b|\bconsole\b"), "attr"),
        (QRegularExpression(r"\"([^\"\\\\]|\\\\.)*\"|'([^'\\\\]|\\\\.)*'|`([^`\\\\]|\\\\.)*`"), "string"),
        (QRegularExpression(r"//[^\n]*"), "comment"),
    ]


class HtmlHighlighter(_Highlighter):
    rules: ClassVar[list[tuple[QRegularExpression, str]]] = [
        (QRegularExpression(r"</?[A-Za-z][\w:-]*|/?>"), "tag"),
        (QRegularExpression(r"\b[\w:-]+(?=\s*=)"), "attr"),
        (QRegularExpression(r"\"[^\"]*\"|'[^']*'"), "string"),
        (QRegularExpression(r"[\w-]+(?=\s*:[^:])"), "keyword"),  # CSS properties
        (QRegularExpression(r"\b\d+(\.\d+)?(px|mm|cm|in|pt|em|rem|%|vh|vw)?\b"), "number"),
    ]
    block_comment = (QRegularExpression(r"<!--"), QRegularExpression(r"-->"))


class _LineNumbers(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(event)


class CodeEditor(QPlainTextEdit):
    def __init__(self, language: str = "html", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10))
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self._gutter = _LineNumbers(self)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._scroll_gutter)
        self._update_margin()
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        highlighter = JsHighlighter if language == "js" else HtmlHighlighter
        self.highlighter: _Highlighter = highlighter(self.document(), dark)

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 12 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _update_margin(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self._gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible():
                painter.drawText(0, top, self._gutter.width() - 6, height, Qt.AlignmentFlag.AlignRight, str(number + 1))
            block = block.next()
            top += round(self.blockBoundingRect(block).height()) if block.isValid() else height
            number += 1
        painter.end()

    def set_dark(self, dark: bool) -> None:
        self.highlighter.set_dark(dark)


def looks_like_html(text: str) -> bool:
    return bool(re.search(r"<[a-zA-Z!]", text))
