"""Every table can be copied: Ctrl+C copies the selection as tab-separated text with its header
row; the context menu offers Copy, Copy as CSV and Copy as Markdown.

`selection_rows` turns a model and selected indexes into rows of display text (the header
first); `to_tsv`, `to_csv` and `to_markdown` format them. `install_table_copy(widget)` puts the
shortcut and the menu on every table and tree view inside `widget` (the main window does it
for each page as it is built; a widget that makes tables later calls it again for them).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from PySide6.QtCore import QAbstractItemModel, QEvent, QModelIndex, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCalendarWidget,
    QComboBox,
    QMenu,
    QTableView,
    QTreeView,
    QWidget,
)

_DISPLAY = Qt.ItemDataRole.DisplayRole
# A model may give a cell's copied text apart from what it shows (the Runs list shows a pencil
# after a name with a note; the copy is the name alone); None: the shown text.
COPY_ROLE = Qt.ItemDataRole.UserRole + 0x7C0
_HORIZONTAL = Qt.Orientation.Horizontal
_COPIER_NAME = "throughline_table_copy"


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _copied(index: QModelIndex) -> str:
    value = index.data(COPY_ROLE)
    return _text(index.data(_DISPLAY) if value is None else value)


def _row_path(index: QModelIndex) -> tuple[int, ...]:
    """Where a row sits from the root down (rows of a tree sort in the order they show)."""
    path: list[int] = []
    while index.isValid():
        path.append(index.row())
        index = index.parent()
    return tuple(reversed(path))


def selection_rows(model: QAbstractItemModel, indexes: Iterable[QModelIndex],
                   columns: Sequence[int] | None = None) -> list[list[str]]:
    """The header row, then one row per selected row (in model order), as display text.

    The columns are those with a selected cell, in the order of `columns` when given (e.g. the
    visible columns in the order they show; columns not in it are left out), else in model
    order. A cell of a selected row that is not itself selected is empty."""
    selected = [i for i in indexes if i.isValid() and i.model() is model]
    if not selected:
        return []
    used = {i.column() for i in selected}
    order = [c for c in columns if c in used] if columns is not None else sorted(used)
    if not order:
        return []
    rows: dict[tuple[int, ...], tuple[QModelIndex, set[int]]] = {}
    for index in selected:
        key = _row_path(index)
        rows.setdefault(key, (index, set()))[1].add(index.column())
    table = [[_text(model.headerData(c, _HORIZONTAL, _DISPLAY)) for c in order]]
    for key in sorted(rows):
        index, cells = rows[key]
        table.append([_copied(index.siblingAtColumn(c)) if c in cells else "" for c in order])
    return table


def _one_line(cell: str) -> str:
    return " ".join(cell.split()) if any(ch in cell for ch in "\t\r\n") else cell


def to_tsv(rows: Sequence[Sequence[str]]) -> str:
    """Tab-separated lines (what spreadsheets paste into cells); a tab or line break inside a
    cell becomes a space."""
    return "".join("\t".join(_one_line(c) for c in row) + "\n" for row in rows)


def to_csv(rows: Sequence[Sequence[str]]) -> str:
    """CSV as the csv module writes it (cells with commas, quotes or line breaks quoted)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _markdown_cell(cell: str) -> str:
    return _one_line(cell).replace("\\", "\\\\").replace("|", "\\|")


