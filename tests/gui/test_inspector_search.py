"""The Inspector on a run of many questions: the filter bar finds questions by words in the id,
the text or the SQL, by tier, failure class and verdict, and Previous / Next walk the matches;
another run's transcript of the same question stands beside this run's."""

import asyncio
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.records import load_eval, question_elsewhere
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.gui.models.questions import (
    CLASS_PASSED,
    VERDICT_MIXED,
    QuestionRow,
    QuestionSearch,
    search_terms,
)
from tests.gui.inspector_helpers import inspector_page, wait_done

CAREFUL_IDS = ("t01", "m01", "h01")  # the second run asks only these


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """sim/seed-reference on all of sales-25, then sim/careful on three of its questions."""
    base = tmp_path_factory.mktemp("inspector_search")
    db, cache = base / "r.db", base / "databases"

    def build():
        with start_simulator("instant") as sim, Store.open(db) as store:
            runs = []
            for model, ids in (("sim/seed-reference", ()), ("sim/careful", CAREFUL_IDS)):
                config = EvalConfig(EndpointConfig(sim.url, model=model), question_ids=ids)
                result = asyncio.run(run_eval(config, store, sets_dir=paths.questions_dir(),
                                              cache_dir=cache))
                runs.append(result.run_id)
            rows = {q.question_id: q for q in load_eval(store, runs[0]).questions}
        return runs, rows

    with ThreadPoolExecutor(1) as pool:  # the session's Qt loop counts as running here
        runs, rows = pool.submit(build).result()
    return db, cache, runs, rows


@pytest.fixture
def page(two_runs, tmp_path, qtbot, qt_loop):
    db, cache, *_ = two_runs
    return inspector_page(db, cache, tmp_path, qtbot)


def _wait(qtbot, task):
    wait_done(qtbot, task)


def _open(qtbot, page, run_id, row_id):
    _wait(qtbot, page.show_question(run_id, row_id))


def _listed(page):
    return [page.question_list.itemText(i).split(" · ")[0]
            for i in range(page.question_list.count())]


def _choices(combo):
    return {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}


def test_the_filter_bar_narrows_the_list_and_the_walk(qtbot, page, two_runs):
    _db, _cache, (seed, _careful), rows = two_runs
    _open(qtbot, page, seed, rows["t01"].row_id)
    assert len(page.matching_questions()) == 25 and page.match_label.text() == ""
    assert not page.clear_filter_button.isEnabled()

    page.set_search(QuestionSearch(tier="hard"))
    hard = [q for q, r in rows.items() if r.tier == "hard"]
    assert _listed(page) == hard
    assert page.match_label.text() == f"{len(hard)} of 25 match"
    # t01 is shown and is not hard: the list says so, Next goes to the first hard question and
    # then walks the hard ones only.
    assert page.question_list.currentIndex() == -1
    assert not page.prev_button.isEnabled()
    _wait(qtbot, page.step_question(1))
    assert page.detail.question_id == hard[0]
    assert page.position_label.text() == f"1 of {len(hard)}"
    _wait(qtbot, page.step_question(1))
    assert page.detail.question_id == hard[1]

    # A failure class the run has, offered with its count; every match failed that way.
    classes = _choices(page.class_filter)
    failed = [r for r in rows.values() if r.failure_class]
    code = max({r.failure_class for r in failed},
               key=lambda c: sum(r.failure_class == c for r in failed))
    count = sum(r.failure_class == code for r in failed)
    assert classes[code].endswith(f"({count})")
    page.set_search(QuestionSearch(failure_class=code))
    assert sorted(_listed(page)) == sorted(q for q, r in rows.items() if r.failure_class == code)
    page.set_search(QuestionSearch(failure_class=CLASS_PASSED))
    assert _listed(page) == [q for q, r in rows.items() if r.judged and not r.failure_class]

    # A verdict of one of the run's judges.
    assert {"fail:strict", "pass:full", VERDICT_MIXED} <= set(_choices(page.verdict_filter))
    page.set_search(QuestionSearch(verdict="fail:strict"))
    assert _listed(page) == [q for q, r in rows.items() if r.outcome("strict") is False]


