"""Runs that identify themselves (issue #11): the name, note and server settings typed on the
Throughput and SQL Agent pages are stored with the run, a bad settings text is named and starts
nothing, and an imported run whose load is unknown can be browsed."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.throughput.records import load_sweep, request_ids, requests_by_id
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.server_settings import user_settings_from_stored
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.exchange import import_file
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.models.requests import RequestsTableModel
from desktop_app.gui.pages.sql_agent import SqlAgentPage
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings

IMPORTS = Path(__file__).parents[1] / "core" / "data" / "imports"
NOTE = "after the driver update\nprefix caching off"


@pytest.fixture(scope="module")
def sim():
    with start_simulator("instant") as process:
        # The Qt loop counts as running here: discover on a loop of its own, in a thread.
        with ThreadPoolExecutor(1) as pool:
            info = pool.submit(asyncio.run, discover(EndpointConfig(process.url))).result()
        yield process, info


def _settings(tmp_path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def _throughput_page(qtbot, tmp_path, sim) -> ThroughputPage:
    process, info = sim
    context = AppContext(tmp_path / "r.db")
    context.set_endpoint(ActiveEndpoint(EndpointConfig(process.url, model=info.models[0]), info,
                                        "simulator"))
    page = ThroughputPage(context, _settings(tmp_path))
    qtbot.addWidget(page)
    page.show()
    return page


def _sql_page(qtbot, tmp_path, sim, context=None) -> SqlAgentPage:
    process, info = sim
    if context is None:
        context = AppContext(tmp_path / "r.db", cache_dir=tmp_path / "db")
        context.set_endpoint(ActiveEndpoint(
            EndpointConfig(process.url, model="sim/seed-reference"), info, "simulator"))
    page = SqlAgentPage(context, _settings(tmp_path))
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    return page


def _type(qtbot, edit, text: str) -> None:
    edit.clear()
    for i, line in enumerate(text.split("\n")):
        if i:
            qtbot.keyClick(edit, Qt.Key.Key_Return)
        qtbot.keyClicks(edit, line)


def _typed_settings(config: dict) -> dict:
    return user_settings_from_stored(config["server_settings"],
                                     config.get("server_settings_source", {}))


# ---------------------------------------------------------------------- Throughput page


def test_a_sweep_is_stored_with_the_name_note_and_settings_typed(qtbot, qt_loop, tmp_path, sim):
    page = _throughput_page(qtbot, tmp_path, sim)
    model = sim[1].models[0]
    _type(qtbot, page.input_tokens, "128")
    _type(qtbot, page.concurrency, "1")
    _type(qtbot, page.output_tokens, "8")
    _type(qtbot, page.requests_per_cell, "2")
    page.warmup.setValue(0)
    # Left empty, the run would be named as the grey text says.
    assert page.run_name.placeholderText() == f"{model} 128 tokens c=1"
    _type(qtbot, page.run_name, "baseline before the upgrade")
    _type(qtbot, page.run_notes, NOTE)
    _type(qtbot, page.server_settings, "max-num-seqs=2, driver=r550")
    assert page.start_button.isEnabled()
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    task = page.controller.task
    qtbot.waitUntil(task.done, timeout=60_000)
    assert task.exception() is None
    with Store.open(tmp_path / "r.db") as store:
        run = store.get_run(page.controller.run_id)
    assert run.status == "completed"
    assert run.name == "baseline before the upgrade"
    assert run.notes == NOTE
    assert _typed_settings(run.config) == {"max_num_seqs": 2, "driver": "r550"}
    assert run.config["server_settings"]["driver"] == "r550"

    # The form comes back as typed when the page opens again (as the window does on start).
    again = ThroughputPage(page.context, page.settings)
    qtbot.addWidget(again)
    assert again.run_name.text() == "baseline before the upgrade"
    assert again.run_notes.toPlainText() == NOTE
    assert again.server_settings.text() == "max-num-seqs=2, driver=r550"


def test_bad_server_settings_are_named_and_start_nothing(qtbot, qt_loop, tmp_path, sim):
    page = _throughput_page(qtbot, tmp_path, sim)
    assert page.start_button.isEnabled()
    _type(qtbot, page.server_settings, "max-num-seqs=2, bogus")
    error = page._errors["server settings"]
    assert error.isVisible()
    assert error.text().startswith("server settings:"), error.text()
    assert "'bogus'" in error.text()
    assert not page.start_button.isEnabled()
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    page._on_start_clicked()  # as a press of Enter would, past the disabled button
    assert page.controller.task is None
    assert page.server_settings.text() == "max-num-seqs=2, bogus"  # nothing typed is lost
    with Store.open(tmp_path / "r.db") as store:
        assert store.list_runs() == []
    _type(qtbot, page.server_settings, "max-num-seqs=2")
    assert not error.isVisible() and page.start_button.isEnabled()


# ---------------------------------------------------------------------- SQL Agent page


def test_a_sql_run_is_stored_with_the_name_note_and_settings_typed(qtbot, qt_loop, tmp_path,
                                                                   sim):
    page = _sql_page(qtbot, tmp_path, sim)
    assert page.name_edit.placeholderText() == "sim/seed-reference sales-25"
    for tier, box in page.tier_boxes.items():
        box.setChecked(tier == "medium")
    _type(qtbot, page.ids_edit, "m01")
    _type(qtbot, page.name_edit, "seed reference, m01 only")
    _type(qtbot, page.notes_edit, NOTE)
    _type(qtbot, page.server_settings_edit, "gpu-memory-utilization=0.91\n")
    assert page.error_label.text() == "" and page.start_button.isEnabled()
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=30_000)
    assert page.controller.task.exception() is None
    assert [r.question_id for r in page.model.rows()] == ["m01"]
    with Store.open(tmp_path / "r.db") as store:
        run = store.get_run(page.run_id)
    assert run.name == "seed reference, m01 only"
    assert run.notes == NOTE
    assert _typed_settings(run.config) == {"gpu_memory_utilization": 0.91}

    again = _sql_page(qtbot, tmp_path, sim, context=page.context)
    assert again.name_edit.text() == "seed reference, m01 only"
    assert again.notes_edit.toPlainText() == NOTE
    assert again.server_settings_edit.text() == "gpu-memory-utilization=0.91"


def test_bad_sql_server_settings_are_named_and_start_nothing(qtbot, qt_loop, tmp_path, sim):
    page = _sql_page(qtbot, tmp_path, sim)
    assert page.start_button.isEnabled()
    _type(qtbot, page.server_settings_edit, "max-num-seqs")
    assert page.error_label.text().startswith("server settings:"), page.error_label.text()
    assert "'max-num-seqs'" in page.error_label.text()
    assert page.server_settings_edit.styleSheet()  # the field is marked
    assert not page.start_button.isEnabled()
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    page._on_start_clicked()
    assert not page.controller.running and page.controller.task is None
    assert page.server_settings_edit.text() == "max-num-seqs"
    _type(qtbot, page.server_settings_edit, "max-num-seqs=4")
    assert page.error_label.text() == "" and page.start_button.isEnabled()
    assert not page.server_settings_edit.styleSheet()


# ---------------------------------------------------------------------- imported runs


def test_requests_of_an_imported_run_without_its_load_can_be_browsed(qtbot, tmp_path):
    # AIPerf's records alone (no profile_export_aiperf.json beside them) do not say the load.
    alone = tmp_path / "profile_export.jsonl"
    alone.write_text((IMPORTS / "profile_export.jsonl").read_text(encoding="utf-8"),
                     encoding="utf-8")
    with Store.open(tmp_path / "r.db") as store:
        run_id = import_file(store, alone)
        cells = store.cells(run_id)
        assert cells[0].concurrency is None and cells[0].request_rate is None
        model = RequestsTableModel()
        model.set_requests(request_ids(store, run_id),
                           lambda ids: requests_by_id(store, ids),
                           load_sweep(store, run_id, requests=False).cells)  # as the page does
        assert model.rowCount() == 8
        texts = [[model.index(r, c).data(Qt.ItemDataRole.DisplayRole)
                  for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert all(isinstance(t, str) for row in texts for t in row)
    assert texts[0][0] == "1024 / load unknown / 128"


def test_a_sql_form_error_is_said_in_the_windows_language(qtbot, qt_loop, tmp_path, sim):
    """#27: the SQL form showed the core's English (`concurrency: 'x' is not a whole number`)
    in a Chinese window; the throughput form already said it in Chinese."""
    from PySide6.QtCore import QLocale

    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    try:
        page = _sql_page(qtbot, tmp_path, sim)
        _type(qtbot, page.concurrency_edit, "x")
        said = page.error_label.text()
        assert said == "并发数：'x' 不是整数（示例：512、2048、4k）", said
        assert not page.start_button.isEnabled()
        page.grab().save(str(tmp_path / "sql-form-error-zh.png"))
    finally:
        QLocale.setDefault(before)
    _type(qtbot, page.concurrency_edit, "y")
    assert page.error_label.text() == "concurrency: 'y' is not a whole number (examples: 512, 2048, 4k)"
