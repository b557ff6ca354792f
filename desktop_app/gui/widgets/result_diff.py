"""Expected (gold) and actual query results side by side, with the differing cells highlighted."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTableView, QVBoxLayout, QWidget

from desktop_app.core.sqleval.judge import canonical
from desktop_app.core.sqleval.types import QueryResult
from desktop_app.gui.i18n import translate

MAX_SHOWN_ROWS = 500  # a result table is for reading, not for scrolling through 10,000 rows
DIFF_COLOR = QColor("#ffe3a3")  # the text differs from the other side's cell
FINDING_COLOR = QColor("#ffb4a8")  # a judge named this cell in a finding
MAX_COLUMN_WIDTH = 150  # pixels; wider text is elided (the tooltip and the other side tell)
MIN_COLUMN_WIDTH = 60  # pixels: a table narrower than its columns squeezes them to this
MAX_NUMBER_WIDTH = 320  # pixels; a number column is as wide as its widest number up to this

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class ResultGrid:
    """What one side shows: columns, rows (display-capped), and the cells to mark.

    `marks` maps (row, column index) to (finding text or "", named by a judge).
    """

    columns: tuple[str, ...] = ()
    rows: tuple[tuple, ...] = ()
    total_rows: int | None = None
    marks: dict[tuple[int, int], tuple[str, bool]] = field(default_factory=dict)


class ResultTableModel(QAbstractTableModel):
    """One query result as a table: values in the judges' canonical text, marked cells coloured."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._grid = ResultGrid()

    def set_grid(self, grid: ResultGrid) -> None:
        self.beginResetModel()
        self._grid = grid
        self.endResetModel()

    def grid(self) -> ResultGrid:
        return self._grid

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._grid.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._grid.columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        row = self._grid.rows[r]
        if role == Qt.ItemDataRole.DisplayRole:
            return canonical(row[c]) if c < len(row) else ""
        if role == Qt.ItemDataRole.TextAlignmentRole:
            value = row[c] if c < len(row) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        mark = self._grid.marks.get((r, c))
        if mark is None:
            if role == Qt.ItemDataRole.ToolTipRole and c < len(row):
                return canonical(row[c])  # the whole value when the column elides it
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(FINDING_COLOR if mark[1] else DIFF_COLOR)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#202020"))
        if role == Qt.ItemDataRole.ToolTipRole:
            value = canonical(row[c]) if c < len(row) else ""
            return f"{value}\n{mark[0]}" if mark[0] else value
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt override
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        if orientation == Qt.Orientation.Horizontal:
            # The whole name as the tooltip: a squeezed column shows its start and "…".
            return self._grid.columns[section] if section < len(self._grid.columns) else None
        return str(section + 1) if role == Qt.ItemDataRole.DisplayRole else None


def diff_marks(expected: QueryResult, actual: QueryResult,
               finding_cells: tuple[tuple[int, str, str, str, str], ...] = ()
               ) -> tuple[dict, dict]:
    """The cells to mark on each side: every cell whose canonical text differs from the cell
    at the same position on the other side (rows only one side has count as differing), and
    the cells a judge's finding names, (row, column name, expected, actual, message)."""
    exp_marks: dict[tuple[int, int], tuple[str, bool]] = {}
    act_marks: dict[tuple[int, int], tuple[str, bool]] = {}
    n_exp, n_act = min(len(expected.rows), MAX_SHOWN_ROWS), min(len(actual.rows), MAX_SHOWN_ROWS)
    for r in range(max(n_exp, n_act)):
        e_row = expected.rows[r] if r < n_exp else None
        a_row = actual.rows[r] if r < n_act else None
        if e_row is None or a_row is None:
            side, row = (act_marks, a_row) if e_row is None else (exp_marks, e_row)
            for c in range(len(row)):
                side[(r, c)] = (translate("ResultDiffTable", "row only on this side"), False)
            continue
        for c in range(max(len(e_row), len(a_row))):
            e = canonical(e_row[c]) if c < len(e_row) else None
            a = canonical(a_row[c]) if c < len(a_row) else None
            if e != a:
                missing = translate("ResultDiffTable", "(no column)")
                tip = translate("ResultDiffTable", "expected {expected}, got {actual}").format(
                    expected=missing if e is None else e, actual=missing if a is None else a)
                if c < len(e_row):
                    exp_marks[(r, c)] = (tip, False)
                if c < len(a_row):
                    act_marks[(r, c)] = (tip, False)
    for row, column, _exp, _act, message in finding_cells:
        if row < 0:
            continue
        for result, marks in ((expected, exp_marks), (actual, act_marks)):
            if column in result.columns:
                marks[(row, result.columns.index(column))] = (message, True)
    return exp_marks, act_marks


