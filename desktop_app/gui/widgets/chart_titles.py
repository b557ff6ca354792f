"""A chart's title that fits its chart.

pyqtgraph lays a plot out at least as wide as its title: a title wider than the chart (the
Throughput page's 2x2 grid at 1024 px, "Prefill tok/s per request (queueing included)") made
the plot wider than its widget, which cut the title, the x axis's label and last tick, and the
legend's last entry ("KV cache %"). `set_fitted_title` gives a plot a title that shrinks (down
to MIN_POINT_SIZE) and then ends in "…" to fit the width left beside the chart's save button,
with the whole title as the chart's tooltip and for its file name (`chart_export.chart_title`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFont, QFontMetrics

import pyqtgraph as pg  # after PySide6, so it binds to it

FULL_TITLE = "fullTitle"  # the plot's property holding the whole title
MIN_POINT_SIZE = 8
# The title keeps this much free at the right: the save button sits in the top-right corner
# (chart_export).
BUTTON_ROOM = 30


class _TitleFitter(QObject):
    def __init__(self, plot: pg.PlotWidget, text: str, color: str, point_size: float) -> None:
        super().__init__(plot)
        self.plot, self.text, self.color, self.point_size = plot, text, color, point_size
        plot.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def _room(self) -> float:
        """The widest title that, centred over the plot's data area as pyqtgraph centres it
        (right of the left axis), keeps clear of the save button and the left edge."""
        item, width = self.plot.getPlotItem(), self.plot.width()
        left = item.getAxis("left").width() if item.getAxis("left").isVisible() else 0
        right = item.getAxis("right").width() if item.getAxis("right").isVisible() else 0
        centre = left + (width - left - right) / 2
        return max(2 * min(centre - 4, width - BUTTON_ROOM - centre), 40)

    def fit(self) -> None:
        room = self._room()
        font = QFont(self.plot.font())
        shown, size = self.text, float(MIN_POINT_SIZE)
        point = self.point_size
        while point >= MIN_POINT_SIZE:
            font.setPointSizeF(point)
            if QFontMetrics(font).horizontalAdvance(self.text) <= room:
                size = point
                break
            point -= 0.5
        else:
            font.setPointSizeF(MIN_POINT_SIZE)
            shown = QFontMetrics(font).elidedText(self.text, Qt.TextElideMode.ElideRight, room)
        label = self.plot.getPlotItem().titleLabel
        if getattr(label, "text", None) != shown or label.opts.get("size") != f"{size:g}pt":
            self.plot.setTitle(shown, color=self.color, size=f"{size:g}pt")
        self.plot.setToolTip(self.text if shown != self.text else "")


def set_fitted_title(plot: pg.PlotWidget, text: str, *, color: str = "#222",
                     point_size: float = 10) -> None:
    """Give `plot` the title `text` (already translated), fitted to its width now and on
    every resize."""
    plot.setProperty(FULL_TITLE, text)
    old = plot.findChild(_TitleFitter)
    if old is not None:
        plot.removeEventFilter(old)
        old.deleteLater()
    _TitleFitter(plot, text, color, point_size).fit()


def full_title(plot: pg.PlotWidget) -> str | None:
    """The whole title given by `set_fitted_title`, or None."""
    value = plot.property(FULL_TITLE)
    return value if isinstance(value, str) else None
