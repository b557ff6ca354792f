"""The SQL Agent page: opened alone, a full run by clicks, filters, Stop, and bad input."""

import asyncio
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.store import Store
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.pages.sql_agent import SqlAgentPage
from desktop_app.gui.settings import Settings


@pytest.fixture(scope="module")
def sim():
    with start_simulator("instant") as process:
        # The Qt loop counts as running here: discover on a loop of its own, in a thread.
        with ThreadPoolExecutor(1) as pool:
            info = pool.submit(asyncio.run, discover(EndpointConfig(process.url))).result()
        yield process, info


def _page(qtbot, tmp_path, sim=None) -> SqlAgentPage:
    context = AppContext(tmp_path / "r.db", cache_dir=tmp_path / "db")
    if sim is not None:
        process, info = sim
        context.set_endpoint(ActiveEndpoint(
            EndpointConfig(process.url, model="sim/seed-reference"), info, "simulator"))
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    page = SqlAgentPage(context, settings)
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    return page


def _set_text(qtbot, edit, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


def test_the_page_opens_alone():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "desktop_app.gui.pages.sql_agent", "--smoke"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_without_an_endpoint_start_is_disabled_and_says_why(qtbot, qt_loop, tmp_path):
    page = _page(qtbot, tmp_path)
    assert not page.start_button.isEnabled()
    assert page.error_label.text().startswith("endpoint:")
    assert page.set_combo.findData("sales-25") >= 0


def test_a_bad_value_names_the_field_and_keeps_start_disabled(qtbot, qt_loop, tmp_path, sim):
    page = _page(qtbot, tmp_path, sim)
    assert page.start_button.isEnabled()
    for edit, text, field in ((page.max_steps_edit, "0", "max steps"),
                              (page.max_steps_edit, "many", "max steps"),
                              (page.concurrency_edit, "-2", "concurrency"),
                              (page.tolerance_edit, "loose", "tolerance"),
                              (page.retries_edit, "-1", "retries"),
                              (page.retries_edit, "99", "retries")):
        good = edit.text()
        _set_text(qtbot, edit, text)
        assert page.error_label.text().startswith(f"{field}:"), page.error_label.text()
        assert not page.start_button.isEnabled()
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
        assert not page.controller.running
        _set_text(qtbot, edit, good)
        assert page.error_label.text() == "" and page.start_button.isEnabled()
    _set_text(qtbot, page.retries_edit, "3")
    assert page._validate().retries == 3
    for box in page.tier_boxes.values():
        box.setChecked(False)
    assert page.error_label.text().startswith("tiers:") and not page.start_button.isEnabled()


def test_a_full_run_by_clicks_fills_the_table_filters_and_opens_questions(
        qtbot, qt_loop, tmp_path, sim):
    page = _page(qtbot, tmp_path, sim)
    # This run once stalled for good late in a full suite, when its results came back through
    # qasync's cross-thread wake-ups; the evaluation now runs on the worker loop (gui.worker).
    _set_text(qtbot, page.concurrency_edit, "4")
    finished = []
    page.context.run_finished.connect(lambda run_id, kind: finished.append((run_id, kind)))
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert page.controller.running and page.stop_button.isEnabled()
    assert not page.start_button.isEnabled()
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=60000)

    assert page.model.rowCount() == 25
    assert page.model.passed("strict") == 9 and page.model.passed("tolerant") == 22
    assert "strict 9/25" in page.summary_label.text()
    assert "SIMULATED" in page.summary_label.text()
    run_id = page.run_id
    assert finished == [(run_id, "sql")]
    assert page.start_button.isEnabled() and not page.stop_button.isEnabled()

    page.filter_combo.setCurrentText("Fails strict but passes tolerant")
    assert page.proxy.rowCount() == 13
    assert page.shown_label.text() == "13 of 25 shown"
    page.filter_combo.setCurrentText("Failed strict")
    assert page.proxy.rowCount() == 16
    page.tier_filter.setCurrentText("trivial")
    assert page.proxy.rowCount() == 0
    page.tier_filter.setCurrentText("all tiers")

    # Double-click the second visible row: the Inspector is asked for that stored row.
    index = page.proxy.index(1, 0)
    row = page.model.row_at(page.proxy.mapToSource(index).row())
    where = page.table.visualRect(index).center()
    # A view acts on a double-click only on the index the press before it hit, as with a mouse.
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    with qtbot.waitSignal(page.context.open_question_requested, timeout=2000) as blocker:
        qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert blocker.args == [run_id, row.row_id]
    with Store.open(tmp_path / "r.db") as store:
        assert store.get_run(run_id).status == "completed"
        stored = {r["id"]: r for r in store.sql_questions(run_id)}
    assert stored[row.row_id]["question_id"] == row.question_id

    # The stored run loads back into a fresh page when the Runs page asks for it.
    again = _page(qtbot, tmp_path / "again", None)
    again.context.db_path = tmp_path / "r.db"
    again.context.open_run_requested.emit(run_id, "sql")
    qtbot.waitUntil(lambda: again.model.rowCount() == 25, timeout=10000)
    assert again.model.passed("strict") == 9 and again.run_id == run_id
    assert again.model_combo.currentText() == "sim/seed-reference"  # the run's, not a default
    again.filter_combo.setCurrentText("Fails strict but passes tolerant")
    assert again.proxy.rowCount() == 13


