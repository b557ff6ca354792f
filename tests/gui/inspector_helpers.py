"""What the Inspector's tests share: an Inspector page on a copy of a stored results file, and
a wait for the page's task."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSettings

from desktop_app import paths
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.inspector import InspectorPage
from desktop_app.gui.settings import Settings


def inspector_page(db: Path, cache: Path, tmp_path: Path, qtbot) -> InspectorPage:
    """An Inspector on its own copy of `db` (a test may re-judge or change it), shown at a size
    where every part is laid out."""
    own_db = tmp_path / "r.db"
    shutil.copy(db, own_db)
    context = AppContext(own_db, sets_dir=paths.questions_dir(), cache_dir=cache)
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    widget = InspectorPage(context, settings)
    qtbot.addWidget(widget)
    widget.resize(1100, 720)
    widget.show()
    return widget


def wait_done(qtbot, task, timeout_ms: int = 15000) -> None:
    """Wait for `task` to finish, and fail on its error."""
    assert task is not None
    qtbot.waitUntil(task.done, timeout=timeout_ms)
    assert task.exception() is None
