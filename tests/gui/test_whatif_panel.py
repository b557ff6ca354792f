"""The What-if panel of the Throughput page (#15) and how a reopened sweep shows its progress
(#12): fit a stored sweep without holding the window, change a setting, mistype one."""

import asyncio
import dataclasses
import threading
import time

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.fit import fit_job
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings


def _sweep_in_thread(db, config_for, stop_after: int | None = None) -> None:
    """Run a sweep into `db` on its own loop in a thread (never on the Qt loop's thread);
    with `stop_after`, cancel it once that many requests of a cell have finished."""

    def fill(url: str) -> None:
        async def main() -> None:
            with Store.open(db) as store:
                task = None

                def on_progress(p) -> None:
                    if stop_after is not None and p.phase == "running" and p.done >= stop_after:
                        task.cancel()

                task = asyncio.ensure_future(run_sweep(config_for(url), store, on_progress))
                try:
                    await task
                except asyncio.CancelledError:
                    pass

        asyncio.run(main())

    with start_simulator("fast") as sim:
        worker = threading.Thread(target=fill, args=(sim.url,))
        worker.start()
        worker.join(120)


@pytest.fixture(scope="module")
def stored_sweeps(tmp_path_factory):
    """One small completed sweep (256 and 1024 tokens x 1 and 2 concurrent) and one stopped
    in its only cell after 3 of its 16 requests; (db, completed id, stopped id)."""
    db = tmp_path_factory.mktemp("whatif") / "results.db"
    _sweep_in_thread(db, lambda url: SweepConfig(
        EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=(256, 1024),
        concurrency=(1, 2), output_tokens=(16,), requests_per_cell=4, warmup=0,
        name="small", metrics_interval_s=0.2))
    _sweep_in_thread(db, lambda url: SweepConfig(
        EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=(4096,),
        concurrency=(2,), output_tokens=(256,), requests_per_cell=16, warmup=0,
        name="stopped", metrics_interval_s=0.2), stop_after=3)
    with Store.open(db) as store:
        runs = {r.name: r for r in store.list_runs(kind="throughput")}
    assert runs["stopped"].status == "cancelled"
    return db, runs["small"].id, runs["stopped"].id


def _page(qtbot, tmp_path, db) -> ThroughputPage:
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    page = ThroughputPage(AppContext(db), settings)
    qtbot.addWidget(page)
    page.resize(1280, 800)
    page.show()
    return page


def _reopen(qtbot, page, run_id) -> None:
    page.load_run(run_id)
    qtbot.waitUntil(page.controller.load_task.done, timeout=20_000)


def _fitted(qtbot, page, run_id):
    """Open the What-if tab on reopened run `run_id` and wait for the fit; counts how often a
    50 ms timer fired meanwhile (the window kept running)."""
    _reopen(qtbot, page, run_id)
    ticks = []
    timer = QTimer(page)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(50)
    page.views.setCurrentWidget(page.whatif)
    assert "Fitting" in page.whatif.status_label.text()
    qtbot.waitUntil(lambda: page.whatif.table.rowCount() == 4, timeout=90_000)
    timer.stop()
    return ticks


async def _slow_fit_job(*args):
    """The fit, held 1 s first: a fit that took 0.2 s on a fast machine could hold the window
    for all of it and still leave the 50 ms clock four ticks."""
    time.sleep(1.0)
    return await fit_job(*args)


def test_the_panel_fits_a_stored_sweep_without_holding_the_window(
        qtbot, qt_loop, tmp_path, stored_sweeps, monkeypatch):
    db, run_id, _ = stored_sweeps
    monkeypatch.setattr("desktop_app.gui.controllers.throughput.fit_job", _slow_fit_job)
    page = _page(qtbot, tmp_path, db)
    ticks = _fitted(qtbot, page, run_id)
    # The fit ran elsewhere: the window's clock went on ticking through the held second (a fit
    # on the window's thread would leave it none of the 20 ticks).
    assert len(ticks) >= 12
    panel = page.whatif
    assert f"Run {run_id}" in panel.status_label.text()
    assert "Worst cell error" in panel.fit_label.text()
    params = panel.params_label.text()
    assert "max_num_seqs" in params and "prefill_tokens_per_s" in params
    # The simulator does not report its KV capacity through /metrics here, or it does: either
    # way each parameter says where it came from.
    assert "fitted" in params
    # Measured and predicted, per prompt length, at each concurrency.
    assert len(panel.predicted_points("ttft", 1024)) == 2
    assert panel.table.item(0, 0).text() == "256" and panel.table.item(1, 1).text() == "c=2"
    assert panel.table.item(1, 6).text() == "0%"  # nothing changed yet


