"""Start and Stop stay in sight on a short window (#30: at the default 1304x720 they were below
the fold of both run forms, inside the scrolling form)."""

import pytest
from PySide6.QtCore import QPoint, QSettings

from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.sql_agent import SqlAgentPage
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings


@pytest.mark.parametrize("page_class", [ThroughputPage, SqlAgentPage])
def test_start_is_in_sight_on_a_short_window(qtbot, qt_loop, tmp_path, page_class):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    page = page_class(AppContext(tmp_path / "r.db", cache_dir=tmp_path / "db"), settings)
    qtbot.addWidget(page)
    page.resize(1100, 560)
    page.show()
    qtbot.waitExposed(page)
    for button in (page.start_button, page.stop_button):
        corner = button.mapTo(page, QPoint(button.width(), button.height()))
        assert button.isVisible() and page.rect().contains(corner), (button.text(), corner)
        assert button.visibleRegion().boundingRect().size() == button.size()  # not scrolled off
