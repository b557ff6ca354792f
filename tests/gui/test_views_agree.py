"""Every view of one stored run says the same thing (issue #11).

A SQL run stopped part-way: 6 questions judged (4 passed strict), 3 it never finished. The Runs
page's comparison, the SQL Agent page reopening it, its tier chart and `load_eval` all say 4/6
with 3 unfinished, never 4/9. A stored sweep: the Throughput page reopening it and the Runs page
show the cells `load_sweep` reads.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.runs import PassCount
from desktop_app.core.sqleval.records import load_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.records import load_sweep
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.runs import RunsPage
from desktop_app.gui.pages.sql_agent import SqlAgentPage
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings

URL = "http://127.0.0.1:8000"
JUDGES = ("strict", "tolerant")
# (question, tier, strict, tolerant); None: the run was stopped before it finished.
STOPPED = (("t01", "trivial", True, True), ("t02", "trivial", True, True),
           ("e01", "easy", True, True), ("e02", "easy", False, True),
           ("m01", "medium", False, True), ("m02", "medium", True, True),
           ("m03", "medium", None, None), ("h01", "hard", None, None),
           ("h02", "hard", None, None))
COMPLETED = tuple((q, t, q != "h02", True) for q, t, _, _ in STOPPED)


def _verdicts(strict: bool, tolerant: bool) -> dict:
    finding = [] if strict else [{"code": "value_mismatch", "message": "total differs",
                                  "cells": []}]
    return {"verdicts": {"strict": {"passed": strict, "findings": finding, "tolerance": 0},
                         "tolerant": {"passed": tolerant, "findings": [], "tolerance": 1e-6}},
            "counterfactual": None, "findings": [], "tolerance": 1e-6, "ignore_names": False,
            "judged_at": "2026-01-01T00:00:00.000+00:00", "rejudged": False, "question": {}}


def _sql_run(store: Store, name: str, questions, status: str) -> int:
    """A SQL run as the runner stores it: judged questions completed with their verdicts, the
    ones a stop caught in flight cancelled without any."""
    run_id = store.create_run("sql", name=name, endpoint_url=URL, model="qwen-8b",
                              engine="vllm", config={"judges": list(JUDGES)})
    with store.writer() as writer:
        for qid, tier, strict, tolerant in questions:
            row = {"run_id": run_id, "question_id": qid, "tier": tier, "epoch": 0,
                   "steps": 3, "prompt_tokens": 900, "completion_tokens": 60, "seconds": 1.5}
            if strict is None:
                row.update(status="cancelled", stop_reason="cancelled")
            else:
                row.update(status="completed", stop_reason="submitted",
                           verdicts_json=_verdicts(strict, tolerant),
                           failure_class=None if strict else "value_mismatch")
            writer.add_sql_question(row)
    store.finish_run(run_id, status)
    return run_id


def _summary(count: int, prefill: float) -> dict:
    def dist(v):
        return {"n": count, "mean": v, "p50": v, "p90": v, "p99": v, "min": v, "max": v}

    return {"count": count, "ok": count, "failures_by_class": {}, "ttft_s": dist(0.05),
            "prefill_tps": dist(prefill), "decode_tps": dist(50.0), "tpot_s": None,
            "itl_s": None, "e2e_s": None, "wall_s": 1.0, "output_tps": 10.0,
            "effective_prefill_tps": None, "effective_decode_tps": None, "status": "completed"}


def _sweep(store: Store, name: str, stopped: bool) -> int:
    """Four cells; a stopped sweep never ran its last one (left pending)."""
    run_id = store.create_run("throughput", name=name, endpoint_url=URL, model="qwen-8b",
                              engine="vllm")
    for index, (n_in, conc) in enumerate(((256, 1), (256, 4), (1024, 1), (1024, 4))):
        if stopped and index == 3:
            store.add_cell(run_id, cell_index=index, input_tokens=n_in, output_tokens=32,
                           concurrency=conc, status="pending")
        else:
            store.add_cell(run_id, cell_index=index, input_tokens=n_in, output_tokens=32,
                           concurrency=conc, status="completed",
                           summary=_summary(4 * conc, n_in * 10 / conc))
    store.finish_run(run_id, "cancelled" if stopped else "completed")
    return run_id


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "r.db"
    with Store.open(path) as store:
        ids = {"stopped": _sql_run(store, "stopped early", STOPPED, "cancelled"),
               "completed": _sql_run(store, "all nine", COMPLETED, "completed"),
               "sweep_stopped": _sweep(store, "sweep stopped", True),
               "sweep": _sweep(store, "sweep whole", False)}
    return path, ids


def _settings(tmp_path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def _wait(qtbot, task, timeout=15000):
    qtbot.waitUntil(task.done, timeout=timeout)
    assert task.exception() is None


def _runs_page(qtbot, path, tmp_path) -> RunsPage:
    page = RunsPage(AppContext(path), _settings(tmp_path))
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    _wait(qtbot, page.refresh())
    return page


def test_a_stopped_sql_run_counts_the_same_everywhere(qt_loop, qtbot, tmp_path, store_path):
    path, ids = store_path
    with Store.open(path) as store:
        stored = {key: load_eval(store, ids[key]) for key in ("stopped", "completed")}
    expected = {"stopped": {"strict": PassCount(4, 6, 3), "tolerant": PassCount(6, 6, 3)},
                "completed": {"strict": PassCount(8, 9, 0), "tolerant": PassCount(9, 9, 0)}}
    for key, run in stored.items():  # the records module: the one rule
        assert {j: run.pass_count(j) for j in JUDGES} == expected[key]

    # The Runs page: both runs compared; per tier and overall, the same counts.
    runs = _runs_page(qtbot, path, tmp_path)
    try:
        runs.select_runs([ids["stopped"], ids["completed"]])
        runs.compare_button.click()
        _wait(qtbot, runs.controller.tasks["compare"])
        tiers = runs.comparison.tier_model
        for key, run in stored.items():
            for judge in JUDGES:
                assert tiers.counts("all", ids[key], judge) == run.pass_count(judge)
                for tier in ("trivial", "easy", "medium", "hard"):
                    assert tiers.counts(tier, ids[key], judge) == run.pass_count(judge, tier)
        shown = [tiers.index(r, c).data() for r in range(tiers.rowCount())
                 for c in range(tiers.columnCount())]
        assert "4/6  67%, 3 unfinished" in shown and "8/9  89%" in shown
        assert not any("4/9" in str(text) for text in shown)
        # The comparison's rows count the judged questions too.
        rows = runs.comparison.rows_model
        strict = [rows.index(r, 0).data() for r in range(rows.rowCount())].index(
            "Strict pass rate")
        values = {rows.headerData(c, Qt.Orientation.Horizontal): rows.index(strict, c).data()
                  for c in (1, 2)}
        assert values[f"#{ids['stopped']} stopped early"].startswith("67 % (4/6)")
        assert values[f"#{ids['completed']} all nine"].startswith("89 % (8/9)")
    finally:
        runs.shutdown()

    # The SQL Agent page reopening each run: its summary, its table and its tier chart.
    for key, run in stored.items():
        page = SqlAgentPage(AppContext(path, cache_dir=tmp_path / "db"), _settings(tmp_path))
        qtbot.addWidget(page)
        page.context.open_run_requested.emit(ids[key], "sql")
        qtbot.waitUntil(lambda p=page: p.model.rowCount() == 9, timeout=15000)
        for judge in JUDGES:
            assert page.model.pass_count(judge) == run.pass_count(judge)
        summary = page.summary_label.text()
        strict, tolerant = expected[key]["strict"], expected[key]["tolerant"]
        assert f"strict {strict.text}" in summary and f"tolerant {tolerant.text}" in summary
        assert ("3 unfinished" in summary) == (key == "stopped")
        chart = page.chart.pass_counts()
        assert set(chart) == {"trivial", "easy", "medium", "hard"}
        for tier, counts in chart.items():
            for judge in JUDGES:
                assert counts[judge] == run.pass_count(judge, tier), (key, tier, judge)
        # The bars are those rates: medium is 1 of 2 judged (not 1 of 3) for the stopped run.
        page.chart.redraw()
        heights = page.chart.pass_bars["strict"].opts["height"]
        assert list(heights)[2] == pytest.approx(
            100 * run.pass_count("strict", "medium").rate)
        page.controller.cancel_reads()


def test_a_stored_sweep_shows_the_cells_load_sweep_reads(qt_loop, qtbot, tmp_path,
                                                         store_path):
    path, ids = store_path
    with Store.open(path) as store:
        sweeps = {key: load_sweep(store, ids[key]) for key in ("sweep_stopped", "sweep")}
    assert [len(s.cells) for s in sweeps.values()] == [4, 4]

    runs = _runs_page(qtbot, path, tmp_path)
    try:
        runs.select_runs([ids["sweep_stopped"], ids["sweep"]])
        runs.compare_button.click()
        _wait(qtbot, runs.controller.tasks["compare"])
        model = runs.comparison.throughput_model
        for key, sweep in sweeps.items():
            assert model.cell_count(ids[key]) == len(sweep.cells)
        # The request browser of one run names the same cells.
        runs.select_runs([ids["sweep_stopped"]])
        _wait(qtbot, runs.controller.tasks["requests"])
        assert len(runs.requests.model._cells) == len(sweeps["sweep_stopped"].cells)
    finally:
        runs.shutdown()

    for key, sweep in sweeps.items():
        page = ThroughputPage(AppContext(path), _settings(tmp_path))
        qtbot.addWidget(page)
        page.load_run(ids[key])
        _wait(qtbot, page.controller.load_task)
        assert page.model.rowCount() == len(sweep.cells)
        assert [page.model.index(r, 3).data() for r in range(page.model.rowCount())] == [
            f"{c.ok}/{c.requests}" for c in sweep.cells]
        assert f"{len(sweep.cells)} cells" in page.status_label.text()
        # Its never-run cell reads as cancelled, as load_sweep says.
        assert [page.model.cell(r).status for r in range(4)] == [
            c.result.status for c in sweep.cells]
