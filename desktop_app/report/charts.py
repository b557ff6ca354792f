"""Charts for the comparison PDF, painted with QPainter into QImages at print resolution.

Each chart is laid out in document pixels (96 per inch, the unit the report's QTextDocument
uses) and painted at `SCALE` times that size, so a chart 640 px wide in the document carries
about 210 dots per inch on paper. Legends sit below the plot, never over the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen

SCALE = 2.2  # image pixels per document pixel: 640 px wide prints at about 210 dpi
WIDTH, HEIGHT = 640, 290
LEGEND_NAME_MAX = 300  # document pixels: a longer legend entry (a run's name) is elided
_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
           Qt.PenStyle.DashDotLine)
PALETTE = ["#1f6fb2", "#d9541e", "#2a9d4b", "#8e44ad", "#c0392b", "#b8860b", "#16a085",
           "#7f8c8d"]


@dataclass(frozen=True)
class Series:
    """A line: `points` are (x, y); `style` 0 solid, 1 dashed, 2 dotted, 3 dash-dot (one per
    run); `right` puts it on the right axis (a 0..1 fraction shown as 0..100 %)."""

    name: str
    points: tuple[tuple[float, float], ...]
    color: str
    style: int = 0
    right: bool = False


@dataclass(frozen=True)
class Bars:
    """One bar per group; `values` aligned with the chart's groups (None: no bar, 'n/a')."""

    name: str
    values: tuple[float | None, ...]
    color: str
    stack: tuple[float | None, ...] = field(default=())  # a second segment on top, if any


