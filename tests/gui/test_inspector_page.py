"""The Inspector: one stored question's steps, verdicts, findings, result diff and re-judging."""

import asyncio
import dataclasses
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.gui.context import AppContext
from desktop_app.gui.controllers.inspector import InspectorController
from desktop_app.gui.pages.inspector import InspectorPage
from desktop_app.gui.settings import Settings
from desktop_app.gui.widgets.result_diff import FINDING_COLOR
from desktop_app.gui.widgets.sql_view import KEYWORD_COLOR, SqlView
from desktop_app.gui.widgets.step_timeline import parse_result_table
from tests.gui.inspector_helpers import inspector_page


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    """sim/seed-reference on t01, m01, h01 of sales-25, stored once. The simulator is stopped
    when the fixture returns: nothing the tests do can reach a model."""
    base = tmp_path_factory.mktemp("inspector")
    db, cache = base / "r.db", base / "databases"

    def build():
        with start_simulator("instant") as sim, Store.open(db) as store:
            config = EvalConfig(EndpointConfig(sim.url, model="sim/seed-reference"),
                                question_ids=("t01", "m01", "h01"))
            result = asyncio.run(run_eval(config, store, sets_dir=paths.questions_dir(),
                                          cache_dir=cache))
            rows = {r["question_id"]: r for r in store.sql_questions(result.run_id)}
            steps = {qid: store.sql_steps(r["id"]) for qid, r in rows.items()}
        return result.run_id, rows, steps

    # In a thread of its own: the session's Qt loop counts as running in this one.
    with ThreadPoolExecutor(1) as pool:
        run_id, rows, steps = pool.submit(build).result()
    return db, cache, run_id, rows, steps


@pytest.fixture
def page(stored_run, tmp_path, qtbot, qt_loop):
    db, cache, *_ = stored_run
    return inspector_page(db, cache, tmp_path, qtbot)


def _open(qtbot, page, run_id, row_id):
    task = page.show_question(run_id, row_id)
    qtbot.waitUntil(task.done, timeout=15000)
    assert task.exception() is None


def _rejudge(qtbot, page, tolerance: str):
    page.tolerance_edit.setText(tolerance)
    qtbot.mouseClick(page.rejudge_button, Qt.MouseButton.LeftButton)
    task = page.controller.task
    qtbot.waitUntil(task.done, timeout=15000)
    assert task.exception() is None


