"""Every chart can be saved as an image (PNG or SVG) or copied to the clipboard.

`install_chart_export(widget)` gives every pyqtgraph PlotWidget inside `widget` a small button
in its top-right corner and a context menu with "Save image…" and "Copy image" (pyqtgraph's
own menu, English-only and with its own export dialog, is turned off). The main window does it
for each page as it is built. After a save, the window (if it has `show_written`, as the main
window does) offers to open the file or its folder.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, QSize, Qt
from PySide6.QtGui import QAction, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QMainWindow,
    QMenu,
    QStyle,
    QToolButton,
    QWidget,
)

import pyqtgraph as pg  # after PySide6, so it binds to it
from pyqtgraph.exporters import ImageExporter

from desktop_app.gui.widgets.chart_titles import full_title

IMAGE_SUFFIXES = (".png", ".svg")
_EXPORTER_NAME = "throughline_chart_export"
_BUTTON_MARGIN = 3
_last_folder: list[Path] = []  # where the last image was saved, this session


def chart_title(plot: pg.PlotWidget) -> str:
    """The chart's whole title (empty when it has none), though the chart may show it
    shortened (`chart_titles.set_fitted_title`)."""
    whole = full_title(plot)
    if whole is not None:
        return whole
    label = plot.getPlotItem().titleLabel
    return str(getattr(label, "text", "") or "") if label.isVisible() else ""


def default_file_name(plot: pg.PlotWidget, suffix: str = ".png") -> str:
    """A file name made of the chart's title, e.g. "decode-tok-s-per-request.png"."""
    stem = re.sub(r"[^\w]+", "-", chart_title(plot).lower()).strip("-_")[:60].strip("-")
    return (stem or "chart") + suffix


# An image for a report or a slide: at least this wide, and never smaller than twice the
# chart on screen (a chart of the window's grid was saved at 455x156 px).
MIN_IMAGE_WIDTH = 1600


