"""The Inspector walks a run: Previous / Next (and Alt+Left / Alt+Right) in the run's order,
and a question list with each judge's verdict to jump to one."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from PySide6.QtCore import Qt

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.gui.widgets.result_diff import MAX_COLUMN_WIDTH
from tests.gui.inspector_helpers import inspector_page, wait_done

IDS = ("t01", "m01", "h01", "m02")


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    """sim/seed-reference on four sales-25 questions on the built-in simulator, stored once;
    the run's order as `load_eval` reads it."""
    base = tmp_path_factory.mktemp("inspector_nav")
    db, cache = base / "r.db", base / "databases"

    def build():
        with start_simulator("instant") as sim, Store.open(db) as store:
            config = EvalConfig(EndpointConfig(sim.url, model="sim/seed-reference"),
                                question_ids=IDS)
            result = asyncio.run(run_eval(config, store, sets_dir=paths.questions_dir(),
                                          cache_dir=cache))
            order = [(q.question_id, q.row_id) for q in load_eval(store, result.run_id).questions]
        return result.run_id, order

    with ThreadPoolExecutor(1) as pool:  # the session's Qt loop counts as running here
        run_id, order = pool.submit(build).result()
    return db, cache, run_id, order


@pytest.fixture
def page(stored_run, tmp_path, qtbot, qt_loop):
    db, cache, *_ = stored_run
    return inspector_page(db, cache, tmp_path, qtbot)


def _wait(qtbot, task):
    wait_done(qtbot, task)


def _shown(page):
    return page.detail.question_id


def test_next_and_previous_walk_the_run_in_its_order(qtbot, page, stored_run):
    _db, _cache, run_id, order = stored_run
    assert sorted(qid for qid, _row in order) == sorted(IDS)
    _wait(qtbot, page.show_question(run_id, order[0][1]))

    # The list holds the run's questions in the run's order, with each judge's verdict.
    assert [q.question_id for q in page.run_questions()] == [qid for qid, _ in order]
    texts = [page.question_list.itemText(i) for i in range(page.question_list.count())]
    assert [t.split(" · ")[0] for t in texts] == [qid for qid, _ in order]
    m01 = texts[[qid for qid, _ in order].index("m01")]
    assert "strict FAIL" in m01 and "tolerant PASS" in m01 and "full PASS" in m01
    assert page.question_list.currentIndex() == 0
    assert not page.prev_button.isEnabled() and page.next_button.isEnabled()
    assert page.position_label.text() == f"1 of {len(order)}"

    # Next walks to the end, one question at a time; then it is disabled.
    seen = [_shown(page)]
    for _ in range(len(order) - 1):
        qtbot.mouseClick(page.next_button, Qt.MouseButton.LeftButton)
        _wait(qtbot, page.controller.task)
        seen.append(_shown(page))
        assert page.question_list.currentIndex() == len(seen) - 1
    assert seen == [qid for qid, _ in order]
    assert not page.next_button.isEnabled() and page.prev_button.isEnabled()
    assert page.step_question(1) is None  # nothing after the last one

    # Previous walks back to the start.
    back = [_shown(page)]
    for _ in range(len(order) - 1):
        qtbot.mouseClick(page.prev_button, Qt.MouseButton.LeftButton)
        _wait(qtbot, page.controller.task)
        back.append(_shown(page))
    assert back == list(reversed(seen))
    assert not page.prev_button.isEnabled()


def test_keys_and_the_list_open_questions(qtbot, page, stored_run):
    _db, _cache, run_id, order = stored_run
    _wait(qtbot, page.show_question(run_id, order[1][1]))
    page.activateWindow()
    page.timeline.setFocus()
    qtbot.keyClick(page.timeline, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    _wait(qtbot, page.controller.task)
    assert _shown(page) == order[2][0]
    qtbot.keyClick(page.timeline, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    _wait(qtbot, page.controller.task)
    assert _shown(page) == order[1][0]

    # Choosing a row of the list opens that question.
    last = len(order) - 1
    page.question_list.setCurrentIndex(last)
    page.question_list.activated.emit(last)
    _wait(qtbot, page.controller.task)
    assert _shown(page) == order[last][0]
    assert page.position_label.text() == f"{len(order)} of {len(order)}"


def test_an_unknown_row_keeps_the_walk_where_it_was(qtbot, page, stored_run):
    _db, _cache, run_id, order = stored_run
    _wait(qtbot, page.show_question(run_id, order[1][1]))
    _wait(qtbot, page.show_question(run_id, 999999))
    assert "999999" in page.status.text()
    assert page.position() == 1
    _wait(qtbot, page.step_question(1))
    assert _shown(page) == order[2][0]


def test_legend_tooltip_and_numbers_are_not_cut(qtbot, page, stored_run):
    _db, _cache, run_id, order = stored_run
    row = dict(order)["m01"]
    _wait(qtbot, page.show_question(run_id, row))
    legend = page.diff.legend.text()
    assert "differs from the other side" in legend and "named in a judge" in legend
    assert page.tolerance_edit.toolTip() == ("Numbers are rounded as the question asks, then "
                                             "compared within this tolerance")
    # Where there is room, every number of the result fits its column, however long.
    page.resize(1900, 720)
    page.splitter.setSizes([300, 1600])
    qtbot.waitUntil(lambda: page.diff.actual_view.viewport().width() > 600, timeout=5000)

    def numbers_fit():
        for view in (page.diff.expected_view, page.diff.actual_view):
            model = view.model()
            metrics = view.fontMetrics()
            for c in range(model.columnCount()):
                for r in range(model.rowCount()):
                    value = model.grid().rows[r][c]
                    if isinstance(value, (int, float)):
                        text = model.data(model.index(r, c))
                        assert metrics.horizontalAdvance(text) < view.columnWidth(c), (text, c)

    # The columns are widened by a zero-delay timer the resize posts, on a pass of the event
    # loop after the viewport has its width: waited for, not given a fixed 50 ms (the last
    # failed assertion is what a timeout reports).
    qtbot.waitUntil(numbers_fit, timeout=5000)
    # Where there is not, the columns narrow to fit the tables: a value ends in "…" inside
    # its cell instead of being cut at the table's edge.
    page.resize(900, 720)
    views = (page.diff.expected_view, page.diff.actual_view)

    def fits():
        return all(sum(v.columnWidth(c) for c in range(v.model().columnCount()))
                   <= v.viewport().width() for v in views)

    qtbot.waitUntil(fits, timeout=5000)
    assert page.diff.expected_view.textElideMode() == Qt.TextElideMode.ElideRight
    col = page.diff.actual_model.grid().columns.index("customer_name")
    assert page.diff.actual_view.columnWidth(col) <= MAX_COLUMN_WIDTH
