"""The Runs page's exports, import, capacity summary and Resume, on runs made by the simulator.

One sweep is left cancelled half-way, as a crash or a Stop would leave it; Resume on the Runs
page finishes it through the Throughput page."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.gui.context import AppContext
from desktop_app.gui.pages.runs import RunsPage

IMPORTS = Path(__file__).resolve().parent.parent / "core" / "data" / "imports"


def _sweep(url: str, name: str, inputs=(256,)) -> SweepConfig:
    return SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"), input_tokens=inputs,
                       concurrency=(1, 2), output_tokens=(16,), requests_per_cell=4, warmup=0,
                       name=name, metrics_interval_s=0.2)


async def _fill(store: Store, url: str, cache_dir: Path) -> None:
    await run_sweep(_sweep(url, "complete sweep"), store)
    await run_eval(EvalConfig(EndpointConfig(url, model="sim/careful"),
                              question_ids=("t01", "m01")), store,
                   sets_dir=paths.questions_dir(), cache_dir=cache_dir)

    def cancel_in_second_cell(p):
        if p.phase == "running" and p.cell_index >= 1 and not cut.cancelling():
            cut.cancel()  # as Stop does: the run is stored as cancelled

    cut = asyncio.ensure_future(run_sweep(_sweep(url, "cut sweep", (256, 512, 1024)), store,
                                          cancel_in_second_cell))
    await asyncio.gather(cut, return_exceptions=True)


@pytest.fixture(scope="module")
def simulator():
    with start_simulator("instant") as sim:
        yield sim


@pytest.fixture(scope="module")
def runs_db(tmp_path_factory, simulator):
    folder = tmp_path_factory.mktemp("runs-exports")
    db = folder / "results.db"

    def fill():
        with Store.open(db) as store:
            asyncio.run(_fill(store, simulator.url, folder / "databases"))

    worker = threading.Thread(target=fill)  # asyncio.run is not allowed on the Qt loop's thread
    worker.start()
    worker.join(120)
    with Store.open(db) as store:
        runs = {r.name: r for r in store.list_runs()}
    assert runs["cut sweep"].status == "cancelled", runs
    return db, {name: r.id for name, r in runs.items()}


@pytest.fixture
def page(qt_loop, qtbot, runs_db, tmp_path):
    db, _ = runs_db
    copy = tmp_path / "results.db"  # each test changes the store: its own copy
    shutil.copy(db, copy)
    page = RunsPage(AppContext(copy, cache_dir=db.parent / "databases"))
    qtbot.addWidget(page)
    page.resize(1100, 720)
    page.show()
    _wait(qtbot, page.refresh())
    yield page
    page.shutdown()


def _wait(qtbot, task, timeout=20000):
    qtbot.waitUntil(task.done, timeout=timeout)
    assert task.exception() is None


def _names(page) -> list[str]:
    return [page.model.run_at(r).name for r in range(page.model.rowCount())]


def test_a_sweep_and_a_sql_run_compare_into_capacity_and_export_as_pdf(page, qtbot, runs_db,
                                                                       tmp_path):
    _, ids = runs_db
    page.select_runs([ids["complete sweep"], ids[next(n for n in ids if "careful" in n
                                                       or n.startswith("sales"))]])
    assert page.compare_button.isEnabled()
    page.compare_button.click()
    qtbot.waitUntil(lambda: page.detail.currentWidget() is page.summary, timeout=20000)
    text = page.summary.toPlainText()
    assert "Speed and quality together" in text and "per hour" in text
    assert "no throughput run" not in text  # the persona pairs with the simulated server

    target = tmp_path / "out" / "summary.pdf"
    target.parent.mkdir()
    page.choose_path = lambda purpose, suggestion: str(target) if purpose == "pdf" else None
    assert page.export_pdf_action.isEnabled()
    page.export_pdf_action.trigger()
    _wait(qtbot, page.controller.tasks["export"], timeout=60000)
    assert target.read_bytes().startswith(b"%PDF")
    assert "Wrote 1 file to" in page.status_label.text()


def test_csv_export_of_one_run_and_a_bad_folder_says_why(page, qtbot, runs_db, tmp_path):
    _, ids = runs_db
    page.select_runs([ids["complete sweep"]])
    page.choose_path = lambda purpose, suggestion: str(tmp_path / "csv")
    page.export_csv_action.trigger()
    _wait(qtbot, page.controller.tasks["export"])
    files = sorted(p.name for p in (tmp_path / "csv").rglob("*.csv"))
    assert any(f.endswith("-requests.csv") for f in files)
    assert any(f.endswith("-cells.csv") for f in files)

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    page.choose_path = lambda purpose, suggestion: str(blocker)
    page.export_json_action.trigger()
    _wait(qtbot, page.controller.tasks["export"])
    assert str(blocker) in page.status_label.text()
    assert blocker.read_text() == "not a folder"  # nothing the user had is lost


def test_import_lists_the_other_tools_run_and_selects_it(page, qtbot):
    before = page.model.rowCount()
    page.choose_path = lambda purpose, suggestion: str(IMPORTS / "vllm_bench_serve.json")
    page.import_button.click()
    _wait(qtbot, page.controller.tasks["import"])
    qtbot.waitUntil(lambda: page.model.rowCount() == before + 1, timeout=10000)
    selected = page.selected_runs()
    assert len(selected) == 1 and "vllm bench serve" in selected[0].name

    page.choose_path = lambda purpose, suggestion: str(IMPORTS / "README.md")
    page.import_button.click()
    _wait(qtbot, page.controller.tasks["import"])
    assert "README.md" in page.status_label.text()
    assert page.model.rowCount() == before + 1


def test_resume_is_offered_for_the_cut_sweep_only(page, runs_db, qtbot):
    _, ids = runs_db
    asked = []
    page.context.resume_requested.connect(asked.append)
    page.select_runs([ids["complete sweep"]])
    assert not page.resume_button.isEnabled()
    page.select_runs([ids["cut sweep"]])
    assert page.resume_button.isEnabled()
    page.resume_button.click()
    assert asked == [ids["cut sweep"]]


def test_resume_finishes_the_cut_sweep_in_the_same_run(qtbot, qapp, qt_loop, runs_db, tmp_path):
    from PySide6.QtCore import QSettings

    from desktop_app.gui.app import build_window
    from desktop_app.gui.settings import Settings

    db, ids = runs_db
    copy = tmp_path / "results.db"
    shutil.copy(db, copy)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    context = AppContext(copy, cache_dir=db.parent / "databases")
    window, shell = build_window(qapp, "instant", context=context, settings=settings)
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: context.endpoint is not None, timeout=30_000)
        window.show_page_named("Runs")
        runs = window.pages["Runs"]
        _wait(qtbot, runs.refresh())
        runs.select_runs([ids["cut sweep"]])
        runs.resume_button.click()
        assert window.current_page_title() == "Throughput"
        sweep = window.pages["Throughput"]
        qtbot.waitUntil(lambda: sweep.controller.task.done(), timeout=60_000)
        assert sweep.controller.task.exception() is None
        with Store.open(copy) as store:
            run = store.get_run(ids["cut sweep"])
            cells = store.cells(run.id)
        assert run.status == "completed"
        assert [(c.input_tokens, c.concurrency, c.status) for c in cells] == [
            (n, c, "completed") for n in (256, 512, 1024) for c in (1, 2)]
        assert sweep.model.rowCount() == 6  # the kept cells and the new ones, on the page
    finally:
        shell.shutdown()
        window.close()


def test_an_imported_aiperf_csv_opens_in_the_throughput_page(qtbot, qapp, qt_loop, tmp_path):
    """AIPerf's CSV records neither concurrency nor rate: the cell table says so, no crash."""
    from desktop_app.core.exchange import import_file
    from desktop_app.gui.pages.throughput import ThroughputPage

    db = tmp_path / "results.db"
    with Store.open(db) as store:
        run_id = import_file(store, IMPORTS / "profile_export_aiperf.csv")
    page = ThroughputPage(AppContext(db))
    qtbot.addWidget(page)
    page.load_run(run_id)
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10000)
    assert page.model.index(0, 1).data() == "load unknown"
