"""Columns as wide as their contents until the user sizes one: then the user's widths stay."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHeaderView, QTableView

from desktop_app.gui.settings import USER_SIZED_PROPERTY


class ColumnFitter(QObject):
    """Fits a table's columns to their contents whenever `fit()` is called (e.g. as rows
    arrive), until the user drags a column's edge or widths the user chose in the last session
    were restored (`restored=True`, what `Settings.track` returns for a header); from then on
    the widths are the user's to keep. Whether the user sized them is kept on the header
    (`USER_SIZED_PROPERTY`), so the settings remember it with the widths.

    The columns stay interactive (a ResizeToContents header cannot be sized by hand, nor
    remembered)."""

    def __init__(self, view: QTableView, *, restored: bool = False,
                 max_width: int | None = None) -> None:
        super().__init__(view)
        self._view = view
        self._max_width = max_width
        self._dragging = False
        header = view.horizontalHeader()
        self._header = header
        self.user_sized = restored
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Only the mouse counts as the user: models resetting, columns hidden and the stretched
        # last column also resize sections.
        header.viewport().installEventFilter(self)
        header.sectionResized.connect(self._on_header_section_resized)
        header.sectionHandleDoubleClicked.connect(self._on_header_handle_double_clicked)

    @property
    def user_sized(self) -> bool:
        return self._user_sized

    @user_sized.setter
    def user_sized(self, value: bool) -> None:
        self._user_sized = bool(value)
        self._header.setProperty(USER_SIZED_PROPERTY, self._user_sized)

    def fit(self) -> None:
        """Fit every column to its contents (capped at `max_width`), unless the user has
        sized the columns."""
        if self.user_sized:
            return
        header = self._view.horizontalHeader()
        count = self._view.model().columnCount()
        # A stretched last column is left to the header (sizing it by hand ends the stretch).
        last = header.logicalIndex(count - 1) if header.stretchLastSection() else -1
        for column in range(count):
            if column == last or self._view.isColumnHidden(column):
                continue
            self._view.resizeColumnToContents(column)
            if self._max_width and self._view.columnWidth(column) > self._max_width:
                self._view.setColumnWidth(column, self._max_width)

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.MouseButtonPress:
            self._dragging = True
        elif event.type() == QEvent.Type.MouseButtonRelease:
            self._dragging = False
        return False

    def _on_header_section_resized(self, _index: int, _old: int, _new: int) -> None:
        if self._dragging:
            self.user_sized = True

    def _on_header_handle_double_clicked(self, _index: int) -> None:
        self.user_sized = True  # the user fitted one column: keep the others as they are
