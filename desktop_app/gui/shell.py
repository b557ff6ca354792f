"""Connects the pages through the shared context: page switches, the status bar, closing."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.main_window import PAGES, MainWindow


class AppShell(QObject):
    """Owns the wiring between pages (bound methods only: lambdas that capture a page keep
    deleted QObjects alive under qasync) and the orderly shutdown of their tasks."""

    def __init__(self, window: MainWindow, context: AppContext) -> None:
        super().__init__(window)
        self.window = window
        self.context = context
        self._shut_down = False
        context.endpoint_changed.connect(self._on_context_endpoint_changed)
        context.job_changed.connect(self._on_context_job_changed)
        context.open_question_requested.connect(self._on_context_open_question)
        context.open_run_requested.connect(self._on_context_open_run)
        context.compare_requested.connect(self._on_context_compare)
        context.resume_requested.connect(self._on_context_resume)
        window.confirm_close = self.confirm_close

    def _page(self, title: str) -> QWidget:
        return self.window.pages[title]

    def _on_context_endpoint_changed(self, endpoint: ActiveEndpoint | None) -> None:
        self.window.set_endpoint(endpoint.label if endpoint else self.tr("none"))

    def _on_context_job_changed(self, text: str) -> None:
        self.window.job_label.setText(text or self.tr("No job running"))

    def _on_context_open_question(self, run_id: int, row_id: int) -> None:
        self.window.show_page_named("Inspector")  # the Inspector loads it itself

    def _on_context_open_run(self, run_id: int, kind: str) -> None:
        title = {"throughput": "Throughput", "sql": "SQL Agent"}.get(kind)
        if title is None:
            return
        # The SQL page listens to the request itself; the Throughput page is told here.
        load = getattr(self.window.pages[title], "load_run", None)
        if load is not None:
            load(run_id)
        self.window.show_page_named(title)

    def _on_context_resume(self, run_id: int) -> None:
        self.window.show_page_named("Throughput")
        self._page("Throughput").resume_run(run_id)

    def _on_context_compare(self, run_ids: list) -> None:
        self.window.show_page_named("Runs")  # the Runs page shows the comparison itself

    def running_jobs(self) -> list[str]:
        """Titles of the pages with a run in progress."""
        busy = []
        for title, page in self.window.pages.items():
            controller = getattr(page, "controller", None)
            if controller is not None and getattr(controller, "running", False):
                busy.append(title)
        return busy

    def confirm_close(self) -> bool:
        """Ask before closing while a run is in progress; stop it (it is stored as cancelled)."""
        busy = self.running_jobs()
        if not busy or self._shut_down:
            # After shutdown every run is already stopping (and, with no user at the screen, a
            # modal question here would wait forever).
            return True
        pages = {spec.title: spec.label for spec in PAGES}
        answer = QMessageBox.question(
            self.window, self.tr("Throughline: a run is in progress"),
            self.tr("A run is in progress ({pages}). Stop it and quit? What has finished so far "
                    "is kept in the results store, marked cancelled.").format(
                pages=self.tr(", ").join(pages.get(t, t) for t in busy)))
        if answer != QMessageBox.StandardButton.Yes:
            return False
        self.stop_jobs()
        return True

    def stop_jobs(self) -> None:
        for page in self.window.pages.values():
            controller = getattr(page, "controller", None)
            stop = getattr(controller, "stop", None)
            if stop is not None and getattr(controller, "running", False):
                stop()

    def shutdown(self) -> None:
        """Stop runs, simulators and page tasks (safe to call twice)."""
        self._shut_down = True
        self.stop_jobs()
        for page in self.window.pages.values():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None:
                shutdown()
