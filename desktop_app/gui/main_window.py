"""The main window: a sidebar of pages and a status bar. It assembles; it owns nothing else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from desktop_app import __version__
from desktop_app.gui.pages.placeholder import PlaceholderPage
from desktop_app.gui.settings import (
    KEY_LAST_PAGE,
    KEY_WINDOW_GEOMETRY,
    KEY_WINDOW_STATE,
    Settings,
)


@dataclass(frozen=True)
class PageSpec:
    """A sidebar entry: its title, its keyboard shortcut and a sentence about it."""

    title: str
    shortcut: str
    blurb: str


PAGES: tuple[PageSpec, ...] = (
    PageSpec("Endpoints", "Ctrl+1", "Saved endpoint profiles, connection tests and the "
             "built-in simulated endpoint."),
    PageSpec("Throughput", "Ctrl+2", "Sweeps of prompt length x concurrency with live charts "
             "of prefill, decode and TTFT, and the server's queue and KV cache."),
    PageSpec("SQL Agent", "Ctrl+3", "Agentic text-to-SQL evaluation with strict and tolerant "
             "judges."),
    PageSpec("Runs", "Ctrl+4", "Every stored run: reopen, delete, compare side by side."),
    PageSpec("Inspector", "Ctrl+5", "One question's agent steps, tool calls and the judges' "
             "findings."),
)


class MainWindow(QMainWindow):
    """Sidebar + stacked pages; the status bar shows the active endpoint and running job."""

    def __init__(self, settings: Settings, pages: dict[str, QWidget] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.pages: dict[str, QWidget] = {}
        # Asked before the window closes; returns False to keep it open (a run in progress).
        self.confirm_close: Callable[[], bool] = lambda: True
        self.setWindowTitle(f"Throughline {__version__}")
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setMinimumWidth(140)
        self.sidebar.setMaximumWidth(260)
        self.sidebar.setSpacing(3)
        self.stack = QStackedWidget()
        for index, spec in enumerate(PAGES):
            self.sidebar.addItem(QListWidgetItem(f"{spec.title}\t{spec.shortcut}"))
            page = (pages or {}).get(spec.title) or PlaceholderPage(spec.title, spec.blurb)
            self.pages[spec.title] = page
            self.stack.addWidget(page)
            action = QAction(spec.title, self)
            action.setShortcut(QKeySequence(spec.shortcut))
            action.triggered.connect(lambda _=False, i=index: self.show_page(i))
            self.addAction(action)
        self.sidebar.currentRowChanged.connect(self.stack.setCurrentIndex)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([170, 900])
        self.splitter = splitter
        self.setCentralWidget(splitter)

        self.endpoint_label = QLabel("Endpoint: none")
        self.job_label = QLabel("No job running")
        self.store_label = QLabel("")
        self.store_label.setContentsMargins(0, 0, 12, 0)
        self.statusBar().addWidget(self.endpoint_label, 1)
        self.statusBar().addPermanentWidget(self.store_label)
        self.statusBar().addPermanentWidget(self.job_label)

        self._restore()

    def show_page(self, index: int) -> None:
        """Switch to page `index` (as the sidebar and the Ctrl+N shortcuts do)."""
        self.sidebar.setCurrentRow(index)

    def current_page_title(self) -> str:
        return PAGES[self.stack.currentIndex()].title

    def set_endpoint(self, text: str) -> None:
        self.endpoint_label.setText(f"Endpoint: {text}")

    def set_store_status(self, text: str) -> None:
        self.store_label.setText(text)

    def _restore(self) -> None:
        geometry = self._settings.bytes_value(KEY_WINDOW_GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1100, 720)
        state = self._settings.bytes_value(KEY_WINDOW_STATE)
        if state is not None:
            self.restoreState(state)
        last = self._settings.int_value(KEY_LAST_PAGE, 0)
        self.show_page(last if 0 <= last < len(PAGES) else 0)

    def show_page_named(self, title: str) -> None:
        """Switch to the page called `title` (one of PAGES)."""
        self.show_page([spec.title for spec in PAGES].index(title))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.confirm_close():
            event.ignore()
            return
        self._settings.set_value(KEY_WINDOW_GEOMETRY, self.saveGeometry())
        self._settings.set_value(KEY_WINDOW_STATE, self.saveState())
        self._settings.set_value(KEY_LAST_PAGE, self.stack.currentIndex())
        self._settings.sync()
        super().closeEvent(event)
