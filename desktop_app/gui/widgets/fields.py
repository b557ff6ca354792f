"""A form field with its own error line under it: bad input is named where it was typed, and
nothing typed is lost; and a page's form column, scrolling when the window is short."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QLabel,
    QLayout,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

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


def form_scroll(inner: QWidget, *, width: int | None = None, framed: bool = True,
                footer: QLayout | None = None) -> QWidget:
    """`inner` (a page's form column) in a vertical scroll area: the form is taller than a short
    window. `width`: the column's fixed width (else at least `inner`'s own), plus the scroll
    bar's, so a scroll bar never covers a field. `footer` (the form's error, Start and Stop)
    stays below the scroll area, always in sight: at the default 1304x720 Start was below
    the fold of both run forms."""
    scroll = QScrollArea()
    scroll.setWidget(inner)
    scroll.setWidgetResizable(True)
    if not framed:
        scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    bar = scroll.verticalScrollBar().sizeHint().width() + 4
    if width is None:
        scroll.setMinimumWidth(inner.sizeHint().width() + bar)
    else:
        scroll.setFixedWidth(width + bar)
    if footer is None:
        return scroll
    column = QWidget()
    column.setObjectName("formColumn")
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(scroll, 1)
    footer.setContentsMargins(0, 4, bar, 0)
    layout.addLayout(footer)
    if width is not None:
        column.setFixedWidth(width + bar)
    return column
