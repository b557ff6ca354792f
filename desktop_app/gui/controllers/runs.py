"""Reads and deletes for the Runs page: store access on threads, reported as signals."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_app.core.compare import Comparison, compare
from desktop_app.core.runs import RunInfo, run_info
from desktop_app.core.store import Store
from desktop_app.core.throughput.records import StoredCell, load_sweep, request_ids
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.i18n import error_words, status_text, translate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunFilters:
    """What the runs table is narrowed to; None means any. `since`/`until` are local times,
    `until` exclusive (as `Store.list_runs` takes them)."""

    kind: str | None = None
    status: str | None = None
    endpoint: str | None = None
    model: str | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True)
class RequestsView:
    """One throughput run's request ids (in sweep order) and its cells, for the browser."""

    run: RunInfo
    ids: list[int]
    cells: tuple[StoredCell, ...]
    errors_only: bool


class RunsController(QObject):
    """Owns the page's store reads and deletes (asyncio tasks on threads) and reports them as
    signals; starting a job of a kind again cancels the previous one."""

    runs_loaded = Signal(object, object, object)  # RunInfos, all endpoints, all models
    comparison_loaded = Signal(object)  # core.compare.Comparison of runs of one kind
    requests_loaded = Signal(object)  # RequestsView
    runs_deleted = Signal(object)  # list of run ids
    summary_loaded = Signal(object)  # core.compare.Comparison of runs of both kinds
    exported = Signal(object)  # list of the Paths written
    imported = Signal(object)  # list of the new run ids
    replay_point = Signal(object)  # throughput.replay.ReplayPoint, as each number of agents ends
    replayed = Signal(object)  # throughput.replay.ReplayResult: the stored replay run and points
    failed = Signal(str)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._store: Store | None = None
        self.tasks: dict[str, asyncio.Task] = {}

    @property
    def store(self) -> Store | None:
        """The open store (None until the first job opened it); reads on it are milliseconds."""
        return self._store

    def _start(self, name: str, job: Callable[..., Awaitable[None]], *args: Any) -> asyncio.Task:
        old = self.tasks.get(name)
        if old is not None and not old.done():
            old.cancel()
        task = asyncio.ensure_future(self._guard(job, *args))
        self.tasks[name] = task
        return task

    async def _guard(self, job: Callable[..., Awaitable[None]], *args: Any) -> None:
        # The coroutine is made here, so a task cancelled before it starts leaves none unawaited.
        try:
            await job(*args)
        except asyncio.CancelledError:
            raise
        except ValueError as exc:  # bad input (unknown run, bad file): its message says it all
            log.info("runs page: %s", exc)
            self.failed.emit(error_words(exc))
        except Exception as exc:  # noqa: BLE001 - a failed read is shown, not fatal
            log.exception("runs page")
            self.failed.emit(f"{type(exc).__name__}: {exc}")

    async def _open(self) -> Store:
        if self._store is None:
            self._store = await asyncio.to_thread(self._context.open_store)
        return self._store

    def refresh(self, filters: RunFilters) -> asyncio.Task:
        """List the stored runs matching `filters`, newest first."""
        return self._start("refresh", self._refresh, filters)

    async def _refresh(self, f: RunFilters) -> None:
        store = await self._open()

        def read() -> tuple[list[RunInfo], list[str], list[str]]:
            every = store.list_runs()
            runs = store.list_runs(kind=f.kind, status=f.status, endpoint=f.endpoint,
                                   model=f.model, since=f.since, until=f.until)
            return ([run_info(r) for r in runs],
                    sorted({r.endpoint_url for r in every if r.endpoint_url}),
                    sorted({r.model for r in every if r.model}))

        self.runs_loaded.emit(*await asyncio.to_thread(read))

    def compare(self, run_ids: list[int]) -> asyncio.Task:
        """Read and compare these runs (`core.compare.compare`: the noise-aware rows the PDF
        prints too). Runs of one kind emit `comparison_loaded`, a sweep with SQL runs
        `summary_loaded`."""
        return self._start("compare", self._compare, list(run_ids))

    async def _compare(self, run_ids: list[int]) -> None:
        store = await self._open()

        def read() -> tuple[set[str], Comparison]:
            kinds = {store.get_run(i).kind for i in run_ids}
            unknown = kinds - {"throughput", "sql", "replay"}
            if unknown:
                raise ValueError(translate(
                    "ComparisonView", "Runs of kind {kind} cannot be compared yet.").format(
                    kind=", ".join(repr(status_text(k)) for k in sorted(unknown))))
            return kinds, compare(store, list(run_ids))

        kinds, comparison = await asyncio.to_thread(read)
        kinds.discard("replay")  # read beside its server's sweep, not a kind of its own
        if len(kinds) > 1:  # speed and quality together: the report's rows and capacity
            self.summary_loaded.emit(comparison)
        else:
            self.comparison_loaded.emit(comparison)

    def load_requests(self, run: RunInfo, errors_only: bool = False) -> asyncio.Task:
        """Read a throughput run's request ids (cheap: from an index) and its cells."""
        return self._start("requests", self._load_requests, run, errors_only)

    async def _load_requests(self, run: RunInfo, errors_only: bool) -> None:
        store = await self._open()

        def read() -> RequestsView:
            cells = load_sweep(store, run.id, requests=False).cells
            return RequestsView(run, request_ids(store, run.id, errors_only=errors_only),
                                cells, errors_only)

        self.requests_loaded.emit(await asyncio.to_thread(read))

    def delete(self, run_ids: list[int]) -> asyncio.Task:
        """Delete these runs and everything stored with them."""
        return self._start("delete", self._delete, list(run_ids))

    async def _delete(self, run_ids: list[int]) -> None:
        store = await self._open()

        def delete() -> None:
            for run_id in run_ids:
                store.delete_run(run_id)

        await asyncio.to_thread(delete)
        self.runs_deleted.emit(run_ids)

    def replay(self, sql_run: int, sessions: list[int], endpoint: ActiveEndpoint) -> asyncio.Task:
        """Send SQL run `sql_run`'s recorded conversations again as `sessions` concurrent
        agents against `endpoint`, stored as a run of kind replay (`throughput.replay`)."""
        return self._start("replay", self._replay, sql_run, list(sessions), endpoint)

    async def _replay(self, sql_run: int, sessions: list[int], endpoint: ActiveEndpoint) -> None:
        from desktop_app.core.endpoint.discovery import choose_model, discover
        from desktop_app.core.throughput.replay import replay, tasks_to_replay

        from desktop_app.gui.worker import run_in_worker

        store = await self._open()
        tasks = await asyncio.to_thread(tasks_to_replay, store, sql_run)

        async def measure(emit):
            # On a loop of its own, as a SQL evaluation runs: the window's loop would add its
            # own work to every step's timing.
            info = endpoint.info or await discover(endpoint.config)
            config = choose_model(endpoint.config, info, field="model")
            return await replay(config, info, tasks, sessions, on_point=emit, store=store,
                                sql_run=sql_run)

        def said(points: list) -> None:
            for point in points:
                self.replay_point.emit(point)

        result = await run_in_worker(measure, said, name="throughline-replay")
        self.replayed.emit(result)
        self._context.run_finished.emit(result.run_id or 0, "replay")

    def export(self, run_ids: list[int], fmt: str, destination: Path, lang: str = "en"
               ) -> asyncio.Task:
        """Write the comparison PDF of `run_ids` to the file `destination` (fmt "pdf"), or each
        run's CSV or JSON files into `destination`/run-ID (fmt "csv" / "json")."""
        return self._start("export", self._export, list(run_ids), fmt, destination, lang)

    async def _export(self, run_ids: list[int], fmt: str, destination: Path,
                      lang: str) -> None:
        if fmt == "pdf":
            # On this (the main) thread: Qt's names imported first in the worker thread hung.
            import desktop_app.report.pdf  # noqa: F401
        store = await self._open()

        def write() -> list[Path]:
            if fmt == "pdf":
                from desktop_app.report import write_comparison_pdf

                return [write_comparison_pdf(store, run_ids, destination, lang)]
            from desktop_app.core.exchange import export_run
            from desktop_app.report.export_words import ExportWords

            words = ExportWords(lang)  # the sentences beside the codes, in the UI's language
            written: list[Path] = []
            for run_id in run_ids:
                written += export_run(store, run_id, fmt, destination / f"run-{run_id}", words)
            return written

        self.exported.emit(await asyncio.to_thread(write))

    def import_files(self, paths: list[Path]) -> asyncio.Task:
        """Import results written by vLLM bench serve, AIPerf or GuideLLM as runs."""
        return self._start("import", self._import, list(paths))

    async def _import(self, paths: list[Path]) -> None:
        store = await self._open()
        from desktop_app.core.exchange import import_file

        def read() -> list[int]:
            return [import_file(store, path) for path in paths]

        self.imported.emit(await asyncio.to_thread(read))

    def shutdown(self) -> None:
        """Cancel every job and close the store (call when the page goes away)."""
        for task in self.tasks.values():
            if not task.done():
                task.cancel()
        if self._store is not None:
            self._store.close()
            self._store = None
