"""The results file's schema, its migrations, and how a connection to it is opened.

The schema carries a version in the ``meta`` table; :data:`MIGRATIONS` brings an older file
forward on open, in one transaction. Files written by a newer Throughline are refused.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from sqlite_utils import Database

from desktop_app.core.store.errors import StoreUnusable
from desktop_app.core.store.redacting import RedactingConnection

DEFAULT_BUSY_TIMEOUT_S = 5.0


# --------------------------------------------------------------------------- schema and migrations

_SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    endpoint_url TEXT,
    model TEXT,
    engine TEXT,
    config_json TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    pid INTEGER,
    hostname TEXT,
    owner_token TEXT,
    app_version TEXT,
    error TEXT,
    notes TEXT
);
CREATE INDEX runs_kind_created ON runs(kind, created_at);
CREATE INDEX runs_status ON runs(status);
CREATE INDEX runs_endpoint ON runs(endpoint_url);
CREATE INDEX runs_model ON runs(model);
CREATE TABLE tp_cells (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    cell_index INTEGER NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    concurrency INTEGER,
    request_rate REAL,
    status TEXT NOT NULL DEFAULT 'pending',
    started_at TEXT,
    ended_at TEXT,
    summary_json TEXT
);
CREATE INDEX tp_cells_run ON tp_cells(run_id, cell_index);
-- cell_id here and in metric_samples has no REFERENCES clause on purpose: enforcing it would
-- need an index led by cell_id on the biggest table, paid on every insert, only to make cell
-- deletes fast.
CREATE TABLE tp_requests (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    cell_id INTEGER,
    seq INTEGER,
    warmup INTEGER NOT NULL DEFAULT 0,
    sent_at REAL,
    ttft_s REAL,
    e2e_s REAL,
    prompt_tokens_target INTEGER,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    tokens_source TEXT,
    prefill_tps REAL,
    decode_tps REAL,
    tpot_s REAL,
    itl_s TEXT,
    error_class TEXT,
    error_message TEXT,
    finish_reason TEXT,
    response_id TEXT,
    status_code INTEGER
);
CREATE INDEX tp_requests_run_cell_seq ON tp_requests(run_id, cell_id, seq);
CREATE INDEX tp_requests_run_error ON tp_requests(run_id, error_class);
CREATE TABLE metric_samples (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    cell_id INTEGER,
    t_s REAL NOT NULL,
    running INTEGER,
    waiting INTEGER,
    kv_cache_usage REAL,
    preemptions INTEGER,
    raw_json TEXT
);
CREATE INDEX metric_samples_run_t ON metric_samples(run_id, t_s);
CREATE TABLE sql_questions (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    tier TEXT,
    status TEXT,
    stop_reason TEXT,
    failure_class TEXT,
    verdicts_json TEXT,
    steps INTEGER,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    seconds REAL,
    final_sql TEXT,
    result_json TEXT,
    started_at TEXT,
    ended_at TEXT
);
CREATE INDEX sql_questions_run_tier ON sql_questions(run_id, tier);
CREATE INDEX sql_questions_run_failure ON sql_questions(run_id, failure_class);
-- run_id is reached through question_row_id; a REFERENCES clause of its own would make every run
-- delete scan this table, which has no index led by run_id.
CREATE TABLE sql_steps (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    question_row_id INTEGER NOT NULL REFERENCES sql_questions(id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL,
    request_json TEXT,
    reply_json TEXT,
    tool_name TEXT,
    tool_args_json TEXT,
    tool_result_json TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_s REAL,
    error TEXT
);
CREATE INDEX sql_steps_question ON sql_steps(question_row_id, step_index);
"""
# Plain (not STRICT) tables: STRICT needs SQLite 3.37, and a results file must stay readable by the
# older libraries some Linux Pythons ship.


def _migrate_to_v1(db: Database) -> None:
    """Create the first schema in an empty file."""
    db.executescript(_SCHEMA_V1)


def _migrate_to_v2(db: Database) -> None:
    """Keep a sweep's diagnosis with its run: reopening a run shows the findings made when it
    ended, not a rebuild that a later Throughline might word differently."""
    db.execute("ALTER TABLE runs ADD COLUMN diagnosis_json TEXT")


def _migrate_to_v3(db: Database) -> None:
    """Keep a reasoning model's figures per request (the time to the first answer token and the
    chunks that carried reasoning only), and why a cell's rows did not all reach the file."""
    db.execute("ALTER TABLE tp_requests ADD COLUMN ttft_answer_s REAL")
    db.execute("ALTER TABLE tp_requests ADD COLUMN reasoning_chunks INTEGER")
    db.execute("ALTER TABLE tp_cells ADD COLUMN error TEXT")


def _migrate_to_v4(db: Database) -> None:
    """Keep what a cell's requests were made of (#29): the distribution each axis was drawn
    from, or the workload file replayed; NULL: fixed lengths."""
    db.execute("ALTER TABLE tp_cells ADD COLUMN workload_json TEXT")


MIGRATIONS: list[Callable[[Database], None]] = [_migrate_to_v1, _migrate_to_v2, _migrate_to_v3,
                                                _migrate_to_v4]
"""``MIGRATIONS[v]`` takes a file from schema version ``v`` to ``v + 1``; append, never edit."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this code writes; files with a higher version are refused."""


_TABLES = frozenset({"meta", "runs", "tp_cells", "tp_requests", "metric_samples",
                     "sql_questions", "sql_steps"})
"""The tables every schema version since the first has."""


def _read_schema_version(conn: sqlite3.Connection, path: Path) -> int:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        if tables - {"sqlite_sequence", "sqlite_stat1"}:
            raise StoreUnusable(path, "not_throughline")
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise StoreUnusable(path, "not_throughline", "it has no schema version",
                            detail_code="no_schema_version")
    version = int(row[0])
    # A table dropped by hand or by damage: said before anything writes to the file (a
    # migration would otherwise fail half-way, or a command fail on its first read).
    missing = sorted(_TABLES - tables) if 0 < version <= len(MIGRATIONS) else []
    if missing:
        raise StoreUnusable(path, "corrupt", f"its tables {', '.join(missing)} are missing",
                            detail_code="missing_tables", values={"tables": ", ".join(missing)})
    return version


def _refuse_newer(path: Path, found: int) -> None:
    known = len(MIGRATIONS)
    if found > known:
        raise StoreUnusable(
            path, "newer_schema",
            f"it uses results schema version {found}, but this Throughline only knows versions "
            f"up to {known}. Upgrade to open it.",
            detail_code="schema_too_new", values={"found": found, "known": known},
        )


def _migrate(db: Database, path: Path) -> None:
    # IMMEDIATE takes the write lock first, so two processes opening an old file cannot both
    # migrate; the version is read again under the lock.
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        version = _read_schema_version(db.conn, path)
        _refuse_newer(path, version)
        for step in MIGRATIONS[version:]:
            step(db)
        db.conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
            (str(len(MIGRATIONS)),),
        )
        db.conn.execute("COMMIT")
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise


def _connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    # check_same_thread=False: the GUI hands Store calls to asyncio.to_thread workers; the Store's
    # lock keeps them one at a time.
    # RedactingConnection: no remembered secret is ever bound into the file (a server may echo
    # the key into anything stored).
    conn = sqlite3.connect(str(path), timeout=busy_timeout_s, check_same_thread=False,
                           factory=RedactingConnection)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn
