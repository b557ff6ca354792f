"""A form field with its own error line under it: bad input is named where it was typed, and
nothing typed is lost."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QVBoxLayout

ERROR_STYLE = "color: #b00020;"


def add_checked_field(layout: QFormLayout, label: str, edit: QLineEdit) -> QLabel:
    """Add a row holding `edit` and, under it, its (hidden) error label; returns the label."""
    error = QLabel()
    error.setStyleSheet(ERROR_STYLE)
    error.setWordWrap(True)
    error.hide()
    column = QVBoxLayout()
    column.setSpacing(1)
    column.addWidget(edit)
    column.addWidget(error)
    layout.addRow(label, column)
    return error
