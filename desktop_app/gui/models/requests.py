"""A lazy table of one throughput run's requests: ids held once, rows read a page at a time.

Anki's pattern for big result tables: the model holds only the ordered ids (from
`Store.request_ids`, read from an index, cheap even for 100,000 requests) and reads the rows in
view through a `fetch(ids) -> requests` callable (`throughput.records.requests_by_id`) one page of PAGE_SIZE at a
time, keeping the last CACHE_PAGES pages. A page read is a few milliseconds, so it happens on
demand inside `data()`, the way Anki does; nothing reads the whole run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from desktop_app.core.throughput.records import StoredCell, StoredRequest
from desktop_app.gui.i18n import report_language, translate
from desktop_app.report.words_common import load_text

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()

Fetch = Callable[[Sequence[int]], list[StoredRequest]]


def _num(value: Any, spec: str, scale: float = 1.0) -> str:
    if value is None:
        return ""
    return format(int(value), spec) if spec == "d" else format(value * scale, spec)


def _cell_text(cell: StoredCell | None) -> str:
    if cell is None:
        return ""
    load = load_text(cell.concurrency, cell.request_rate, report_language())
    return f"{cell.spec.input_label} / {load} / {cell.spec.output_label}"


def _warmup() -> str:
    return translate("RequestsTableModel", "warm-up")


# (header, how a stored request becomes text); times shown in ms, rates in tokens/s. Headers
# are translated where shown (context "RequestsTableModel").
COLUMNS: tuple[tuple[str, Callable[[StoredRequest, StoredCell | None], str]], ...] = (
    (QT_TRANSLATE_NOOP("RequestsTableModel", "cell (in / load / out)"),
     lambda r, c: _cell_text(c) if c else str(r.cell_id or "")),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "seq"),
     lambda r, c: _warmup() if r.warmup else _num(r.seq, "d")),
    ("TTFT ms", lambda r, c: _num(r.ttft_s, ".1f", 1000)),
    ("E2E ms", lambda r, c: _num(r.e2e_s, ".0f", 1000)),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "prompt tok"),
     lambda r, c: _num(r.prompt_tokens, "d")),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "compl. tok"),
     lambda r, c: _num(r.completion_tokens, "d")),
    ("Prefill tok/s", lambda r, c: _num(r.prefill_tps, ".0f")),
    ("Decode tok/s", lambda r, c: _num(r.decode_tps, ".1f")),
    ("TPOT ms", lambda r, c: _num(r.tpot_s, ".2f", 1000)),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "finish"), lambda r, c: r.finish_reason or ""),
    ("HTTP", lambda r, c: _num(r.status_code, "d")),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "error"), lambda r, c: r.error_class or ""),
    (QT_TRANSLATE_NOOP("RequestsTableModel", "response id"), lambda r, c: r.response_id or ""),
)
_LEFT = {0, 9, 11, 12}
ERROR_BG = QColor("#f6d3d0")


class RequestsTableModel(QAbstractTableModel):
    """One throughput run's requests in sweep order, read lazily in pages from the store."""

    PAGE_SIZE = 200
    CACHE_PAGES = 32

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._ids: list[int] = []
        self._fetch: Fetch | None = None
        self._cells: Mapping[int, StoredCell] = {}
        self._pages: OrderedDict[int, list[StoredRequest]] = OrderedDict()
        self.pages_read = 0  # how many page reads happened (tests and the status line)

    def set_requests(self, ids: Sequence[int], fetch: Fetch | None,
                     cells: Sequence[StoredCell] = ()) -> None:
        """Show the requests with these ids (in this order), reading rows through `fetch`;
        `cells` name each request's cell."""
        self.beginResetModel()
        self._ids = list(ids)
        self._fetch = fetch
        self._cells = {c.id: c for c in cells}
        self._pages.clear()
        self.endResetModel()

    def clear(self) -> None:
        self.set_requests([], None)

    def row(self, row: int) -> StoredRequest | None:
        """The stored request at `row` (reading its page if needed), or None if it is gone."""
        if not 0 <= row < len(self._ids):
            return None
        number, offset = divmod(row, self.PAGE_SIZE)
        page = self._page(number)
        return page[offset] if offset < len(page) else None

    def _page(self, number: int) -> list[StoredRequest]:
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        ids = self._ids[number * self.PAGE_SIZE:(number + 1) * self.PAGE_SIZE]
        rows = self._fetch(ids) if self._fetch else []
        by_id = {r.id: r for r in rows}
        # A deleted row leaves a gap rather than shifting every row below it.
        page = [by_id.get(i, StoredRequest(i)) for i in ids]
        self.pages_read += 1
        self._pages[number] = page
        while len(self._pages) > self.CACHE_PAGES:
            self._pages.popitem(last=False)
        return page

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return translate("RequestsTableModel", COLUMNS[section][0])
        return str(section + 1)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            align = (Qt.AlignmentFlag.AlignLeft if index.column() in _LEFT
                     else Qt.AlignmentFlag.AlignRight)
            return int(align | Qt.AlignmentFlag.AlignVCenter)
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                        Qt.ItemDataRole.ToolTipRole):
            return None
        request = self.row(index.row())
        if request is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            cell = None if request.cell_id is None else self._cells.get(request.cell_id)
            return COLUMNS[index.column()][1](request, cell)
        if role == Qt.ItemDataRole.BackgroundRole:
            return ERROR_BG if request.error_class else None
        return request.error_message or None
