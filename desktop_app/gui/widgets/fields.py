"""A form field with its own error line under it: bad input is named where it was typed, and
nothing typed is lost; and a page's form column, scrolling when the window is short."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QFrame,
    QLabel,
    QLayout,
    QLayoutItem,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

ERROR_STYLE = "color: #b00020;"


def add_checked_field(layout: QFormLayout, label: str, edit: QWidget) -> QLabel:
    """Add a row holding `edit` (a field, or a row of them) and, under it, its (hidden) error
    label; returns the label."""
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


class FlowLayout(QLayout):
    """Items left to right, onto the next line when the width runs out (Qt's flow layout
    example): a row of filters that fits a 1,024 px window where one line would not."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 12) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # Qt's names, overridden
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        width = sum(item.sizeHint().width() for item in self._items)
        width += self._gap * max(len(self._items) - 1, 0)
        height = max((item.sizeHint().height() for item in self._items), default=0)
        return QSize(width, height)

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _place(self, rect: QRect, move: bool) -> int:
        x, y, line = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x > rect.x() and x + hint.width() > rect.right() + 1:
                x, y, line = rect.x(), y + line + self._gap // 2, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line = max(line, hint.height())
        return y + line - rect.y()


def labelled(*widgets: QWidget) -> QWidget:
    """`widgets` side by side as one unit of a FlowLayout (a label stays with its field)."""
    group = QWidget()
    row = QHBoxLayout(group)
    row.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        row.addWidget(widget)
    return group
