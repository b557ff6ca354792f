"""The window's cell table reads the figures' registry: a toy figure (tests/toy_figure.py) is a
column with its header, tooltip and value in the window's language; without it the table is
as before."""

from PySide6.QtCore import Qt

from desktop_app.core.metrics import RequestTiming, summarize_cell
from desktop_app.core.throughput.types import CellResult, CellSpec
from desktop_app.gui.models import cells as cells_model
from desktop_app.gui.models.cells import CellTableModel
from tests.toy_figure import toy_figure

H = Qt.Orientation.Horizontal


def _cell() -> CellResult:
    # Three requests sent at 0 whose last tokens came at 1, 2 and 4 s: end-to-end p50 is 2 s.
    timings = [RequestTiming(64, 8, 0.0, 0.1, end) for end in (1.0, 2.0, 4.0)]
    return CellResult(CellSpec(64, 8, 3, concurrency=2), summarize_cell(timings), tuple(timings))


def _headers(model: CellTableModel) -> list[str]:
    return [model.headerData(c, H) for c in range(model.columnCount())]


def test_a_registered_figure_is_a_column_of_the_cell_table(qapp, tmp_path, monkeypatch):
    before = CellTableModel()
    assert "E2E p50 s" not in _headers(before)
    with toy_figure(tmp_path):
        model = CellTableModel()
        model.set_cells([_cell()])
        headers = _headers(model)
        assert headers.index("TTFT p90 s") + 1 == headers.index("E2E p50 s")
        col = headers.index("E2E p50 s")
        assert model.index(0, col).data() == "2.000"
        assert model.headerData(col, H, Qt.ItemDataRole.ToolTipRole) == (
            "median time from send to last token (seconds)")
        assert model.columnCount() == before.columnCount() + 1
        # The notes stay last.
        assert model.index(0, model.columnCount() - 1).data() == ""
        monkeypatch.setattr(cells_model, "report_language", lambda: "zh")
        assert model.headerData(col, H) == "端到端 p50 秒"
        assert model.headerData(headers.index("TPOT ms"), H) == "TPOT 毫秒"
