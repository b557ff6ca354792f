"""The main window: a sidebar of pages and a status bar. It assembles; it owns nothing else.

Pages come built (`pages`) or as factories (`page_factories`, title -> callable returning the
page): a factory's page is built when it is first shown, or, after `build_pages_later()`, one per
event-loop turn once the window has painted, so the window shows before the heavy pages exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
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

    # After build_pages_later(): the window has painted once (the waiting pages build next).
    first_painted = Signal()

    def __init__(self, settings: Settings, pages: dict[str, QWidget] | None = None,
                 parent: QWidget | None = None, *,
                 page_factories: dict[str, Callable[[], QWidget]] | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        # Always the page in place for each title: the real one once built.
        self.pages: dict[str, QWidget] = {}
        self._factories: dict[str, Callable[[], QWidget]] = {}
        self._build_scheduled = False
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
            page = (pages or {}).get(spec.title)
            if page is None:
                factory = (page_factories or {}).get(spec.title)
                page = PlaceholderPage(spec.title, spec.blurb, loading=factory is not None)
                if factory is not None:
                    self._factories[spec.title] = factory
            self.pages[spec.title] = page
            self.stack.addWidget(page)
            action = QAction(spec.title, self)
            action.setShortcut(QKeySequence(spec.shortcut))
            action.triggered.connect(lambda _=False, i=index: self.show_page(i))
            self.addAction(action)
        self.sidebar.currentRowChanged.connect(self._on_sidebar_row_changed)

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

    def _on_sidebar_row_changed(self, index: int) -> None:
        if 0 <= index < len(PAGES) and self.isVisible():
            # Before the window shows, the page waits: build_pages_later builds it first.
            self.ensure_page(PAGES[index].title)
        self.stack.setCurrentIndex(index)

    def ensure_page(self, title: str) -> QWidget:
        """The page called `title`, built now if it was still waiting for its factory."""
        factory = self._factories.pop(title, None)
        if factory is None:
            return self.pages[title]
        index = [spec.title for spec in PAGES].index(title)
        placeholder = self.pages[title]
        current = self.stack.currentIndex()
        page = factory()
        self.pages[title] = page
        self.stack.insertWidget(index, page)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        if current >= 0:
            self.stack.setCurrentIndex(current)
        return page

    def ensure_pages(self) -> dict[str, QWidget]:
        """Build every page still waiting for its factory; returns `pages`."""
        for spec in PAGES:
            self.ensure_page(spec.title)
        return self.pages

    def pending_pages(self) -> list[str]:
        """Titles of the pages not built yet."""
        return [spec.title for spec in PAGES if spec.title in self._factories]

    def build_pages_later(self) -> None:
        """Build the waiting pages after the window's first paint (the visible one first), one
        per event-loop turn, so the window paints before any of them is built."""
        self._first_paint = _FirstPaint(self._on_first_paint, self)
        self.sidebar.viewport().installEventFilter(self._first_paint)
        QTimer.singleShot(1000, self, self._on_first_paint)  # in case no paint ever comes

    def _on_first_paint(self) -> None:
        if self._build_scheduled:
            return
        self._build_scheduled = True
        self.sidebar.viewport().removeEventFilter(self._first_paint)
        self.first_painted.emit()
        QTimer.singleShot(0, self, self._build_next_page)

    def _build_next_page(self) -> None:
        pending = self.pending_pages()
        if not pending:
            return
        visible = self.current_page_title()
        self.ensure_page(visible if visible in pending else pending[0])
        if len(pending) > 1:
            QTimer.singleShot(0, self, self._build_next_page)

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


class _FirstPaint(QObject):
    """Calls `callback` once, when the watched widget first paints."""

    def __init__(self, callback: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._callback = callback

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self, self._callback)
        return False
