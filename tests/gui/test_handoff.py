"""Results a user can hand on: tables copy with their header (TSV, CSV, Markdown), charts save
as PNG/SVG and copy, an export offers to open what it wrote, and columns fit a reopened run."""

from __future__ import annotations

import asyncio
import csv
import io
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QImage, QStandardItem, \
    QStandardItemModel
from PySide6.QtWidgets import QFileDialog, QTableView, QTreeView

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.gui import app as gui_app
from desktop_app.gui.context import AppContext
from desktop_app.gui.settings import Settings
from desktop_app.gui.widgets import chart_export
from desktop_app.gui.widgets.chart_export import (
    MIN_IMAGE_WIDTH,
    ChartExporter,
    exporter_of,
    install_chart_export,
)
from desktop_app.gui.widgets.live_chart import LiveChart
from desktop_app.gui.widgets.open_result import OpenResultBar
from desktop_app.gui.widgets.table_copy import (
    copier_of,
    install_table_copy,
    selection_rows,
    to_csv,
    to_markdown,
    to_tsv,
)

HEADER = ["run", "name", "prefill tok/s"]
ROWS = [["1", "plain", "39504"], ["2", 'a "quoted", name', "15814"], ["3", "a|pipe", "-60 %"]]


def _model() -> QStandardItemModel:
    model = QStandardItemModel(len(ROWS), len(HEADER))
    model.setHorizontalHeaderLabels(HEADER)
    for r, row in enumerate(ROWS):
        for c, text in enumerate(row):
            model.setItem(r, c, QStandardItem(text))
    return model