def test_stop_mid_run_stores_the_run_cancelled(qtbot, qt_loop, tmp_path, sim):
    page = _page(qtbot, tmp_path, sim)
    _set_text(qtbot, page.concurrency_edit, "1")
    with qtbot.waitSignal(page.controller.question_finished, timeout=30000):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=10000)
    assert page.controller.task.cancelled()
    assert 0 < page.model.rowCount() < 25
    run_id = page.run_id
    assert f"run {run_id} stored as cancelled" in page.status_label.text()
    with Store.open(tmp_path / "r.db") as store:
        assert store.get_run(run_id).status == "cancelled"
        stored = load_eval(store, run_id)
    assert page.start_button.isEnabled() and not page.stop_button.isEnabled()

    # Reopened, the run counts as every view does: passed / judged, unfinished apart; the
    # questions judged are the ones the live page showed.
    again = _page(qtbot, tmp_path / "again", None)
    again.context.db_path = tmp_path / "r.db"
    again.context.open_run_requested.emit(run_id, "sql")
    qtbot.waitUntil(lambda: again.model.rowCount() == len(stored.questions), timeout=10000)
    for judge in ("strict", "tolerant"):
        count = stored.pass_count(judge)
        assert again.model.pass_count(judge) == count
        assert page.model.pass_count(judge).judged == count.judged
        assert f"{judge} {count.text}" in again.summary_label.text()
    unfinished = stored.pass_count("strict").unfinished
    assert (f"{unfinished} unfinished" in again.summary_label.text()) == bool(unfinished)


def test_model_combo_and_question_ids_run_one_question_with_the_chosen_model(
        qtbot, qt_loop, tmp_path, sim):
    _process, info = sim
    page = _page(qtbot, tmp_path, sim)
    combo = page.model_combo
    assert [combo.itemText(i) for i in range(combo.count())] == list(info.models)
    assert combo.currentText() == "sim/seed-reference"  # the endpoint's own model
    combo.setCurrentIndex(combo.findText("sim/careful"))
    assert page.form_values().model == "sim/careful"

    # The set's ids are read in the background; then an unknown id is refused as typed.
    qtbot.waitUntil(lambda: page.controller.set_ids("sales-25") is not None, timeout=30000)
    _set_text(qtbot, page.ids_edit, "m01, zz9")
    assert page.error_label.text().startswith("question ids:"), page.error_label.text()
    assert "'zz9'" in page.error_label.text() and "m01" not in page.error_label.text()
    assert not page.start_button.isEnabled()
    assert page.ids_edit.styleSheet()
    _set_text(qtbot, page.ids_edit, "m01")
    assert page.error_label.text() == "" and page.start_button.isEnabled()
    assert not page.ids_edit.styleSheet()

    # A medium-only run of m01 with sim/careful: one row, strict PASS.
    for tier, box in page.tier_boxes.items():
        box.setChecked(tier == "medium")
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert not page.model_combo.isEnabled()
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=30000)
    assert page.controller.task.exception() is None
    assert [r.question_id for r in page.model.rows()] == ["m01"]
    assert page.model.passed("strict") == 1
    run_id = page.run_id
    with Store.open(tmp_path / "r.db") as store:
        record = store.get_run(run_id)
    assert record.model == "sim/careful"
    assert record.config["question_ids"] == ["m01"]

    # A new page with the same settings remembers the model and the ids; reopening the run
    # sets the tiers it used (the form matches the table).
    again = SqlAgentPage(page.context, page.settings)
    qtbot.addWidget(again)
    assert again.model_combo.currentText() == "sim/careful"
    assert again.ids_edit.text() == "m01"
    for box in again.tier_boxes.values():
        box.setChecked(True)
    again.ids_edit.clear()
    again.context.open_run_requested.emit(run_id, "sql")
    qtbot.waitUntil(lambda: again.model.rowCount() == 1, timeout=10000)
    assert [t for t, b in again.tier_boxes.items() if b.isChecked()] == ["medium"]
    assert again.ids_edit.text() == "m01"
    assert [j for j, b in again.judge_boxes.items() if b.isChecked()] == list(
        record.config["judges"])

    # An endpoint change selects that endpoint's own model.
    process, _info = sim
    page.context.set_endpoint(ActiveEndpoint(
        EndpointConfig(process.url, model="sim/seed-reference"), info, "simulator"))
    assert page.model_combo.currentText() == "sim/seed-reference"
    assert again.model_combo.currentText() == "sim/seed-reference"


