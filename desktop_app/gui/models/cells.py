"""The cell table of a throughput sweep: a Qt model over CellResult records (formatting here).

A stored sweep's cells come from `throughput.records.load_sweep` (its `StoredCell.result`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from desktop_app.core.throughput import figures as cell_figures
from desktop_app.core.throughput.lengths import length_text
from desktop_app.core.throughput.types import CellResult
from desktop_app.gui.i18n import report_language, translate
from desktop_app.report.figure_words import column_header, column_tip
from desktop_app.report.words_common import load_text

_Index = QModelIndex | QPersistentModelIndex

_C = "CellTableModel"  # the translation context of the headers (lupdate wants it spelled out)
# The columns around the figures' (`core.throughput.figures`, their words `report.figure_words`).
_LEAD = ((QT_TRANSLATE_NOOP("CellTableModel", "input"),
          QT_TRANSLATE_NOOP("CellTableModel", "prompt length (tokens)")),
         (QT_TRANSLATE_NOOP("CellTableModel", "load"),
          QT_TRANSLATE_NOOP("CellTableModel",
                            "requests in flight (concurrency) or arrival rate (requests/s)")),
         (QT_TRANSLATE_NOOP("CellTableModel", "output"),
          QT_TRANSLATE_NOOP("CellTableModel", "output length (tokens)")),
         (QT_TRANSLATE_NOOP("CellTableModel", "ok/n"),
          QT_TRANSLATE_NOOP("CellTableModel", "completed requests / requests sent")))
_NOTES = (QT_TRANSLATE_NOOP("CellTableModel", "notes"),
          QT_TRANSLATE_NOOP("CellTableModel",
                            "client-bound: the benchmarking client was too busy, latencies "
                            "unreliable"))


class CellTableModel(QAbstractTableModel):
    """One row per sweep cell: its shape, request counts, latencies, rates and notes."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._cells: list[CellResult] = []
        self._unreliable: set[int] = set()
        self._columns = cell_figures.columns()  # what is registered when the table is made

    # ---- content

    def set_cells(self, cells: Sequence[CellResult], unreliable: Iterable[int] = ()) -> None:
        """Show `cells` (sweep order); rows in `unreliable` get the note client-bound."""
        self.beginResetModel()
        self._cells = list(cells)
        self._unreliable = set(unreliable)
        self.endResetModel()

    def add_cell(self, cell: CellResult) -> None:
        """Append a cell that just finished (during a sweep)."""
        row = len(self._cells)
        self.beginInsertRows(QModelIndex(), row, row)
        self._cells.append(cell)
        self.endInsertRows()

    def cell(self, row: int) -> CellResult:
        return self._cells[row]

    def cells(self) -> list[CellResult]:
        return list(self._cells)

    # ---- Qt overrides

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(self._cells)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(_LEAD) + len(self._columns) + 1

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt override
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        lead, figure = section - len(_LEAD), section - len(_LEAD) - len(self._columns)
        if role == Qt.ItemDataRole.DisplayRole:
            if lead < 0:
                return translate(_C, _LEAD[section][0])
            if figure < 0:
                return column_header(self._columns[lead].key, report_language())
            return translate(_C, _NOTES[0])
        if role == Qt.ItemDataRole.ToolTipRole:
            if lead < 0:
                return translate(_C, _LEAD[section][1])
            if figure < 0:
                return column_tip(self._columns[lead].key, report_language()) or None
            return translate(_C, _NOTES[1])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, col)
        last = len(_LEAD) + len(self._columns)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col == last:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == last:
            return self._failures(row) or None
        return None

    # ---- formatting

    def _notes(self, row: int) -> str:
        cell = self._cells[row]
        notes = []
        if row in self._unreliable:
            notes.append(self.tr("client-bound"))
        if cell.status != "completed":
            notes.append(translate("RunStatus", cell.status).replace("_", " "))
        if cell.summary.ok < cell.summary.count:
            notes.append(self.tr("{count} failed").format(
                count=cell.summary.count - cell.summary.ok))
        if cell.token_mismatches:
            notes.append(self.tr("{count} token-count mismatches").format(
                count=cell.token_mismatches))
        return self.tr(", ").join(notes)

    def _failures(self, row: int) -> str:
        failures = self._cells[row].summary.failures_by_class
        return ", ".join(f"{name}: {n}" for name, n in failures.items())

    def _text(self, row: int, col: int) -> str:
        cell = self._cells[row]
        spec, s = cell.spec, cell.summary
        match col:
            case 0:
                return length_text(spec, cell.timings, "input")
            case 1:
                # An imported run may record neither (AIPerf's CSV, vLLM at rate inf).
                return load_text(spec.concurrency, spec.request_rate, report_language())
            case 2:
                return length_text(spec, cell.timings, "output")
            case 3:
                return f"{s.ok}/{s.count}"
        if col - len(_LEAD) < len(self._columns):
            return self._columns[col - len(_LEAD)].text(cell)
        return self._notes(row)
