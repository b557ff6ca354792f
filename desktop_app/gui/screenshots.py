"""`throughline gui --screenshots DIR`: fill every page with real runs and save a PNG of each.

On the built-in simulator (profile fast) it runs a small throughput sweep from the Throughput
page and two SQL evaluations of sales-25 (sim/seed-reference, then sim/careful) through the SQL
Agent page's controller, then shows each page as a user would find it: the sweep, the
seed-reference run, the two SQL runs compared, m01 in the Inspector (alone, then filtered to
the questions strict failed with sim/careful's answer beside it), and the Endpoints page.
The results go to a throwaway database unless one is given; settings are throwaway too, so the
user's saved forms and window geometry are left alone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.controllers.sqleval import config_from_form
from desktop_app.gui.main_window import MainWindow
from desktop_app.gui.settings import Settings

SIZE = (1280, 800)
PROFILE = "fast"  # instant sends all tokens in one write: no decode rate to show
# (page title, file name), in the order they are saved.
SHOTS: tuple[tuple[str, str], ...] = (
    ("Endpoints", "endpoints.png"),
    ("Throughput", "throughput.png"),
    ("SQL Agent", "sql_agent.png"),
    ("Runs", "runs.png"),
    ("Inspector", "inspector.png"),
    ("Inspector", "inspector-side-by-side.png"),
    ("Throughput", "throughput-form-error.png"),
    ("Endpoints", "endpoints-error.png"),
)
# What a user mistypes: a concurrency that is not a number, an endpoint nothing listens on.
BAD_CONCURRENCY = "1, 4, x"
UNREACHABLE = "http://127.0.0.1:9"
SWEEP = {"input tokens": "256, 1024", "concurrency": "1, 4", "output tokens": "64",
         "requests per cell": "8"}
SQL_SET = "sales-25"
SQL_MODELS = ("sim/seed-reference", "sim/careful")
# A few questions of every tier but trivial, so the comparison has something to show.
SQL_QUESTIONS = ("t01", "e01", "e02", "m01", "m02", "h01", "h02", "h03")
INSPECTED = "m01"
# The charts redraw on a ~10 Hz clock: give them a few ticks before a page is grabbed.
_SETTLE_S = 0.35


class ScreenshotError(Exception):
    """A step did not finish as expected; the message says which."""


async def _until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Wait for `condition` on the running Qt loop (events keep flowing while it waits)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        if loop.time() > deadline:
            raise ScreenshotError(f"timed out after {timeout_s:g} s waiting for {what}")
        await asyncio.sleep(0.05)


async def _finished(task: asyncio.Task | None, what: str, timeout_s: float = 120.0) -> None:
    if task is None:
        raise ScreenshotError(f"{what} did not start")
    await _until(task.done, what, timeout_s)
    if task.cancelled() or task.exception() is not None:
        why = "cancelled" if task.cancelled() else task.exception()
        raise ScreenshotError(f"{what} failed: {why}")


async def _start_simulator(window: MainWindow, context: AppContext) -> None:
    endpoints = window.pages["Endpoints"]
    failures: list[str] = []
    endpoints.controller.simulator_failed.connect(failures.append)
    await _until(lambda: context.endpoint is not None or bool(failures), "the built-in simulator")
    if context.endpoint is None:
        raise ScreenshotError(f"the simulator did not start: {failures[0]}")


async def _run_sweep(window: MainWindow) -> None:
    """Type the sweep into the Throughput page and press Start, as a user would."""
    page = window.pages["Throughput"]
    window.show_page_named("Throughput")
    for edit, text in ((page.input_tokens, SWEEP["input tokens"]),
                       (page.concurrency, SWEEP["concurrency"]),
                       (page.output_tokens, SWEEP["output tokens"]),
                       (page.requests_per_cell, SWEEP["requests per cell"])):
        edit.setText(text)
    page.warmup.setValue(1)
    if not page.start_button.isEnabled():
        raise ScreenshotError(f"the throughput form was refused: {page.form_error.text()}")
    page.start_button.click()
    await _finished(page.controller.task, "the throughput sweep")
    if page.model.rowCount() == 0:  # the controller reports a failure on the page, not raising
        raise ScreenshotError(f"the throughput sweep failed: {page.status_label.text()}")


async def _run_sql(window: MainWindow, context: AppContext, model: str) -> int:
    """One SQL evaluation with `model` through the SQL Agent page's controller; its run id.

    The page's form has no question filter, so the form's config is narrowed to SQL_QUESTIONS.
    """
    page = window.pages["SQL Agent"]
    window.show_page_named("SQL Agent")
    active = context.endpoint
    context.set_endpoint(ActiveEndpoint(dataclasses.replace(active.config, model=model),
                                        active.info, active.label))
    config = dataclasses.replace(config_from_form(page.form_values(), context),
                                 questions=SQL_SET, tiers=(), question_ids=SQL_QUESTIONS,
                                 concurrency=4)
    task = page.controller.start(config)
    await _finished(task, f"the SQL evaluation with {model}")
    if page.controller.run_id is None:
        raise ScreenshotError(f"the SQL evaluation with {model} stored no run")
    return page.controller.run_id


async def _show_data(window: MainWindow, context: AppContext, seed_run: int,
                     careful_run: int) -> None:
    """Reopen the seed-reference run, compare the two SQL runs, inspect m01."""
    sql_page = window.pages["SQL Agent"]
    context.open_run_requested.emit(seed_run, "sql")
    await _finished(sql_page.controller.load_task, "loading the seed-reference run", 30)

    runs = window.pages["Runs"]
    await _finished(runs.refresh(), "the runs list", 30)
    runs.select_runs([seed_run, careful_run])
    if not runs.compare_button.isEnabled():
        raise ScreenshotError("the Runs page does not offer to compare the two SQL runs")
    runs.compare_button.click()
    await _finished(runs.controller.tasks.get("compare"), "the comparison", 30)

    row = next((r for r in sql_page.model.rows() if r.question_id == INSPECTED), None)
    if row is None or row.row_id is None:
        raise ScreenshotError(f"{INSPECTED} is not in run {seed_run}")
    inspector = window.pages["Inspector"]
    context.open_question_requested.emit(seed_run, row.row_id)  # as a double-click does
    await _finished(inspector.controller.task, f"loading {INSPECTED} in the Inspector", 30)
    if inspector.detail is None:
        raise ScreenshotError(f"the Inspector could not show {INSPECTED}: "
                              f"{inspector.status.text()}")


async def _side_by_side(window: MainWindow, careful_run: int) -> None:
    """The Inspector filtered to the questions strict failed, with sim/careful's answer to the
    question shown beside seed-reference's."""
    from desktop_app.gui.models.questions import QuestionSearch

    inspector = window.pages["Inspector"]
    inspector.set_search(QuestionSearch(verdict="fail:strict"))
    task = inspector.set_beside(careful_run)
    if task is None:
        raise ScreenshotError(f"run {careful_run} cannot be set beside {INSPECTED}")
    await _finished(task, f"loading run {careful_run}'s {INSPECTED} beside", 30)
    if inspector.beside_panel.detail is None:
        raise ScreenshotError(f"the Inspector could not show run {careful_run} beside: "
                              f"{inspector.beside_panel.summary.text()}")