def _grid(result: QueryResult | None, marks: dict) -> ResultGrid:
    if result is None:
        return ResultGrid()
    return ResultGrid(tuple(result.columns), tuple(result.rows[:MAX_SHOWN_ROWS]),
                      result.total_rows, marks)


class ResultDiffTable(QWidget):
    """Two tables, expected (gold) left and actual right; cells that differ are highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.expected_model = ResultTableModel(self)
        self.actual_model = ResultTableModel(self)
        self.expected_title = QLabel(self.tr("Expected (gold)"))
        self.actual_title = QLabel(self.tr("Actual (final SQL)"))
        self.expected_view = self._view(self.expected_model)
        self.actual_view = self._view(self.actual_model)
        self._natural_widths: list[int] = []  # per column, before squeezing to the tables
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        layout = QHBoxLayout()
        layout.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(layout, 1)
        self.legend = QLabel(legend_html())
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        outer.addWidget(self.legend)
        for title, view in ((self.expected_title, self.expected_view),
                            (self.actual_title, self.actual_view)):
            column = QVBoxLayout()
            title.setWordWrap(True)
            column.addWidget(title)
            column.addWidget(view, 1)
            layout.addLayout(column, 1)
        # Scroll both sides together: row r left is row r right.
        self.actual_view.verticalHeader().setVisible(False)  # the left side numbers the rows
        left, right = self.expected_view.verticalScrollBar(), self.actual_view.verticalScrollBar()
        left.valueChanged.connect(right.setValue)
        right.valueChanged.connect(left.setValue)
        left = self.expected_view.horizontalScrollBar()
        right = self.actual_view.horizontalScrollBar()
        left.valueChanged.connect(right.setValue)
        right.valueChanged.connect(left.setValue)

    @staticmethod
    def _view(model: ResultTableModel) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.setAlternatingRowColors(False)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
        # A cell too narrow for its text ends in "…", never silently cut (numbers included).
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        # A squeezed column's name too: its start and "…" ("customer_n…"), where the header
        # centred it and cut both ends ("tegory_nar").
        view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setWordWrap(False)
        return view

    def set_results(self, expected: QueryResult | None, actual: QueryResult | None, *,
                    expected_note: str = "", actual_note: str = "",
                    finding_cells: tuple[tuple[int, str, str, str, str], ...] = ()) -> None:
        """Show both results; a note (an error, "not available") replaces a missing side's
        row count. `finding_cells` are the cells the judges named, (row, column, expected,
        actual, message)."""
        if expected is not None and actual is not None:
            exp_marks, act_marks = diff_marks(expected, actual, finding_cells)
        else:
            exp_marks, act_marks = {}, {}
        self.expected_model.set_grid(_grid(expected, exp_marks))
        self.actual_model.set_grid(_grid(actual, act_marks))
        self.expected_title.setText(_title(self.tr("Expected (gold)"), expected, expected_note))
        self.actual_title.setText(_title(self.tr("Actual (final SQL)"), actual, actual_note))
        self._fit_columns()
        QTimer.singleShot(0, self, self._scroll_to_first_difference)  # once laid out

    def _fit_columns(self) -> None:
        """The same width for column c on both sides (so they scroll together), capped."""
        views = (self.expected_view, self.actual_view)
        for view in views:
            view.resizeColumnsToContents()
        widths: list[int] = []
        for c in range(max(self.expected_model.columnCount(), self.actual_model.columnCount())):
            width = min(max(v.columnWidth(c) for v in views if c < v.model().columnCount()),
                        MAX_COLUMN_WIDTH)
            # Numbers are not cut at all when they fit MAX_NUMBER_WIDTH: a number column is as
            # wide as its widest number on either side (every shown row, not only the rows
            # the view had on screen when it measured).
            width = max(width, min(max(_number_width(v, c) for v in views),
                                   MAX_NUMBER_WIDTH))
            widths.append(width)
        self._natural_widths = widths
        self._squeeze_columns()

    def _squeeze_columns(self) -> None:
        """The fitted widths, narrowed (widest first, down to MIN_COLUMN_WIDTH) when both
        tables' columns would not fit the narrower table: a value then ends in "…" inside its
        cell rather than being cut off at the table's edge."""
        views = (self.expected_view, self.actual_view)
        widths = list(self._natural_widths)
        if not widths:
            return
        room = min(v.viewport().width() for v in views) - 2
        if self.isVisible() and room > 0:
            widths = squeezed(widths, room, MIN_COLUMN_WIDTH)
        for c, width in enumerate(widths):
            for view in views:
                if c < view.model().columnCount():
                    view.setColumnWidth(c, width)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self._squeeze_columns)  # once the tables have their size

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        QTimer.singleShot(0, self, self._squeeze_columns)  # once the tables have their size

    def _scroll_to_first_difference(self) -> None:
        """Down to the first differing row (a judge's cell first), but from the left edge:
        the first column names the rows; a differing column off to the right is named by
        its tooltip and the findings."""
        marks = self.actual_model.grid().marks
        if marks:
            named = [key for key, (_t, by_judge) in marks.items() if by_judge]
            r, _c = min(named or marks)
            self.actual_view.scrollTo(self.actual_model.index(r, 0))
        for view in (self.expected_view, self.actual_view):
            view.horizontalScrollBar().setValue(0)

    def differing_cells(self) -> set[tuple[int, int]]:
        """(row, column) of every highlighted cell of the actual side."""
        return set(self.actual_model.grid().marks)

    def finding_cells(self) -> set[tuple[int, int]]:
        """(row, column) of the actual side's cells a judge's finding names."""
        return {key for key, (_t, named) in self.actual_model.grid().marks.items() if named}


