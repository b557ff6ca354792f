"""A page that says what will live here: shown until the real page is built."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class PlaceholderPage(QWidget):
    """Shows a page's title and one sentence about what it is for."""

    def __init__(self, title: str, blurb: str, parent: QWidget | None = None, *,
                 loading: bool = False, name: str | None = None) -> None:
        super().__init__(parent)
        name = name or title  # the English title: object names stay the same in any language
        self.setObjectName(f"page_{name.lower().replace(' ', '_')}")
        heading = QLabel(title)
        heading.setObjectName("pageTitle")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        heading.setFont(font)
        text = QLabel(blurb)
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(text)
        if loading:
            layout.addWidget(QLabel(self.tr("Loading...")))
        layout.addStretch(1)