@contextmanager
def _drawn_afresh(plot: pg.PlotWidget):
    """While rendering the chart to a file: its save button hidden (not part of the image) and
    its cached items (the axes, the scatter markers) drawn afresh at the target's scale, as
    shapes, not blown up from (or, in an SVG, embedded as) the screen's pixmaps."""
    buttons = [b for b in plot.findChildren(QToolButton, "chartExportButton") if b.isVisible()]
    cached = [(item, item.cacheMode()) for item in plot.scene().items()
              if item.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    scatters = [(item, item.opts.get("useCache", True)) for item in plot.scene().items()
                if isinstance(item, pg.ScatterPlotItem)]
    for button in buttons:
        button.hide()
    for item, _mode in cached:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    for item, _use in scatters:
        item.opts["useCache"] = False
    try:
        yield
    finally:
        for item, use in scatters:
            item.opts["useCache"] = use
        for item, mode in cached:
            item.setCacheMode(mode)
        for button in buttons:
            button.show()


def chart_image(plot: pg.PlotWidget) -> QImage:
    """The chart drawn as an image, its shape as on screen, at least MIN_IMAGE_WIDTH pixels
    wide (or twice its width on screen). The widget is rendered at that scale, so its lines,
    markers, text and legend grow together (pyqtgraph's exporter scaled the text and markers
    but kept hairline pens and a tiny legend)."""
    width, height = plot.width(), plot.height()
    if width <= 0 or height <= 0:
        return ImageExporter(plot.getPlotItem()).export(toBytes=True)
    scale = max(MIN_IMAGE_WIDTH / width, 2.0)
    image = QImage(round(width * scale), round(height * scale), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(plot.backgroundBrush().color())
    with _drawn_afresh(plot):
        QWidget.render(plot, image)  # the widget, not QGraphicsView.render (the scene)
    image.setDevicePixelRatio(1.0)
    return image


def write_chart_image(plot: pg.PlotWidget, path: Path) -> Path:
    """Write the chart to `path`: SVG when it ends in .svg, else PNG. Raises OSError when the
    file cannot be written."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".svg":
            _write_svg(plot, path)
        elif not chart_image(plot).save(str(path), "PNG"):
            raise OSError(f"cannot write {path}")
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyqtgraph raises plain Exception (e.g. size 0)
        raise OSError(str(exc)) from exc
    return path


def _write_svg(plot: pg.PlotWidget, path: Path) -> None:
    """The chart as the PNG draws it, onto Qt's SVG generator: every line, marker and label a
    vector shape. pyqtgraph's SVGExporter cannot read the path data Qt 6.11 writes (pyqtgraph
    issue #3485), and Qt's generator fed the scene as pyqtgraph's exporter draws it embedded
    the plot area as screen-resolution pixmaps: other programs showed no markers and hairline
    legends."""
    width, height = plot.width(), plot.height()
    if width <= 0 or height <= 0:
        raise OSError(f"cannot write {path}: the chart has no size")
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRectF(0, 0, width, height))
    generator.setResolution(round(plot.logicalDpiX()))
    generator.setTitle(chart_title(plot))
    painter = QPainter(generator)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(QRectF(0, 0, width, height), plot.backgroundBrush())
        with _drawn_afresh(plot):
            QWidget.render(plot, painter, QPoint(0, 0))
    finally:
        painter.end()
    if not path.is_file():
        raise OSError(f"cannot write {path}")
    flatten_svg_strokes(path)


_SVG_NS = "http://www.w3.org/2000/svg"
_MATRIX = re.compile(r"^matrix\(([^)]*)\)$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_STROKED = {"path", "polyline", "polygon", "line", "rect"}


def _pairs(text: str, m) -> str:
    numbers = [float(x) for x in _NUMBER.findall(text)]
    out = []
    for x, y in zip(numbers[0::2], numbers[1::2]):
        out.append(f"{m[0] * x + m[2] * y + m[4]:.6g},{m[1] * x + m[3] * y + m[5]:.6g}")
    return " ".join(out)


def _flat_path(d: str, m) -> str | None:
    """Path data of absolute M/L/C/Z commands (all Qt's generator writes) in the group's
    coordinates; None for any other command."""
    parts = re.findall(r"([A-Za-z])([^A-Za-z]*)", d)
    if any(cmd not in "MLCZ" for cmd, _ in parts):
        return None
    return " ".join(cmd + (_pairs(args, m) if cmd != "Z" else "") for cmd, args in parts)


def _flat_element(el, m) -> bool:
    tag = el.tag.rsplit("}", 1)[-1]
    if tag in ("polyline", "polygon"):
        el.set("points", _pairs(el.get("points", ""), m))
    elif tag == "path":
        d = _flat_path(el.get("d", ""), m)
        if d is None:
            return False
        el.set("d", d)
    elif tag == "line":
        ends = f"{el.get('x1', 0)},{el.get('y1', 0)} {el.get('x2', 0)},{el.get('y2', 0)}"
        (x1, y1), (x2, y2) = (pair.split(",") for pair in _pairs(ends, m).split())
        el.attrib.update(x1=x1, y1=y1, x2=x2, y2=y2)
    elif tag == "rect":
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        w, h = float(el.get("width", 0)), float(el.get("height", 0))
        corners = _pairs(f"{x},{y} {x + w},{y} {x + w},{y + h} {x},{y + h}", m)
        for key in ("x", "y", "width", "height", "rx", "ry"):
            el.attrib.pop(key, None)
        el.tag = el.tag[:-4] + "polygon"
        el.set("points", corners)
    return True


def flatten_svg_strokes(path: Path) -> None:
    """Rewrite the shapes Qt draws with cosmetic pens (`vector-effect="non-scaling-stroke"`
    under a scaling `transform`) into the page's own coordinates. Programs that ignore the
    vector effect (librsvg, cairosvg, many editors and PDF converters) scaled the stroke with
    the shape: a marker of 8 px drawn as a unit circle got a white ring 8 px wide that hid it,
    and a curve drawn in data units came out a hairline. In page coordinates the stroke is
    the same everywhere. A group with anything else in it (text, images) is left as it is."""
    import xml.etree.ElementTree as ET

    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    tree = ET.parse(path)
    changed = False
    for group in tree.getroot().iter(f"{{{_SVG_NS}}}g"):
        found = _MATRIX.match(group.get("transform", ""))
        children = list(group)
        if not found or not children or not any(
                c.get("vector-effect") == "non-scaling-stroke" for c in children):
            continue
        if any(c.tag.rsplit("}", 1)[-1] not in _STROKED for c in children):
            continue
        m = [float(x) for x in _NUMBER.findall(found[1])]
        if len(m) != 6 or m == [1, 0, 0, 1, 0, 0]:
            continue
        originals = [(c, c.tag, dict(c.attrib)) for c in children]
        if all(_flat_element(c, m) for c in children):
            group.set("transform", "matrix(1,0,0,1,0,0)")
            changed = True
        else:  # leave the group as Qt wrote it
            for c, tag, attrib in originals:
                c.tag = tag
                c.attrib.clear()
                c.attrib.update(attrib)
    if changed:
        tree.write(path, encoding="UTF-8", xml_declaration=True)


def copy_chart(plot: pg.PlotWidget) -> QImage:
    """Put the chart on the clipboard as an image; returns the image."""
    image = chart_image(plot)
    QGuiApplication.clipboard().setImage(image)
    return image


class ChartExporter(QObject):
    """The "Save image…" / "Copy image" button and context menu of one chart."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        super().__init__(plot)
        self.setObjectName(_EXPORTER_NAME)
        self._plot = plot
        plot.getPlotItem().setMenuEnabled(False)  # ours replaces it
        self.save_action = QAction(self.tr("Save image…"), self)
        self.copy_action = QAction(self.tr("Copy image"), self)
        self.save_action.triggered.connect(self._on_save_triggered)
        self.copy_action.triggered.connect(self._on_copy_triggered)
        self.button = QToolButton(plot)
        self.button.setObjectName("chartExportButton")
        self.button.setAutoRaise(True)
        self.button.setIcon(plot.style().standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton))
        self.button.setToolTip(self.tr("Save or copy this chart"))
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        menu = QMenu(self.button)
        menu.addAction(self.save_action)
        menu.addAction(self.copy_action)
        self.button.setMenu(menu)
        self.button.setStyleSheet("QToolButton { background: rgba(255, 255, 255, 170); }"
                                  "QToolButton::menu-indicator { image: none; }")
        self.button.resize(22, 22)
        self._place_button()
        self.button.show()
        self._viewport = plot.viewport()
        plot.installEventFilter(self)
        self._viewport.installEventFilter(self)

    def _place_button(self) -> None:
        self.button.move(self._plot.width() - self.button.width() - _BUTTON_MARGIN,
                         _BUTTON_MARGIN)
        self.button.raise_()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # Only events of the chart being shown: while it is destroyed, its viewport still
        # receives events that must not touch it.
        kind = event.type()
        if kind == QEvent.Type.Resize and obj is self._plot:
            self._place_button()
        elif kind == QEvent.Type.ContextMenu and obj is self._viewport:
            self.show_menu(event.globalPos())
            return True
        return False

    def show_menu(self, pos: QPoint) -> None:
        menu = QMenu(self._plot)
        menu.addAction(self.save_action)
        menu.addAction(self.copy_action)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(pos)

    def save_image(self) -> Path | None:
        """Ask where to save the chart (PNG or SVG) and write it; the path written, or None
        when the user cancelled or it could not be written (the window says why)."""
        folder = _last_folder[-1] if _last_folder else Path.home()
        png_filter, svg_filter = self.tr("PNG image (*.png)"), self.tr("SVG image (*.svg)")
        chosen, selected = QFileDialog.getSaveFileName(
            self._plot, self.tr("Save chart image"), str(folder / default_file_name(self._plot)),
            f"{png_filter};;{svg_filter}")
        if not chosen:
            return None
        path = Path(chosen)
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            path = path.with_name(path.name + (".svg" if selected == svg_filter else ".png"))
        try:
            write_chart_image(self._plot, path)
        except OSError as exc:
            self._tell(self.tr("Could not save the chart: {error}").format(error=exc))
            return None
        _last_folder[:] = [path.parent]
        window = self._plot.window()
        show_written = getattr(window, "show_written", None)
        if show_written is not None:
            show_written([path], self.tr("Saved {file}").format(file=path.name))
        return path

    def _tell(self, text: str) -> None:
        window = self._plot.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(text, 10000)

    def _on_save_triggered(self) -> None:
        self.save_image()

    def _on_copy_triggered(self) -> None:
        copy_chart(self._plot)
        self._tell(self.tr("The chart is on the clipboard."))


def exporter_of(plot: pg.PlotWidget) -> ChartExporter | None:
    return plot.findChild(ChartExporter, _EXPORTER_NAME,
                          Qt.FindChildOption.FindDirectChildrenOnly)


def install_chart_export(widget: QWidget) -> list[ChartExporter]:
    """Give every chart in `widget` (itself included) "Save image…" and "Copy image"; charts
    that have them already are skipped. Returns the exporters added."""
    plots = [widget] if isinstance(widget, pg.PlotWidget) else []
    plots += widget.findChildren(pg.PlotWidget)
    return [ChartExporter(plot) for plot in plots if exporter_of(plot) is None]
