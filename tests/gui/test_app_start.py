"""Starting the app: every page in place, the built-in simulated endpoint active."""

import os

import httpx
from PySide6.QtCore import QSettings

from desktop_app.core.store import Store, resolve_db_path
from desktop_app.gui import app as gui_app
from desktop_app.gui.context import AppContext
from desktop_app.gui.main_window import PAGES
from desktop_app.gui.pages.placeholder import PlaceholderPage
from desktop_app.gui.settings import Settings


def _window(qapp, tmp_path, profile):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    context = AppContext(tmp_path / "r.db")
    window, shell = gui_app.build_window(qapp, profile, context=context, settings=settings)
    return window, shell, context


def test_the_app_starts_on_the_simulator_with_every_page(qtbot, qapp, qt_loop, tmp_path):
    window, shell, context = _window(qapp, tmp_path, "fast")
    qtbot.addWidget(window)
    try:
        assert not any(isinstance(window.pages[p.title], PlaceholderPage) for p in PAGES)
        qtbot.waitUntil(lambda: context.endpoint is not None, timeout=30_000)
        label = window.endpoint_label.text()
        assert "simulated" in label.lower() or "simulator" in label.lower(), label
        url = context.endpoint.config.base_url
        assert url.rstrip("/").removesuffix("/v1") in label or "127.0.0.1" in label, label
        # It is a real endpoint, and not in this process.
        version = httpx.get(f"{context.endpoint.config.root_url}/version", timeout=5).json()
        assert version["simulated"] is True and version["profile"] == "fast"
        assert version.get("pid", None) != os.getpid()
    finally:
        shell.shutdown()
    controller = window.pages["Endpoints"].controller
    assert controller.simulator_url is None


def test_a_simulator_profile_that_does_not_exist_is_reported(qtbot, qapp, qt_loop, tmp_path):
    window, shell, context = _window(qapp, tmp_path, "no-such-profile")
    qtbot.addWidget(window)
    try:
        page = window.pages["Endpoints"]
        qtbot.waitUntil(lambda: "failed" in page.sim_status.text(), timeout=30_000)
        assert "no-such-profile" in page.sim_status.text()
        assert context.endpoint is None
    finally:
        shell.shutdown()


def test_run_app_paints_before_building_the_pages(qtbot, qapp, qt_loop, tmp_path):
    # run_app's way: placeholders first, the real pages (and the simulator) after the paint.
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    context = AppContext(tmp_path / "r.db")
    window, shell = gui_app.build_window(qapp, "instant", context=context, settings=settings,
                                         eager=False)
    qtbot.addWidget(window)
    try:
        assert all(isinstance(window.pages[p.title], PlaceholderPage) for p in PAGES)
        window.show()
        qtbot.waitUntil(lambda: not window.pending_pages(), timeout=30_000)
        assert not any(isinstance(window.pages[p.title], PlaceholderPage) for p in PAGES)
        assert window.stack.currentWidget() is window.pages["Endpoints"]
        qtbot.waitUntil(lambda: context.endpoint is not None, timeout=30_000)
        window.show_page_named("Runs")
        assert window.stack.currentWidget() is window.pages["Runs"]
    finally:
        shell.shutdown()
    assert window.pages["Endpoints"].controller.simulator_url is None


def test_importing_the_app_leaves_the_heavy_modules_for_later():
    import subprocess
    import sys

    code = ("import sys, desktop_app.gui.app, desktop_app.gui.secrets as s; "
            "s.ApiKeys(); "
            "print(sorted(m for m in ('pyqtgraph', 'httpx', 'keyring') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_api_keys_look_up_the_keyring_on_first_use(monkeypatch):
    from keyring.backends import fail

    from desktop_app.gui import secrets

    calls = []
    monkeypatch.setattr(secrets, "_default_backend",
                        lambda: calls.append(1) or fail.Keyring())
    keys = secrets.ApiKeys()
    assert calls == []
    keys.set("a", "k")
    assert calls == [1] and not keys.persistent and keys.get("a") == "k"
    assert calls == [1]


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
