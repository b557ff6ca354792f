"""The :class:`RunWriter`: a run's high-rate rows, batched and committed on a background thread.

Requests, metric samples, SQL-agent questions and steps are queued by the caller and committed at
least every 0.25 s, so a killed process loses at most the last second of results and the event
loop never waits on the disk.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import queue
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from desktop_app.core.store.checks import unusable_from
from desktop_app.core.store.errors import StoreError, StoreUnusable
from desktop_app.core.store.schema import DEFAULT_BUSY_TIMEOUT_S, _connect
from desktop_app.core.store.tables import (
    _METRIC_SAMPLES,
    _SQL_QUESTIONS,
    _SQL_STEPS,
    _TP_REQUESTS,
    _update_sql,
)

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the background writer

_INT64 = 2**63


def _storable(value: Any) -> Any:
    """`value` as SQLite can hold it: integers beyond 64 bits and other unstorable values
    become None, lone surrogates U+FFFD."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if -_INT64 <= value < _INT64 else None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return value
    if isinstance(value, (float, bytes)):
        return value
    return None


@dataclass
class _Flush:
    done: threading.Event


@dataclass
class _Close:
    pass


@dataclass
class _Call:
    fn: Callable[[Database], Any]
    future: Future


_LIVE_WRITERS: weakref.WeakSet[RunWriter] = weakref.WeakSet()

_REQ_CELL = _TP_REQUESTS.columns.index("cell_id")
_REQ_WARMUP = _TP_REQUESTS.columns.index("warmup")


def _cell_tally(rows) -> dict[int, int]:
    """How many of `rows` ((sql, params) pairs) are a cell's measured requests, by cell id."""
    tally: dict[int, int] = {}
    for sql, params in rows:
        if sql == _TP_REQUESTS.insert_sql and params[_REQ_CELL] is not None \
                and not params[_REQ_WARMUP]:
            cell = params[_REQ_CELL]
            tally[cell] = tally.get(cell, 0) + 1
    return tally


@atexit.register
def _close_live_writers() -> None:
    # Writer threads are daemons (a forgotten writer must not hang exit); commit what they hold.
    for writer in list(_LIVE_WRITERS):
        try:
            writer.close()
        except Exception:
            log.exception("closing a results writer at exit")