@pytest.fixture
def table(qtbot):
    view = QTableView()
    view.setModel(_model())
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
    qtbot.addWidget(view)
    install_table_copy(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def _select_rows(view: QTableView, rows: list[int]) -> None:
    selection = view.selectionModel()
    selection.clearSelection()
    for row in rows:
        selection.select(view.model().index(row, 0),
                         selection.SelectionFlag.Select | selection.SelectionFlag.Rows)


def test_selection_rows_gives_the_header_then_the_selected_rows_in_order():
    model = _model()
    picked = [model.index(2, c) for c in (2, 0)] + [model.index(0, 1)]
    assert selection_rows(model, picked) == [
        ["run", "name", "prefill tok/s"], ["", "plain", ""], ["3", "", "-60 %"]]
    # The view's column order (a moved or hidden column) decides which columns come and how.
    assert selection_rows(model, [model.index(1, c) for c in range(3)], columns=[2, 0]) == [
        ["prefill tok/s", "run"], ["15814", "2"]]
    assert selection_rows(model, []) == []


def test_a_run_with_a_note_is_copied_by_its_name_without_the_pencil(qapp):
    import dataclasses

    from desktop_app.gui.models.runs import RunsTableModel
    from tests.core.compare.test_compare import info

    run = dataclasses.replace(info(4, "throughput", name="capped sweep 1"), notes="max 2")
    model = RunsTableModel()
    model.set_runs([run])
    assert model.index(0, 2).data() == "capped sweep 1 \u270e"  # shown: a note to hover for
    rows = selection_rows(model, [model.index(0, c) for c in (0, 2)])
    assert rows[1] == ["4", "capped sweep 1"]


def test_formats_escape_what_each_needs():
    rows = [HEADER, *ROWS, ["4", "two\nlines", "tab\there"]]
    assert to_tsv(rows).splitlines()[0] == "run\tname\tprefill tok/s"
    assert to_tsv(rows).splitlines()[-1] == "4\ttwo lines\ttab here"
    assert list(csv.reader(io.StringIO(to_csv(rows)))) == rows  # commas, quotes, line breaks
    markdown = to_markdown(rows).splitlines()
    assert markdown[0] == "| run | name | prefill tok/s |"
    assert markdown[1] == "| --- | --- | --- |"
    assert markdown[4] == "| 3 | a\\|pipe | -60 % |"
    assert all(line.count("|") - line.count("\\|") == 4 for line in markdown)


def test_ctrl_c_copies_the_selected_rows_with_the_header_as_tsv(qtbot, table):
    QGuiApplication.clipboard().clear()
    _select_rows(table, [0, 2])
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == (
        "run\tname\tprefill tok/s\n1\tplain\t39504\n3\ta|pipe\t-60 %\n")


def test_the_context_menu_copies_as_csv_and_markdown(qtbot, table):
    _select_rows(table, [1, 2])
    copier = copier_of(table)
    menu = copier.menu()
    texts = [a.text() for a in menu.actions()]
    assert texts == ["Copy", "Copy as CSV", "Copy as Markdown"]
    assert all(a.isEnabled() for a in menu.actions())
    copier.csv_action.trigger()
    assert list(csv.reader(io.StringIO(QGuiApplication.clipboard().text()))) == [
        HEADER, ROWS[1], ROWS[2]]
    copier.markdown_action.trigger()
    assert QGuiApplication.clipboard().text() == (
        "| run | name | prefill tok/s |\n| --- | --- | --- |\n"
        '| 2 | a "quoted", name | 15814 |\n| 3 | a\\|pipe | -60 % |\n')
    copier.copy_action.trigger()
    assert QGuiApplication.clipboard().text().startswith("run\tname\tprefill tok/s\n2\t")
    table.selectionModel().clearSelection()
    table.setCurrentIndex(table.model().index(0, 0))
    table.selectionModel().clearSelection()
    assert copier.menu().actions()[0].isEnabled()  # the current cell counts as selected
    install_table_copy(table)  # a second install adds nothing
    assert len(table.findChildren(type(copier))) == 1


@pytest.fixture
def window(qtbot, qapp, qt_loop, tmp_path):
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window, shell = gui_app.build_window(qapp, None, context=AppContext(tmp_path / "r.db"),
                                         settings=settings)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
    shell.shutdown()


def test_every_table_and_chart_of_the_window_has_its_actions(window):
    import pyqtgraph as pg

    views = [v for page in window.pages.values()
             for v in page.findChildren(QTableView) + page.findChildren(QTreeView)]
    assert len(views) >= 10
    assert all(copier_of(v) is not None for v in views), [v.objectName() for v in views]
    plots = [p for page in window.pages.values() for p in page.findChildren(pg.PlotWidget)]
    assert len(plots) >= 8  # 4 live charts, 3 tier charts, the comparison's
    assert all(exporter_of(p) is not None for p in plots)
    assert all(exporter_of(p).button.isVisibleTo(p) for p in plots)


def _chart(qtbot) -> LiveChart:
    chart = LiveChart("Decode tok/s per request", "prompt length (tokens)", "tok/s")
    qtbot.addWidget(chart)
    chart.resize(480, 320)
    chart.set_series("c=1", [512, 2048], [300.0, 280.0])
    chart.show()
    qtbot.waitExposed(chart)
    chart.redraw()
    return chart


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_save_image_writes_the_chart(qtbot, tmp_path, monkeypatch, suffix):
    chart = _chart(qtbot)
    (exporter,) = install_chart_export(chart)
    asked = []

    def choose(parent, title, suggested, filters):
        asked.append(Path(suggested).name)
        name = "chart" if suffix == ".png" else "chart.svg"  # no suffix typed: PNG
        return str(tmp_path / name), filters.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    exporter.save_action.trigger()
    assert asked == ["decode-tok-s-per-request.png"]
    path = tmp_path / f"chart{suffix}"
    assert path.stat().st_size > 1000
    if suffix == ".png":
        image = QImage(str(path))
        # A report-sized image of the chart's shape (it was saved at its size on screen).
        w, h = chart.plot.width(), chart.plot.height()
        assert image.width() == max(MIN_IMAGE_WIDTH, 2 * w)
        assert abs(image.height() / image.width() - h / w) < 0.02
    else:
        _assert_strokes_in_page_coordinates(path, chart.plot.width(), chart.plot.height())


def _assert_strokes_in_page_coordinates(path: Path, width: int, height: int) -> None:
    """Programs other than Qt ignore `vector-effect="non-scaling-stroke"`: a cosmetic stroke
    under a scaling transform came out a hairline (a curve in data units) or a ring that hid
    its marker (a unit circle scaled 8 times). Every such shape is in page coordinates, and
    the markers are circles of a marker's size inside the chart."""
    import re
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    assert root.tag == f"{ns}svg"
    markers = []
    for group in root.iter(f"{ns}g"):
        shapes = [c for c in group if c.get("vector-effect") == "non-scaling-stroke"]
        if not shapes:
            continue
        a, b, c, d, _e, _f = map(float, re.findall(r"[-\d.e]+", group.get("transform")))
        assert (a, b, c, d) == (1, 0, 0, 1), group.get("transform")
        if group.get("fill") not in (None, "none") and group.get("stroke") == "#ffffff":
            markers += [s for s in shapes if s.tag == f"{ns}path"]
    assert len(markers) >= 2  # the series' points (and their legend samples)
    for marker in markers:
        numbers = [float(x) for x in re.findall(r"[-\d.]+", marker.get("d"))]
        xs, ys = numbers[0::2], numbers[1::2]
        assert 4 <= max(xs) - min(xs) <= 20 and 4 <= max(ys) - min(ys) <= 20
        assert 0 <= min(xs) and max(xs) <= width and 0 <= min(ys) and max(ys) <= height


def test_copy_image_puts_the_chart_on_the_clipboard(qtbot):
    chart = _chart(qtbot)
    exporter = ChartExporter(chart.plot)
    QGuiApplication.clipboard().clear()
    exporter.copy_action.trigger()
    image = QGuiApplication.clipboard().image()
    assert not image.isNull() and image.width() >= MIN_IMAGE_WIDTH


def test_a_saved_chart_offers_to_open_it_in_the_window(window, qtbot, tmp_path, monkeypatch):
    page = window.pages["Throughput"]
    window.show_page_named("Throughput")
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a: (str(tmp_path / "ttft.png"), "")))
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(opened.append))
    assert exporter_of(page.ttft_chart.plot).save_image() == tmp_path / "ttft.png"
    bar = window.written_bar
    assert bar.isVisible() and bar.file == tmp_path / "ttft.png"
    bar.open_file_button.click()
    bar.open_folder_button.click()
    assert opened == [QUrl.fromLocalFile(str(tmp_path / "ttft.png")),
                      QUrl.fromLocalFile(str(tmp_path))]
    chart_export._last_folder.clear()