def test_search_reads_the_id_both_texts_and_the_sql(qtbot, page, two_runs):
    _db, _cache, (seed, _careful), rows = two_runs
    _open(qtbot, page, seed, rows["m01"].row_id)
    page.search_edit.setText("  AT LEAST 25   completed ")  # case and spacing ignored
    assert _listed(page) == ["m01"]
    page.search_edit.setText("至少 25")  # the Chinese text too
    assert _listed(page) == ["m01"]
    page.search_edit.setText("h0")
    assert _listed(page) == [f"h0{i}" for i in range(1, 10)]
    page.search_edit.setText('"net revenue per category"')  # a phrase, kept whole
    assert _listed(page) == ["h01"]
    page.search_edit.setText("net per category")  # words, each anywhere
    assert "h01" in _listed(page)
    # The SQL: the gold's text (read from the set) and the final SQL the model submitted.
    page.search_edit.setText("round(")
    with_round = _listed(page)
    assert "m01" in with_round
    assert all("round(" in " ".join((r.final_sql, r.gold_sql)).casefold()
               for r in page.matching_questions())
    page.search_edit.setText("no such words anywhere")
    assert _listed(page) == [] and page.match_label.text() == "0 of 25 match"
    assert page.question_list.placeholderText() == "No question matches"
    assert not page.next_button.isEnabled() and not page.prev_button.isEnabled()
    # Enter opens the first match when the one shown is not among them.
    page.search_edit.setText("h02")
    page.search_edit.returnPressed.emit()
    qtbot.waitUntil(lambda: page.detail.question_id == "h02", timeout=15000)
    page.clear_filter_button.click()
    assert len(_listed(page)) == 25 and page.search_edit.text() == ""


def test_another_runs_transcript_stands_beside_and_follows_the_walk(qtbot, page, two_runs):
    _db, _cache, (seed, careful), rows = two_runs
    _open(qtbot, page, seed, rows["m01"].row_id)
    offered = _choices(page.beside_list)
    assert set(offered) == {None, careful}
    assert f"beside run {careful}" in offered[careful] and "sim/careful" in offered[careful]
    assert "full PASS" in offered[careful]  # its verdicts under this run's judges
    assert page.views.currentIndex() == 0  # the judges' view until asked

    _wait(qtbot, page.set_beside(careful))
    assert page.views.currentIndex() == 1
    main, beside = page.main_panel, page.beside_panel
    assert main.detail.run_id == seed and beside.detail.run_id == careful
    assert beside.detail.question_id == main.detail.question_id == "m01"
    assert "strict: FAIL" in main.verdicts.text() and "strict: PASS" in beside.verdicts.text()
    assert main.failure.text().startswith("strict: ") and not beside.failure.isVisible()
    assert "ROUND(" in beside.final_sql.sql().upper()
    assert len(beside.timeline.cards) == len(beside.detail.steps) > 0

    # Walking this run keeps the other beside: a question it asked, then one it did not.
    _open(qtbot, page, seed, rows["h01"].row_id)
    qtbot.waitUntil(lambda: beside.detail is not None and beside.detail.question_id == "h01",
                    timeout=15000)
    _open(qtbot, page, seed, rows["m02"].row_id)
    assert beside.detail is None
    assert beside.summary.text() == f"Run {careful} did not ask m02."
    assert page.views.currentIndex() == 1

    page.set_beside(None)
    assert page.views.currentIndex() == 0


def test_the_same_question_elsewhere_is_the_same_sets(two_runs, tmp_path):
    db, _cache, (seed, careful), rows = two_runs
    own = tmp_path / "r.db"
    shutil.copy(db, own)
    with Store.open(own) as store:
        (other,) = question_elsewhere(store, seed, "m01")
        assert other.run.id == careful and other.epoch == 0 and other.passed["full"] is True
        assert question_elsewhere(store, seed, "m02") == ()
        # A run of another set that happens to use the id m01 is not the same question.
        foreign = store.create_run("sql", name="other set", model="sim/careful",
                                   config={"set_name": "another-set"})
        writer = store.writer()
        writer.add_sql_question({"run_id": foreign, "question_id": "t01", "tier": "trivial",
                                 "status": "completed", "steps": 1, "prompt_tokens": 1,
                                 "completion_tokens": 1, "seconds": 1.0})
        writer.close()
        assert [e.run.id for e in question_elsewhere(store, seed, "t01")] == [careful]


def test_search_terms_and_verdict_matching():
    assert search_terms('Net  "ROUND(x, 2)"  revenue') == ("net", "round(x, 2)", "revenue")
    assert search_terms('an "unmatched quote') == ("an", '"unmatched', "quote")
    row = QuestionRow("m01", "medium", 0, {"strict": False, "full": True, "spider2": True},
                      "rounding_only", 3, 100, 1.0, text="Which customers", final_sql="SELECT 1")
    assert QuestionSearch(verdict=VERDICT_MIXED).matches(row)
    assert not QuestionSearch(verdict=VERDICT_MIXED).matches(row, ("full", "spider2"))
    assert QuestionSearch(verdict="pass:full", text="select  1").matches(row)
    assert not QuestionSearch(verdict="pass:strict").matches(row)
    assert not QuestionSearch(failure_class=CLASS_PASSED).matches(row)
    unfinished = QuestionRow("m02", "medium", 0, {}, None, 0, 0, 0.0, status="cancelled")
    assert not QuestionSearch(failure_class=CLASS_PASSED).matches(unfinished)
    assert not QuestionSearch(verdict="fail:strict").matches(unfinished)
