"""Results a user can hand on: one call gives every table and chart in a widget its copy and
save actions (`table_copy`, `chart_export`).

The main window calls `install_handoff` on each page as the page is built; a page or dialog
that creates tables or charts later calls it on them (or on itself: what has the actions
already is skipped).
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget

from desktop_app.gui.widgets.table_copy import install_table_copy


def install_handoff(widget: QWidget) -> None:
    """Copy on every table and tree view, Save image / Copy image on every chart in `widget`."""
    install_table_copy(widget)
    if "pyqtgraph" in sys.modules:  # else no chart can exist yet: keep start-up free of it
        from desktop_app.gui.widgets.chart_export import install_chart_export

        install_chart_export(widget)
