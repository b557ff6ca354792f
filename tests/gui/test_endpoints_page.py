"""The Endpoints page: the built-in simulator, connection tests, saved profiles and keys."""

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.endpoint.profiles import load_profiles
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.endpoints import SIMULATOR_NAME, EndpointsPage
from desktop_app.gui.secrets import ApiKeys, keyring_available
from desktop_app.gui.settings import Settings

CANARY = "sk-CANARY-7c41d2e0a9"
LEFT = Qt.MouseButton.LeftButton


class MemoryKeyring:
    """A stand-in system keyring (duck-typed: the page only calls these three)."""

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service, user):
        return self.saved.get((service, user))

    def set_password(self, service, user, password):
        self.saved[(service, user)] = password

    def delete_password(self, service, user):
        self.saved.pop((service, user), None)


@pytest.fixture
def make_page(qtbot, qt_loop, tmp_path):
    pages = []

    def make(api_keys=None):
        page = EndpointsPage(
            AppContext(tmp_path / "r.db"),
            settings=Settings(QSettings(str(tmp_path / "settings.ini"),
                                        QSettings.Format.IniFormat)),
            profiles_path=tmp_path / "config" / "endpoints.json",
            api_keys=api_keys or ApiKeys(MemoryKeyring()))
        qtbot.addWidget(page)
        page.resize(1100, 720)
        page.show()
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.shutdown()


@pytest.fixture(scope="module")
def sim():
    with start_simulator("instant") as process:
        yield process


def _select(page, name):
    items = [page.list.item(i).text() for i in range(page.list.count())]
    row = next(i for i, text in enumerate(items) if text.startswith(name))
    page.list.setCurrentRow(row)


def test_the_page_opens_with_the_simulator_entry_and_starts_nothing(make_page):
    page = make_page()
    assert page.list.item(0).text().startswith(SIMULATOR_NAME)
    assert page.list.currentRow() == 0 and page.sim_box.isVisible()
    assert not page.form_box.isVisible()
    assert not page.delete_button.isEnabled()
    assert page.controller.simulator_url is None
    assert page.context.endpoint is None
    assert {page.sim_profile.itemText(i) for i in range(page.sim_profile.count())} >= {
        "fast", "seed-reference", "instant"}


def test_choosing_the_simulator_starts_it_and_makes_it_active(make_page, qtbot):
    page = make_page()
    page.sim_profile.setCurrentText("instant")
    with qtbot.waitSignal(page.context.endpoint_changed, timeout=30_000):
        page._on_sim_profile_activated(page.sim_profile.currentIndex())
    endpoint = page.context.endpoint
    assert endpoint.info.simulated and "profile instant" in endpoint.label
    assert endpoint.config.base_url == page.controller.simulator_url
    assert endpoint.config.model in endpoint.info.models
    assert page.active_label.text().endswith(endpoint.label)
    assert "running (profile instant)" in page.sim_status.text()
    # Test connection shows the engine and the models.
    qtbot.mouseClick(page.test_button, LEFT)
    task = page.controller.test_task
    qtbot.waitUntil(lambda: task.done(), timeout=20_000)
    values = page.results.values
    assert values["Status"].text() == "connected"
    assert values["Engine"].text().startswith("vllm") and "simulated" in values["Engine"].text()
    assert "sim/llama-sim-8b" in values["Models"].text()
    assert values["/tokenize"].text().startswith("yes")
    assert values["/metrics"].text() == "yes"
    assert values["Tool calling"].text() == "yes"


def test_a_new_profile_with_a_bad_url_shows_the_error_and_saves_nothing(make_page, qtbot,
                                                                      tmp_path):
    page = make_page()
    qtbot.mouseClick(page.new_button, LEFT)
    assert page.form_box.isVisible()
    page.name_edit.setText("box")
    page.url_edit.setText("localhost:8000")
    qtbot.mouseClick(page.save_button, LEFT)
    assert page.url_error.isVisible()
    assert page.url_error.text().startswith("base URL: no scheme")
    assert not (tmp_path / "config" / "endpoints.json").exists()
    page.url_edit.setText("")
    qtbot.mouseClick(page.test_button, LEFT)
    assert page.url_error.text().startswith("base URL: empty")
    assert page.controller.test_task is None


