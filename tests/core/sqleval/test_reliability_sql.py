"""Hostile SQL through the sandbox: what tests/core/sqleval/test_sandbox.py's battery does not cover.

Every statement here must be refused (SqlRefused), stopped (SqlTimeout) or rejected by SQLite
(SqlError) with a one-line reason, and the database file and its folder must be byte-identical
afterwards. It goes through the same door a model's SQL takes (the agent's run_sql tool), and
ends with the bundled sales-25 database, whose biggest tables are cross-joined.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from desktop_app import paths
from desktop_app.core.sqleval.questions import load_question_set
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError, SqlRefused, SqlTimeout
from desktop_app.core.sqleval.tools import execute_tool
from tests.core.sqleval.test_sandbox import HOSTILE, make_db

MB = 1_000_000

# (statement, words the reason must contain); {tmp} is a scratch folder outside the database's.
MORE_HOSTILE = [
    # writes of every kind, including the forms that do not start with their verb
    ("INSERT INTO customers VALUES (1, 'x', 'y') ON CONFLICT(id) DO UPDATE SET name = 'z'",
     "INSERT refused"),
    ("INSERT OR REPLACE INTO customers VALUES (1, 'x', 'y')", "INSERT refused"),
    ("INSERT OR IGNORE INTO customers DEFAULT VALUES", "INSERT refused"),
    ("UPDATE orders SET amount = 0 FROM customers WHERE customers.id = orders.customer_id",
     "UPDATE refused"),
    ("DELETE FROM orders WHERE id < 10 RETURNING *", "DELETE refused"),
    ("WITH gone AS (SELECT id FROM orders) DELETE FROM orders WHERE id IN gone", "read-only"),
    ("WITH x AS (SELECT 1) REPLACE INTO customers VALUES (2, 'a', 'b')", "read-only"),
    ("EXPLAIN DELETE FROM orders", "read-only"),
    ("EXPLAIN QUERY PLAN UPDATE orders SET amount = 1", "read-only"),
    ("CREATE VIEW v AS SELECT * FROM orders", "CREATE refused"),
    ("CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM customers; END",
     "CREATE refused"),
    ("CREATE UNIQUE INDEX IF NOT EXISTS u ON customers(name)", "CREATE refused"),
    ("CREATE VIRTUAL TABLE f USING fts5(body)", "CREATE refused"),
    ("CREATE TABLE copy AS SELECT * FROM orders", "CREATE refused"),
    ("ALTER TABLE orders RENAME TO old_orders", "ALTER refused"),
    ("ALTER TABLE orders RENAME COLUMN amount TO total", "ALTER refused"),
    ("ALTER TABLE orders DROP COLUMN amount", "ALTER refused"),
    ("DROP TABLE IF EXISTS customers", "DROP refused"),
    ("DROP INDEX orders_customer", "DROP refused"),
    ("DROP TRIGGER IF EXISTS audit", "DROP refused"),
    ("/* looks harmless */ DROP TABLE orders", "DROP refused"),
    ("\u00a0DROP TABLE orders", "DROP refused"),  # a no-break space before the verb
    # temp objects: still a write, and the temp database is off limits too
    ("CREATE TEMPORARY TABLE t AS SELECT * FROM orders", "CREATE refused"),
    ("CREATE TEMP VIEW v AS SELECT 1", "CREATE refused"),
    ("CREATE TEMP TRIGGER t AFTER DELETE ON orders BEGIN SELECT 1; END", "CREATE refused"),
    # other databases
    ("ATTACH ':memory:' AS scratch", "ATTACH refused"),
    ("ATTACH 'file:{tmp}/new.sqlite?mode=rwc' AS other", "ATTACH refused"),
    ("DETACH other", "DETACH refused"),
    # PRAGMAs that write or change how the connection behaves
    ("PRAGMA main.writable_schema = ON", "PRAGMA writable_schema"),
    ("PRAGMA writable_schema = RESET", "PRAGMA writable_schema"),
    ("PRAGMA foreign_keys = ON", "PRAGMA foreign_keys"),
    ("PRAGMA schema_version = 99", "PRAGMA schema_version"),
    ("PRAGMA application_id = 5", "PRAGMA application_id"),
    ("PRAGMA auto_vacuum = FULL", "PRAGMA auto_vacuum"),
    ("PRAGMA page_size = 8192", "PRAGMA page_size"),
    ("PRAGMA synchronous = OFF", "PRAGMA synchronous"),
    ("PRAGMA locking_mode = EXCLUSIVE", "PRAGMA locking_mode"),
    ("PRAGMA secure_delete = ON", "PRAGMA secure_delete"),
    ("PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA wal_checkpoint"),
    ("PRAGMA incremental_vacuum(100)", "PRAGMA incremental_vacuum"),
    ("PRAGMA optimize", "PRAGMA optimize"),
    ("PRAGMA trusted_schema = ON", "PRAGMA trusted_schema"),
    ("PRAGMA temp_store_directory = '{tmp}'", "PRAGMA temp_store_directory"),
    ("PRAGMA mmap_size = 268435456", "PRAGMA mmap_size"),
    ("PRAGMA cache_size = -1000000", "PRAGMA cache_size"),
    ("PRAGMA case_sensitive_like = ON", "PRAGMA case_sensitive_like"),
    ("SELECT * FROM pragma_table_info('orders'); PRAGMA journal_mode = DELETE", "2 statements"),
    # VACUUM, extensions, files
    ("VACUUM main INTO '{tmp}/copy2.sqlite'", "VACUUM refused"),
    ("/**/VACUUM", "VACUUM refused"),
    ("SELECT 1 UNION ALL SELECT load_extension('{tmp}/evil', 'entry')", "load_extension"),
    ("SeLeCt LoAd_ExTeNsIoN('libevil')", "load_extension"),
    # several statements in one string, hidden where a naive splitter would not look
    ("SELECT ';'; DELETE FROM orders", "2 statements"),
    ("SELECT 'it''s'; DROP TABLE orders; --", "2 statements"),
    ("SELECT 1 /* ; */; DELETE FROM orders", "2 statements"),
    ("SELECT 1;\n-- and then\nUPDATE orders SET amount = 0", "2 statements"),
    ("SELECT 1; SELECT 2; SELECT 3; DROP TABLE customers", "4 statements"),
    # 1 MB statements
    ("SELECT '" + "a" * MB + "'", "characters long"),
    ("SELECT 1 -- " + "x" * MB, "characters long"),
    ("SELECT " + ", ".join(["1"] * (MB // 3)), "characters long"),
]


def digest(folder: Path) -> dict[str, str]:
    """Every file in the folder and its SHA-256: nothing may change, nothing may appear."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """One database for the module: every test checks it is unchanged after its own run."""
    folder = tmp_path_factory.mktemp("db")
    path = make_db(folder / "shop.sqlite")
    with sqlite3.connect(path) as conn:  # a trigger to drop, in a file the sandbox opens as is
        conn.execute("CREATE TRIGGER audit AFTER DELETE ON orders BEGIN SELECT 1; END")
    conn.close()
    return path


def test_the_battery_covers_what_the_issue_lists():
    """Every kind of statement the issue names is in one of the two batteries."""
    statements = " ".join(s.upper() for s, _ in HOSTILE + MORE_HOSTILE)
    for kind in ("INSERT", "UPDATE", "DELETE", "REPLACE", "ON CONFLICT", "CREATE TABLE",
                 "CREATE INDEX", "CREATE VIEW", "CREATE TRIGGER", "CREATE TEMP", "ALTER", "DROP",
                 "ATTACH", "DETACH", "WRITABLE_SCHEMA", "VACUUM INTO", "VACUUM",
                 "LOAD_EXTENSION", "JOURNAL_MODE", "USER_VERSION"):
        assert kind in statements, kind
    assert sum(len(s) >= MB for s, _ in MORE_HOSTILE) == 3


@pytest.mark.parametrize(("sql", "reason"), MORE_HOSTILE,
                         ids=[s[:40] for s, _ in MORE_HOSTILE])
def test_more_hostile_statements_are_refused_with_a_reason(db, tmp_path, sql, reason):
    before = digest(db.parent)
    with Sandbox(db) as sandbox:
        with pytest.raises(SqlRefused) as info:
            sandbox.run(sql.format(tmp=tmp_path))
        # The connection is still usable, and still sees the data as it was.
        assert sandbox.run("SELECT count(*) FROM orders").rows == ((3000,),)
    message = str(info.value)
    assert reason in message and "\n" not in message and len(message) < 300
    assert digest(db.parent) == before


def test_a_model_gets_the_reason_through_the_run_sql_tool(db, tmp_path):
    """The same statements through the door a model's SQL takes: an error text, never a row."""
    before = digest(db.parent)
    refused = 0
    with Sandbox(db) as sandbox:
        for sql, reason in HOSTILE + MORE_HOSTILE:
            for tool in ("run_sql", "submit_answer"):
                outcome = execute_tool(sandbox, tool, {"sql": sql.format(tmp=tmp_path)})
                if tool == "submit_answer":  # only recorded; the judge runs it in the sandbox
                    assert outcome.submitted_sql is not None
                    continue
                assert outcome.record.result.startswith("Error: ")
                assert reason in outcome.record.error
                refused += 1
    assert refused == len(HOSTILE) + len(MORE_HOSTILE)
    assert digest(db.parent) == before
    assert not any(tmp_path.glob("*.sqlite")) and not (tmp_path / "evil").exists()


