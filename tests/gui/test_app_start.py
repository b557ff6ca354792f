"""Starting the app: the built-in simulated endpoint comes up in a process of its own."""

import os

import httpx
from PySide6.QtCore import QSettings

from desktop_app.core.store import Store, resolve_db_path
from desktop_app.gui import app as gui_app
from desktop_app.gui.settings import Settings


def test_app_starts_the_simulator_and_shows_where_it_serves(qtbot, qapp, qt_loop, tmp_path, monkeypatch):
    monkeypatch.setattr(
        gui_app, "Settings",
        lambda: Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)),
    )
    window, simulator = gui_app.build_window(qapp, "fast")
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: simulator.task is not None and simulator.task.done(), timeout=20_000)
        assert simulator.url, window.endpoint_label.text()
        assert simulator.url in window.endpoint_label.text()
        assert "simulated" in window.endpoint_label.text()
        # It is a real endpoint, and not in this process.
        version = httpx.get(f"{simulator.url}/version", timeout=5).json()
        assert version["simulated"] is True and version["profile"] == "fast"
        assert simulator._process.pid != os.getpid()
    finally:
        simulator.stop()
    assert simulator.url is None


def test_a_profile_that_does_not_exist_is_reported_in_the_status_bar(qtbot, qapp, qt_loop, tmp_path, monkeypatch):
    monkeypatch.setattr(
        gui_app, "Settings",
        lambda: Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)),
    )
    window, simulator = gui_app.build_window(qapp, "no-such-profile")
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: simulator.task.done(), timeout=20_000)
    assert "simulator failed" in window.endpoint_label.text()
    assert "no-such-profile" in window.endpoint_label.text()


def test_start_up_marks_runs_of_dead_processes_interrupted():
    path = resolve_db_path(None)
    with Store.open(path) as store:
        run_id = store.create_run("throughput", name="left behind", config={})
        store.db.execute("UPDATE runs SET pid = 999999999 WHERE id = ?", (run_id,))
        store.db.conn.commit()
    line = gui_app.check_store()
    assert "1 interrupted" in line
    with Store.open(path) as store:
        assert store.get_run(run_id).status == "interrupted"
