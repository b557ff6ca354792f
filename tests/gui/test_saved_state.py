"""Window state is remembered: geometry, splitters and table columns come back in a new window."""

from pathlib import Path

from PySide6.QtCore import QPoint, QSettings, Qt

from desktop_app.gui import app as gui_app
from desktop_app.gui.context import AppContext
from desktop_app.gui.settings import Settings


def _open(qapp, qtbot, tmp_path: Path):
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window, shell = gui_app.build_window(qapp, None, context=AppContext(tmp_path / "r.db"),
                                         settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window, shell


def _drag_column_edge(qtbot, view, column: int, width: int) -> None:
    """Drag the right edge of `column`'s header until it is `width` wide, as a user does."""
    header = view.horizontalHeader()
    edge = QPoint(header.sectionViewportPosition(column) + header.sectionSize(column) - 1,
                  header.height() // 2)
    end = edge + QPoint(width - header.sectionSize(column), 0)
    qtbot.mousePress(header.viewport(), Qt.MouseButton.LeftButton, pos=edge)
    qtbot.mouseMove(header.viewport(), (edge + end) / 2)
    qtbot.mouseMove(header.viewport(), end)
    qtbot.mouseRelease(header.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert header.sectionSize(column) == width


def _close(window, shell) -> None:
    assert window.close()  # saves, as closing the app does
    shell.shutdown()


def test_columns_splitters_and_geometry_come_back(qtbot, qapp, qt_loop, tmp_path):
    window, shell = _open(qapp, qtbot, tmp_path)
    try:
        # Offscreen the screen is 800 px wide, narrower than the pages' minimum: a restored
        # window is fitted to the screen, so only the minimum width comes back as it was.
        window.resize(window.minimumSizeHint().width(), 760)
        size = (window.width(), window.height())
        runs, sql, throughput = (window.pages[t] for t in ("Runs", "SQL Agent", "Throughput"))
        inspector = window.pages["Inspector"]
        window.show_page_named("Throughput")
        _drag_column_edge(qtbot, throughput.table, 0, 97)
        window.show_page_named("SQL Agent")
        _drag_column_edge(qtbot, sql.table, 1, 121)
        window.show_page_named("Runs")
        _drag_column_edge(qtbot, runs.table, 2, 333)  # the user widens "Name"
        sql.table.horizontalHeader().moveSection(5, 0)  # and drags a column to the front
        sql.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # and sorts by tier
        runs.splitter.setSizes([150, 450])
        runs.comparison.sql_splitter.setSizes([700, 300])
        inspector.splitter.setSizes([300, 700])
        window.splitter.setSizes([230, 900])
        sizes = {"runs": runs.splitter.sizes(), "inspector": inspector.splitter.sizes(),
                 "compare": runs.comparison.sql_splitter.sizes(),
                 "window": window.splitter.sizes()}
        moved = sql.table.horizontalHeader().logicalIndex(0)
        # Forms typed into but never started are remembered as typed.
        throughput.input_tokens.setText("512, 4k")
        sql.ids_edit.setText("m01, h02")
        inspector.tolerance_edit.setText("0.005")
    finally:
        _close(window, shell)

    again, shell = _open(qapp, qtbot, tmp_path)  # a fresh window on the same settings
    try:
        assert (again.width(), again.height()) == size
        assert again.current_page_title() == "Runs"
        runs, sql, throughput = (again.pages[t] for t in ("Runs", "SQL Agent", "Throughput"))
        assert runs.table.columnWidth(2) == 333
        assert sql.table.columnWidth(1) == 121
        assert throughput.table.columnWidth(0) == 97
        assert sql.table.horizontalHeader().logicalIndex(0) == moved == 5
        assert sql.proxy.sortColumn() == 1
        assert sql.proxy.sortOrder() == Qt.SortOrder.DescendingOrder
        assert runs.splitter.sizes() == sizes["runs"]
        assert runs.comparison.sql_splitter.sizes() == sizes["compare"]
        assert again.pages["Inspector"].splitter.sizes() == sizes["inspector"]
        assert again.splitter.sizes() == sizes["window"]
        assert throughput.input_tokens.text() == "512, 4k"
        assert sql.ids_edit.text() == "m01, h02"
        assert again.pages["Inspector"].tolerance_edit.text() == "0.005"
        # Widths the user chose are kept when new rows arrive (they are not refitted).
        qtbot.waitUntil(lambda: runs.controller.tasks.get("refresh") is not None
                        and runs.controller.tasks["refresh"].done(), timeout=10_000)
        runs.columns.fit()
        assert runs.table.columnWidth(2) == 333
    finally:
        _close(again, shell)


def test_columns_fit_their_contents_until_the_user_sizes_one(qtbot, qapp, qt_loop, tmp_path):
    window, shell = _open(qapp, qtbot, tmp_path)
    try:
        window.show_page_named("SQL Agent")
        page = window.pages["SQL Agent"]
        fitter = page.columns
        header = page.table.horizontalHeader()
        page.table.setColumnHidden(3, True)  # not the user: the fitting goes on
        page.table.setColumnHidden(3, False)
        assert not fitter.user_sized  # nothing remembered: the columns follow their contents
        edge = QPoint(header.sectionViewportPosition(0) + header.sectionSize(0) - 1,
                      header.height() // 2)
        wider = header.sectionSize(0) + 60
        qtbot.mousePress(header.viewport(), Qt.MouseButton.LeftButton, pos=edge)
        qtbot.mouseMove(header.viewport(), edge + QPoint(30, 0))
        qtbot.mouseMove(header.viewport(), edge + QPoint(60, 0))
        qtbot.mouseRelease(header.viewport(), Qt.MouseButton.LeftButton,
                           pos=edge + QPoint(60, 0))
        assert fitter.user_sized
        assert header.sectionSize(0) == wider
        fitter.fit()
        assert header.sectionSize(0) == wider
    finally:
        _close(window, shell)


def test_state_is_stored_as_text_and_bad_state_is_ignored(qtbot, qapp, qt_loop, tmp_path):
    window, shell = _open(qapp, qtbot, tmp_path)
    _close(window, shell)
    raw = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    assert isinstance(raw.value("runs/splitter"), str)  # base64: safe in any QSettings backend
    raw.setValue("runs/splitter", "not base64 state!")
    raw.setValue("window/geometry", "")
    raw.sync()
    again, shell = _open(qapp, qtbot, tmp_path)  # opens with the defaults, no error
    try:
        assert len(again.pages["Runs"].splitter.sizes()) == 2
    finally:
        _close(again, shell)


def test_the_window_fits_a_1024_pixel_screen_in_both_languages(qtbot, qapp, qt_loop, tmp_path):
    """#30: every page built, the window could not be narrower than 1,304 px (the What-if
    charts side by side, the Runs filters on one line), wider than a 1024x700 screen."""
    from desktop_app.gui import i18n

    for language in ("en", "zh_CN"):
        translators = i18n.install_translators(qapp, language) if language != "en" else []
        (tmp_path / language).mkdir()
        window, shell = _open(qapp, qtbot, tmp_path / language)
        try:
            window.ensure_pages()
            width, height = window.minimumSizeHint().toTuple()
            assert width <= 1024 and height <= 700, (language, width, height)
        finally:
            _close(window, shell)
            i18n.remove_translators(qapp, translators)
