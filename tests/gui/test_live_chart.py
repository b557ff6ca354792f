"""The live chart as a user sees it: its value axis, its legend, its pixels."""

import math

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QGraphicsItem

from desktop_app.gui.widgets.live_chart import HEADROOM, PALETTE, LiveChart, value_axis_end


def _chart(qtbot, **kwargs) -> LiveChart:
    chart = LiveChart("Decode tok/s per request", "prompt length (tokens)", "tok/s", **kwargs)
    qtbot.addWidget(chart)
    chart.resize(480, 320)
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def _legend(chart: LiveChart) -> list[str]:
    return [label.text for _, label in chart.legend.items]


@pytest.mark.parametrize("top", [0.0123, 0.7, 1, 3.3, 99, 256, 5000, 41000, 123456])
def test_the_value_axis_ends_on_a_round_number_with_room_for_the_legend(top):
    end = value_axis_end(top)
    assert top * HEADROOM <= end <= top * HEADROOM * 1.25
    mantissa = end / 10 ** math.floor(math.log10(end))
    assert round(mantissa, 6) in {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}, (top, end)


def test_an_empty_chart_reaches_one():
    assert value_axis_end(0) == value_axis_end(float("nan")) == 1.0


def test_the_axes_kept_as_pixmaps_look_the_same(qtbot):
    charts = [_chart(qtbot, log_x=True) for _ in range(2)]
    for axis in ("left", "bottom"):
        charts[1].plot.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.NoCache)
    for chart in charts:
        chart.set_x_ticks([512, 2048, 8192])
        chart.set_series("c=1", [512, 2048, 8192], [4100.0, 3900.0, 2500.0])
        chart.set_series("c=8", [512, 2048], [900.0, 700.0])
        chart.redraw()
    first, second = (chart.plot.grab().toImage() for chart in charts)
    assert first == second


def test_a_series_the_server_does_not_report_stays_out_of_the_legend(qtbot):
    chart = _chart(qtbot, symbols=False)
    chart.plan_series(["running", "waiting", "KV cache %"],
                      {"running": "running", "waiting": "waiting", "KV cache %": "KV cache %"},
                      listed=False)
    qtbot.waitUntil(lambda: len(chart.series_keys()) == 3)
    assert _legend(chart) == []
    chart.set_series("running", [0.5, 1.0], [3.0, 4.0], name="running")
    chart.set_series("KV cache %", [0.5, 1.0], [10.0, 12.0], name="KV cache %")
    chart.redraw()
    assert _legend(chart) == ["running", "KV cache %"]


def test_planned_loads_are_named_in_order_and_keep_their_colours(qtbot):
    chart = _chart(qtbot, log_x=True)
    chart.plan_series(["c=1", "c=2", "c=4"])
    # Points of the second load come before the curves were all made: the order still holds.
    chart.set_series("c=2", [512], [800.0])
    chart.redraw()
    assert _legend(chart) == ["c=1", "c=2", "c=4"]
    colours = [chart._curves[key].opts["pen"].color().name() for key in ("c=1", "c=2", "c=4")]
    assert colours == [pg.mkColor(c).name() for c in PALETTE[:3]]
    assert chart.points("c=2") == ([512], [800.0])
    chart.drop_empty_series()  # a sweep stopped after the first point
    assert _legend(chart) == ["c=2"] and chart.series_keys() == ["c=2"]


def test_a_sweep_of_one_prompt_length_shows_its_points(qtbot):
    """One prompt length: the x range is set around it, so its points are on the chart (they
    were outside an empty range: the legend over a blank plot)."""
    chart = _chart(qtbot, log_x=True)
    chart.set_x_ticks([512])
    chart.set_series("c=1", [512], [4100.0])
    chart.set_series("c=8", [512], [900.0])
    chart.redraw()
    (low, high), _ = chart.plot.viewRange()
    assert low < math.log10(512) < high and high - low < 1


def test_a_narrow_chart_shortens_its_title_and_folds_its_legend(qtbot):
    """At 1024 px the Throughput page's charts are ~250 px wide: a longer title made the plot
    wider than its widget (the x axis's label and last tick cut off) and the legend's third
    entry ran off the right edge."""
    from desktop_app.gui.widgets.chart_export import chart_title, default_file_name

    title = "Server: running, waiting, KV cache %"
    chart = LiveChart(title, "time since start (s)", "requests / KV %", symbols=False)
    qtbot.addWidget(chart)
    chart.resize(250, 180)
    chart.show()
    qtbot.waitExposed(chart)
    for key in ("running", "waiting", "KV cache %"):
        chart.set_series(key, [0.5, 1.0], [3.0, 4.0])
    chart.redraw()
    qtbot.waitUntil(lambda: chart.legend.columnCount < 3, timeout=3000)
    item = chart.plot.getPlotItem()
    shown = item.titleLabel.text
    assert shown != title and shown.endswith("…")
    assert chart.plot.toolTip() == title and chart_title(chart.plot) == title
    assert default_file_name(chart.plot) == "server-running-waiting-kv-cache.png"
    # The plot is laid out within its widget: the data area ends inside it.
    assert item.vb.sceneBoundingRect().right() <= chart.plot.width()
    legend = chart.legend.sceneBoundingRect()
    assert legend.right() <= item.vb.sceneBoundingRect().right() + 1
    chart.resize(900, 320)  # room again: the whole title, one row of entries
    qtbot.waitUntil(lambda: item.titleLabel.text == title, timeout=3000)
    qtbot.waitUntil(lambda: chart.legend.columnCount == 3, timeout=3000)
    assert chart.plot.toolTip() == ""


def test_a_narrow_chart_labels_its_first_and_last_length(qtbot):
    """#30: at 1024 px the Throughput page's charts (~250 px) labelled only "1k" of a 256, 1024
    sweep: pyqtgraph hides a tick label that reaches past the data area, and 256 sat 8 px in."""
    from PySide6.QtGui import QImage, QPainter

    chart = _chart(qtbot, log_x=True)
    chart.resize(250, 180)
    chart.set_x_ticks([256, 1024])
    chart.set_series("c=1", [256, 1024], [10.0, 20.0])
    chart.redraw()
    qtbot.waitUntil(lambda: chart.plot.getPlotItem().vb.width() < 200, timeout=3000)
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = chart.plot.getAxis("bottom").generateDrawSpecs(painter)
    finally:
        painter.end()
    assert [text for _rect, _flags, text in texts] == ["256", "1k"]