def _font(families: list[str], px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setFamilies(families)
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def _nice_ticks(lo: float, hi: float, n: int = 5, integer: bool = False) -> list[float]:
    """Round tick values from `lo` to at least `hi`; `integer` for counts (no 0.5 request)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    if integer:
        step = max(1.0, math.ceil(step))
    start = math.floor(lo / step) * step
    ticks, v = [], start
    while not ticks or ticks[-1] < hi - step * 1e-9:  # the last tick at or above the data
        ticks.append(round(v, 10))
        v += step
    return ticks if len(ticks) > 1 else [ticks[0], ticks[0] + step]


def _label(v: float) -> str:
    if abs(v) >= 10_000:
        return f"{v / 1000:,.0f}k"
    if abs(v) >= 100 or v == int(v):
        return f"{v:,.0f}"
    return f"{v:.2g}" if abs(v) < 1 else f"{v:.1f}"


class _Canvas:
    """A QImage with a painter scaled to document pixels."""

    def __init__(self, width: int, height: int, families: list[str]) -> None:
        self.image = QImage(round(width * SCALE), round(height * SCALE),
                            QImage.Format.Format_RGB32)
        dpm = round(96 * SCALE / 0.0254)
        self.image.setDotsPerMeterX(dpm)
        self.image.setDotsPerMeterY(dpm)
        self.image.fill(QColor("white"))
        self.p = QPainter(self.image)
        self.p.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        self.p.scale(SCALE, SCALE)
        self.families = families
        self.width, self.height = width, height

    def text(self, rect: QRectF, flags, s: str, px: float = 10, bold=False, color="#222") -> None:
        self.p.setFont(_font(self.families, px, bold))
        self.p.setPen(QColor(color))
        self.p.drawText(rect, flags, s)

    def width_of(self, s: str, px: float = 10, bold: bool = False) -> float:
        return QFontMetricsF(_font(self.families, px, bold)).horizontalAdvance(s)

    def elide(self, s: str, width: float, px: float = 10, bold: bool = False) -> str:
        """`s` cut to `width` with an ellipsis at the end (a run's long name in a legend)."""
        return QFontMetricsF(_font(self.families, px, bold)).elidedText(
            s, Qt.TextElideMode.ElideRight, width)

    def legend(self, items: list[tuple[str, str, int, bool]], top: float) -> None:
        """(name, color, line style, box) entries in rows from `top`, wrapped to the width."""
        x, y = 60.0, top
        for name, color, style, box in items:
            name = self.elide(name, LEGEND_NAME_MAX, 9)
            w = 26 + self.width_of(name, 9) + 14
            if x + w > self.width - 10:
                x, y = 60.0, y + 14
            if box:
                self.p.fillRect(QRectF(x, y + 3, 14, 8), QColor(color))
            else:
                pen = QPen(QColor(color), 2)
                pen.setStyle(_STYLES[style % len(_STYLES)])
                self.p.setPen(pen)
                self.p.drawLine(QPointF(x, y + 7), QPointF(x + 20, y + 7))
            self.text(QRectF(x + 24, y, w, 14), Qt.AlignmentFlag.AlignVCenter, name, 9)
            x += w

    def legend_rows(self, items: list[tuple[str, str, int, bool]]) -> int:
        x, rows = 60.0, 1
        for name, *_ in items:
            w = 26 + self.width_of(self.elide(name, LEGEND_NAME_MAX, 9), 9) + 14
            if x + w > self.width - 10:
                x, rows = 60.0, rows + 1
            x += w
        return rows

    def done(self) -> QImage:
        self.p.end()
        return self.image


def _frame(c: _Canvas, title: str, legend_items, x_label: str, y_label: str,
           y2_label: str | None) -> QRectF:
    """Title, axis labels and legend; returns the plot rectangle."""
    c.text(QRectF(0, 4, c.width, 18), Qt.AlignmentFlag.AlignHCenter,
           c.elide(title, c.width - 20, 12, bold=True), 12, bold=True)
    rows = c.legend_rows(legend_items) if legend_items else 0
    legend_h = rows * 14 + 4 if rows else 0
    right = 52 if y2_label else 16
    plot = QRectF(60, 40, c.width - 60 - right, c.height - 40 - 40 - legend_h)
    c.text(QRectF(plot.left(), plot.bottom() + 20, plot.width(), 14),
           Qt.AlignmentFlag.AlignHCenter, x_label, 9, color="#444")
    c.p.save()
    c.p.translate(12, plot.center().y())
    c.p.rotate(-90)
    c.text(QRectF(-plot.height() / 2, -6, plot.height(), 14), Qt.AlignmentFlag.AlignHCenter,
           y_label, 9, color="#444")
    c.p.restore()
    if y2_label:
        c.p.save()
        c.p.translate(c.width - 8, plot.center().y())
        c.p.rotate(90)
        c.text(QRectF(-plot.height() / 2, -6, plot.height(), 14), Qt.AlignmentFlag.AlignHCenter,
               y2_label, 9, color="#444")
        c.p.restore()
    if legend_items:
        c.legend(legend_items, plot.bottom() + 36)
    return plot


def _y_axis(c: _Canvas, plot: QRectF, ticks: list[float], right: bool = False,
            fmt=_label) -> None:
    lo, hi = ticks[0], ticks[-1]
    for t in ticks:
        y = plot.bottom() - (t - lo) / (hi - lo) * plot.height()
        if not right:
            c.p.setPen(QPen(QColor("#e3e3e3"), 0.6))
            c.p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            c.text(QRectF(0, y - 7, plot.left() - 5, 14),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, fmt(t), 8.5)
        else:
            c.text(QRectF(plot.right() + 5, y - 7, 40, 14),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, fmt(t), 8.5)
    c.p.setPen(QPen(QColor("#888"), 0.8))
    c.p.drawRect(plot)


def line_chart(title: str, x_label: str, y_label: str, series: list[Series],
               families: list[str], *, log_x: bool | None = None, y2_label: str | None = None,
               y_zero: bool = True, height: int = HEIGHT, percent: bool = False,
               integer_y: bool = False, time_x: bool = False) -> QImage:
    """Lines against x; x ticks at the measured x values (round ones for a `time_x` axis).
    `log_x` None: log when x spans 8x or more. `percent` shows y as percentages of a fraction;
    `integer_y` keeps count axes whole. Right-axis series are 0..1 fractions shown as 0..100 %."""
    c = _Canvas(WIDTH, height, families)
    items = [(s.name, s.color, s.style, False) for s in series]
    plot = _frame(c, title, items, x_label, y_label, y2_label)
    left = [s for s in series if not s.right and s.points]
    xs = sorted({x for s in series for x, _ in s.points})
    if not xs or not left and not any(s.points for s in series):
        return c.done()
    if log_x is None:
        log_x = xs[0] > 0 and xs[-1] / xs[0] >= 8
    fx = (lambda v: math.log(v)) if log_x else (lambda v: v)
    x0, x1 = fx(xs[0]), fx(xs[-1])
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    pad = (x1 - x0) * 0.04
    x0, x1 = x0 - pad, x1 + pad
    ys = [y for s in left for _, y in s.points]
    lo = min(ys + ([0.0] if y_zero else [])) if ys else 0.0
    hi = max(ys) if ys else 1.0
    ticks = _nice_ticks(lo, hi if hi > lo else lo + 1, integer=integer_y)
    fmt = (lambda v: f"{v * 100:.0f}") if percent else _label
    _y_axis(c, plot, ticks, fmt=fmt)
    if any(s.right for s in series):
        _y_axis(c, plot, [0, 25, 50, 75, 100], right=True)
    px = lambda v: plot.left() + (fx(v) - x0) / (x1 - x0) * plot.width()  # noqa: E731
    if len(xs) <= 12 and not time_x:
        shown = xs  # ticks at the measured values (prompt lengths, concurrencies)
    else:  # a time axis: round ticks
        shown = [t for t in _nice_ticks(xs[0], xs[-1], 8) if xs[0] <= t <= xs[-1]]
    last_right = -1e9
    for x in shown:
        label = _label(x)
        w = c.width_of(label, 8.5)
        if px(x) - w / 2 < last_right + 4:
            continue  # would overlap the previous tick label
        c.text(QRectF(px(x) - w / 2 - 2, plot.bottom() + 3, w + 4, 14),
               Qt.AlignmentFlag.AlignHCenter, label, 8.5)
        last_right = px(x) + w / 2
    for s in series:
        if not s.points:
            continue
        span = 1.0 if s.right else ticks[-1] - ticks[0]  # the right axis holds 0..1 fractions
        base = 0.0 if s.right else ticks[0]

        def y_of(v: float, base=base, span=span) -> float:
            return plot.bottom() - (v - base) / span * plot.height()
        pen = QPen(QColor(s.color), 1.8)
        pen.setStyle(_STYLES[s.style % len(_STYLES)])
        c.p.setPen(pen)
        pts = [QPointF(px(x), y_of(y)) for x, y in sorted(s.points)]
        for a, b in zip(pts, pts[1:]):
            c.p.drawLine(a, b)
        if len(pts) <= 40:
            c.p.setBrush(QColor(s.color))
            for pt in pts:
                c.p.drawEllipse(pt, 2.4, 2.4)
            c.p.setBrush(Qt.BrushStyle.NoBrush)
    return c.done()


def bar_chart(title: str, groups: list[str], bars: list[Bars], y_label: str,
              families: list[str], *, percent: bool = False, na: str = "n/a",
              height: int = HEIGHT) -> QImage:
    """Grouped bars (one per `Bars` in each group); a `stack` segment sits on top of its bar,
    drawn lighter. A missing value prints `na` at the bar's place."""
    c = _Canvas(WIDTH, height, families)
    items = [(b.name, b.color, 0, True) for b in bars]
    plot = _frame(c, title, items, "", y_label, None)
    tops = [(v or 0) + ((b.stack[i] or 0) if b.stack else 0)
            for b in bars for i, v in enumerate(b.values)]
    hi = 1.0 if percent else (max(tops) if tops and max(tops) > 0 else 1.0)
    ticks = [0, 0.25, 0.5, 0.75, 1.0] if percent else _nice_ticks(0, hi)
    _y_axis(c, plot, ticks, fmt=(lambda v: f"{v * 100:.0f}") if percent else _label)
    if not groups or not bars:
        return c.done()
    gw = plot.width() / len(groups)
    bw = min(34.0, gw * 0.8 / len(bars))
    scale = lambda v: v / ticks[-1] * plot.height()  # noqa: E731
    for g, name in enumerate(groups):
        gx = plot.left() + g * gw + (gw - bw * len(bars)) / 2
        c.text(QRectF(plot.left() + g * gw, plot.bottom() + 3, gw, 14),
               Qt.AlignmentFlag.AlignHCenter, name, 9)
        for k, b in enumerate(bars):
            x = gx + k * bw
            v = b.values[g] if g < len(b.values) else None
            if v is None:
                c.text(QRectF(x - 4, plot.bottom() - 14, bw + 8, 12),
                       Qt.AlignmentFlag.AlignHCenter, na, 7, color="#888")
                continue
            h = scale(v)
            c.p.fillRect(QRectF(x + 1, plot.bottom() - h, bw - 2, h), QColor(b.color))
            top = plot.bottom() - h
            if b.stack and g < len(b.stack) and b.stack[g]:
                h2 = scale(b.stack[g])
                light = QColor(b.color).lighter(150)
                c.p.fillRect(QRectF(x + 1, top - h2, bw - 2, h2), light)
                top -= h2
            total = v + ((b.stack[g] or 0) if b.stack and g < len(b.stack) else 0)
            label = f"{total * 100:.0f}" if percent else _label(total)
            if bw >= c.width_of(label, 7) - 2:
                c.text(QRectF(x - 6, top - 12, bw + 12, 11), Qt.AlignmentFlag.AlignHCenter,
                       label, 7, color="#333")
    return c.done()