def test_opens_alone_without_a_question(qtbot, tmp_path, qt_loop):
    page = InspectorPage(AppContext(tmp_path / "r.db"),
                         Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(page)
    page.show()
    assert not page.rejudge_button.isEnabled()
    assert page.timeline.cards == []


def test_m01_shows_steps_verdicts_findings_and_differing_cells(qtbot, page, stored_run):
    _db, _cache, run_id, rows, steps = stored_run
    _open(qtbot, page, run_id, rows["m01"]["id"])

    assert "m01" in page.title.text()
    assert page.question_text.text().startswith("[en] Which customers placed at least 25")
    # The timeline: every stored step, its tool, its SQL highlighted, its result as a table.
    cards = page.timeline.cards
    assert len(cards) == len(steps["m01"]) == 3
    assert [c.step.calls[0].name for c in cards] == ["list_tables", "run_sql", "submit_answer"]
    assert "list_tables" in cards[0].header.text() and "ms" in cards[0].header.text()
    run_sql = cards[1]
    assert "SUM(oi.quantity" in run_sql.sql_views[0].sql()
    assert run_sql.result_tables[0].model().rowCount() == 14
    assert run_sql.result_tables[0].model().headerData(
        2, Qt.Orientation.Horizontal) == "net_revenue"

    # The judge panel: strict fails, tolerant and full pass; ROUND missing on net_revenue.
    assert page.verdict_labels["strict"].text().startswith("strict: FAIL")
    assert page.verdict_labels["tolerant"].text().startswith("tolerant: PASS")
    assert page.verdict_labels["full"].text().startswith("full: PASS")
    assert "fails strict, passes tolerant and full" in page.counterfactual.text().lower()
    findings = page.findings.text()
    assert "ROUND" in findings and "net_revenue" in findings
    assert "got 87495.951, expected 87495.95" in findings

    # Both results side by side; the unrounded net_revenue cells are highlighted.
    diff = page.diff
    assert diff.expected_model.rowCount() == diff.actual_model.rowCount() == 14
    col = diff.actual_model.grid().columns.index("net_revenue")
    assert {(r, col) for r in range(14)} <= diff.differing_cells()
    assert all(c == col for _r, c in diff.differing_cells())  # names and counts agree
    assert diff.finding_cells() == {(0, col)}
    brush = diff.actual_model.data(diff.actual_model.index(0, col),
                                   Qt.ItemDataRole.BackgroundRole)
    assert brush.color() == FINDING_COLOR
    assert diff.actual_model.data(diff.actual_model.index(0, col)) == "87495.951"
    assert diff.expected_model.data(diff.expected_model.index(0, col)) == "87495.95"
    assert page.gold_sql.sql().startswith("SELECT\n  c.customer_name")  # laid out as the agent's
    assert page.rejudge_button.isEnabled()


def test_result_tables_open_scrolled_to_the_left(qtbot, qapp, page, stored_run):
    _db, _cache, run_id, rows, _steps = stored_run
    diff = page.diff
    page.resize(560, 720)  # too narrow for the columns, even squeezed
    _open(qtbot, page, run_id, rows["m01"]["id"])
    views = (diff.expected_view, diff.actual_view)
    # The tables are narrower than their columns here: there is somewhere to scroll to.
    qtbot.waitUntil(lambda: all(v.horizontalScrollBar().maximum() > 0 for v in views),
                    timeout=5000)
    for view in views:
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())
    _open(qtbot, page, run_id, rows["m01"]["id"])  # shown again: from the left edge

    def at_the_left_edge():
        for view in views:
            assert view.horizontalScrollBar().value() == 0
            assert view.columnViewportPosition(0) == 0  # customer_name fully visible

    # The scroll waits for the layout (zero-delay timers, as many passes of the event loop
    # as the layout takes): waited for, not assumed done after one pass.
    qtbot.waitUntil(at_the_left_edge, timeout=5000)
    col = diff.actual_model.grid().columns.index("net_revenue")
    assert diff.finding_cells() == {(0, col)}  # still highlighted, though maybe off-screen
    # A squeezed column's name reads from its start, ending in "…" (centred, both ends were
    # cut: "tegory_nar"), and its tooltip is the whole name.
    header = diff.actual_view.horizontalHeader()
    assert header.textElideMode() == Qt.TextElideMode.ElideRight
    assert diff.actual_model.headerData(0, Qt.Orientation.Horizontal,
                                        Qt.ItemDataRole.ToolTipRole) == "customer_name"


def test_rejudge_updates_verdicts_without_a_model_or_the_store(qtbot, page, stored_run):
    db_rows_before = None
    _db, _cache, run_id, rows, _steps = stored_run
    _open(qtbot, page, run_id, rows["m01"]["id"])
    with Store.open(page._context.db_path) as store:
        db_rows_before = store.sql_questions(run_id)

    # The simulator is gone (the fixture stopped it): this can only be the sandbox and judge.
    _rejudge(qtbot, page, "0.01")
    assert page.verdict_labels["tolerant"].text() == "tolerant: PASS (tol 0.01)"
    assert page.verdict_labels["strict"].text() == "strict: FAIL"
    assert "Re-judged at tolerance 0.01" in page.rejudge_note.text()
    assert page.rejudge_button.isEnabled()

    # An answer off by 1e-7 in an unrounded column passes at 1e-6 but not at 1e-12.
    detail = page.detail
    page.detail = dataclasses.replace(detail, final_sql=detail.question.gold_sql.replace(
        "COUNT(DISTINCT o.order_id) AS", "COUNT(DISTINCT o.order_id) + 1e-7 AS", 1))
    _rejudge(qtbot, page, "1e-6")
    assert page.verdict_labels["tolerant"].text().startswith("tolerant: PASS")
    _rejudge(qtbot, page, "1e-12")
    assert page.verdict_labels["tolerant"].text() == "tolerant: FAIL (tol 1e-12)"
    assert page.verdict_labels["full"].text().startswith("full: FAIL")
    assert "completed_orders" in page.findings.text()
    assert page.diff.finding_cells()

    with Store.open(page._context.db_path) as store:
        assert store.sql_questions(run_id) == db_rows_before  # nothing was written


