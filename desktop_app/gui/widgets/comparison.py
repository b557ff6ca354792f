"""Two or more stored runs of one kind side by side: the comparison's rows (each value with its
95 % interval, the verdict in words), then the aligned cells or questions, and for throughput an
overlaid chart."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import pyqtgraph as pg  # after PySide6 (desktop_app.gui set PYQTGRAPH_QT_LIB)

from desktop_app.core.compare import Comparison
from desktop_app.gui.models.runs import (
    DimensionRowsModel,
    SettingsDifferModel,
    SqlComparisonModel,
    SqlTierSummaryModel,
    ThroughputComparisonModel,
)
from desktop_app.gui.settings import Settings, declare
from desktop_app.gui.widgets.chart_titles import set_fitted_title
from desktop_app.report.verdicts import lookup_word, scenario_label, scenario_text, trade_off_text

# One colour per run, the same in the chart and its legend; distinct on a white background.
RUN_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
               "#e377c2")
_DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
           Qt.PenStyle.DashDotLine)
_SYMBOLS = ("o", "t", "s", "d", "+", "x")
KEY_THROUGHPUT_SPLITTER = "runs/compare_throughput_splitter"
KEY_SQL_SPLITTER = "runs/compare_sql_splitter"
KEY_ROWS_SPLITTER = "runs/compare_rows_splitter"
declare(KEY_THROUGHPUT_SPLITTER, KEY_SQL_SPLITTER, KEY_ROWS_SPLITTER)


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
    """Shows stored runs of one kind compared: the dimension rows with their verdicts on top,
    below them throughput cells with a prefill-vs-prompt-length chart, or SQL verdicts per
    question with pass rates by tier."""

    def __init__(self, parent: QWidget | None = None, *,
                 settings: Settings | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self.tr("Select two or more runs of one kind and press Compare."))
        self.title.setWordWrap(True)
        self.differ_model = SettingsDifferModel(self)
        self.differ_view = _table(self.differ_model)
        self.differ_view.horizontalHeader().setStretchLastSection(True)
        self.same_label = QLabel(self.tr("The recorded server settings are the same in every "
                                         "run."))
        self.same_label.hide()
        # The verdict per scenario, read before the rows it sums up (the seeds' 典型场景选择).
        self.scenarios_label = QLabel()
        self.scenarios_label.setWordWrap(True)
        self.scenarios_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scenarios_label.hide()
        self.rows_model = DimensionRowsModel(self)
        self.rows_view = _table(self.rows_model)
        self.rows_view.setWordWrap(True)  # verdicts are sentences
        self.rows_view.horizontalHeader().setStretchLastSection(True)
        # Wrapped verdicts: each row as tall as its text at the columns' current widths (a
        # few dozen rows at most, so fitting them on every resize costs nothing).
        self.rows_view.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.throughput_model = ThroughputComparisonModel(self)
        self.sql_model = SqlComparisonModel(self)
        self.tier_model = SqlTierSummaryModel(self)

        self.cells_view = _table(self.throughput_model)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumWidth(320)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        # Units outside pyqtgraph: its SI prefix wrote "(ktokens)", English in either language.
        self.plot.setLabel("bottom", self.tr("prompt length (tokens)"))
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.plot.setLabel("left", self.tr("prefill"), units="tok/s")
        set_fitted_title(self.plot, self.tr("Prefill throughput vs prompt length"), color="#333")
        # Entries name a run by its number (the table beside it heads each run's columns
        # "#N name"): whole names made the legend cover the plot and cut its 4th entry. Two
        # columns keep it short; on a light backdrop, as entries may cross a line.
        self.legend = self.plot.addLegend(offset=(8, 8), labelTextColor="#222",
                                          brush=(255, 255, 255, 210), pen="#ccc", colCount=2)
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
        self.rows_splitter = QSplitter(Qt.Orientation.Vertical)
        self.rows_splitter.addWidget(self.rows_view)
        self.rows_splitter.addWidget(self.stack)
        self.rows_splitter.setStretchFactor(0, 1)
        self.rows_splitter.setStretchFactor(1, 1)
        self.rows_splitter.setSizes([300, 300])
        if settings is not None:
            settings.track(KEY_ROWS_SPLITTER, self.rows_splitter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.same_label)
        layout.addWidget(self.differ_view)
        layout.addWidget(self.scenarios_label)
        layout.addWidget(self.rows_splitter, 1)
        self._curves: list[pg.PlotDataItem] = []
        self.shown: Comparison | None = None  # what show_comparison showed last

    def show_comparison(self, comparison: Comparison, lang: str = "en") -> None:
        """Show `comparison` (runs of one kind, read through the records modules); the rows'
        words in `lang` ("en" or "zh")."""
        self.shown = comparison
        names = ", ".join(r.info.label for r in comparison.runs)
        self.differ_model.set_comparison(comparison)
        self._fit_differ()
        self._show_scenarios(comparison, lang)
        self.rows_model.set_comparison(comparison, lang)
        self._fit_rows()
        if comparison.throughput:
            self.throughput_model.set_runs(comparison.throughput)
            self._draw_chart()
            _fit(self.cells_view)
            self.stack.setCurrentIndex(1)
            self.title.setText(self.tr(
                "Comparing throughput runs {names}: a winner only where the 95 % intervals do "
                "not overlap. Below, every cell: means of prefill and decode, median TTFT "
                "(hover for its interval).").format(names=names))
        else:
            self.sql_model.set_runs(comparison.sql)
            self.tier_model.set_runs(comparison.sql)
            _fit(self.verdicts_view)
            _fit(self.tiers_view)
            self.stack.setCurrentIndex(2)
            differ = sum(self.sql_model.disagrees(i) for i in range(self.sql_model.rowCount()))
            self.title.setText(self.tr("Comparing SQL runs {names}: {count} questions, {differ} "
                                       "with different verdicts (in bold).").format(
                names=names, count=self.sql_model.rowCount(), differ=differ))

    def _show_scenarios(self, comparison: Comparison, lang: str) -> None:
        runs = comparison.runs
        lines = [f"<b>{escape(scenario_label(s, lang))}</b>{'：' if lang == 'zh' else ': '}"
                 f"{escape(scenario_text(s, runs, lang))}" for s in comparison.scenarios]
        if comparison.trade_off:
            lines.append(f"<i>{escape(trade_off_text(comparison.trade_off, runs, lang))}</i>")
        self.scenarios_label.setVisible(bool(lines))
        if lines:
            self.scenarios_label.setText(
                f"<b>{escape(lookup_word('scenarios', lang))}</b><br/>" + "<br/>".join(lines))

    def _fit_differ(self) -> None:
        # As tall as its few rows: what differs is read first, then the verdicts below.
        view, rows = self.differ_view, self.differ_model.rowCount()
        self.same_label.setVisible(rows == 0)
        view.setVisible(rows > 0)
        if rows:
            view.resizeColumnsToContents()
            height = view.horizontalHeader().height() + 2 * view.frameWidth()
            height += sum(view.rowHeight(r) for r in range(rows))
            view.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # noqa: N802 - the verdicts' share follows the width
        super().resizeEvent(event)
        if self.shown is not None:
            self._fit_rows()

    def _fit_rows(self) -> None:
        view = self.rows_view
        header = view.horizontalHeader()
        view.resizeColumnsToContents()
        last = self.rows_model.columnCount() - 1
        # The verdict column takes what is left, at least 40 % of the view: long run names in
        # the figures' heads left it a sliver at 1024 px, a verdict of seven wrapped lines. A
        # head may be cut (its tooltip and the differ table above say it whole); a long figure
        # wraps, as the verdicts do.
        share = int(view.viewport().width() * 0.6 / max(last, 1))
        for column in range(last):
            cap = 260 if column == 0 else min(340, max(share, 120))
            header.resizeSection(column, min(header.sectionSize(column), cap))
        header.setTextElideMode(Qt.TextElideMode.ElideRight)  # "#2 sim/…" keeps its number
        header.setMinimumHeight(header.sizeHint().height())

    def _draw_chart(self) -> None:
        # A comparison is drawn once per request, so the curves are rebuilt rather than updated.
        for curve in self._curves:
            self.plot.removeItem(curve)
        self._curves.clear()
        self.legend.clear()
        run_ids = [r.info.id for r in self.throughput_model.runs()]
        loads: list[str] = []
        for run, load, points in self.throughput_model.series():
            if load not in loads:
                loads.append(load)
            n = loads.index(load)
            colour = RUN_COLOURS[run_ids.index(run.info.id) % len(RUN_COLOURS)]
            pen = pg.mkPen(colour, width=2, style=_DASHES[n % len(_DASHES)])
            curve = self.plot.plot([p[0] for p in points], [p[1] for p in points], pen=pen,
                                   symbol=_SYMBOLS[n % len(_SYMBOLS)], symbolSize=7,
                                   symbolBrush=colour, symbolPen=colour,
                                   name=f"#{run.info.id} {load}")
            self._curves.append(curve)
        self.plot.enableAutoRange()

    def curve_names(self) -> list[str]:
        """The legend's entries, one per run and load level (for tests)."""
        return [c.name() for c in self._curves]

