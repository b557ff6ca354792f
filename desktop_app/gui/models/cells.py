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

from desktop_app.core.metrics import Distribution
from desktop_app.core.throughput.types import CellResult
from desktop_app.gui.i18n import report_language, translate
from desktop_app.report.words_common import load_text

_Index = QModelIndex | QPersistentModelIndex

_C = "CellTableModel"  # the translation context of the headers (lupdate wants it spelled out)
COLUMNS = (QT_TRANSLATE_NOOP("CellTableModel", "input"),
           QT_TRANSLATE_NOOP("CellTableModel", "load"),
           QT_TRANSLATE_NOOP("CellTableModel", "output"), "ok/n", "TTFT p50 s", "TTFT p90 s",
           "Prefill tok/s", QT_TRANSLATE_NOOP("CellTableModel", "vs c=1"), "Decode tok/s",
           "TPOT ms", QT_TRANSLATE_NOOP("CellTableModel", "Output tok/s"),
           QT_TRANSLATE_NOOP("CellTableModel", "notes"))
_TIPS = (
    QT_TRANSLATE_NOOP("CellTableModel", "prompt length (tokens)"),
    QT_TRANSLATE_NOOP("CellTableModel",
                      "requests in flight (concurrency) or arrival rate (requests/s)"),
    QT_TRANSLATE_NOOP("CellTableModel", "output length (tokens)"),
    QT_TRANSLATE_NOOP("CellTableModel", "completed requests / requests sent"),
    QT_TRANSLATE_NOOP("CellTableModel", "median time to first token (seconds)"),
    QT_TRANSLATE_NOOP("CellTableModel", "90th percentile time to first token (seconds)"),
    QT_TRANSLATE_NOOP("CellTableModel",
                      "mean prompt tokens / TTFT per request, queueing included"),
    QT_TRANSLATE_NOOP("CellTableModel",
                      "mean prefill tok/s against the concurrency-1 cell of the same lengths"),
    QT_TRANSLATE_NOOP("CellTableModel", "mean (completion tokens - 1) / decode time per request"),
    QT_TRANSLATE_NOOP("CellTableModel",
                      "mean time per output token after the first (milliseconds)"),
    QT_TRANSLATE_NOOP("CellTableModel", "completion tokens of the cell / its wall time"),
    QT_TRANSLATE_NOOP("CellTableModel",
                      "client-bound: the benchmarking client was too busy, latencies unreliable"),
)


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _mean(dist: Distribution | None) -> float | None:
    return None if dist is None else dist.mean


class CellTableModel(QAbstractTableModel):
    """One row per sweep cell: its shape, request counts, latencies, rates and notes."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._cells: list[CellResult] = []
        self._unreliable: set[int] = set()

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
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt override
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return translate(_C, COLUMNS[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return translate(_C, _TIPS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col == len(COLUMNS) - 1:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == len(COLUMNS) - 1:
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
                return str(spec.input_tokens)
            case 1:
                # An imported run may record neither (AIPerf's CSV, vLLM at rate inf).
                return load_text(spec.concurrency, spec.request_rate, report_language())
            case 2:
                return str(spec.output_tokens)
            case 3:
                return f"{s.ok}/{s.count}"
            case 4:
                return _fmt(s.ttft_s and s.ttft_s.p50, ".3f")
            case 5:
                return _fmt(s.ttft_s and s.ttft_s.p90, ".3f")
            case 6:
                return _fmt(_mean(s.prefill_tps), ".0f")
            case 7:
                return "-" if cell.prefill_change is None else f"{cell.prefill_change * 100:+.0f}%"
            case 8:
                return _fmt(_mean(s.decode_tps), ".1f")
            case 9:
                return _fmt(s.tpot_s and s.tpot_s.mean * 1000, ".1f")
            case 10:
                return _fmt(s.output_tps, ".1f")
            case _:
                return self._notes(row)