def to_markdown(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown (GitHub) table: the first row as its header; "|" in a cell escaped."""
    if not rows:
        return ""
    lines = ["| " + " | ".join(_markdown_cell(c) for c in rows[0]) + " |",
             "|" + "|".join(" --- " for _ in rows[0]) + "|"]
    lines += ["| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in rows[1:]]
    return "\n".join(lines) + "\n"


FORMATS = {"tsv": to_tsv, "csv": to_csv, "markdown": to_markdown}


def view_rows(view: QAbstractItemView) -> list[list[str]]:
    """The view's selection (header first), its visible columns in the order they show."""
    model, selection = view.model(), view.selectionModel()
    if model is None or selection is None:
        return []
    header = view.horizontalHeader() if isinstance(view, QTableView) else (
        view.header() if isinstance(view, QTreeView) else None)
    columns = list(range(model.columnCount()))
    if header is not None:
        columns = sorted((c for c in columns if not header.isSectionHidden(c)),
                         key=header.visualIndex)
    indexes = selection.selectedIndexes()
    if not indexes and view.currentIndex().isValid():
        indexes = [view.currentIndex()]
    return selection_rows(model, indexes, columns)


def copy_view(view: QAbstractItemView, fmt: str = "tsv") -> str:
    """Put the view's selection on the clipboard as `fmt` ("tsv", "csv", "markdown"); returns
    the text ("" and the clipboard untouched when nothing is selected)."""
    rows = view_rows(view)
    if len(rows) < 2:
        return ""
    text = FORMATS[fmt](rows)
    QGuiApplication.clipboard().setText(text)
    return text


class TableCopier(QObject):
    """Ctrl+C and a context menu (Copy, Copy as CSV, Copy as Markdown) on one view."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.setObjectName(_COPIER_NAME)
        self._view = view
        self.copy_action = QAction(self.tr("Copy"), self)
        self.copy_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        self.csv_action = QAction(self.tr("Copy as CSV"), self)
        self.markdown_action = QAction(self.tr("Copy as Markdown"), self)
        self.copy_action.triggered.connect(self._on_copy_triggered)
        self.csv_action.triggered.connect(self._on_csv_triggered)
        self.markdown_action.triggered.connect(self._on_markdown_triggered)
        self._viewport = view.viewport()
        view.installEventFilter(self)
        self._viewport.installEventFilter(self)

    def menu(self) -> QMenu:
        """The context menu (its actions disabled when nothing is selected)."""
        menu = QMenu(self._view)
        has_selection = len(view_rows(self._view)) > 1
        for action in (self.copy_action, self.csv_action, self.markdown_action):
            action.setEnabled(has_selection)
            menu.addAction(action)
        return menu

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and obj is self._view:
            if isinstance(event, QKeyEvent) and event.matches(QKeySequence.StandardKey.Copy):
                if kind == QEvent.Type.KeyPress:
                    copy_view(self._view, "tsv")
                event.accept()
                return True
        elif (kind == QEvent.Type.ContextMenu and obj is self._viewport
              and self._view.contextMenuPolicy() == Qt.ContextMenuPolicy.DefaultContextMenu):
            self.show_menu(event.globalPos())
            return True
        return False

    def show_menu(self, pos: QPoint) -> None:
        menu = self.menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(pos)

    def _on_copy_triggered(self) -> None:
        copy_view(self._view, "tsv")

    def _on_csv_triggered(self) -> None:
        copy_view(self._view, "csv")

    def _on_markdown_triggered(self) -> None:
        copy_view(self._view, "markdown")


def _is_part_of_another_control(view: QWidget) -> bool:
    """Combo box popups and date-picker calendars are views too: they are left alone."""
    parent = view.parentWidget()
    while parent is not None:
        if isinstance(parent, (QComboBox, QCalendarWidget)):
            return True
        parent = parent.parentWidget()
    return False


def copier_of(view: QAbstractItemView) -> TableCopier | None:
    return view.findChild(TableCopier, _COPIER_NAME, Qt.FindChildOption.FindDirectChildrenOnly)


def install_table_copy(widget: QWidget) -> list[TableCopier]:
    """Give every table and tree view in `widget` (itself included) copying; views that have
    it already are skipped. Returns the copiers added."""
    views = [widget] if isinstance(widget, (QTableView, QTreeView)) else []
    views += widget.findChildren(QTableView) + widget.findChildren(QTreeView)
    added = []
    for view in views:
        if copier_of(view) is None and not _is_part_of_another_control(view):
            added.append(TableCopier(view))
    return added