def test_a_saved_profile_is_tested_used_and_its_key_never_written(make_page, qtbot, tmp_path,
                                                                   sim, caplog):
    caplog.set_level(logging.DEBUG)
    keyring = MemoryKeyring()
    page = make_page(ApiKeys(keyring))
    qtbot.mouseClick(page.new_button, LEFT)
    page.name_edit.setText("local sim")
    page.url_edit.setText(sim.url + "/v1")
    page.key_edit.setText(CANARY)
    qtbot.mouseClick(page.save_button, LEFT)
    assert page.list.currentItem().text() == "local sim"
    qtbot.mouseClick(page.test_button, LEFT)
    task = page.controller.test_task
    qtbot.waitUntil(lambda: task.done(), timeout=20_000)
    assert page.results.values["Status"].text() == "connected"
    # The served model, its two SQL personas and the five misbehaving ones.
    assert page.model_combo.count() == 8 and page.model_combo.currentText()
    assert page.engine_label.text() == "vllm"
    with qtbot.waitSignal(page.context.endpoint_changed):
        qtbot.mouseClick(page.use_button, LEFT)
    endpoint = page.context.endpoint
    assert endpoint.config.api_key == CANARY  # in memory, for the runs
    assert CANARY not in endpoint.label
    saved = load_profiles(tmp_path / "config" / "endpoints.json").profiles
    assert [(p.name, p.engine) for p in saved] == [("local sim", "vllm")]
    assert keyring.saved == {("throughline-endpoint", "local sim"): CANARY}
    page.shutdown()
    page._settings.sync()
    # A second page (the next session) finds the key in the keyring.
    again = make_page(ApiKeys(keyring))
    _select(again, "local sim")
    assert again.key_edit.text() == CANARY
    again._settings.sync()

    written = [f for root in (tmp_path, Path(os.environ["HOME"])) for f in root.rglob("*")
               if f.is_file()]
    assert any(f.name == "endpoints.json" for f in written)
    assert any(f.name == "settings.ini" for f in written)
    assert [f for f in written if CANARY.encode() in f.read_bytes()] == []
    assert CANARY not in caplog.text


def test_a_new_profile_tested_then_saved_keeps_its_test(make_page, qtbot, sim):
    """Test connection, then Save: the pane kept saying "connected" (it reset to "not
    tested", #30)."""
    page = make_page()
    qtbot.mouseClick(page.new_button, LEFT)
    page.name_edit.setText("tested first")
    page.url_edit.setText(sim.url + "/v1")
    qtbot.mouseClick(page.test_button, LEFT)
    task = page.controller.test_task
    qtbot.waitUntil(lambda: task.done(), timeout=20_000)
    assert page.results.values["Status"].text() == "connected"
    qtbot.mouseClick(page.save_button, LEFT)
    assert page.list.currentItem().text() == "tested first"
    assert page.results.values["Status"].text() == "connected"
    assert page.engine_label.text() == "vllm"


def test_without_a_keyring_the_key_stays_in_memory_and_the_page_says_so(make_page, qtbot,
                                                                        tmp_path):
    from keyring.backends import fail

    assert not keyring_available(fail.Keyring())
    page = make_page(ApiKeys(fail.Keyring()))
    qtbot.mouseClick(page.new_button, LEFT)
    assert "memory for this session only" in page.key_note.text()
    page.name_edit.setText("remote")
    page.url_edit.setText("https://api.example.com/v1")
    page.key_edit.setText(CANARY)
    qtbot.mouseClick(page.save_button, LEFT)
    qtbot.mouseClick(page.new_button, LEFT)
    page.name_edit.setText("other")
    page.url_edit.setText("http://localhost:9")
    qtbot.mouseClick(page.save_button, LEFT)
    assert page.key_edit.text() == ""
    _select(page, "remote")
    assert page.key_edit.text() == CANARY  # kept for the session
    written = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert [f for f in written if CANARY.encode() in f.read_bytes()] == []


def test_a_corrupt_profiles_file_is_reported_and_the_page_works(make_page, qtbot, tmp_path):
    path = tmp_path / "config" / "endpoints.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    page = make_page()
    assert page.banner.isVisible()
    assert "endpoints.json.bad" in page.banner.text() and "\n" not in page.banner.text()
    assert (tmp_path / "config" / "endpoints.json.bad").read_text() == "{ not json"
    qtbot.mouseClick(page.new_button, LEFT)
    page.name_edit.setText("fresh")
    page.url_edit.setText("http://localhost:9")
    qtbot.mouseClick(page.save_button, LEFT)
    assert [p.name for p in load_profiles(path).profiles] == ["fresh"]
    assert (tmp_path / "config" / "endpoints.json.bad").read_text() == "{ not json"


def test_the_page_opens_alone_as_a_module():
    code = ("import sys; sys.argv = ['x']; from PySide6.QtCore import QTimer;"
            "from PySide6.QtWidgets import QApplication; app = QApplication(sys.argv);"
            "QTimer.singleShot(300, app.quit);"
            "from desktop_app.gui.pages import endpoints; sys.exit(endpoints.main())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
