"""An options panel generated from an options dataclass: one editor per field, nothing more or less.

``value()`` builds the dataclass (its own validation applies, and its message is shown under the form);
``set_value()`` fills the editors from one. The tabs never map options by hand, so a field added to a
job's options appears in the window by itself.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import StrEnum
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from app.core.errors import PressroomError
from app.core.jobs import Length, Margins
from app.gui.wording import describe

# Labels, ranges and hints for fields; a field not listed gets its name as label and wide ranges.
LABELS: dict[str, str] = {
    "format": "Paper", "width": "Width", "height": "Height", "landscape": "Landscape", "margins": "Margins",
    "scale": "Scale", "print_background": "Print backgrounds", "prefer_css_page_size": "Use the page size from CSS",
    "page_ranges": "Pages", "header_html": "Header HTML", "footer_html": "Footer HTML", "media": "CSS media",
    "tagged": "Tagged (accessible) PDF", "outline": "Bookmarks from headings", "full_page": "Full page",
    "type": "Format", "quality": "Quality", "selector": "Only the element", "omit_background": "Transparent background",
    "dark": "Dark color scheme", "scroll": "Scroll to load lazy content", "expression": "Wait for JavaScript",
    "delay_ms": "Extra delay (ms)",
}  # fmt: skip
PLACEHOLDERS: dict[str, str] = {
    "width": "e.g. 210mm (with height)", "height": "e.g. 297mm", "page_ranges": "all, or e.g. 1-3,5",
    "header_html": '<span class="pageNumber"></span>', "footer_html": "HTML", "selector": "CSS selector, e.g. #chart",
    "expression": "e.g. window.ready === true",
}  # fmt: skip
RANGES: dict[str, tuple[float, float, float]] = {  # minimum, maximum, step
    "scale": (0.1, 8.0, 0.1), "quality": (-1, 100, 5), "delay_ms": (0, 600_000, 100),
    "width": (1, 16384, 10), "height": (1, 16384, 10),
}  # fmt: skip


def _optional(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (it, False)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0], True
    return annotation, False


class OptionsForm(QWidget):
    changed = Signal()

    def __init__(self, kind: type, labels: dict[str, str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self._labels = {**LABELS, **(labels or {})}
        self._hints = typing.get_type_hints(kind)
        self._editors: dict[str, Any] = {}
        self.layout_ = QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        default = kind()
        for field in dataclasses.fields(kind):
            editor = self._editor(field.name, self._hints[field.name])
            self._editors[field.name] = editor
            self.layout_.addRow(self._labels.get(field.name, field.name.replace("_", " ").capitalize()), editor)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        self.error.hide()
        self.layout_.addRow(self.error)
        self.set_value(default)

    # -- editors --

    def _editor(self, name: str, annotation: Any) -> Any:
        inner, optional = _optional(annotation)
        if inner is bool:
            box = QCheckBox()
            box.toggled.connect(self.changed)
            return box
        if isinstance(inner, type) and issubclass(inner, StrEnum):
            combo = QComboBox()
            for member in inner:
                combo.addItem(member.value, member.value)
            combo.currentIndexChanged.connect(self.changed)
            return combo
        if inner is int:
            spin = QSpinBox()
            low, high, step = RANGES.get(name, (0, 1_000_000, 1))
            spin.setRange(int(low), int(high))
            spin.setSingleStep(int(step))
            if optional:
                spin.setSpecialValueText("default")  # the minimum stands for None
            spin.valueChanged.connect(self.changed)
            return spin
        if inner is float:
            double = QDoubleSpinBox()
            low, high, step = RANGES.get(name, (0.0, 1000.0, 0.1))
            double.setRange(low, high)
            double.setSingleStep(step)
            double.setDecimals(2)
            double.valueChanged.connect(self.changed)
            return double
        if inner is Margins:
            row = QWidget()
            layout = QHBoxLayout(row)
            layout.setContentsMargins(0, 0, 0, 0)
            edits = []
            for side in ("top", "right", "bottom", "left"):
                edit = QLineEdit()
                edit.setPlaceholderText(side)
                edit.setToolTip(f"{side} margin, e.g. 10mm")
                edit.textChanged.connect(self.changed)
                layout.addWidget(edit)
                edits.append(edit)
            row.setProperty("edits", edits)
            return row
        edit = QLineEdit()
        edit.setPlaceholderText(PLACEHOLDERS.get(name, ""))
        edit.textChanged.connect(self.changed)
        return edit

    # -- values --

    def set_value(self, value: Any) -> None:
        for field in dataclasses.fields(self.kind):
            self._set(self._editors[field.name], self._hints[field.name], getattr(value, field.name))

    def _set(self, editor: Any, annotation: Any, value: Any) -> None:
        inner = _optional(annotation)[0]
        blocker = editor.blockSignals(True)
        try:
            if isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QComboBox):
                editor.setCurrentIndex(max(0, editor.findData(str(value))))
            elif isinstance(editor, QSpinBox):
                editor.setValue(editor.minimum() if value is None else int(value))
            elif isinstance(editor, QDoubleSpinBox):
                editor.setValue(float(value))
            elif inner is Margins:
                for edit, side in zip(editor.property("edits"), ("top", "right", "bottom", "left"), strict=True):
                    length = getattr(value, side)
                    edit.setText(length.css if length else "")
            else:
                editor.setText("" if value is None else str(value))
        finally:
            editor.blockSignals(blocker)

    def value(self) -> Any:
        """The options dataclass for what the editors show; on a bad value the message appears below."""
        try:
            values = {field.name: self._read(field.name) for field in dataclasses.fields(self.kind)}
            result = self.kind(**values)
        except PressroomError as exc:
            self.error.setText(describe(exc))
            self.error.show()
            raise
        self.error.hide()
        return result

    def _read(self, name: str) -> Any:
        editor, (inner, optional) = self._editors[name], _optional(self._hints[name])
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QComboBox):
            return inner(editor.currentData())  # Qt hands the enum back as a plain string
        if isinstance(editor, QSpinBox):
            return None if optional and editor.value() == editor.minimum() else editor.value()
        if isinstance(editor, QDoubleSpinBox):
            return editor.value()
        if inner is Margins:
            sides = [edit.text().strip() for edit in editor.property("edits")]
            return Margins(*(Length.parse(text) if text else None for text in sides))
        text = editor.text().strip()
        if inner is Length:
            return Length.parse(text) if text else None
        if optional:
            return text or None
        return text

    def editor(self, name: str) -> Any:
        return self._editors[name]
