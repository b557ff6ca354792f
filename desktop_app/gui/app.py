"""QApplication, the qasync event loop, the one excepthook, and the wiring of the window.

Every qasync detail lives here: the rest of the GUI writes plain asyncio.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

import qasync  # after PySide6, so it binds to it

from desktop_app.core.store import Store, StoreError, resolve_db_path
from desktop_app.gui.context import AppContext
from desktop_app.gui.main_window import MainWindow
from desktop_app.gui.settings import APPLICATION, ORGANIZATION, Settings
from desktop_app.gui.shell import AppShell

log = logging.getLogger(__name__)


def install_excepthook() -> None:
    """Log any uncaught exception and show it in a dialog instead of dying silently."""

    def hook(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("uncaught exception\n%s", text)
        if QApplication.instance() is not None:
            box = QMessageBox(QMessageBox.Icon.Critical, "Throughline: unexpected error",
                              f"{exc_type.__name__}: {exc}")
            box.setDetailedText(text)
            box.exec()

    sys.excepthook = hook


def build_pages(context: AppContext, settings: Settings) -> dict[str, QWidget]:
    """One instance of every page, by sidebar title."""
    from desktop_app.gui.pages.endpoints import EndpointsPage
    from desktop_app.gui.pages.inspector import InspectorPage
    from desktop_app.gui.pages.runs import RunsPage
    from desktop_app.gui.pages.sql_agent import SqlAgentPage
    from desktop_app.gui.pages.throughput import ThroughputPage

    return {
        "Endpoints": EndpointsPage(context, settings=settings),
        "Throughput": ThroughputPage(context, settings),
        "SQL Agent": SqlAgentPage(context, settings),
        "Runs": RunsPage(context, settings),
        "Inspector": InspectorPage(context, settings),
    }


def build_window(app: QApplication, simulator_profile: str | None, *,
                 context: AppContext | None = None,
                 settings: Settings | None = None) -> tuple[MainWindow, AppShell]:
    """The main window with every page, wired; starts the built-in simulator as the active
    endpoint unless `simulator_profile` is None. Needs a running qasync loop."""
    settings = settings or Settings()
    context = context or AppContext()
    window = MainWindow(settings, build_pages(context, settings))
    shell = AppShell(window, context)
    app.aboutToQuit.connect(shell.shutdown)
    if simulator_profile:
        window.set_endpoint(f"starting the built-in simulator (profile {simulator_profile})...")
        window.pages["Endpoints"].start_simulator(simulator_profile)
    window.pages["Runs"].refresh()
    return window, shell


def check_store() -> str:
    """Open the results store once at start-up: migrates it and marks runs a dead process left
    'running' as interrupted. Returns a line for the status bar. Blocking: run it in a thread."""
    path = resolve_db_path(None)
    try:
        with Store.open(path) as store:
            interrupted = store.list_runs(status="interrupted")
    except StoreError as exc:
        return f"Results store unusable: {exc}"
    return f"Results: {path} ({len(interrupted)} interrupted runs)" if interrupted else f"Results: {path}"


async def _show_store_status(window: MainWindow) -> None:
    window.set_store_status(await asyncio.to_thread(check_store))


def run_app(simulator_profile: str = "fast", screenshots: Path | None = None,
            results_db: Path | None = None) -> int:
    """Run the desktop app until the main window closes; returns the exit status.

    With `screenshots` (a folder), fill the pages with runs on the built-in simulator (in
    `results_db`, else a throwaway database), save a PNG of each page there and exit."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(sys.argv)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    install_excepthook()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        if screenshots is not None:
            from desktop_app.gui.screenshots import save_screenshots

            return loop.run_until_complete(save_screenshots(app, screenshots, results_db))
        window, shell = build_window(app, simulator_profile)
        window.show()
        store_task = asyncio.ensure_future(_show_store_status(window))  # noqa: F841 - kept alive
        loop.run_until_complete(closed.wait())
        shell.shutdown()
    return 0