def test_back_from_a_set_without_column_names_the_judges_it_turned_off_return(
        qtbot, qt_loop, tmp_path, monkeypatch):
    """#30: after an imported set that names no columns (full only), sales-25 kept strict and
    tolerant unticked."""
    page = _page(qtbot, tmp_path)
    asks = {"public": False, "sales-25": True}
    monkeypatch.setattr(page.controller, "set_asks_columns", lambda q: asks.get(q))
    checked = lambda: {j for j, b in page.judge_boxes.items() if b.isChecked()}  # noqa: E731
    page._judges_follow_set = True
    page._apply_set_judging("public")
    assert checked() == {"full"}
    page._judges_follow_set = True
    page._apply_set_judging("sales-25")
    assert checked() == {"strict", "tolerant", "full"}
    # What the user chose by hand on a set that names columns stays.
    page.judge_boxes["strict"].setChecked(False)
    page._judges_follow_set = True
    page._apply_set_judging("sales-25")
    assert checked() == {"tolerant", "full"}


def test_a_run_judged_by_full_alone_shows_only_full(qtbot, qt_loop, tmp_path, sim):
    """#30: an imported set's run, judged by full alone, showed Strict and Tolerant FAIL (the
    runner stores every judge's verdict), and a filter on strict still chose rows by them."""
    page = _page(qtbot, tmp_path, sim)
    qtbot.waitUntil(lambda: page.controller.set_ids("sales-25") is not None, timeout=30000)
    _set_text(qtbot, page.ids_edit, "m01, m02, h01")
    for judge, box in page.judge_boxes.items():
        box.setChecked(judge == "full")
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=30000)
    assert page.controller.task.exception() is None

    def shown(view):
        heads = [view.model.headerData(c, Qt.Orientation.Horizontal)
                 for c in range(view.model.columnCount())]
        cells = [[view.model.index(r, c).data() for c in range(view.model.columnCount())]
                 for r in range(view.model.rowCount())]
        return heads, cells

    for view in (page, None):
        if view is None:  # the stored run, reopened in a fresh page
            view = _page(qtbot, tmp_path / "again", None)
            view.context.db_path = tmp_path / "r.db"
            view.context.open_run_requested.emit(page.run_id, "sql")
            qtbot.waitUntil(lambda v=view: v.model.rowCount() == 3, timeout=10000)
        heads, cells = shown(view)
        assert "Full" in heads and "Strict" not in heads and "Tolerant" not in heads
        full = heads.index("Full")
        assert {row[full] for row in cells} <= {"PASS", "FAIL"}
        combo = view.filter_combo
        offered = {combo.itemData(i) for i in range(combo.count())
                   if combo.model().item(i).isEnabled()}
        assert "Failed strict" not in offered and "Failed every judge" in offered
        combo.setCurrentIndex(combo.findData("Failed every judge"))
        failed_full = sum(row[full] == "FAIL" for row in cells)
        assert view.proxy.rowCount() == failed_full
    # A run of all three judges shows all three again.
    page.model.set_judges(("strict", "tolerant", "full"))
    assert shown(page)[0][3:6] == ["Strict", "Tolerant", "Full"]


def test_a_judge_added_as_a_module_has_its_box_column_and_bar(qtbot, qt_loop, tmp_path):
    """#27: a judge is one module in core/sqleval/judges (here a toy one, tests/toy_judge.py);
    the form offers it beside the three, the table and the tier chart show it."""
    from tests.toy_judge import toy_judge

    with toy_judge(tmp_path):
        page = _page(qtbot, tmp_path)
        # The benchmarks' own rules have boxes too, shown only for a set imported from them.
        shown = [j for j, box in page.judge_boxes.items() if not box.isHidden()]
        assert shown == ["strict", "tolerant", "full", "rowcount"]
        assert page.judge_boxes["rowcount"].text() == "rowcount"
        page.model.set_judges(("full", "rowcount"))
        heads = [page.model.headerData(c, Qt.Orientation.Horizontal)
                 for c in range(page.model.columnCount())]
        assert heads[3:5] == ["Full", "Rowcount"]
        page.chart.set_judges(("strict", "rowcount"))
        assert page.chart.judges == ("strict", "rowcount")
        assert "rowcount" in page.chart.key_label.text()
        assert page.form_values().judges == ("strict", "tolerant", "full", "rowcount")