def test_after_an_export_the_runs_page_offers_to_open_the_file_or_folder(window, tmp_path,
                                                                        monkeypatch):
    runs = window.pages["Runs"]
    window.show_page_named("Runs")
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(opened.append))
    pdf = tmp_path / "comparison-1-2.pdf"
    runs._on_controller_exported([pdf])
    bar = runs.written_bar
    assert bar.isVisible() and bar.open_file_button.isVisible()
    bar.open_file_button.click()
    bar.open_folder_button.click()
    assert opened == [QUrl.fromLocalFile(str(pdf)), QUrl.fromLocalFile(str(tmp_path))]
    # CSV files of two runs, each in its own folder: the folder they were written into.
    files = [tmp_path / "out" / "run-1" / "cells.csv", tmp_path / "out" / "run-1" / "runs.csv",
             tmp_path / "out" / "run-2" / "cells.csv"]
    runs._on_controller_exported(files)
    assert not bar.open_file_button.isVisible() and bar.folder == tmp_path / "out"
    runs._export([1], "csv", tmp_path)  # a new export hides the last one's buttons
    assert not bar.isVisible()


def test_open_result_bar_offers_the_folder_of_one_runs_files(qtbot, tmp_path):
    bar = OpenResultBar()
    qtbot.addWidget(bar)
    bar.show_paths([tmp_path / "run-3" / "cells.csv", tmp_path / "run-3" / "requests.csv"])
    assert bar.file is None and bar.folder == tmp_path / "run-3"
    bar.show_paths([])
    assert bar.isHidden()