class RunWriter:
    """Writes a run's high-rate rows on a background thread, in batches.

    Every row handed over is committed within ``flush_interval_s`` (0.25 s) plus the commit
    itself, or at once on :meth:`flush`/:meth:`close`. ``add_*`` methods only validate and queue,
    so they are safe on an asyncio event loop. Rows are dicts keyed by column name (see the
    schema); ``*_json`` columns and ``itl_s`` take Python objects (stored as compact JSON) or JSON
    text.

    A failed background write does not stop the writer; the error is re-raised (as
    :class:`StoreError`) by the next ``add_*``, :meth:`flush` or :meth:`close`. Thread-safety: any
    method may be called from any thread. Get one from :meth:`Store.writer`.
    """

    def __init__(
        self,
        path: Path,
        *,
        flush_interval_s: float = 0.25,
        max_batch: int = 5000,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
    ) -> None:
        """Connect to ``path`` (already migrated by :meth:`Store.open`) and start the thread."""
        self.path = Path(path)
        self._interval = flush_interval_s
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._more_errors = 0
        self._error_lock = threading.Lock()
        self._closed = False
        self._close_lock = threading.Lock()
        # Per cell id: [request rows handed to the writer thread, rows it committed]; changed
        # on the writer thread only, read after `sync()` (see `cell_rows`).
        self._cell_rows: dict[int, list[int]] = {}
        self._refused_rows: dict[int, int] = {}  # by cell id: add_request refused them
        self._last_error: str | None = None
        self._db = Database(_connect(self.path, busy_timeout_s))
        self._thread = threading.Thread(
            target=self._run, name="throughline-results-writer", daemon=True
        )
        self._thread.start()
        _LIVE_WRITERS.add(self)

    # ---- caller side

    def add_request(self, row: Mapping[str, Any]) -> None:
        """Queue one throughput request (a ``tp_requests`` row; ``run_id`` required)."""
        params = _TP_REQUESTS.params(row)
        try:
            self._put(_TP_REQUESTS.insert_sql, params)
        except StoreError:
            # Refused (an earlier write failed): still a row of its cell that is not stored.
            with self._error_lock:
                for cell, n in _cell_tally([(_TP_REQUESTS.insert_sql, params)]).items():
                    self._refused_rows[cell] = self._refused_rows.get(cell, 0) + n
            raise

    def add_metric_sample(self, row: Mapping[str, Any]) -> None:
        """Queue one ``/metrics`` sample; ``run_id`` and ``t_s`` (s since run start) required."""
        self._put(_METRIC_SAMPLES.insert_sql, _METRIC_SAMPLES.params(row))

    def add_sql_step(self, row: Mapping[str, Any]) -> None:
        """Queue one agent step (``run_id``, ``question_row_id``, ``step_index`` required)."""
        self._put(_SQL_STEPS.insert_sql, _SQL_STEPS.params(row))

    def update_sql_question(self, question_row_id: int, fields: Mapping[str, Any]) -> None:
        """Queue changes to a question row, e.g. its status, verdicts and final SQL when it ends."""
        if fields:
            self._put(*_update_sql(_SQL_QUESTIONS, question_row_id, fields))

    def add_sql_question(self, row: Mapping[str, Any]) -> int:
        """Insert a question row now and return its id, for its steps to refer to.

        Blocks until the writer has committed everything queued before it and this row: typically a
        few milliseconds. ``run_id`` and ``question_id`` are required.
        """
        params = _SQL_QUESTIONS.params(row)
        self._check()

        def insert(db: Database) -> int:
            with db.atomic():
                row_id = db.conn.execute(_SQL_QUESTIONS.insert_sql, params).lastrowid
                assert row_id is not None  # an INSERT always has one
                return row_id

        future: Future = Future()
        self._queue.put(_Call(insert, future))
        while True:
            try:
                return future.result(timeout=0.1)
            except sqlite3.Error as exc:
                raise StoreError(
                    f"cannot store SQL question {row.get('question_id')!r}: {exc}"
                ) from exc
            except TimeoutError:
                if not self._thread.is_alive():
                    self._check()
                    raise StoreError("the results writer stopped") from None

    def flush(self) -> None:
        """Block until every row queued so far is committed; re-raise a pending background error."""
        self._check()
        done = threading.Event()
        self._queue.put(_Flush(done))
        while not done.wait(0.1):
            if not self._thread.is_alive():
                break
        self._raise_pending()

    def sync(self) -> None:
        """Block until every row queued so far has been tried (committed or failed), without
        raising a pending error: the caller asks `cell_rows` next, and the error stays for the
        run's own next call to see. Returns at once when the writer has stopped."""
        if not self._thread.is_alive():
            return
        done = threading.Event()
        self._queue.put(_Flush(done))
        while not done.wait(0.1):
            if not self._thread.is_alive():
                break

    def cell_rows(self, cell_id: int) -> tuple[int, int, str | None]:
        """(request rows of cell `cell_id` this writer was handed, tried or refused, how many of
        them are committed, the last write error or None). Warm-up rows are not counted. Call
        `sync()` first so every row queued so far is counted."""
        handed, stored = self._cell_rows.get(cell_id, (0, 0))
        with self._error_lock:
            handed += self._refused_rows.get(cell_id, 0)
        return handed, stored, self._last_error

    def forget_cell(self, cell_id: int) -> None:
        """Drop the counts of a cell that is made pending again (`Store.reset_cell`). Does not
        wait for the writer: reset_cell runs inside a claim's transaction, whose write lock a
        commit would wait on."""
        self._cell_rows.pop(cell_id, None)
        with self._error_lock:
            self._refused_rows.pop(cell_id, None)

    def close(self) -> None:
        """Commit what is queued, stop the thread and close the connection. Idempotent.

        Re-raises a pending background error after closing.
        """
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._queue.put(_Close())
        self._thread.join()
        _LIVE_WRITERS.discard(self)
        self._raise_pending()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _put(self, sql: str, params: tuple) -> None:
        self._check()
        self._queue.put((sql, params))

    def _check(self) -> None:
        if self._closed:
            raise StoreError(f"the results writer for {self.path} is closed")
        self._raise_pending()
        if not self._thread.is_alive():
            raise StoreError(f"the results writer for {self.path} stopped")

    def _raise_pending(self) -> None:
        with self._error_lock:
            error, more = self._error, self._more_errors
            self._error, self._more_errors = None, 0
        if error is not None:
            extra = f" (and {more} more failed write(s))" if more else ""
            if isinstance(error, sqlite3.Error):
                # Said as the store says the same error met on its own connection ("could not
                # be read or written (a disk error, a quota or a file-size limit)"): which of
                # the two met a file-size limit first is a race.
                unusable = unusable_from(self.path, error)
                raise StoreUnusable(self.path, unusable.code, unusable.detail + extra) from error
            raise StoreError(f"writing results to {self.path} failed: {error}{extra}") from error

    # ---- writer thread

    def _record(self, error: BaseException) -> None:
        log.error("results writer: %s", error)
        self._last_error = str(error)
        with self._error_lock:
            if self._error is None:
                self._error = error
            else:
                self._more_errors += 1

    def _run(self) -> None:
        batch: list[tuple[str, tuple]] = []
        deadline = 0.0
        try:
            while True:
                if batch:
                    timeout = deadline - time.monotonic()
                    try:
                        item = (
                            self._queue.get(timeout=timeout)
                            if timeout > 0
                            else self._queue.get_nowait()
                        )
                    except queue.Empty:
                        self._commit(batch)
                        batch = []
                        continue
                else:
                    item = self._queue.get()
                if type(item) is tuple:
                    if not batch:
                        deadline = time.monotonic() + self._interval
                    batch.append(item)
                    if len(batch) >= self._max_batch:
                        self._commit(batch)
                        batch = []
                    continue
                # A control message: everything queued before it is committed first.
                if batch:
                    self._commit(batch)
                    batch = []
                if isinstance(item, _Flush):
                    item.done.set()
                elif isinstance(item, _Call):
                    try:
                        item.future.set_result(item.fn(self._db))
                    except BaseException as exc:
                        item.future.set_exception(exc)
                elif isinstance(item, _Close):
                    break
            self._drain()
        except BaseException as exc:  # a bug here must still reach the caller
            self._record(exc)
        finally:
            self._db.close()

    def _drain(self) -> None:
        # Rows another thread queued while close() was on its way are still committed.
        batch = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if type(item) is tuple:
                batch.append(item)
            elif isinstance(item, _Call):
                item.future.set_exception(
                    StoreError(f"the results writer for {self.path} is closed")
                )
            elif isinstance(item, _Flush):
                item.done.set()
        if batch:
            self._commit(batch)

    def _count(self, tally: dict[int, int], column: int) -> None:
        for cell, n in tally.items():
            self._cell_rows.setdefault(cell, [0, 0])[column] += n

    def _commit(self, batch: list[tuple[str, tuple]]) -> None:
        # Every request row is counted as handed, and as stored only once its commit succeeded:
        # `Store.update_cell` compares the two before it lets a cell read as finished.
        tally = _cell_tally(batch)
        self._count(tally, 0)
        try:
            with self._db.atomic():
                for sql, group in itertools.groupby(batch, key=lambda item: item[0]):
                    self._db.conn.executemany(sql, [params for _, params in group])
        except (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.ProgrammingError):
            self._commit_one_by_one(batch)
        except sqlite3.Error as exc:  # a full disk, a read-only file: the batch is lost
            self._record(exc)
        except Exception:  # noqa: BLE001 - a value SQLite cannot hold (OverflowError, a lone
            # surrogate's UnicodeEncodeError, ...): find the row, keep the others.
            self._commit_one_by_one(batch)
        else:
            self._count(tally, 1)

    def _commit_one_by_one(self, batch: list[tuple[str, tuple]]) -> None:
        # One bad row (say, of a run deleted meanwhile) must not take its batch's good rows along.
        stored = []
        try:
            with self._db.atomic():
                for sql, params in batch:
                    try:
                        self._db.conn.execute(sql, params)
                    except (
                        sqlite3.IntegrityError,
                        sqlite3.InterfaceError,
                        sqlite3.ProgrammingError,
                    ) as exc:
                        self._record(exc)
                        continue
                    except sqlite3.Error:
                        raise
                    except Exception as exc:  # noqa: BLE001 - one bad value, not the run's end
                        if not self._store_as_failed(sql, params, exc):
                            continue
                    stored.append((sql, params))
        except sqlite3.Error as exc:
            self._record(exc)
        else:
            self._count(_cell_tally(stored), 1)

    def _store_as_failed(self, sql: str, params: tuple, exc: Exception) -> bool:
        """A row with a value SQLite cannot hold (an integer past 64 bits, a lone surrogate):
        a request row is stored failed, the values it could not hold left empty and the reason
        in its error message; any other row is logged and skipped. Whether a row was stored."""
        reason = f"{type(exc).__name__}: {exc}"[:200]
        if sql != _TP_REQUESTS.insert_sql:
            log.error("results writer: a row could not be stored and was skipped: %s", reason)
            return False
        values = [_storable(v) for v in params]
        cols = _TP_REQUESTS.columns
        i_class, i_msg = cols.index("error_class"), cols.index("error_message")
        if values[i_class] is None:
            values[i_class] = "malformed_stream"
        values[i_msg] = (f"a value could not be stored ({reason}); it was left empty"
                         + (f" ({values[i_msg]})" if values[i_msg] else ""))
        try:
            self._db.conn.execute(sql, tuple(values))
        except sqlite3.Error:
            raise
        except Exception as again:  # noqa: BLE001
            log.error("results writer: a request row could not be stored: %s", again)
            return False
        log.warning("results writer: a request stored as failed: %s", reason)
        return True