def squeezed(widths: list[int], room: int, least: int) -> list[int]:
    """`widths` with the widest cut down to one level (never below `least`) so that they add
    up to at most `room` where they can."""
    if sum(widths) <= room:
        return list(widths)
    level = max(widths)
    while level > least and sum(min(w, level) for w in widths) > room:
        level -= 1
    return [min(w, level) for w in widths]


def _number_width(view: QTableView, column: int) -> int:
    """The pixels the widest number of `column` needs in `view` (0 when it holds none)."""
    model = view.model()
    if not isinstance(model, ResultTableModel) or column >= model.columnCount():
        return 0
    texts = [canonical(row[column]) for row in model.grid().rows
             if column < len(row) and isinstance(row[column], (int, float))
             and not isinstance(row[column], bool)]
    if not texts:
        return 0
    metrics = view.fontMetrics()
    margin = 2 * (view.style().pixelMetric(view.style().PixelMetric.PM_FocusFrameHMargin,
                                           None, view) + 1) + 8
    return max(metrics.horizontalAdvance(t) for t in texts) + margin


def legend_html() -> str:
    """What the highlight colours of the two tables mean."""
    def swatch(color: QColor) -> str:
        return (f"<span style='background:{color.name()}; color:{color.name()}'>"
                "&nbsp;&#9632;&nbsp;</span>")

    return (f"{swatch(DIFF_COLOR)} "
            + html.escape(translate("ResultDiffTable", "differs from the other side's cell"))
            + f" &nbsp; {swatch(FINDING_COLOR)} "
            + html.escape(translate("ResultDiffTable", "named in a judge's finding"))
            + " &nbsp; " + html.escape(translate(
                "ResultDiffTable", "(a cut value ends in …: hover it to read it whole)")))


def _title(name: str, result: QueryResult | None, note: str) -> str:
    if result is None:
        note = note or translate("ResultDiffTable", "no result")
        return f"<b>{html.escape(name)}</b>: {html.escape(note)}"
    total = result.total_rows if result.total_rows is not None else len(result.rows)
    shown = min(len(result.rows), MAX_SHOWN_ROWS)
    count = (translate("ResultDiffTable", "1 row") if total == 1 else
             translate("ResultDiffTable", "{total} rows").format(total=f"{total:,}")
             if shown == total else
             translate("ResultDiffTable", "first {shown} of {total} rows").format(
                 shown=f"{shown:,}", total=f"{total:,}"))
    return f"<b>{html.escape(name)}</b>: {count}" + (f" ({html.escape(note)})" if note else "")