def test_bad_tolerance_is_refused_with_a_message(qtbot, page, stored_run):
    _db, _cache, run_id, rows, _steps = stored_run
    _open(qtbot, page, run_id, rows["m01"]["id"])
    page.tolerance_edit.setText("abc")
    assert page.rejudge() is None
    assert "tolerance" in page.rejudge_note.text() and "abc" in page.rejudge_note.text()


def test_open_question_requested_shows_it_and_unknown_rows_say_so(qtbot, page, stored_run):
    _db, _cache, run_id, rows, _steps = stored_run
    page._context.open_question_requested.emit(run_id, rows["t01"]["id"])
    qtbot.waitUntil(lambda: page.detail is not None, timeout=15000)
    assert page.detail.question_id == "t01"
    assert page.verdict_labels["strict"].text().startswith("strict: PASS")
    assert page.findings.text().startswith("No findings")

    page._context.open_question_requested.emit(run_id, 99999)
    qtbot.waitUntil(lambda: page.controller.task.done(), timeout=15000)
    assert "no question row 99999" in page.status.text()


def test_the_controller_reads_the_question_as_load_eval_does(qtbot, qt_loop, stored_run,
                                                            tmp_path):
    db, cache, run_id, rows, _steps = stored_run
    own_db = tmp_path / "r.db"
    shutil.copy(db, own_db)
    context = AppContext(own_db, sets_dir=paths.questions_dir(), cache_dir=cache)
    controller = InspectorController(context)
    with qtbot.waitSignal(controller.loaded, timeout=15000) as blocker:
        controller.load(run_id, rows["m01"]["id"])
    detail = blocker.args[0]
    with Store.open(own_db) as store:
        run = load_eval(store, run_id)
    stored = next(q for q in run.questions if q.row_id == rows["m01"]["id"])
    assert detail.verdicts == stored.verdicts and detail.findings == stored.findings
    assert (detail.question_id, detail.status, detail.simulated) == (
        stored.question_id, stored.status, run.info.simulated)
    # A page shows what the controller it is given reads (the window can build it).
    page = InspectorPage(context, Settings(QSettings(str(tmp_path / "s.ini"),
                                                     QSettings.Format.IniFormat)),
                         controller=controller)
    qtbot.addWidget(page)
    task = page.show_question(run_id, rows["t01"]["id"])
    qtbot.waitUntil(task.done, timeout=15000)
    assert page.detail.question_id == "t01"
    assert page.verdict_labels["strict"].text().startswith("strict: PASS")


def test_result_text_parses_as_a_table_and_other_text_does_not():
    grid, footer = parse_result_table("a | bb\n--+---\n1 | x\n2 | y\n(2 rows)")
    assert grid.columns == ("a", "bb") and grid.rows == (("1", "x"), ("2", "y"))
    assert footer == "(2 rows)"
    assert parse_result_table("categories\ncustomers") is None


def test_sql_view_colours_keywords(qtbot):
    view = SqlView("SELECT a FROM t -- note")
    qtbot.addWidget(view)
    formats = view.document().firstBlock().layout().formats()
    keyword = [f for f in formats if f.start == 0][0]
    assert keyword.length == len("SELECT")
    assert keyword.format.foreground().color() == QColor(KEYWORD_COLOR)
    assert view.isReadOnly()
