"""The Throughput page, driven as a user would: type into the form, press Start or Stop."""

import asyncio
import dataclasses
import os
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import QSettings, Qt

from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.pages.throughput import NO_ENDPOINT_HINT, ThroughputPage
from desktop_app.gui.settings import Settings
from desktop_app.report.diagnosis_words import findings_text
from tests.gui.test_worker import _alive


@pytest.fixture(scope="module")
def fast_sim():
    with start_simulator("fast") as sim:
        # In a thread of its own: the session's Qt loop may already count as running here.
        with ThreadPoolExecutor(1) as pool:
            info = pool.submit(lambda: asyncio.run(discover(EndpointConfig(sim.url)))).result()
        yield sim, info


def _page(qtbot, tmp_path, endpoint=None) -> ThroughputPage:
    context = AppContext(tmp_path / "r.db")
    if endpoint is not None:
        context.set_endpoint(endpoint)
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    page = ThroughputPage(context, settings)
    qtbot.addWidget(page)
    page.show()
    return page


def _endpoint(fast_sim) -> ActiveEndpoint:
    sim, info = fast_sim
    return ActiveEndpoint(EndpointConfig(sim.url, model=info.models[0]), info, "simulator")


def _type(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def _stored_runs(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        return store.list_runs(kind="throughput")


def test_without_an_endpoint_start_is_disabled_with_a_hint(qtbot, qt_loop, tmp_path):
    page = _page(qtbot, tmp_path)
    assert page.endpoint_label.text() == NO_ENDPOINT_HINT
    assert "Endpoints page" in page.endpoint_label.text()
    assert not page.start_button.isEnabled()


@pytest.mark.parametrize("typed", ["0", "two", "1, 0"])
def test_bad_concurrency_is_named_and_blocks_start(qtbot, qt_loop, tmp_path, fast_sim, typed):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    assert page.start_button.isEnabled()
    _type(qtbot, page.concurrency, typed)
    error = page._errors["concurrency"]
    assert error.isVisible()
    assert error.text().startswith("concurrency:")
    assert not page.start_button.isEnabled()
    _type(qtbot, page.concurrency, "1, 2")
    assert not error.isVisible()
    assert page.start_button.isEnabled()


def test_a_sweep_typed_into_the_form_runs_to_the_end(qtbot, qt_loop, tmp_path, fast_sim):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    finished = []
    page.context.run_finished.connect(lambda run_id, kind: finished.append((run_id, kind)))
    _type(qtbot, page.input_tokens, "128, 512")
    _type(qtbot, page.concurrency, "1, 2")
    _type(qtbot, page.output_tokens, "16")
    _type(qtbot, page.requests_per_cell, "4")
    page.warmup.setValue(1)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert page.stop_button.isEnabled() and not page.start_button.isEnabled()
    task = page.controller.task
    qtbot.waitUntil(task.done, timeout=60_000)
    assert task.exception() is None
    assert page.model.rowCount() == 4
    assert [page.model.cell(r).spec.concurrency for r in range(4)] == [1, 2, 1, 2]
    assert page.model.index(0, 3).data() == "4/4"
    assert page.findings.toPlainText().strip()
    assert page.status_label.text().startswith("Run ")
    assert page.start_button.isEnabled() and not page.stop_button.isEnabled()
    runs = _stored_runs(tmp_path)
    assert [r.status for r in runs] == ["completed"]
    assert finished == [(runs[0].id, "throughput")]
    # The charts have one line per concurrency; a click on a point selects its cell.
    page.prefill_chart.redraw()
    assert sorted(page.prefill_chart.series_keys()) == ["c=1", "c=2"]
    for chart in page.charts:  # named from Start, in the order swept
        assert [label.text for _, label in chart.legend.items] == ["c=1", "c=2"]
    page._on_chart_point_clicked(3)
    assert page.table.selectionModel().selectedRows()[0].row() == 3


def test_stop_cancels_the_run_and_start_comes_back(qtbot, qt_loop, tmp_path, fast_sim):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    _type(qtbot, page.input_tokens, "512, 1k, 2k, 4k")
    _type(qtbot, page.concurrency, "1, 2, 4, 8")
    _type(qtbot, page.output_tokens, "128")
    page.warmup.setValue(0)
    started = []
    page.controller.progress_changed.connect(
        lambda p: started.append(p) if p.phase == "running" and p.done else None)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    task = page.controller.task
    qtbot.waitUntil(lambda: bool(started), timeout=30_000)
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(task.done, timeout=30_000)
    assert task.cancelled()
    assert "cancelled" in page.status_label.text()
    assert page.start_button.isEnabled() and not page.stop_button.isEnabled()
    assert [r.status for r in _stored_runs(tmp_path)] == ["cancelled"]
    # The four loads were named in the legends at Start; those never measured are gone.
    measured = {page.model.cell(r).spec.load_label for r in range(page.model.rowCount())}
    for chart in page.charts:
        chart.redraw()
        named = [label.text for _, label in chart.legend.items]
        assert set(named) <= measured and named == chart.series_keys()


def test_a_stored_run_can_be_shown_again(qtbot, qt_loop, tmp_path, fast_sim):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    _type(qtbot, page.input_tokens, "128")
    _type(qtbot, page.concurrency, "1, 2")
    _type(qtbot, page.output_tokens, "8")
    _type(qtbot, page.requests_per_cell, "2")
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.controller.task.done, timeout=60_000)
    run_id = page.controller.run_id
    other = _page(qtbot, tmp_path)
    other.load_run(run_id)
    qtbot.waitUntil(other.controller.load_task.done, timeout=10_000)
    assert other.model.rowCount() == 2
    assert other.model.index(1, 3).data() == "2/2"
    assert f"Run {run_id}" in other.status_label.text()
    # The diagnosis kept when the sweep ended, as the page showed it after the live run.
    assert other.findings.toPlainText() == page.findings.toPlainText()
    assert "not kept" not in other.findings.toPlainText()
    assert other.findings.toPlainText().startswith("Diagnosis")

    # A run without a kept diagnosis (older or imported): rebuilt from its requests, and said.
    with sqlite3.connect(tmp_path / "r.db") as db:
        db.execute("UPDATE runs SET diagnosis_json = NULL WHERE id = ?", (run_id,))
    db.close()
    other.load_run(run_id)
    qtbot.waitUntil(other.controller.load_task.done, timeout=10_000)
    text = other.findings.toPlainText()
    assert "was not kept" in text and "rebuilt" in text
    # The same findings, rebuilt; without the suggestions' predicted effects, which only a
    # fit of the engine model gives (seconds: done when a sweep ends, not when one is shown).
    live = [dataclasses.replace(f, params={k: v for k, v in f.params.items()
                                           if k != "predicted"})
            for f in page.findings.findings]
    assert text.endswith(findings_text(live, "en"))
    assert [f.code for f in other.findings.findings] == [f.code for f in live]


def test_the_page_opens_alone(tmp_path):
    shot = tmp_path / "page.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "desktop_app.gui.pages.throughput", "--screenshot", str(shot)],
        env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert shot.stat().st_size > 10_000


def test_a_sweep_against_a_faulty_server_completes_and_counts_its_failures(
        qtbot, qt_loop, tmp_path):
    """Resets, 500s and 429s at concurrency 16: the run completes, each failure is counted in
    its cell, and the page kept redrawing throughout (its 10 Hz chart clock kept ticking)."""
    with start_simulator("fast", faults="reset=0.1,http500=0.1,http429=0.1,seed=5") as sim:
        with ThreadPoolExecutor(1) as pool:
            info = pool.submit(lambda: asyncio.run(discover(EndpointConfig(sim.url)))).result()
        page = _page(qtbot, tmp_path, ActiveEndpoint(
            EndpointConfig(sim.url, model=info.models[0]), info, "faulty simulator"))
        _type(qtbot, page.input_tokens, "128")
        _type(qtbot, page.concurrency, "1, 16")
        _type(qtbot, page.output_tokens, "16")
        _type(qtbot, page.requests_per_cell, "64")
        page.warmup.setValue(0)
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
        task = page.controller.task
        qtbot.waitUntil(task.done, timeout=90_000)
        assert task.exception() is None
        records = httpx.get(f"{sim.url}/sim/trace").json()["records"]
    injected = sum(1 for r in records if r.get("fault"))
    runs = _stored_runs(tmp_path)
    assert [r.status for r in runs] == ["completed"]
    cells = [page.model.cell(r) for r in range(page.model.rowCount())]
    assert [c.spec.concurrency for c in cells] == [1, 16]
    failures = {}
    for cell in cells:
        assert cell.summary.count == 64
        for name, n in cell.summary.failures_by_class.items():
            failures[name] = failures.get(name, 0) + n
    # Each injected fault is one failed request of its class: a cut stream (reset) or an HTTP
    # error status (500, 429); nothing else failed and no fault went unnoticed.
    assert set(failures) == {"stream_cut", "http_status"}, failures
    assert sum(failures.values()) == injected > 0, (failures, injected)
    assert page.start_button.isEnabled()


def test_the_number_of_load_generating_processes_is_kept_with_the_form(
        qtbot, qt_loop, tmp_path, fast_sim):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    assert page.workers.value() == 1  # the default: streams in the sweep's own process
    page.workers.setValue(3)
    assert page.form().workers == 3
    page.save_state()
    again = _page(qtbot, tmp_path, _endpoint(fast_sim))
    assert again.workers.value() == 3
    # A saved form is hostile: a value that is no number is the default, a huge one the most.
    for saved, shown in (('"lots"', 1), ("10000000000000", 256), ("-4", 1)):
        again.settings.set_value("throughput/form", '{"workers": %s}' % saved)
        assert _page(qtbot, tmp_path, _endpoint(fast_sim)).workers.value() == shown


def _live_children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, zombies left out (they have ended)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(ppid) == pid and state != "Z":
            out.append(int(entry))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_stopping_a_sweep_with_worker_processes_leaves_none_alive(
        qtbot, qt_loop, tmp_path, fast_sim):
    page = _page(qtbot, tmp_path, _endpoint(fast_sim))
    _type(qtbot, page.input_tokens, "512, 1k, 2k")
    _type(qtbot, page.concurrency, "8")
    _type(qtbot, page.output_tokens, "256")
    page.warmup.setValue(0)
    page.workers.setValue(2)
    before = set(_live_children(os.getpid()))
    started = []
    page.controller.progress_changed.connect(
        lambda p: started.append(p) if p.phase == "running" and p.done else None)
    found: dict = {}

    def streaming_from_two_workers() -> bool:
        """The sweep's process, and under it the two workers streaming the cell."""
        for pid in set(_live_children(os.getpid())) - before:
            workers = _live_children(pid)
            if len(workers) == 2:
                found.update(sweep=pid, workers=workers)
        return bool(started) and bool(found)

    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    task = page.controller.task
    qtbot.waitUntil(streaming_from_two_workers, timeout=60_000)
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(task.done, timeout=60_000)
    assert task.cancelled(), page.status_label.text()
    assert [r.status for r in _stored_runs(tmp_path)] == ["cancelled"]
    left = [pid for pid in (found["sweep"], *found["workers"]) if _alive(pid)]
    assert not left, f"still alive after Stop: {left} (sweep {found['sweep']})"
    # Resumed from the window, the run streams from its two workers again, and Stop ends them.
    [run] = _stored_runs(tmp_path)
    found.clear()
    before = set(_live_children(os.getpid()))
    assert page.resume_run(run.id)
    task = page.controller.task
    qtbot.waitUntil(lambda: streaming_from_two_workers() or task.done(), timeout=60_000)
    assert found, f"the resumed run did not stream from two workers: {page.status_label.text()}"
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(task.done, timeout=60_000)
    left = [pid for pid in (found["sweep"], *found["workers"]) if _alive(pid)]
    assert not left, f"still alive after Stop of the resumed run: {left}"


_QUIT_MID_SWEEP = r'''
import asyncio, os, sys, tempfile
from pathlib import Path
from PySide6.QtWidgets import QApplication
from desktop_app.gui.event_loop import EventLoop
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.pages.throughput import ThroughputPage
from tests.gui.test_throughput_page import _live_children

url = sys.argv[1]
info = asyncio.run(discover(EndpointConfig(url)))
app = QApplication(sys.argv)
loop = EventLoop(app)
asyncio.set_event_loop(loop)
context = AppContext(Path(tempfile.mkdtemp()) / "r.db")
context.set_endpoint(ActiveEndpoint(EndpointConfig(url, model=info.models[0]), info, "sim"))
page = ThroughputPage(context)
page.input_tokens.setText("512, 1k, 2k")
page.concurrency.setText("8")
page.output_tokens.setText("256")
page.warmup.setValue(0)
page.workers.setValue(2)

async def until_streaming():
    page.start_button.click()
    while True:
        await asyncio.sleep(0.05)
        for sweep in _live_children(os.getpid()):
            workers = _live_children(sweep)
            if len(workers) == 2:
                print("PIDS", sweep, *workers, flush=True)
                return

with loop:
    loop.run_until_complete(until_streaming())
# The process now ends with the sweep still running: nobody pressed Stop.
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_quitting_the_app_mid_sweep_leaves_no_worker_process(fast_sim):
    sim, _info = fast_sim
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", _QUIT_MID_SWEEP, sim.url], env=env,
                          capture_output=True, text=True, timeout=120,
                          cwd=str(Path(__file__).resolve().parents[2]))
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("PIDS"))
    pids = [int(x) for x in line.split()[1:]]
    assert len(pids) == 3
    assert not [pid for pid in pids if _alive(pid)]


def test_after_the_last_request_the_page_says_it_is_fitting_the_model(qtbot, tmp_path):
    """The suggestions' effects take seconds of CPU after the sweep's 100 %: the bar starts
    again and the line says what runs (it said "Diagnosing..." with the bar full)."""
    from desktop_app.core.throughput.sweep import SweepProgress

    page = _page(qtbot, tmp_path)
    page._on_controller_progress_changed(SweepProgress("predicting", done=5, total=20))
    assert (page.progress.maximum(), page.progress.value()) == (20, 5)
    assert page.status_label.text() == ("Predicting what each suggestion would change: "
                                        "fitting the engine model to the sweep (25 %)...")