def test_open_says_so_when_the_desktop_has_no_program_and_offers_the_path(qtbot, tmp_path,
                                                                         monkeypatch):
    """Where QDesktopServices finds no launcher (openUrl returns False; the buttons did nothing,
    silently), the bar says so and copies the path."""
    from PySide6.QtGui import QGuiApplication

    from desktop_app.gui.widgets import open_result

    opened = []
    monkeypatch.setattr(open_result.QDesktopServices, "openUrl",
                        lambda url: opened.append(url.toLocalFile()) or False)
    bar = OpenResultBar()
    qtbot.addWidget(bar)
    report = tmp_path / "report.pdf"
    bar.show_paths([report])
    bar.show()
    assert not bar.problem.isVisible()
    bar.open_file_button.click()
    assert opened == [str(report)]
    assert bar.problem.isVisible() and str(report) in bar.problem.text()
    bar.copy_button.click()
    assert QGuiApplication.clipboard().text() == str(report)
    bar.open_folder_button.click()
    assert str(tmp_path) in bar.problem.text() and str(report) not in bar.problem.text()
    # Opened where a launcher exists: nothing to say.
    monkeypatch.setattr(open_result.QDesktopServices, "openUrl", lambda url: True)
    bar.open_file_button.click()
    assert not bar.problem.isVisible() and not bar.copy_button.isVisible()
    bar.show_paths([report])  # a new export starts clean
    assert not bar.problem.isVisible()


# ---- columns fit a reopened run


@pytest.fixture(scope="module")
def long_prompt_sweep(tmp_path_factory):
    """A stored sweep with 20480-token prompts (wider than the "input" header) and a falling
    prefill rate (a negative change against 1 concurrent)."""
    db = tmp_path_factory.mktemp("handoff") / "results.db"

    def fill(url: str) -> None:
        config = SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"),
                             input_tokens=(2048, 20480), concurrency=(1, 4),
                             output_tokens=(16,), requests_per_cell=4, warmup=0,
                             name="long prompts", metrics_interval_s=0.2)
        with Store.open(db) as store:
            asyncio.run(run_sweep(config, store))

    with start_simulator("instant") as sim:
        worker = threading.Thread(target=fill, args=(sim.url,))  # not on the Qt loop's thread
        worker.start()
        worker.join(120)
    with Store.open(db) as store:
        (run,) = store.list_runs(kind="throughput")
    return db, run.id


def test_columns_fit_a_run_reopened_after_a_restart(qtbot, qapp, qt_loop, tmp_path,
                                                   long_prompt_sweep):
    db, run_id = long_prompt_sweep
    ini = str(tmp_path / "settings.ini")

    def session():
        settings = Settings(QSettings(ini, QSettings.Format.IniFormat))
        window, shell = gui_app.build_window(qapp, None, context=AppContext(db),
                                             settings=settings)
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        qtbot.waitExposed(window)
        return window, shell

    window, shell = session()  # the first start: nothing shown, the columns fit their headers
    page = window.pages["Throughput"]
    first = [page.table.columnWidth(c) for c in range(page.model.columnCount())]
    window.close()
    shell.shutdown()

    window, shell = session()  # the restart: the widths come back, then a sweep is reopened
    try:
        page = window.pages["Throughput"]
        assert [page.table.columnWidth(c) for c in range(page.model.columnCount())] == first
        page.load_run(run_id)
        qtbot.waitUntil(lambda: page.model.rowCount() == 4, timeout=20_000)
        window.show_page_named("Throughput")
        table, last = page.table, page.model.columnCount() - 1
        needs = {c: max(table.sizeHintForColumn(c),
                        table.horizontalHeader().sectionSizeHint(c)) for c in range(last)}
        assert needs[0] > first[0]  # "20480" is wider than "input": it would show "20..."
        for column, need in needs.items():
            assert table.columnWidth(column) >= need, page.model.headerData(
                column, Qt.Orientation.Horizontal)
    finally:
        window.close()
        shell.shutdown()