def test_a_lower_max_num_seqs_changes_the_predicted_curve(qtbot, qt_loop, tmp_path,
                                                          stored_sweeps):
    db, run_id, _ = stored_sweeps
    page = _page(qtbot, tmp_path, db)
    _fitted(qtbot, page, run_id)
    panel = page.whatif
    before = panel.predicted_points("ttft", 1024)
    panel._edits["max_num_seqs"].setText("1")
    qtbot.mouseClick(panel.predict_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.predicted_points("ttft", 1024) != before, timeout=30_000)
    after = panel.predicted_points("ttft", 1024)
    assert after[0] == pytest.approx(before[0])  # alone: one at a time changes nothing
    assert after[1] > before[1] * 1.3  # at 2 concurrent the second request now queues
    assert panel.table.item(3, 6).text().startswith("+")
    assert panel.extrapolated_label.isHidden()  # fewer at once than measured: no extrapolation
    # Were the server capped at 1, a change letting 2 run at once would rest on a batch the
    # sweep never ran: the prediction says it is extrapolated.
    fitted = page.whatif.controller.current
    page.whatif.controller.current = dataclasses.replace(
        fitted, fit=dataclasses.replace(fitted.fit, measured_batch=1))
    shown = panel.predicted_points("ttft", 1024)
    panel._edits["max_num_seqs"].setText("8")
    qtbot.mouseClick(panel.predict_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.predicted_points("ttft", 1024) != shown, timeout=30_000)
    assert not panel.extrapolated_label.isHidden()
    assert "batches of at most 1 requests" in panel.extrapolated_label.text()


def test_a_bad_field_is_named_and_the_others_are_kept(qtbot, qt_loop, tmp_path, stored_sweeps):
    db, run_id, _ = stored_sweeps
    page = _page(qtbot, tmp_path, db)
    _fitted(qtbot, page, run_id)
    panel = page.whatif
    panel._edits["kv_capacity"].setText("x1.5")
    panel._edits["max_num_batched_tokens"].setText("4096")
    assert panel.predict_button.isEnabled()
    for typed, says in (("two", "not a number"), ("2.5", "whole number"), ("-1", "positive")):
        panel._edits["max_num_seqs"].setText(typed)
        error = panel._errors["max_num_seqs"]
        assert error.isVisible() and error.text().startswith("max_num_seqs:")
        assert says in error.text()
        assert not panel.predict_button.isEnabled()
        assert not panel._errors["kv_capacity"].isVisible()
        assert panel._edits["kv_capacity"].text() == "x1.5"
        assert panel._edits["max_num_batched_tokens"].text() == "4096"
    panel._edits["max_num_seqs"].setText("4")
    assert not panel._errors["max_num_seqs"].isVisible()
    assert panel.predict_button.isEnabled()


def test_a_reopened_completed_sweep_shows_all_done(qtbot, qt_loop, tmp_path, stored_sweeps):
    db, run_id, _ = stored_sweeps
    page = _page(qtbot, tmp_path, db)
    _reopen(qtbot, page, run_id)
    assert page.model.rowCount() == 4
    assert page.progress.maximum() > 0
    assert page.progress.value() == page.progress.maximum()


def test_a_stopped_cell_says_how_many_requests_finished(qtbot, qt_loop, tmp_path,
                                                        stored_sweeps):
    db, _, stopped_id = stored_sweeps
    page = _page(qtbot, tmp_path, db)
    _reopen(qtbot, page, stopped_id)
    assert page.model.rowCount() == 1
    cell = page.model.cell(0)
    finished = cell.summary.count
    assert 3 <= finished < 16
    notes = page.model.index(0, page.model.columnCount() - 1).data()
    assert notes.startswith(f"{finished}/16 finished")
    assert page.model.index(0, 3).data() == f"{cell.summary.ok}/{finished}"
    assert page.progress.maximum() == 16 and page.progress.value() == finished
