"""A line chart fed from buffered data and redrawn on a 10 Hz clock (pyqtgraph)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

import pyqtgraph as pg  # after PySide6, so it binds to it

REDRAW_INTERVAL_MS = 100
STAGGER_SLOTS = 4
_CHARTS_MADE = itertools.count()
# Distinct on white and for the common colour blindnesses (Okabe & Ito), then pyqtgraph's hues.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
LEFT_AXIS_WIDTH = 62  # px
HEADROOM = 1.45  # the y axis reaches this much above the highest point: room for the legend


def tick_label(value: float) -> str:
    """512 -> "512", 2048 -> "2k" (token counts are spoken of in powers of two)."""
    if value >= 1024 and value % 1024 == 0:
        return f"{value / 1024:g}k"
    return f"{value:g}"


# A growing time axis ends at the next of these (seconds), then at the next multiple of the
# last: its range, and so its ticks, change a few times a sweep, not at every new sample
# (each change repainted the axes: the window's longest stalls at concurrency 256).
_TIME_AXIS_ENDS = (5, 10, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600)


def time_axis_end(right: float) -> float:
    """Where a time axis whose last point is at `right` seconds ends."""
    for end in _TIME_AXIS_ENDS:
        if right <= end:
            return float(end)
    step = _TIME_AXIS_ENDS[-1]
    return float(math.ceil(right / step) * step)


class LiveChart(QWidget):
    """Named series of (x, y) points; clicking a point reports the data attached to it."""

    point_clicked = Signal(object)  # the `data` value given with the clicked point

    def __init__(self, title: str, x_label: str, y_label: str, *, y_units: str | None = None,
                 log_x: bool = False, symbols: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setTitle(title, color="#222", size="10pt")
        self.plot.setLabel("bottom", x_label)
        self.plot.setLabel("left", y_label, units=y_units)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLogMode(x=log_x, y=False)
        self.plot.setMenuEnabled(False)
        # Without units pyqtgraph would scale the x axis to "(x0.001)": seconds read better as is.
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen("#333")
            self.plot.getAxis(axis).setPen("#888")
        # A left axis that sizes itself to its widest tick label re-lays the whole plot out
        # whenever a redraw's new range brings a longer label ("900" -> "1000"): the window's
        # longest stalls during a sweep. Six digits and the axis title fit this width.
        self.plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH)
        self.legend = self.plot.addLegend(offset=(4, 2), labelTextColor="#222",
                                          brush=pg.mkBrush(255, 255, 255, 200), colCount=4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._symbols = symbols
        self._log_x = log_x
        self._ticks: list | None = None
        self._y_range: tuple[float, float] | None = None
        self._x_range: tuple[float, float] | None = None
        self._pending: dict[str, tuple[list[float], list[float], list | None]] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._names: dict[str, str] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_INTERVAL_MS)
        self._timer.timeout.connect(self.redraw)
        # Charts that tick together repaint together: four charts at once held the UI ~120 ms
        # when a cell finished. Each starts a quarter of the interval after the previous one.
        slot = next(_CHARTS_MADE) % STAGGER_SLOTS
        QTimer.singleShot(slot * REDRAW_INTERVAL_MS // STAGGER_SLOTS, self._timer,
                          self._timer.start)

    def set_series(self, key: str, xs: Sequence[float], ys: Sequence[float], *,
                   name: str | None = None, data: Sequence | None = None) -> None:
        """Replace series `key`'s points (drawn at the next tick). `data[i]` is what a click on
        point i reports; `name` is its legend entry (default: the key)."""
        self._pending[key] = (list(xs), list(ys), list(data) if data is not None else None)
        self._names[key] = name or key

    def set_x_ticks(self, values: Sequence[float]) -> None:
        """Label the x axis at exactly these values (e.g. the prompt lengths swept)."""
        ticks = [(math.log10(v) if self._log_x else v, tick_label(v)) for v in values if v > 0]
        if ticks == self._ticks:
            return  # new ticks re-lay the whole plot out: ~30 ms a chart on this machine
        self._ticks = ticks
        self.plot.getAxis("bottom").setTicks([ticks, []] if ticks else None)
        if len(ticks) > 1:
            # The x range is the planned one from the start: no re-layout as cells arrive.
            self.plot.setXRange(ticks[0][0], ticks[-1][0], padding=0.05)

    def clear(self) -> None:
        """Remove every series."""
        self._pending.clear()
        for curve in self._curves.values():
            self.plot.removeItem(curve)
        self.legend.clear()
        self._curves.clear()
        self._names.clear()
        self._y_range = self._x_range = None

    def series_keys(self) -> list[str]:
        return list(self._curves) + [k for k in self._pending if k not in self._curves]

    def points(self, key: str) -> tuple[list[float], list[float]]:
        """The points series `key` shows (or will show at the next tick)."""
        if key in self._pending:
            xs, ys, _ = self._pending[key]
            return xs, ys
        xs, ys = self._curves[key].getOriginalDataset()
        return ([] if xs is None else list(xs)), ([] if ys is None else list(ys))

    def redraw(self) -> None:
        """Push buffered series to their curves (each curve is created once)."""
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        for key, (xs, ys, data) in pending.items():
            curve = self._curves.get(key)
            if curve is None:
                curve = self._new_curve(key, len(self._curves))
            curve.setData(xs, ys, data=data)
        top = max((max(ys) for ys in (c.getOriginalDataset()[1] for c in self._curves.values())
                   if ys is not None and len(ys)), default=0.0)
        y_range = (0, top * HEADROOM if top > 0 else 1.0)
        if y_range != self._y_range:  # a new range repaints both axes: only when it changed
            self._y_range = y_range
            self.plot.setYRange(*y_range, padding=0)
        if self._ticks is None:  # no planned x values: a time axis that grows as points come
            right = max((max(xs) for xs in (c.getOriginalDataset()[0]
                                            for c in self._curves.values())
                         if xs is not None and len(xs)), default=0.0)
            x_range = (0, time_axis_end(right))
            if x_range != self._x_range:
                self._x_range = x_range
                self.plot.setXRange(*x_range, padding=0)

    def _new_curve(self, key: str, n: int) -> pg.PlotDataItem:
        color = pg.mkColor(PALETTE[n]) if n < len(PALETTE) else pg.intColor(n, hues=9)
        options = {"pen": pg.mkPen(color, width=2), "name": self._names.get(key, key)}
        if self._symbols:
            options.update(symbol="o", symbolSize=8, symbolBrush=color, symbolPen="w")
        curve = self.plot.plot([], [], **options)
        if self._symbols:
            curve.sigPointsClicked.connect(self._on_curve_points_clicked)
        self._curves[key] = curve
        return curve

    def _on_curve_points_clicked(self, _curve, points, _event) -> None:
        if len(points) and points[0].data() is not None:
            self.point_clicked.emit(points[0].data())
