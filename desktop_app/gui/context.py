"""What every page shares: the results store's location, the active endpoint, and app-wide
signals between pages. Pages get it in their constructor; nothing else is global."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop_app import paths
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo

if TYPE_CHECKING:
    from desktop_app.core.store import Store


@dataclass(frozen=True)
class ActiveEndpoint:
    """The endpoint the run forms use: its config (API key in memory only) and what discovery
    found. `label` is what the status bar shows."""

    config: EndpointConfig
    info: EndpointInfo | None
    label: str


class AppContext(QObject):
    """Shared state and cross-page signals.

    `open_store()` returns a new Store each call (a Store is used from one thread): open it in
    `asyncio.to_thread` for blocking reads, and close it when done.
    """

    endpoint_changed = Signal(object)  # ActiveEndpoint | None
    run_finished = Signal(int, str)  # run_id, kind: a run was stored (the Runs page refreshes)
    open_run_requested = Signal(int, str)  # run_id, kind: show a stored run in its page
    open_question_requested = Signal(int, int)  # run_id, sql_questions row id: the Inspector
    compare_requested = Signal(list)  # run ids to compare
    resume_requested = Signal(int)  # run_id of an interrupted sweep to finish
    job_changed = Signal(str)  # one line about the running job ("" when none)

    def __init__(self, db_path: Path | None = None, *, sets_dir: Path | None = None,
                 cache_dir: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # paths, not the store: the store pulls in sqlite-utils and numpy (~0.4 s), which the
        # window's first paint need not wait for.
        self.db_path = db_path or paths.results_db_path()
        self.sets_dir = sets_dir or paths.question_set_dirs()
        self.cache_dir = cache_dir or paths.user_data_dir() / "databases"
        self.endpoint: ActiveEndpoint | None = None

    def open_store(self) -> Store:
        """A new Store on the results database (blocking: call it off the GUI thread)."""
        from desktop_app.core.store import Store

        return Store.open(self.db_path)

    def set_endpoint(self, endpoint: ActiveEndpoint | None) -> None:
        self.endpoint = endpoint
        self.endpoint_changed.emit(endpoint)
