"""The main window: pages reachable from the sidebar and shortcuts, state remembered."""

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

from desktop_app.gui.main_window import PAGES, MainWindow
from desktop_app.gui.settings import Settings


def _settings(tmp_path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def test_every_page_is_reachable_by_sidebar_and_shortcut(qtbot, tmp_path):
    window = MainWindow(_settings(tmp_path))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert [window.sidebar.item(i).text().split("\t")[0] for i in range(len(PAGES))] == [
        "Endpoints", "Throughput", "SQL Agent", "Runs", "Inspector"
    ]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # shortcuts reach only the active window
    window.sidebar.setCurrentRow(3)
    assert window.current_page_title() == "Runs"
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.current_page_title() == "Throughput"


def test_size_and_last_page_are_remembered(qtbot, tmp_path):
    settings = _settings(tmp_path)
    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.show()
    first.resize(700, 500)  # the offscreen screen is 800x600
    first.show_page(2)
    first.close()
    second = MainWindow(_settings(tmp_path))
    qtbot.addWidget(second)
    assert second.current_page_title() == "SQL Agent"
    assert (second.width(), second.height()) == (700, 500)


def test_settings_refuse_undeclared_keys(tmp_path):
    import pytest

    with pytest.raises(KeyError):
        _settings(tmp_path).set_value("run/last_config", "{}")


def test_pages_from_factories_are_built_on_first_show(qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel

    from desktop_app.gui.pages.placeholder import PlaceholderPage

    built = []

    def factory(title):
        def make():
            built.append(title)
            return QLabel(f"real {title}")
        return make

    window = MainWindow(_settings(tmp_path),
                        page_factories={"Throughput": factory("Throughput"),
                                        "Runs": factory("Runs")})
    qtbot.addWidget(window)
    assert built == [] and isinstance(window.pages["Throughput"], PlaceholderPage)
    assert window.pending_pages() == ["Throughput", "Runs"]
    window.show()
    qtbot.waitExposed(window)
    window.show_page_named("Runs")
    assert built == ["Runs"]
    assert window.stack.currentWidget() is window.pages["Runs"]
    assert window.pages["Runs"].text() == "real Runs"
    window.ensure_pages()
    assert built == ["Runs", "Throughput"] and window.pending_pages() == []
    assert window.stack.indexOf(window.pages["Throughput"]) == 1
    assert window.current_page_title() == "Runs"  # building another page did not switch


def test_build_pages_later_builds_them_after_the_first_paint(qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel

    built = []

    def make(title):
        return lambda: built.append(title) or QLabel(title)

    settings = _settings(tmp_path)
    settings.set_value("window/last_page", 3)  # reopens on Runs: built first
    window = MainWindow(settings, page_factories={t: make(t) for t in ("Endpoints", "Runs")})
    qtbot.addWidget(window)
    window.build_pages_later()
    assert built == []  # not before the window shows
    window.show()
    qtbot.waitUntil(lambda: not window.pending_pages(), timeout=5000)
    assert built == ["Runs", "Endpoints"]
    assert window.stack.currentWidget() is window.pages["Runs"]