def test_a_1_mb_statement_under_a_raised_limit_is_still_stopped(db):
    """With max_sql_chars raised past 1 MB the text check lets it through; SQLite's own
    limits then reject it with a reason instead of exhausting memory or time."""
    before = digest(db.parent)
    with Sandbox(db, max_sql_chars=2 * MB, time_limit_s=1.0) as sandbox:
        for sql in ("SELECT " + "1 + " * (MB // 4) + "1",  # expression depth
                    "SELECT 1 WHERE 'a' LIKE '" + "%a" * (MB // 2) + "'"):  # pattern size
            with pytest.raises(SandboxError) as info:
                sandbox.run(sql)
            assert len(str(info.value)) < 300 and str(info.value)
        # A legitimate 1 MB query (a long IN list) runs.
        in_list = ", ".join(str(i) for i in range(MB // 8))
        result = sandbox.run(f"SELECT count(*) FROM orders WHERE id IN ({in_list})")
        assert len(in_list) > 0.8 * MB and result.rows == ((3000,),)
    assert digest(db.parent) == before


def test_runaway_queries_stop_at_the_time_limit(db):
    before = digest(db.parent)
    with Sandbox(db, time_limit_s=0.3) as sandbox:
        for sql in (
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
            "SELECT count(*) FROM c",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x FROM c) "
            "SELECT max(x) FROM c",
            "SELECT count(*) FROM orders a CROSS JOIN orders b CROSS JOIN customers c",
            "SELECT count(*) FROM customers a, customers b, customers c, customers d",
        ):
            with pytest.raises(SqlTimeout, match=r"^query interrupted after 0\.3 s"):
                sandbox.run(sql)
        # A result that grows as it runs stops at whichever comes first on this machine: the
        # time limit, or the size limit on one value (a fast machine reaches 10 MB in 0.3 s).
        with pytest.raises(SandboxError, match=r"^query interrupted after 0\.3 s|too big"):
            sandbox.run("SELECT group_concat(a.id) FROM customers a, customers b, customers c")
    assert digest(db.parent) == before


def test_memory_bombs_are_refused_by_sqlite_limits(db):
    before = digest(db.parent)
    with Sandbox(db) as sandbox:
        for sql in ("SELECT randomblob(2000000000)",
                    "SELECT group_concat(hex(zeroblob(1000000))) FROM orders",
                    "SELECT length(replace(hex(zeroblob(4000000)), '0', '0000'))"):
            with pytest.raises(SandboxError, match="too big"):
                sandbox.run(sql)
    assert digest(db.parent) == before


def test_harmless_look_alikes_still_run(db):
    """Refusing by keyword must not refuse a query that only mentions one."""
    with Sandbox(db) as sandbox:
        assert sandbox.run("SELECT replace('drop table', 'drop', 'keep') AS s").rows == (
            ("keep table",),)
        assert sandbox.run("SELECT 'DELETE FROM orders; DROP TABLE x' AS s").total_rows == 1
        assert sandbox.run('SELECT amount AS "update" FROM orders LIMIT 1').columns == (
            "update",)
        assert sandbox.run("SELECT name FROM pragma_table_info('orders')").total_rows == 3
        assert sandbox.run("SELECT 1; -- trailing; comment").rows == ((1,),)


def test_the_sales_25_database_survives_its_biggest_cross_join(tmp_path):
    qset = load_question_set("sales-25", sets_dir=paths.questions_dir(),
                             cache_dir=tmp_path / "cache", check_gold=False)
    (path,) = qset.databases.values()
    before = digest(path.parent)
    with Sandbox(path, time_limit_s=0.5) as sandbox:
        sizes = {t: sandbox.run(f'SELECT count(*) FROM "{t}"').rows[0][0]
                 for t in sandbox.list_tables()}
        big, second = sorted(sizes, key=sizes.get, reverse=True)[:2]
        assert sizes[big] * sizes[second] > 10_000_000
        with pytest.raises(SqlTimeout, match="time limit"):  # 10^10 rows and more: any machine
            sandbox.run(f'SELECT count(*) FROM "{big}" a CROSS JOIN "{second}" b '
                        f'CROSS JOIN "{second}" c')
        rows = sandbox.run(f'SELECT * FROM "{big}" a CROSS JOIN "{second}" b')
        assert len(rows.rows) == sandbox.max_rows and rows.truncated and rows.total_rows is None
        for sql, _ in HOSTILE + MORE_HOSTILE:
            with pytest.raises(SandboxError):
                sandbox.run(sql.format(tmp=tmp_path).replace("orders", big)
                            .replace("customers", second))
    assert digest(path.parent) == before
