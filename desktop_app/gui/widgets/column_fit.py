"""Columns as wide as their contents until the user sizes one: then the user's widths stay."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHeaderView, QTableView


class ColumnFitter(QObject):
    """Fits a table's columns to their contents whenever `fit()` is called (e.g. as rows
    arrive), until the user drags a column's edge or widths remembered from the last session
    were restored (`restored=True`); from then on the widths are the user's to keep.

    The columns stay interactive (a ResizeToContents header cannot be sized by hand, nor
    remembered)."""

    def __init__(self, view: QTableView, *, restored: bool = False,
                 max_width: int | None = None) -> None:
        super().__init__(view)
        self._view = view
        self._max_width = max_width
        self._fitting = False
        self.user_sized = restored
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.sectionResized.connect(self._on_header_section_resized)

    def fit(self) -> None:
        """Fit every column to its contents (capped at `max_width`), unless the user has
        sized the columns."""
        if self.user_sized:
            return
        self._fitting = True
        try:
            self._view.resizeColumnsToContents()
            if self._max_width:
                for column in range(self._view.model().columnCount()):
                    if self._view.columnWidth(column) > self._max_width:
                        self._view.setColumnWidth(column, self._max_width)
        finally:
            self._fitting = False

    def _on_header_section_resized(self, index: int, _old: int, _new: int) -> None:
        header = self._view.horizontalHeader()
        last = header.logicalIndex(header.count() - 1)
        if self._fitting or (header.stretchLastSection() and index == last):
            return  # our own fitting, or the stretched last column following the view's width
        if self._view.isVisible():
            self.user_sized = True
