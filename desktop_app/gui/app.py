"""QApplication, the qasync event loop, the one excepthook, and the wiring of the window.

Every qasync detail lives here: the rest of the GUI writes plain asyncio.

Start-up is kept short: `run_app` shows the window with placeholder pages and builds the real
pages (pyqtgraph, the SQL stack, the keyring lookup) right after its first paint.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desktop_app import paths

from desktop_app.gui.context import AppContext
from desktop_app.gui.event_loop import EventLoop
from desktop_app.gui.i18n import ENV_LANGUAGE, setup_language, translate
from desktop_app.gui.main_window import MainWindow
from desktop_app.gui.settings import APPLICATION, KEY_LANGUAGE, ORGANIZATION, Settings
from desktop_app.gui.shell import AppShell

log = logging.getLogger(__name__)


_open_dialogs: list[QMessageBox] = []  # error dialogs on screen, kept alive until closed


def _forget_dialogs(_result: int = 0) -> None:
    _open_dialogs[:] = [box for box in _open_dialogs if box.isVisible()]


def install_excepthook() -> None:
    """Log any uncaught exception and show it in a dialog instead of dying silently."""

    def hook(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("uncaught exception\n%s", text)
        if QApplication.instance() is not None:
            box = QMessageBox(QMessageBox.Icon.Critical,
                              translate("App", "Throughline: unexpected error"),
                              f"{exc_type.__name__}: {exc}")
            box.setDetailedText(text)
            # Not exec(): a nested modal loop would stall the asyncio loop (and every run in
            # it) until the user answers; the app keeps working behind the dialog.
            _open_dialogs.append(box)
            box.finished.connect(_forget_dialogs)
            box.show()

    sys.excepthook = hook


def page_factories(context: AppContext, settings: Settings,
                   simulator_profile: str | None = None) -> dict[str, Callable[[], QWidget]]:
    """A function building each page, by sidebar title; each imports its page's module when
    called. The Endpoints page starts the built-in simulator (`simulator_profile`, unless None)
    as soon as it is built; the Runs page lists the stored runs."""

    def endpoints() -> QWidget:
        from desktop_app.gui.pages.endpoints import EndpointsPage

        page = EndpointsPage(context, settings=settings)
        if simulator_profile:
            page.start_simulator(simulator_profile)
        return page

    def throughput() -> QWidget:
        from desktop_app.gui.pages.throughput import ThroughputPage

        return ThroughputPage(context, settings)

    def sql_agent() -> QWidget:
        from desktop_app.gui.pages.sql_agent import SqlAgentPage

        return SqlAgentPage(context, settings)

    def runs() -> QWidget:
        from desktop_app.gui.pages.runs import RunsPage

        page = RunsPage(context, settings)
        page.refresh()
        return page

    def inspector() -> QWidget:
        from desktop_app.gui.pages.inspector import InspectorPage

        return InspectorPage(context, settings)

    return {"Endpoints": endpoints, "Throughput": throughput, "SQL Agent": sql_agent,
            "Runs": runs, "Inspector": inspector}


def build_window(app: QApplication, simulator_profile: str | None, *,
                 context: AppContext | None = None, settings: Settings | None = None,
                 eager: bool = True) -> tuple[MainWindow, AppShell]:
    """The main window with every page, wired; starts the built-in simulator as the active
    endpoint unless `simulator_profile` is None. Needs a running qasync loop.

    With `eager` (the default) every page is built before this returns, so `window.pages`
    holds the real pages. Without it the pages are placeholders until the window has painted,
    then built one per event-loop turn (`window.ensure_pages()` builds the rest at once);
    the simulator starts when the Endpoints page is built."""
    settings = settings or Settings()
    context = context or AppContext()
    window = MainWindow(settings,
                        page_factories=page_factories(context, settings, simulator_profile))
    shell = AppShell(window, context)
    app.aboutToQuit.connect(shell.shutdown)
    if simulator_profile:
        window.set_endpoint(translate("App", "starting the built-in simulator (profile "
                                      "{profile})...").format(profile=simulator_profile))
    if eager:
        window.ensure_pages()
    else:
        window.build_pages_later()
    return window, shell


def check_store() -> str:
    """Open the results store once at start-up: migrates it and marks runs a dead process left
    'running' as interrupted. Returns a line for the status bar. Blocking: run it in a thread."""
    from desktop_app.core.store import Store, StoreError, resolve_db_path

    path = resolve_db_path(None)
    try:
        with Store.open(path) as store:
            interrupted = store.list_runs(status="interrupted")
    except StoreError as exc:
        from desktop_app.gui.i18n import report_language
        from desktop_app.report.store_words import store_error_text

        return translate("App", "Results store unusable: {error}").format(
            error=store_error_text(exc, report_language()))
    if interrupted:
        return translate("App", "Results: {path} ({count} interrupted runs)").format(
            path=path, count=len(interrupted))
    return translate("App", "Results: {path}").format(path=path)


async def _show_store_status(window: MainWindow) -> None:
    window.set_store_status(await asyncio.to_thread(check_store))


# Set to 1: print the monotonic clock at the main window's first paint and quit
# (packaging/check-bundle.sh; docs/PERFORMANCE.md).
ENV_FIRST_PAINT_EXIT = "THROUGHLINE_FIRST_PAINT_EXIT"


def run_app(simulator_profile: str = "fast", screenshots: Path | None = None,
            results_db: Path | None = None, language: str | None = None,
            screenshot_size: tuple[int, int] | None = None) -> int:
    """Run the desktop app until the main window closes; returns the exit status.

    With `screenshots` (a folder), fill the pages with runs on the built-in simulator (in
    `results_db`, else a throwaway database), save a PNG of each page there and exit.
    `language` ("system", "en", "zh_CN") overrides the one chosen in the settings."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(sys.argv)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setDesktopFileName("throughline")  # Wayland matches the window to throughline.desktop
    app.setWindowIcon(QIcon(str(paths.resources_dir() / "icons" / "throughline.svg")))
    # --lang, else THROUGHLINE_LANG, else the Settings menu's choice. The translators are the
    # app's children: they live as long as it does.
    setup_language(app, language or os.environ.get(ENV_LANGUAGE)
                   or Settings().text_value(KEY_LANGUAGE, "system"))
    install_excepthook()
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        if screenshots is not None:
            from desktop_app.gui.screenshots import save_screenshots

            return loop.run_until_complete(save_screenshots(app, screenshots, build_window, results_db,
                                                            size=screenshot_size))
        window, shell = build_window(app, simulator_profile, eager=False)
        # The window lives as long as the app: like the modules (EventLoop), out of the
        # collector's walks; a generation-1 pass over it took 16-26 ms during a sweep.
        gc.freeze()
        tasks: list[asyncio.Future] = []  # kept alive until the loop ends

        def check_store_after_paint() -> None:  # its thread would slow the first paint
            tasks.append(asyncio.ensure_future(_show_store_status(window)))

        window.first_painted.connect(check_store_after_paint)
        if os.environ.get(ENV_FIRST_PAINT_EXIT):
            # For start-up benchmarks of builds we cannot instrument (the frozen bundle):
            # print CLOCK_MONOTONIC at the first paint, which the launching process shares.
            def report_first_paint() -> None:
                print(f"first_paint_monotonic {time.monotonic():.6f}", flush=True)
                window.close()

            window.first_painted.connect(report_first_paint)
        window.show()
        loop.run_until_complete(closed.wait())
        shell.shutdown()
    return 0
