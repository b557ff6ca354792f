"""A line chart fed from buffered data and redrawn on a 10 Hz clock (pyqtgraph)."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

import pyqtgraph as pg  # after PySide6, so it binds to it

from desktop_app.gui.widgets.chart_titles import set_fitted_title

REDRAW_INTERVAL_MS = 100
STAGGER_SLOTS = 4
_CHARTS_MADE = itertools.count()
# Distinct on white and for the common colour blindnesses (Okabe & Ito), then pyqtgraph's hues.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
LEFT_AXIS_WIDTH = 62  # px
X_PADDING = 0.08  # the x range's margin beyond the first and last length, as a share
LEGEND_OFFSET = (4, 2)  # the legend's corner from the data area's top left, in pixels
HEADROOM = 1.45  # the y axis reaches this much above the highest point: room for the legend
# When any chart last finished drawing on its clock, and how long it took (perf_counter s).
_LAST_DRAW = {"end": 0.0, "took": 0.0}


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


# A value axis ends at the first of these (times a power of ten) that leaves HEADROOM above the
# highest point: a new highest point changes the range, and repaints the axis, only when it
# passes one, and the top tick is a round number.
_VALUE_AXIS_ENDS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)


def value_axis_end(top: float) -> float:
    """Where a value axis whose highest point is `top` ends (1.0 with nothing above 0)."""
    if not top > 0 or not math.isfinite(top):
        return 1.0
    room = top * HEADROOM
    scale = 10.0 ** math.floor(math.log10(room))
    return next(end * scale for end in _VALUE_AXIS_ENDS if room <= end * scale * (1 + 1e-9))


class LiveChart(QWidget):
    """Named series of (x, y) points; clicking a point reports the data attached to it."""

    point_clicked = Signal(object)  # the `data` value given with the clicked point

    def __init__(self, title: str, x_label: str, y_label: str, *, y_units: str | None = None,
                 log_x: bool = False, symbols: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w")
        set_fitted_title(self.plot, title)
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
        # With the grid on, each axis item spans the whole plot, so any curve's new points
        # repainted both axes: their tick labels and grid replayed, ~3 ms an axis here and most
        # of a chart's repaint. Kept as pixmaps, they are drawn again only when they change.
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # Ranges are set by hand (redraw, set_x_ticks): with autorange on, the first range set
        # walked every item's bounds first.
        self.plot.disableAutoRange()
        self.plot.setYRange(0, 1.0, padding=0)
        # No box behind the legend: a white one faded the lines that ran under it (the
        # headroom above the highest point usually keeps them apart).
        self.legend = self.plot.addLegend(offset=LEGEND_OFFSET, labelTextColor="#222",
                                          brush=None, pen=None, colCount=4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._symbols = symbols
        self._log_x = log_x
        self._ticks: list | None = None
        self._pending_ticks: list | None = None  # set_x_ticks' ticks until the next redraw
        self._y_range: tuple[float, float] | None = (0, 1.0)
        self._x_range: tuple[float, float] | None = None
        self._pending: dict[str, tuple[list[float], list[float], list | None]] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._names: dict[str, str] = {}
        self._planned: list[tuple[str, bool]] = []  # (key, listed) of curves to create ahead
        self._creating = False  # a turn that creates the next planned curve is queued
        self._unlisted: set[str] = set()  # curves the legend names once they have points
        self._legend_fit: tuple | None = None  # (entries' texts, room) it was fitted to
        # The data area's width settles after the axes' labels are laid out: fit again then.
        self.plot.getPlotItem().vb.sigResized.connect(self._fit_legend)
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
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

    def plan_series(self, keys: Sequence[str], names: dict[str, str] | None = None, *,
                    listed: bool = True) -> None:
        """Create the curves of series `keys` before their points come, one at a time within
        the charts' drawing budget (_on_timer_timeout): a new curve and its legend entry re-lay
        the chart out (5-45 ms a curve during a sweep at concurrency 256, bench/gui_stall.py),
        which at a cell's end came on top of the next cell starting. `listed`: the legend names
        them now (the loads a sweep will measure) or once they have points (series a server
        may not report)."""
        for key in keys:
            if names and key in names:
                self._names[key] = names[key]
            if key not in self._curves and all(k != key for k, _ in self._planned):
                self._planned.append((key, listed))
        self._create_next_later()

    def _create_next_later(self, after_ms: int = 0) -> None:
        if self._planned and not self._creating:
            self._creating = True
            QTimer.singleShot(after_ms, self, self._create_next)

    def _create_next(self) -> None:
        """Create the next planned curve, within the charts' shared drawing budget (see
        _on_timer_timeout): the charts' curves made at Start do not all come at once."""
        self._creating = False
        start = time.perf_counter()
        wait = _LAST_DRAW["end"] + _LAST_DRAW["took"] - start
        if wait > 0:
            self._create_next_later(max(1, round(wait * 1000)))
            return
        self._create_planned(1)
        if self.plot.isVisible():
            self.plot.viewport().repaint()
        end = time.perf_counter()
        _LAST_DRAW.update(end=end, took=min(end - start, 0.5))
        self._create_next_later(1)

    def _create_planned(self, count: int | None = None) -> None:
        """Create the next `count` planned curves (all: None), in the order planned."""
        while self._planned and (count is None or count > 0):
            key, listed = self._planned.pop(0)
            if key not in self._curves:
                self._new_curve(key, len(self._curves), listed=listed)
            count = None if count is None else count - 1

    def drop_empty_series(self) -> None:
        """Remove the curves that never got a point (a sweep stopped before some loads)."""
        self._planned.clear()
        for key, curve in list(self._curves.items()):
            xs = self._pending[key][0] if key in self._pending else curve.getOriginalDataset()[0]
            if xs is None or not len(xs):
                self.plot.removeItem(curve)  # and its legend entry
                del self._curves[key]
                self._pending.pop(key, None)
                self._unlisted.discard(key)

    def set_x_ticks(self, values: Sequence[float]) -> None:
        """Label the x axis at exactly these values (e.g. the prompt lengths swept), from the
        next tick of the clock (each chart on its own: a new axis re-lays the chart out)."""
        ticks = [(math.log10(v) if self._log_x else v, tick_label(v)) for v in values if v > 0]
        if ticks == (self._ticks if self._pending_ticks is None else self._pending_ticks):
            return  # new ticks re-lay the whole plot out: ~30 ms a chart on this machine
        self._pending_ticks = ticks

    def _apply_ticks(self) -> None:
        ticks, self._pending_ticks = self._pending_ticks, None
        if ticks is None or ticks == self._ticks:
            return
        self._ticks = ticks
        self.plot.getAxis("bottom").setTicks([ticks, []] if ticks else None)
        if len(ticks) > 1:
            # The x range is the planned one from the start: no re-layout as cells arrive. The
            # end ticks' labels must fit inside it (pyqtgraph hides one that reaches past the
            # data area): at 5 % a ~250 px chart (the Throughput page at 1024 px) lost "256".
            self.plot.setXRange(ticks[0][0], ticks[-1][0], padding=X_PADDING)
        elif ticks:
            # One prompt length: a range around it (from a single value the plot made none, and
            # a one-length sweep showed its legend over empty charts).
            x = ticks[0][0]
            half = 0.15 if self._log_x else max(abs(x) * 0.1, 0.5)
            self.plot.setXRange(x - half, x + half, padding=0)

    def clear(self) -> None:
        """Remove every series."""
        self._pending.clear()
        self._planned.clear()
        self._unlisted.clear()
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

    def _on_timer_timeout(self) -> None:
        """Draw what came since the last tick, and paint it now; unless another chart has just
        drawn: after a draw that took t, no chart draws for t (it waits for its next tick).
        Points of several charts arriving together (a cell's end) were drawn one after the
        other and painted in one pass, with nothing else run in between: up to 60 ms at once
        here (bench/gui_stall.py); drawing now takes at most half of the GUI thread's time."""
        if not self._pending and self._pending_ticks is None:
            return
        start = time.perf_counter()
        if start < _LAST_DRAW["end"] + _LAST_DRAW["took"]:
            return
        self.redraw()
        if self.plot.isVisible():
            self.plot.viewport().repaint()  # its paint counted here, not merged with others'
        end = time.perf_counter()
        _LAST_DRAW.update(end=end, took=min(end - start, 0.5))

    def redraw(self) -> None:
        """Push buffered series to their curves (each curve is created once)."""
        self._apply_ticks()
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        if any(key in pending for key, _ in self._planned):
            self._create_planned()  # points came first: the planned curves, in order
        for key, (xs, ys, data) in pending.items():
            curve = self._curves.get(key)
            if curve is None:
                curve = self._new_curve(key, len(self._curves))
            curve.setData(xs, ys, data=data)
            if key in self._unlisted and len(xs):
                self._unlisted.discard(key)
                self.legend.addItem(curve, self._names.get(key, key))
        top = max((max(ys) for ys in (c.getOriginalDataset()[1] for c in self._curves.values())
                   if ys is not None and len(ys)), default=0.0)
        y_range = (0, value_axis_end(top))
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
        self._fit_legend()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_legend()

    def _fit_legend(self, *_args) -> None:
        """As many legend columns (up to 4) as the data area's width holds: one row of entries
        wider than a narrow chart ran off its right edge ("KV cache %" at 1024 px). Measured
        from the label texts (a label item's own box follows the layout it is in, so it read
        narrower before the first layout pass) with every column as wide as the widest entry,
        as the legend's grid may lay them out; re-laid only when the room or the entries
        changed, and only to another column count."""
        items = self.legend.items
        if not items:
            return
        room = self.plot.getPlotItem().vb.width() - 2 * LEGEND_OFFSET[0]
        texts = tuple(label.text for _sample, label in items)
        if self._legend_fit == (texts, room):
            return
        self._legend_fit = (texts, room)
        layout = self.legend.layout
        left, _top, right, _bottom = layout.getContentsMargins()
        spacing = layout.horizontalSpacing()
        entry = max(sample.boundingRect().width() + spacing + label.item.boundingRect().width()
                    for sample, label in items)
        columns = min(4, len(items))
        while columns > 1 and left + right + columns * entry + (columns - 1) * spacing > room:
            columns -= 1
        if columns != self.legend.columnCount:
            self.legend.setColumnCount(columns)

    def _new_curve(self, key: str, n: int, *, listed: bool = True) -> pg.PlotDataItem:
        color = pg.mkColor(PALETTE[n]) if n < len(PALETTE) else pg.intColor(n, hues=9)
        options: dict = {"pen": pg.mkPen(color, width=2)}
        if listed:
            options["name"] = self._names.get(key, key)
        else:
            self._unlisted.add(key)
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
