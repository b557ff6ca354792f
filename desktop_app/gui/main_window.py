"""The main window: a sidebar of pages and a status bar. It assembles; it owns nothing else.

Pages come built (`pages`) or as factories (`page_factories`, title -> callable returning the
page): a factory's page is built when it is first shown, or, after `build_pages_later()`, one per
event-loop turn once the window has painted, so the window shows before the heavy pages exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from desktop_app import __version__
from desktop_app.gui.i18n import translate
from desktop_app.gui.pages.placeholder import PlaceholderPage
from desktop_app.gui.settings import (
    KEY_LANGUAGE,
    KEY_LAST_PAGE,
    KEY_WINDOW_GEOMETRY,
    KEY_WINDOW_SPLITTER,
    KEY_WINDOW_STATE,
    Settings,
)
from desktop_app.gui.widgets.handoff import install_handoff
from desktop_app.gui.widgets.open_result import OpenResultBar


@dataclass(frozen=True)
class PageSpec:
    """A sidebar entry: its title (English, the key pages are found by), its keyboard shortcut
    and a sentence about it; `label` and `about` are what the user reads, translated."""

    title: str
    shortcut: str
    blurb: str

    @property
    def label(self) -> str:
        return translate("MainWindow", self.title)

    @property
    def about(self) -> str:
        return translate("MainWindow", self.blurb)


PAGES: tuple[PageSpec, ...] = (
    PageSpec(QT_TRANSLATE_NOOP("MainWindow", "Endpoints"), "Ctrl+1",
             QT_TRANSLATE_NOOP("MainWindow", "Saved endpoint profiles, connection tests and "
                               "the built-in simulated endpoint.")),
    PageSpec(QT_TRANSLATE_NOOP("MainWindow", "Throughput"), "Ctrl+2",
             QT_TRANSLATE_NOOP("MainWindow", "Sweeps of prompt length x concurrency with live "
                               "charts of prefill, decode and TTFT, and the server's queue and "
                               "KV cache.")),
    PageSpec(QT_TRANSLATE_NOOP("MainWindow", "SQL Agent"), "Ctrl+3",
             QT_TRANSLATE_NOOP("MainWindow", "Agentic text-to-SQL evaluation with strict and "
                               "tolerant judges.")),
    PageSpec(QT_TRANSLATE_NOOP("MainWindow", "Runs"), "Ctrl+4",
             QT_TRANSLATE_NOOP("MainWindow", "Every stored run: reopen, delete, compare side "
                               "by side.")),
    PageSpec(QT_TRANSLATE_NOOP("MainWindow", "Inspector"), "Ctrl+5",
             QT_TRANSLATE_NOOP("MainWindow", "One question's agent steps, tool calls and the "
                               "judges' findings.")),
)
# The languages the Settings menu offers (the setting's value, what the menu says).
LANGUAGES = (("system", QT_TRANSLATE_NOOP("MainWindow", "System language")),
             ("en", "English"), ("zh_CN", "简体中文"))


def restart_app() -> None:
    """Start Throughline again with the same arguments, then quit this one."""
    import sys

    from PySide6.QtCore import QCoreApplication, QProcess

    QProcess.startDetached(sys.executable, ["-m", "desktop_app", *sys.argv[1:]])
    QCoreApplication.quit()


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
            self.sidebar.addItem(QListWidgetItem(f"{spec.label}\t{spec.shortcut}"))
            page = (pages or {}).get(spec.title)
            if page is None:
                factory = (page_factories or {}).get(spec.title)
                page = PlaceholderPage(spec.label, spec.about, loading=factory is not None,
                                       name=spec.title)
                if factory is not None:
                    self._factories[spec.title] = factory
            self.pages[spec.title] = page
            self.stack.addWidget(page)
            install_handoff(page)  # copy on every table, save/copy on every chart
            action = QAction(spec.label, self)
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

        self._build_menu()
        self.endpoint_label = QLabel(self.tr("Endpoint: none"))
        self.job_label = QLabel(self.tr("No job running"))
        self.store_label = QLabel("")
        self.store_label.setContentsMargins(0, 0, 12, 0)
        # After a chart image is saved: open it, or its folder.
        self.written_bar = OpenResultBar(closable=True)
        self.statusBar().addWidget(self.endpoint_label, 1)
        self.statusBar().addWidget(self.written_bar)
        self.statusBar().addPermanentWidget(self.store_label)
        self.statusBar().addPermanentWidget(self.job_label)

        self._restore()

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu(self.tr("&Settings"))
        languages = menu.addMenu(self.tr("&Language"))
        group = QActionGroup(self)
        chosen = self._settings.text_value(KEY_LANGUAGE, "system")
        self.language_actions: dict[str, QAction] = {}
        for value, name in LANGUAGES:
            action = languages.addAction(translate("MainWindow", name))
            action.setCheckable(True)
            action.setChecked(value == chosen)
            action.setData(value)
            group.addAction(action)
            self.language_actions[value] = action
        group.triggered.connect(self._on_language_triggered)

    def _on_language_triggered(self, action: QAction) -> None:
        self.set_language(str(action.data()))

    def set_language(self, value: str) -> None:
        """Remember the UI language ("system", "en", "zh_CN"); it applies at the next start."""
        if value == self._settings.text_value(KEY_LANGUAGE, "system"):
            return
        self._settings.set_value(KEY_LANGUAGE, value)
        self._settings.sync()
        self.language_actions[value].setChecked(True)
        self.statusBar().showMessage(
            self.tr("The language changes when Throughline starts again."), 10000)
        # Not modal-blocking: the menu returns at once and tests can answer the box.
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Restart Throughline?"),
                          self.tr("The language changes when Throughline starts again. Restart "
                                  "now? A run in progress is asked about first; everything "
                                  "stored is kept."),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Restart now"))
        box.button(QMessageBox.StandardButton.No).setText(self.tr("Later"))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.finished.connect(lambda answer: self._restart_if(answer))
        self.restart_box = box
        box.open()

    def _restart_if(self, answer: int) -> None:
        if answer != QMessageBox.StandardButton.Yes:
            return
        # close() asks about a run in progress; only a window that really closed restarts.
        if self.close():
            restart_app()

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
        install_handoff(page)  # copy on every table, save/copy on every chart
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
        self.endpoint_label.setText(self.tr("Endpoint: {endpoint}").format(endpoint=text))

    def show_written(self, paths: list, text: str = "") -> None:
        """Say in the status bar what was written, with buttons opening the file (when one)
        or its folder (e.g. after "Save image…" on a chart)."""
        self.written_bar.show_paths(paths, text)

    def set_store_status(self, text: str) -> None:
        self.store_label.setText(text)

    def _restore(self) -> None:
        geometry = self._settings.bytes_value(KEY_WINDOW_GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1304, 720)  # Qt fits it to a smaller screen
        state = self._settings.bytes_value(KEY_WINDOW_STATE)
        if state is not None:
            self.restoreState(state)
        self._settings.track(KEY_WINDOW_SPLITTER, self.splitter)
        last = self._settings.int_value(KEY_LAST_PAGE, 0)
        self.show_page(last if 0 <= last < len(PAGES) else 0)

    def show_page_named(self, title: str) -> None:
        """Switch to the page called `title` (one of PAGES)."""
        self.show_page([spec.title for spec in PAGES].index(title))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.confirm_close():
            event.ignore()
            return
        self.save_state()
        super().closeEvent(event)

    def save_state(self) -> None:
        """Remember the window's geometry, page, and every page's splitters and headers."""
        self._settings.set_bytes(KEY_WINDOW_GEOMETRY, self.saveGeometry())
        self._settings.set_bytes(KEY_WINDOW_STATE, self.saveState())
        self._settings.set_value(KEY_LAST_PAGE, self.stack.currentIndex())
        for page in self.pages.values():
            save = getattr(page, "save_state", None)
            if save is not None:
                save()  # forms and filters the page keeps itself
        self._settings.save_tracked()
        self._settings.sync()


class _FirstPaint(QObject):
    """Calls `callback` once, when the watched widget first paints."""

    def __init__(self, callback: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._callback = callback

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self, self._callback)
        return False
