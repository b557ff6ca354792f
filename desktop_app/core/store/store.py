"""The :class:`Store`: an open results file, for runs, cells and the reads a run browser needs.

Everything here is low-rate; the high-rate rows written while a run is going go through a
:class:`~desktop_app.core.store.writer.RunWriter` (``store.writer()``).
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from desktop_app import __version__
from desktop_app.core.redact import redact_config, redact_text, redact_url
from desktop_app.core.store.checks import check_file, closed, opened, rows_landed, unusable_from
from desktop_app.core.store.errors import NotFoundError, StoreError
from desktop_app.core.store.liveness import _HOSTNAME, _OWNER_TOKEN, _owner_gone
from desktop_app.core.store.locations import _iso, utc_now_iso
from desktop_app.core.store.schema import (
    DEFAULT_BUSY_TIMEOUT_S,
    _connect,
    _migrate,
    _read_schema_version,
    _refuse_newer,
)
from desktop_app.core.store.tables import (
    _METRIC_SAMPLES,
    _RUN_COLUMNS,
    _SQL_QUESTIONS,
    _SQL_STEPS,
    _TP_CELLS,
    _TP_REQUESTS,
    CellRecord,
    RunRecord,
    _cell_record,
    _dumps,
    _loads,
    _run_record,
    _update_sql,
)
from desktop_app.core.store.writer import RunWriter

log = logging.getLogger(__name__)

RUN_STATUSES = ("running", "completed", "cancelled", "failed", "interrupted")
FINAL_STATUSES = RUN_STATUSES[1:]
FINISHED_CELL_STATUSES = ("completed", "time_budget")
"""A cell's statuses that say every request it sent is stored; `Store.update_cell` writes one
only after checking so, and writes 'incomplete' (with the count that landed) otherwise."""


# --------------------------------------------------------------------------- the store


def _locked(method: Callable) -> Callable:
    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._db is None:
                raise StoreError(f"{self.path} is closed")
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                # Another process holding the file past the busy timeout, a disk filling, damage
                # SQLite found: a StoreError naming the file and which of these it is, which
                # every command and the window say in words (a traceback before).
                raise unusable_from(self.path, exc) from exc

    return wrapper


class Store:
    """An open results file. Create with :meth:`Store.open`; close with :meth:`close` or ``with``.

    Thread-safety: meant for one thread at a time (the GUI's event loop, or its
    ``asyncio.to_thread`` workers); calls are serialised by an internal lock. Calls block on disk
    I/O for milliseconds; high-rate writes belong in a :class:`RunWriter`.
    """

    def __init__(self, path: Path, db: Database, busy_timeout_s: float) -> None:
        """Use :meth:`Store.open`."""
        self.path = path
        self._db: Database | None = db
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._writers: weakref.WeakSet[RunWriter] = weakref.WeakSet()

    @classmethod
    def open(cls, path: Path | str, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> Store:
        """Open (creating folders and file as needed) and migrate the results file at ``path``.

        Sets WAL journaling, ``synchronous=NORMAL`` (a commit survives the process being killed;
        only a power cut can lose the last ones), foreign keys, and a busy timeout of
        ``busy_timeout_s`` seconds. Runs left 'running' by a process on this host that no longer
        exists are marked 'interrupted'. Raises :class:`StoreError` for a file that is not a
        results database or that a newer Throughline wrote; such a file is left untouched.

        Everything that would stop a run from being stored is found here, before a caller sends
        anything: a folder, a file that is not SQLite, cut short or corrupt, a read-only file or
        folder, a full disk (`checks.check_file`; the schema-version write below is the probe
        that the file takes writes). Each raises :class:`StoreUnusable` (a StoreError) whose
        `code` says which and whose message names the path.
        """
        path = Path(path)
        check_file(path)
        try:
            conn = _connect(path, busy_timeout_s)
        except sqlite3.Error as exc:
            raise unusable_from(path, exc) from exc
        opened(path)
        try:
            _refuse_newer(path, _read_schema_version(conn, path))
            db = Database(conn)
            db.enable_wal()
            _migrate(db, path)
            store = cls(path, db, busy_timeout_s)
            store._mark_interrupted()
        except sqlite3.Error as exc:
            conn.close()
            closed(path)
            raise unusable_from(path, exc) from exc
        except BaseException:
            conn.close()
            closed(path)
            raise
        return store

    @property
    def db(self) -> Database:
        """The underlying ``sqlite_utils.Database``, for read-only ad-hoc queries (reports)."""
        if self._db is None:
            raise StoreError(f"{self.path} is closed")
        return self._db

    @property
    def schema_version(self) -> int:
        """The schema version recorded in the file."""
        return _read_schema_version(self.db.conn, self.path)

    def close(self) -> None:
        """Close every writer made by :meth:`writer` (committing their rows), then the file.

        Idempotent. Re-raises a writer's pending error, after everything is closed.
        """
        with self._lock:
            if self._db is None:
                return
            errors = []
            for writer in list(self._writers):
                try:
                    writer.close()
                except StoreError as exc:
                    errors.append(exc)
            self._db.close()
            self._db = None
            closed(self.path)
        if errors:
            raise errors[0]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @_locked
    def writer(self, *, flush_interval_s: float = 0.25, max_batch: int = 5000) -> RunWriter:
        """A new :class:`RunWriter` on its own connection to this file; :meth:`close` closes it too.

        ``flush_interval_s`` bounds how long a row waits before its commit (seconds); ``max_batch``
        rows commit at once without waiting.
        """
        writer = RunWriter(
            self.path,
            flush_interval_s=flush_interval_s,
            max_batch=max_batch,
            busy_timeout_s=self._busy_timeout_s,
        )
        self._writers.add(writer)
        return writer

    # ---- runs

    @_locked
    def _mark_interrupted(self) -> None:
        rows = self.db.execute(
            "SELECT id, pid, hostname, owner_token FROM runs WHERE status = 'running'"
        ).fetchall()
        gone = [r[0] for r in rows if _owner_gone(r[1], r[2], r[3])]
        if not gone:
            return
        with self.db.atomic():
            for run_id in gone:
                self.db.execute(
                    "UPDATE runs SET status = 'interrupted', ended_at = ?, "
                    "error = coalesce(error, 'the process running it ended without finishing it') "
                    "WHERE id = ? AND status = 'running'",
                    (utc_now_iso(), run_id),
                )

    @_locked
    def create_run(
        self,
        kind: str,
        *,
        name: str = "",
        endpoint_url: str | None = None,
        model: str | None = None,
        engine: str | None = None,
        config: Mapping[str, Any] | None = None,
        notes: str | None = None,
    ) -> int:
        """Record a new run as 'running', started now by this process, and return its id.

        ``kind`` is 'throughput', 'sql' or a later kind. ``config`` must be JSON-serialisable;
        secrets are removed from it and from ``endpoint_url`` before anything is written.
        """
        if not kind:
            raise ValueError("a run needs a kind")
        now = utc_now_iso()
        cursor = self.db.execute(
            "INSERT INTO runs (kind, name, endpoint_url, model, engine, config_json, status, "
            "created_at, started_at, pid, hostname, owner_token, app_version, notes) "
            "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
            (
                kind,
                name,
                redact_url(endpoint_url) if endpoint_url else endpoint_url,
                model,
                engine,
                _dumps(redact_config(config or {})),
                now,
                now,
                os.getpid(),
                _HOSTNAME,
                _OWNER_TOKEN,
                __version__,
                notes,
            ),
        )
        return _row_id(cursor)

    @_locked
    def finish_run(self, run_id: int, status: str, error: str | None = None) -> str:
        """Mark a run 'completed', 'cancelled', 'failed' or 'interrupted', ended now; returns
        the status written: 'failed' instead of 'completed' when a cell is 'incomplete' (its
        requests did not all reach the file), the error then naming each such cell.

        ``error`` is shown to the user; credentials in it are blanked. Close the run's
        :class:`RunWriter` first, so its last rows are in before the run reads as finished.
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {FINAL_STATUSES}, not {status!r}")
        # A run whose cells did not all reach the file is not completed: it says which and
        # how many rows landed, and can be resumed (the incomplete cells run again).
        lost = [f"cell {i + 1}: {e}" for i, e in self.db.execute(
            "SELECT cell_index, error FROM tp_cells WHERE run_id = ? AND status = 'incomplete' "
            "ORDER BY cell_index", (run_id,))]
        if lost:
            status = "failed" if status == "completed" else status
            error = "; ".join(([error] if error else []) + lost)
        cursor = self.db.execute(
            "UPDATE runs SET status = ?, ended_at = ?, error = ? WHERE id = ?",
            (status, utc_now_iso(), redact_text(error) if error else error, run_id),
        )
        if cursor.rowcount == 0:
            raise NotFoundError("run", run_id, self.path)
        return status

    @_locked
    def update_run(
        self,
        run_id: int,
        *,
        name: str | None = None,
        notes: str | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        """Change a run's name, notes or configuration (redacted again); None leaves it as it is."""
        fields = {"name": name, "notes": notes}
        if config is not None:
            fields["config_json"] = _dumps(redact_config(config))
        fields = {k: v for k, v in fields.items() if v is not None}
        if not fields:
            self.get_run(run_id)
            return
        sets = ", ".join(f"{k} = ?" for k in fields)
        cursor = self.db.execute(f"UPDATE runs SET {sets} WHERE id = ?", (*fields.values(), run_id))
        if cursor.rowcount == 0:
            raise NotFoundError("run", run_id, self.path)

    @_locked
    def claim_run(self, run_id: int, from_statuses: Sequence[str],
                  prepare: Callable[[], None] | None = None) -> bool:
        """Take a stopped run over for this process: mark it 'running' (owned by this process,
        ended_at and error cleared) only if its status is one of `from_statuses`, then call
        `prepare()` in the same transaction (e.g. :meth:`reset_cell` for the cells to run again);
        an exception from it rolls the claim back.

        Returns False, changing nothing, when the run's status is not one of them (another
        process took it first); two claims of one run are exclusive.
        """
        with self.db.atomic():
            marks = ", ".join("?" * len(from_statuses))
            taken = self.db.execute(
                "UPDATE runs SET status = 'running', ended_at = NULL, error = NULL, pid = ?, "
                f"hostname = ?, owner_token = ? WHERE id = ? AND status IN ({marks})",
                (os.getpid(), _HOSTNAME, _OWNER_TOKEN, run_id, *from_statuses)).rowcount
            if not taken:
                return False
            if prepare is not None:
                prepare()
        return True

    @_locked
    def stop_own_runs(self, reason: str) -> list[tuple[int, str, str]]:
        """After this process's job was stopped (SIGTERM, SIGHUP): its runs still 'running'
        become 'cancelled', and each 'cancelled' one without an error gets `reason` as its
        error, so the run says why it stopped. Returns (id, kind, status) of every run this
        process owns, oldest first."""
        owner = (os.getpid(), _HOSTNAME, _OWNER_TOKEN)
        mine = "pid = ? AND hostname = ? AND owner_token = ?"
        with self.db.atomic():
            self.db.execute(f"UPDATE runs SET status = 'cancelled', ended_at = ? WHERE {mine} "
                            "AND status = 'running'", (utc_now_iso(), *owner))
            self.db.execute(f"UPDATE runs SET error = ? WHERE {mine} AND status = 'cancelled' "
                            "AND error IS NULL", (redact_text(reason), *owner))
        return [tuple(r) for r in self.db.execute(
            f"SELECT id, kind, status FROM runs WHERE {mine} ORDER BY id", owner)]

    @_locked
    def reset_cell(self, run_id: int, cell_id: int) -> None:
        """Make a cell pending again: its requests and /metrics samples deleted, its times and
        summary cleared (resume runs it again from scratch). Call inside :meth:`claim_run`'s
        `prepare` to make it part of the claim."""
        for writer in list(self._writers):
            writer.forget_cell(cell_id)
        self.db.execute("DELETE FROM tp_requests WHERE run_id = ? AND cell_id = ?",
                        (run_id, cell_id))
        self.db.execute("DELETE FROM metric_samples WHERE run_id = ? AND cell_id = ?",
                        (run_id, cell_id))
        self.db.execute("UPDATE tp_cells SET status = 'pending', started_at = NULL, "
                        "ended_at = NULL, summary_json = NULL, error = NULL WHERE id = ?",
                        (cell_id,))

    @_locked
    def set_diagnosis(self, run_id: int, findings: Sequence[Mapping[str, Any]]) -> None:
        """Keep a sweep's diagnosis (JSON-ready findings) with its run, replacing any before."""
        cursor = self.db.execute("UPDATE runs SET diagnosis_json = ? WHERE id = ?",
                                 (_dumps([redact_config(dict(f)) for f in findings]), run_id))
        if cursor.rowcount == 0:
            raise NotFoundError("run", run_id, self.path)

    @_locked
    def diagnosis(self, run_id: int) -> list[dict[str, Any]] | None:
        """The diagnosis kept with a run, or None when none was kept (older runs, imports)."""
        row = self.db.execute("SELECT diagnosis_json FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise NotFoundError("run", run_id, self.path)
        if not row[0]:
            return None
        value = _loads(row[0], "runs", "diagnosis_json", run_id)
        return value if isinstance(value, list) else None

    @_locked
    def warmup_token_sources(self, run_id: int) -> set[str]:
        """Where the warm-up requests' token counts came from ('usage', 'client')."""
        return {r[0] for r in self.db.execute(
            "SELECT DISTINCT tokens_source FROM tp_requests WHERE run_id = ? AND warmup = 1",
            (run_id,)) if r[0] is not None}

    @_locked
    def get_run(self, run_id: int) -> RunRecord:
        """The run with this id; :class:`NotFoundError` if there is none."""
        row = self.db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise NotFoundError("run", run_id, self.path)
        return _run_record(row)

    @_locked
    def list_runs(
        self,
        kind: str | None = None,
        status: str | None = None,
        endpoint: str | None = None,
        model: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        limit: int | None = None,
    ) -> list[RunRecord]:
        """Runs matching every given filter, newest first.

        ``endpoint`` and ``model`` match exactly (the stored, redacted URL). ``since`` is inclusive
        and ``until`` exclusive, on the creation time; datetimes or ISO-8601 UTC text.
        """
        where: list[str] = []
        params: list[object] = []
        for column, value in (
            ("kind", kind),
            ("status", status),
            ("endpoint_url", endpoint),
            ("model", model),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            where.append("created_at >= ?")
            params.append(_iso(since))
        if until is not None:
            where.append("created_at < ?")
            params.append(_iso(until))
        sql = f"SELECT {_RUN_COLUMNS} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [_run_record(r) for r in self.db.execute(sql, params)]

    @_locked
    def delete_run(self, run_id: int) -> None:
        """Delete a run and every row that belongs to it, all or nothing.

        The file does not shrink (SQLite reuses the space). Deleting a run that a live writer is
        still filling makes that writer's next rows fail.
        """
        with self.db.atomic():
            # Children first and explicitly, so the delete does not depend on foreign_keys being on
            # in whichever connection made the rows.
            self.db.execute(
                "DELETE FROM sql_steps WHERE question_row_id IN "
                "(SELECT id FROM sql_questions WHERE run_id = ?)",
                (run_id,),
            )
            for table in ("sql_questions", "metric_samples", "tp_requests", "tp_cells"):
                self.db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            if self.db.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise NotFoundError("run", run_id, self.path)

    # ---- throughput cells

    def _cell_fields(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        fields = dict(fields)
        if "summary" in fields:
            fields["summary_json"] = fields.pop("summary")
        return fields

    @_locked
    def add_cell(self, run_id: int, **fields: Any) -> int:
        """Add a sweep cell to a run and return its id.

        Fields: ``cell_index`` (required), ``input_tokens``, ``output_tokens``, ``concurrency``,
        ``request_rate`` (requests/s), ``status`` (default 'pending'), ``started_at``, ``ended_at``
        (datetime or ISO text), ``summary`` (a JSON-serialisable dict), ``workload_json`` (how
        the cell's lengths were drawn, `CellSpec.workload_json`).
        """
        row = {"run_id": run_id, **self._cell_fields(fields)}
        cursor = self.db.execute(_TP_CELLS.insert_sql, _TP_CELLS.params(row))
        return _row_id(cursor)

    @_locked
    def update_cell(self, cell_id: int, **fields: Any) -> None:
        """Change a cell's fields (names as in :meth:`add_cell`), e.g. status, ended_at, summary.

        A finished status (:data:`FINISHED_CELL_STATUSES`) is written only after every request
        row of the cell handed to this store's writers is committed (blocks until they are);
        when some could not be (a full disk), the cell is written 'incomplete' instead, its
        `error` saying how many landed and why, and the run's error says so too.
        """
        fields = self._cell_fields(fields)
        if not fields:
            return
        if fields.get("status") in FINISHED_CELL_STATUSES:
            fields.update(self._rows_landed(cell_id))
        sql, params = _update_sql(_TP_CELLS, cell_id, fields)
        if self.db.execute(sql, params).rowcount == 0:
            raise NotFoundError("cell", cell_id, self.path)

    def _rows_landed(self, cell_id: int) -> dict[str, Any]:
        """{} when every request row of `cell_id` the writers were handed is committed; else
        the fields of an 'incomplete' cell (and the run's error set, while it is running)."""
        handed, stored, why = rows_landed(list(self._writers), cell_id)
        if stored >= handed:
            return {}
        error = (f"{stored} of {handed} requests were stored; writing the others failed"
                 + (f": {why}" if why else ""))
        try:  # best effort: the disk that lost the rows may refuse this too
            self.db.execute(
                "UPDATE runs SET error = ? WHERE id = (SELECT run_id FROM tp_cells WHERE id = ?) "
                "AND status = 'running'", (redact_text(error), cell_id))
        except sqlite3.Error:
            log.error("results store: cannot record an incomplete cell on its run")
        return {"status": "incomplete", "error": error}

    @_locked
    def cells(self, run_id: int) -> list[CellRecord]:
        """The cells of a run in sweep order."""
        cursor = self.db.execute(
            "SELECT id, run_id, cell_index, input_tokens, output_tokens, concurrency, "
            "request_rate, status, started_at, ended_at, summary_json, error, workload_json FROM tp_cells "
            "WHERE run_id = ? ORDER BY cell_index, id",
            (run_id,),
        )
        return [_cell_record(r) for r in cursor]

    # ---- reads for the run browser

    @staticmethod
    def _request_filter(run_id: int, cell_id: int | None, errors_only: bool) -> tuple[str, list]:
        where, params = ["run_id = ?"], [run_id]
        if cell_id is not None:
            where.append("cell_id = ?")
            params.append(cell_id)
        if errors_only:
            where.append("error_class IS NOT NULL")
        return " AND ".join(where), params

    @_locked
    def count_requests(
        self, run_id: int, cell_id: int | None = None, errors_only: bool = False
    ) -> int:
        """How many requests a run (or one of its cells) has, warm-ups included; or failed ones."""
        where, params = self._request_filter(run_id, cell_id, errors_only)
        return self.db.execute(
            f"SELECT count(*) FROM tp_requests WHERE {where}", params
        ).fetchone()[0]

    @_locked
    def requests(
        self,
        run_id: int,
        cell_id: int | None = None,
        offset: int = 0,
        limit: int = 1000,
        errors_only: bool = False,
    ) -> list[dict[str, Any]]:
        """A page of a run's requests as dicts keyed by column, ordered by cell then ``seq``.

        Times are seconds (``sent_at`` is epoch seconds), rates tokens/s; ``itl_s`` comes back as a
        list of seconds and ``warmup`` as a bool. For a table over 100k rows prefer
        :meth:`request_ids` once, then :meth:`requests_by_id` for the visible rows.
        """
        where, params = self._request_filter(run_id, cell_id, errors_only)
        cursor = self.db.execute(
            f"SELECT * FROM tp_requests WHERE {where} ORDER BY cell_id, seq LIMIT ? OFFSET ?",
            (*params, int(limit), int(offset)),
        )
        return _TP_REQUESTS.decode(cursor)

    @_locked
    def request_ids(
        self, run_id: int, cell_id: int | None = None, errors_only: bool = False
    ) -> list[int]:
        """Ids of a run's requests in :meth:`requests` order; cheap (read from an index)."""
        where, params = self._request_filter(run_id, cell_id, errors_only)
        cursor = self.db.execute(
            f"SELECT id FROM tp_requests WHERE {where} ORDER BY cell_id, seq", params
        )
        return [r[0] for r in cursor]

    @_locked
    def requests_by_id(self, ids: Sequence[int]) -> list[dict[str, Any]]:
        """The requests with these ids, as :meth:`requests` gives them, in the order of ``ids``.

        Unknown ids are skipped.
        """
        found: dict[int, dict[str, Any]] = {}
        for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
            chunk = list(ids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            cursor = self.db.execute(f"SELECT * FROM tp_requests WHERE id IN ({marks})", chunk)
            found.update((row["id"], row) for row in _TP_REQUESTS.decode(cursor))
        return [found[i] for i in ids if i in found]

    @_locked
    def metric_samples(self, run_id: int, cell_id: int | None = None) -> list[dict[str, Any]]:
        """A run's server-metric timeline in time order.

        ``t_s`` is seconds since the run started; ``raw_json`` comes back decoded.
        """
        where, params = "run_id = ?", [run_id]
        if cell_id is not None:
            where += " AND cell_id = ?"
            params.append(cell_id)
        cursor = self.db.execute(
            f"SELECT * FROM metric_samples WHERE {where} ORDER BY t_s, id", params
        )
        return _METRIC_SAMPLES.decode(cursor)

    @_locked
    def sql_questions(
        self,
        run_id: int | None,
        *,
        tier: str | None = None,
        failure_class: str | None = None,
        question_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """A SQL run's questions in the order they were started, optionally filtered; with
        ``run_id`` None, every run's rows (``question_id`` then finds one question in them all).

        ``*_json`` columns come back decoded; ``seconds`` is wall time per question.
        """
        where, params = ["1 = 1"], []
        for column, value in (("run_id", run_id), ("tier", tier),
                              ("failure_class", failure_class), ("question_id", question_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        cursor = self.db.execute(
            f"SELECT * FROM sql_questions WHERE {' AND '.join(where)} ORDER BY id", params
        )
        return _SQL_QUESTIONS.decode(cursor)

    @_locked
    def update_sql_question(self, question_row_id: int, **fields: Any) -> None:
        """Change a stored question's fields, e.g. ``verdicts_json`` after re-judging."""
        if not fields:
            return
        sql, params = _update_sql(_SQL_QUESTIONS, question_row_id, fields)
        if self.db.execute(sql, params).rowcount == 0:
            raise NotFoundError("question_row", question_row_id, self.path)

    @_locked
    def sql_steps(self, question_row_id: int) -> list[dict[str, Any]]:
        """The agent's steps for one question in order; ``*_json`` columns come back decoded,
        ``latency_s`` is seconds."""
        cursor = self.db.execute(
            "SELECT * FROM sql_steps WHERE question_row_id = ? ORDER BY step_index, id",
            (question_row_id,),
        )
        return _SQL_STEPS.decode(cursor)


def _row_id(cursor: sqlite3.Cursor) -> int:
    """The id an INSERT made (an INSERT always sets one)."""
    assert cursor.lastrowid is not None
    return cursor.lastrowid
