"""Two or more stored runs side by side: aligned tables, and for throughput an overlaid chart."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import pyqtgraph as pg  # after PySide6 (desktop_app.gui set PYQTGRAPH_QT_LIB)

from desktop_app.gui.i18n import status_text
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.models.runs import (
    ComparisonData,
    SqlComparisonModel,
    SqlTierSummaryModel,
    ThroughputComparisonModel,
    run_label,
)

# One colour per run, the same in the chart and its legend; distinct on a white background.
RUN_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
               "#e377c2")
_DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
           Qt.PenStyle.DashDotLine)
_SYMBOLS = ("o", "t", "s", "d", "+", "x")
KEY_THROUGHPUT_SPLITTER = "runs/compare_throughput_splitter"
KEY_SQL_SPLITTER = "runs/compare_sql_splitter"
declare(KEY_THROUGHPUT_SPLITTER, KEY_SQL_SPLITTER)


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
    view.setWordWrap(False)
    return view


def _fit(view: QTableView) -> None:
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    header.setMinimumHeight(header.sizeHint().height())


class ComparisonView(QWidget):
    """Shows stored runs of one kind aligned: throughput cells with a prefill-vs-prompt-length
    chart, or SQL verdicts per question with pass rates by tier."""

    def __init__(self, parent: QWidget | None = None, *,
                 settings: Settings | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self.tr("Select two or more runs of one kind and press Compare."))
        self.title.setWordWrap(True)
        self.throughput_model = ThroughputComparisonModel(self)
        self.sql_model = SqlComparisonModel(self)
        self.tier_model = SqlTierSummaryModel(self)

        self.cells_view = _table(self.throughput_model)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumWidth(320)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", self.tr("prompt length"), units="tokens")
        self.plot.setLabel("left", self.tr("prefill"), units="tok/s")
        self.plot.setTitle(self.tr("Prefill throughput vs prompt length"), color="#333",
                           size="10pt")
        self.legend = self.plot.addLegend(offset=(8, 8), labelTextColor="#222")
        throughput = QSplitter(Qt.Orientation.Horizontal)
        throughput.addWidget(self.cells_view)
        throughput.addWidget(self.plot)
        throughput.setStretchFactor(0, 3)
        throughput.setStretchFactor(1, 2)
        throughput.setSizes([600, 400])

        self.verdicts_view = _table(self.sql_model)
        self.tiers_view = _table(self.tier_model)
        tiers_box = QWidget()
        tiers_layout = QVBoxLayout(tiers_box)
        tiers_layout.setContentsMargins(0, 0, 0, 0)
        tiers_layout.addWidget(QLabel(self.tr("Pass rate by tier")))
        tiers_layout.addWidget(self.tiers_view)
        sql = QSplitter(Qt.Orientation.Horizontal)
        sql.addWidget(self.verdicts_view)
        sql.addWidget(tiers_box)
        sql.setStretchFactor(0, 3)
        sql.setStretchFactor(1, 2)
        sql.setSizes([550, 450])
        self.throughput_splitter, self.sql_splitter = throughput, sql
        if settings is not None:  # the user's split between table and chart is kept
            settings.track(KEY_THROUGHPUT_SPLITTER, throughput)
            settings.track(KEY_SQL_SPLITTER, sql)

        self.stack = QStackedWidget()
        self.stack.addWidget(QWidget())
        self.stack.addWidget(throughput)
        self.stack.addWidget(sql)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        self._curves: list[pg.PlotDataItem] = []

    def show_comparison(self, data: ComparisonData) -> None:
        """Show `data` (runs of one kind, read from the store)."""
        names = ", ".join(run_label(r) for r in data.runs)
        if data.kind == "throughput":
            self.throughput_model.set_data(data)
            self._draw_chart()
            _fit(self.cells_view)
            self.stack.setCurrentIndex(1)
            self.title.setText(self.tr("Comparing throughput runs {names}: means of prefill and "
                                       "decode, median TTFT, per cell.").format(names=names))
        elif data.kind == "sql":
            self.sql_model.set_data(data)
            self.tier_model.set_data(data)
            _fit(self.verdicts_view)
            _fit(self.tiers_view)
            self.stack.setCurrentIndex(2)
            differ = sum(self.sql_model.disagrees(i) for i in range(self.sql_model.rowCount()))
            self.title.setText(self.tr("Comparing SQL runs {names}: {count} questions, {differ} "
                                       "with different verdicts (in bold).").format(
                names=names, count=self.sql_model.rowCount(), differ=differ))
        else:
            self.stack.setCurrentIndex(0)
            self.title.setText(self.tr("Runs of kind {kind} cannot be compared yet.").format(
                kind=repr(status_text(data.kind))))

    def _draw_chart(self) -> None:
        # A comparison is drawn once per request, so the curves are rebuilt rather than updated.
        for curve in self._curves:
            self.plot.removeItem(curve)
        self._curves.clear()
        self.legend.clear()
        run_ids = [r.id for r in self.throughput_model.runs()]
        loads: list[str] = []
        for run, load, points in self.throughput_model.series():
            if load not in loads:
                loads.append(load)
            n = loads.index(load)
            colour = RUN_COLOURS[run_ids.index(run.id) % len(RUN_COLOURS)]
            pen = pg.mkPen(colour, width=2, style=_DASHES[n % len(_DASHES)])
            curve = self.plot.plot([p[0] for p in points], [p[1] for p in points], pen=pen,
                                   symbol=_SYMBOLS[n % len(_SYMBOLS)], symbolSize=7,
                                   symbolBrush=colour, symbolPen=colour,
                                   name=f"{run_label(run)} {load}")
            self._curves.append(curve)
        self.plot.enableAutoRange()

    def curve_names(self) -> list[str]:
        """The legend's entries, one per run and load level (for tests)."""
        return [c.name() for c in self._curves]