async def _form_error(window: MainWindow) -> None:
    """The Throughput form with a concurrency that is not a number (its error under it)."""
    page = window.pages["Throughput"]
    page.concurrency.setText(BAD_CONCURRENCY)
    if page.start_button.isEnabled():
        raise ScreenshotError(f"the throughput form took concurrency {BAD_CONCURRENCY!r}")


async def _endpoint_error(window: MainWindow) -> None:
    """A new endpoint whose connection test fails: nothing listens at UNREACHABLE."""
    page = window.pages["Endpoints"]
    window.show_page_named("Endpoints")
    page.new_button.click()
    page.url_edit.setText(UNREACHABLE)
    page.test_button.click()
    await _finished(page.controller.test_task, "the failing connection test", 30.0)


async def _grab_pages(app: QApplication, window: MainWindow, out_dir: Path,
                      prepare: dict[str, Callable[[], Awaitable[None]]]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    saved = []
    for title, name in SHOTS:
        if name in prepare:
            await prepare[name]()
        window.show_page_named(title)
        app.processEvents()
        await asyncio.sleep(_SETTLE_S)  # a few chart clock ticks, not a synchronisation
        app.processEvents()
        path = out_dir / name
        if not window.grab().save(str(path)):
            raise ScreenshotError(f"cannot write {path}")
        saved.append(path)
    return saved


async def save_screenshots(app: QApplication, out_dir: Path, build_window: Callable,
                           results_db: Path | None = None,
                           size: tuple[int, int] | None = None) -> int:
    """Fill the pages with runs on the simulator and save one PNG per page into `out_dir`;
    prints the paths. Returns the exit status (1, with a line on stderr, when a step failed).
    `build_window` is `gui.app`'s (passed in: app imports this module, not the reverse)."""

    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise

    with tempfile.TemporaryDirectory(prefix="throughline-shots-") as tmp:
        settings = Settings(QSettings(str(Path(tmp) / "settings.ini"),
                                      QSettings.Format.IniFormat))
        context = AppContext(results_db or Path(tmp) / "results.db")
        window, shell = build_window(app, PROFILE, context=context, settings=settings)
        try:
            window.resize(*(size or SIZE))
            window.show()
            await _start_simulator(window, context)
            await _run_sweep(window)
            started_on = context.endpoint
            seed_run = await _run_sql(window, context, SQL_MODELS[0])
            careful_run = await _run_sql(window, context, SQL_MODELS[1])
            context.set_endpoint(started_on)  # the pages show the endpoint the app started on
            await _show_data(window, context, seed_run, careful_run)
            paths = await _grab_pages(app, window, out_dir, {
                "inspector-side-by-side.png": lambda: _side_by_side(window, careful_run),
                "throughput-form-error.png": lambda: _form_error(window),
                "endpoints-error.png": lambda: _endpoint_error(window)})
        except ScreenshotError as exc:
            print(f"throughline gui --screenshots: {exc}", file=sys.stderr)
            return 1
        finally:
            shell.shutdown()
            window.close()
            await asyncio.sleep(0)  # let cancelled page tasks finish before the loop ends
    for path in paths:
        print(path)
    return 0
