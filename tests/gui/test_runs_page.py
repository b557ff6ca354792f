"""The Runs page: lists and filters stored runs, reopens, deletes, compares, browses requests."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop_app.core.runs import PassCount
from desktop_app.core.store import Store
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.runs import RunsPage

URL = "http://127.0.0.1:8000"


def _summary(prefill: float, decode: float, ttft: float) -> dict:
    def dist(v):
        return {"n": 4, "mean": v, "p50": v, "p90": v, "p99": v, "min": v, "max": v}

    return {"count": 4, "ok": 4, "failures_by_class": {}, "ttft_s": dist(ttft),
            "prefill_tps": dist(prefill), "decode_tps": dist(decode), "tpot_s": None,
            "itl_s": None, "e2e_s": None, "wall_s": 1.0, "output_tps": 10.0,
            "effective_prefill_tps": None, "effective_decode_tps": None, "status": "completed"}


def _throughput_run(store: Store, name: str, scale: float, inputs=(256, 1024),
                    status="completed") -> int:
    run_id = store.create_run("throughput", name=name, endpoint_url=URL, model="m-8b",
                              engine="vllm")
    index = 0
    for n_in in inputs:
        for conc in (1, 4):
            store.add_cell(run_id, cell_index=index, input_tokens=n_in, output_tokens=32,
                           concurrency=conc, status="completed",
                           summary=_summary(n_in * 10 * scale / conc, 50 * scale, 0.05 * conc))
            index += 1
    store.finish_run(run_id, status)
    return run_id


def _verdicts(strict: bool, tolerant: bool) -> dict:
    finding = [] if strict else [{"code": "value_mismatch", "message": "avg_amount differs",
                                  "cells": []}]
    return {"verdicts": {"strict": {"passed": strict, "findings": finding, "tolerance": 0},
                         "tolerant": {"passed": tolerant, "findings": [], "tolerance": 1e-6}},
            "counterfactual": None, "findings": [], "tolerance": 1e-6, "ignore_names": False,
            "judged_at": "2026-01-01T00:00:00.000+00:00", "rejudged": False, "question": {}}


def _sql_run(store: Store, model: str, h01_passes: bool) -> int:
    run_id = store.create_run("sql", name=f"sales {model}", endpoint_url=URL, model=model,
                              engine="vllm")
    with store.writer() as writer:
        for qid, tier, ok in (("t01", "trivial", True), ("e01", "easy", True),
                              ("h01", "hard", h01_passes)):
            writer.add_sql_question({"run_id": run_id, "question_id": qid, "tier": tier,
                                     "status": "completed",
                                     "verdicts_json": _verdicts(ok, True)})
    store.finish_run(run_id, "completed")
    return run_id


@pytest.fixture
def runs_db(tmp_path):
    path = tmp_path / "r.db"
    with Store.open(path) as store:
        ids = {
            "tp_a": _throughput_run(store, "sweep A", 1.0),
            "tp_b": _throughput_run(store, "sweep B", 2.0, inputs=(256, 1024, 4096)),
            "tp_failed": _throughput_run(store, "sweep C", 1.0, status="failed"),
            "sql_careful": _sql_run(store, "sim/careful", True),
            "sql_seed": _sql_run(store, "sim/seed-reference", False),
        }
    return path, ids


@pytest.fixture
def page(qt_loop, qtbot, runs_db):
    path, _ = runs_db
    context = AppContext(path)
    page = RunsPage(context)
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    _wait(qtbot, page.refresh())
    yield page
    page.shutdown()


def _wait(qtbot, task, timeout=10000):
    qtbot.waitUntil(task.done, timeout=timeout)
    assert task.exception() is None


def _column(model, column):
    return [model.index(r, column).data() for r in range(model.rowCount())]


def test_lists_every_run_newest_first_and_filters_by_kind_and_status(page, qtbot, runs_db):
    _, ids = runs_db
    assert _column(page.model, 0) == [str(i) for i in sorted(ids.values(), reverse=True)]
    assert page.status_label.text() == "5 run(s)"
    page.kind_combo.setCurrentText("sql")
    _wait(qtbot, page.controller.tasks["refresh"])
    assert set(_column(page.model, 1)) == {"sql"} and page.model.rowCount() == 2
    page.kind_combo.setCurrentText("throughput")
    page.status_combo.setCurrentText("failed")
    _wait(qtbot, page.controller.tasks["refresh"])
    assert _column(page.model, 2) == ["sweep C"]
    page.kind_combo.setCurrentIndex(0)
    page.status_combo.setCurrentIndex(0)
    page.model_combo.setCurrentText("sim/careful")
    _wait(qtbot, page.controller.tasks["refresh"])
    assert _column(page.model, 0) == [str(ids["sql_careful"])]


def test_a_finished_run_appears_without_a_refresh_click(page, qtbot, runs_db):
    path, _ = runs_db
    with Store.open(path) as store:
        new_id = _throughput_run(store, "sweep D", 1.0)
    page.context.run_finished.emit(new_id, "throughput")
    _wait(qtbot, page.controller.tasks["refresh"])
    assert page.model.index(0, 2).data() == "sweep D"


def test_open_and_double_click_ask_for_the_run_in_its_page(page, qtbot, runs_db):
    _, ids = runs_db
    page.select_runs([ids["sql_seed"]])
    with qtbot.waitSignal(page.context.open_run_requested) as blocker:
        page.open_button.click()
    assert blocker.args == [ids["sql_seed"], "sql"]
    row = page.model.row_of(ids["tp_a"])
    with qtbot.waitSignal(page.context.open_run_requested) as blocker:
        page._on_table_double_clicked(page.model.index(row, 2))
    assert blocker.args == [ids["tp_a"], "throughput"]


def test_deleting_asks_first_and_removes_the_run(page, qtbot, runs_db, monkeypatch):
    path, ids = runs_db
    asked = []
    answers = iter([QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes])

    def question(parent, title, text, *args):
        asked.append(text)
        return next(answers)

    monkeypatch.setattr(QMessageBox, "question", question)
    page.select_runs([ids["tp_failed"]])
    page.delete_button.click()  # cancelled: nothing happens
    assert len(asked) == 1 and "sweep C" in asked[0]
    assert "delete" not in page.controller.tasks
    page.delete_button.click()
    _wait(qtbot, page.controller.tasks["delete"])
    _wait(qtbot, page.controller.tasks["refresh"])
    assert str(ids["tp_failed"]) not in _column(page.model, 0)
    assert page.model.rowCount() == 4
    with Store.open(path) as store:
        assert [r.id for r in store.list_runs(status="failed")] == []


def test_comparing_two_sql_runs_aligns_their_verdicts(page, qtbot, runs_db):
    _, ids = runs_db
    page.select_runs([ids["sql_careful"], ids["sql_seed"]])
    assert page.compare_button.isEnabled()
    with qtbot.waitSignal(page.context.compare_requested) as blocker:
        page.compare_button.click()
    assert sorted(blocker.args[0]) == sorted([ids["sql_careful"], ids["sql_seed"]])
    _wait(qtbot, page.controller.tasks["compare"])
    assert page.detail.currentWidget() is page.comparison
    model = page.comparison.sql_model
    assert model.question_ids() == ["t01", "e01", "h01"]
    assert model.cell_text("h01", ids["sql_careful"]) == "PASS / PASS"
    assert model.cell_text("h01", ids["sql_seed"]) == "FAIL / PASS"
    assert model.cell_text("t01", ids["sql_seed"]) == "PASS / PASS"
    assert [model.disagrees(r) for r in range(3)] == [False, False, True]
    assert "1 with different verdicts" in page.comparison.title.text()
    tiers = page.comparison.tier_model
    assert tiers.counts("all", ids["sql_seed"], "strict") == PassCount(2, 3, 0)
    assert tiers.counts("hard", ids["sql_careful"], "strict") == PassCount(1, 1, 0)
    # Above the questions: the comparison's rows, each value with its interval and the
    # verdict in words (the paired test on the same questions: no winner from one question).
    rows = page.comparison.rows_model
    labels = [rows.index(r, 0).data() for r in range(rows.rowCount())]
    strict = labels.index("Strict pass rate")
    column = {rows.headerData(c, Qt.Orientation.Horizontal): c for c in (1, 2)}
    careful = column[f"#{ids['sql_careful']} sales sim/careful"]  # runs by id and name
    seed = column[f"#{ids['sql_seed']} sales sim/seed-reference"]
    assert rows.index(strict, careful).data() == "100 % (3/3) [44 – 100]"
    assert rows.index(strict, seed).data() == "67 % (2/3) [21 – 94]"
    verdict = rows.index(strict, 3).data()
    assert verdict.startswith("about even (within noise)") and "McNemar" in verdict


def test_comparing_two_throughput_runs_aligns_their_cells_and_overlays_charts(page, qtbot,
                                                                             runs_db):
    _, ids = runs_db
    page.select_runs([ids["tp_a"], ids["tp_b"]])
    page.compare_button.click()
    _wait(qtbot, page.controller.tasks["compare"])
    model = page.comparison.throughput_model
    # Rows keyed by input/load/output; tp_b has a 4096 row tp_a lacks.
    assert [(model.index(r, 0).data(), model.index(r, 1).data()) for r in range(model.rowCount())
            ] == [("256", "c=1"), ("256", "c=4"), ("1024", "c=1"), ("1024", "c=4"),
                  ("4096", "c=1"), ("4096", "c=4")]
    assert model.columnCount() == 3 + 3 * 2
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3, 9)]
    assert headers[0].endswith("Prefill tok/s") and headers[2].endswith("TTFT p50 ms")
    runs = [r.info.id for r in model.runs()]
    a_prefill = 3 + 3 * runs.index(ids["tp_a"])
    b_prefill = 3 + 3 * runs.index(ids["tp_b"])
    assert model.index(0, a_prefill).data() == "2560"
    assert model.index(0, b_prefill).data() == "5120"
    assert model.index(4, a_prefill).data() == "—"  # not measured in run A
    assert model.index(1, a_prefill + 2).data() == "200"  # TTFT p50 in ms
    assert len(page.comparison.curve_names()) == 4  # two runs x two load levels
    # Each entry names its run by number, as the table's column heads start ("#N name").
    assert page.comparison.curve_names()[0] == f"#{runs[0]} c=1"
    # The rows: a value per run and the verdict in words; figures stored without their
    # requests carry no interval, so no winner is named.
    rows = page.comparison.rows_model
    labels = [rows.index(r, 0).data() for r in range(rows.rowCount())]
    # Cell by cell, never pooled across prompt lengths: the 256-token cell at 1 concurrent.
    prefill = next(i for i, label in enumerate(labels) if label.startswith(
        "Prefill (mean tok/s per request, per user): 256 tokens in,")
        and label.endswith(", 1 concurrent"))
    a_col, b_col = 1 + runs.index(ids["tp_a"]), 1 + runs.index(ids["tp_b"])
    assert rows.index(prefill, a_col).data() == "2,560 tok/s"
    assert rows.index(prefill, b_col).data() == "5,120 tok/s"
    assert rows.index(prefill, 3).data().startswith("cannot tell: 5,120 vs 2,560 tok/s")
    # The figure's first row counts the cells: nothing is decided without intervals.
    tally = labels.index("Prefill (mean tok/s per request, per user): every cell")
    assert tally < prefill and "undecided" in rows.index(tally, 3).data()


def test_the_comparison_rows_speak_chinese(page, qtbot, runs_db):
    _, ids = runs_db
    page.select_runs([ids["sql_careful"], ids["sql_seed"]])
    page.compare_button.click()
    _wait(qtbot, page.controller.tasks["compare"])
    page.comparison.show_comparison(page.comparison.shown, "zh")
    rows = page.comparison.rows_model
    assert rows.index(0, 0).data() == "严格通过率"
    assert rows.index(0, 3).data().startswith("大致持平")


def test_the_list_names_each_run_and_a_hover_shows_its_note(qt_loop, qtbot, tmp_path):
    path = tmp_path / "r.db"
    with Store.open(path) as store:
        plain = store.create_run("throughput", name="qwen 8b fp8", endpoint_url=URL, model="m")
        noted = store.create_run("throughput", name="qwen 8b bf16", endpoint_url=URL, model="m",
                                 notes="prefix caching off\nmax-num-seqs 64")
        for run_id in (plain, noted):
            store.finish_run(run_id, "completed")
    page = RunsPage(AppContext(path))
    qtbot.addWidget(page)
    page.show()
    try:
        _wait(qtbot, page.refresh())
        model = page.model
        names = {model.run_at(r).id: model.index(r, 2).data() for r in range(2)}
        assert names[plain] == "qwen 8b fp8"
        assert names[noted].startswith("qwen 8b bf16")  # a mark: there is a note to hover for
        row = model.row_of(noted)
        for column in range(model.columnCount()):
            tip = model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
            assert tip == f"#{noted} qwen 8b bf16\nprefix caching off\nmax-num-seqs 64"
        assert model.index(model.row_of(plain), 2).data(Qt.ItemDataRole.ToolTipRole) == (
            f"#{plain} qwen 8b fp8")
    finally:
        page.shutdown()


def test_a_sweep_and_a_sql_run_compare_as_speed_and_quality_together(page, qtbot, runs_db):
    _, ids = runs_db
    page.select_runs([ids["tp_a"], ids["sql_seed"]])
    assert page.compare_button.isEnabled() and page.delete_button.isEnabled()
    page.compare_button.click()
    qtbot.waitUntil(lambda: page.detail.currentWidget() is page.summary, timeout=10000)
    text = page.summary.toPlainText()
    # Both sides of the table, and the capacity section (these runs share endpoint and model
    # only by URL: m-8b vs sim/seed-reference, so it says why there is no capacity).
    assert "Strict pass rate" in text and "Prefill" in text
    assert "Speed and quality together" in text


def test_a_run_of_100k_requests_opens_its_request_browser(qt_loop, qtbot, tmp_path, capsys):
    path = tmp_path / "r.db"
    total = 100_000
    with Store.open(path) as store:
        run_id = store.create_run("throughput", name="big", endpoint_url=URL, model="m")
        cell = store.add_cell(run_id, cell_index=0, input_tokens=512, output_tokens=64,
                              concurrency=8, status="completed")
        with store.writer() as writer:
            for seq in range(total):
                writer.add_request({"run_id": run_id, "cell_id": cell, "seq": seq,
                                    "sent_at": 1.0 + seq, "ttft_s": 0.0123, "e2e_s": 0.5,
                                    "prompt_tokens": 512, "completion_tokens": 64,
                                    "prefill_tps": 41000.0, "decode_tps": 130.0,
                                    "finish_reason": "length", "status_code": 200,
                                    "error_class": "timeout" if seq % 1000 == 7 else None})
        store.finish_run(run_id, "completed")
    page = RunsPage(AppContext(path))
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    try:
        _wait(qtbot, page.refresh())
        started = time.perf_counter()
        page.select_runs([run_id])
        _wait(qtbot, page.controller.tasks["requests"])
        model = page.requests.model
        assert page.detail.currentWidget() is page.requests
        assert model.rowCount() == total
        assert model.index(0, 0).data() == "512 / c=8 / 64"
        assert model.index(0, 2).data() == "12.3"  # TTFT in ms
        elapsed = time.perf_counter() - started
        assert model.index(total - 1, 1).data() == str(total - 1)
        assert model.pages_read <= 1 + 5  # what is in view plus the last row: not the run
        with capsys.disabled():
            print(f"\n100,000-request run: first rows in {elapsed * 1000:.0f} ms")
        page.requests.errors_only.setChecked(True)
        _wait(qtbot, page.controller.tasks["requests"])
        assert model.rowCount() == total // 1000
        assert model.index(0, 11).data() == "timeout"
    finally:
        page.shutdown()


def test_the_page_opens_on_an_empty_store(qt_loop, qtbot, tmp_path):
    page = RunsPage(AppContext(tmp_path / "empty.db"))
    qtbot.addWidget(page)
    page.show()
    try:
        _wait(qtbot, page.refresh())
        assert page.model.rowCount() == 0 and page.status_label.text() == "0 run(s)"
        assert not page.compare_button.isEnabled() and not page.delete_button.isEnabled()
    finally:
        page.shutdown()


def test_the_comparison_says_first_what_differs_between_the_runs(qtbot):
    from desktop_app.core.compare import Comparison, dimension_rows, settings_differ
    from desktop_app.gui.widgets.comparison import ComparisonView
    from tests.core.compare.test_compare import cell, tp_run

    fast = tp_run(1, [cell(1000, 1, 600.0, 30.0)], name="fast",
                  settings={"max_num_seqs": 16, "gpu_memory_utilization": 0.9})
    capped = tp_run(2, [cell(1000, 1, 590.0, 30.0)], name="capped",
                    settings={"max_num_seqs": 2, "gpu_memory_utilization": 0.9})
    view = ComparisonView()
    qtbot.addWidget(view)
    runs = (fast, capped)
    view.show_comparison(Comparison(runs, tuple(dimension_rows(runs)),
                                    settings_differ=settings_differ([r.info for r in runs])))
    model = view.differ_model
    assert model.settings() == ["max_num_seqs"]  # the same memory setting is not a difference
    assert [model.index(0, c).data() for c in range(3)] == ["max_num_seqs", "16", "2"]
    assert model.headerData(2, Qt.Orientation.Horizontal) == "#2 capped"
    assert not view.differ_view.isHidden() and view.same_label.isHidden()
    same = (fast, tp_run(3, [cell(1000, 1, 600.0, 30.0)], name="again",
                         settings={"max_num_seqs": 16, "gpu_memory_utilization": 0.9}))
    view.show_comparison(Comparison(same, tuple(dimension_rows(same)),
                                    settings_differ=settings_differ([r.info for r in same])))
    assert view.differ_view.isHidden() and not view.same_label.isHidden()
