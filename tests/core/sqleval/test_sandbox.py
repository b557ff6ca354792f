"""The SQL sandbox: queries run, nothing else does, runaways stop, and the file never changes."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
from pathlib import Path

import pytest

from desktop_app.core.sqleval.sandbox import (
    Sandbox,
    SandboxError,
    SqlError,
    SqlRefused,
    SqlTimeout,
    format_result_for_model,
    split_statements,
)
from desktop_app.core.sqleval.types import QueryResult


def make_db(path: Path, rows: int = 3000) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, region TEXT)")
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INT, amount REAL)")
    conn.execute("CREATE INDEX orders_customer ON orders(customer_id)")
    conn.execute("CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 50")
    conn.executemany(
        "INSERT INTO customers VALUES (?, ?, ?)",
        [(i, f"customer {i}", "north" if i % 2 else "south") for i in range(rows)],
    )
    conn.executemany(
        "INSERT INTO orders VALUES (?, ?, ?)", [(i, i % 100, i * 0.5) for i in range(rows)]
    )
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return make_db(tmp_path / "shop.sqlite")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_query_returns_columns_rows_and_count(db):
    with Sandbox(db) as sandbox:
        result = sandbox.run("SELECT region, count(*) AS n FROM customers GROUP BY region;")
    assert result.columns == ("region", "n")
    assert result.rows == (("north", 1500), ("south", 1500))
    assert result.total_rows == 2 and not result.truncated
    assert result.elapsed_s >= 0


HOSTILE = [
    ("INSERT INTO customers VALUES (99999, 'x', 'y')", "read-only"),
    ("UPDATE customers SET name = 'x'", "read-only"),
    ("DELETE FROM orders", "read-only"),
    ("REPLACE INTO customers VALUES (1, 'x', 'y')", "read-only"),
    ("WITH c AS (SELECT 1) INSERT INTO customers SELECT 5, 'q', 'r' FROM c", "read-only"),
    ("WITH c AS (SELECT 1) UPDATE sqlite_master SET sql = ''", "read-only"),
    ("DROP TABLE orders", "read-only"),
    ("DROP VIEW big_orders", "read-only"),
    ("CREATE TABLE t (x)", "read-only"),
    ("CREATE TEMP TABLE t (x)", "read-only"),
    ("CREATE INDEX i ON orders(amount)", "read-only"),
    ("ALTER TABLE orders ADD COLUMN z", "read-only"),
    ("REINDEX", "read-only"),
    ("ANALYZE", "read-only"),
    ("VACUUM", "VACUUM"),
    ("VACUUM INTO '{tmp}/copy.sqlite'", "VACUUM"),
    ("ATTACH DATABASE '{tmp}/other.sqlite' AS other", "ATTACH"),
    ("DETACH DATABASE main", "DETACH"),
    ("PRAGMA writable_schema = 1", "PRAGMA writable_schema"),
    ("PRAGMA journal_mode = WAL", "PRAGMA journal_mode"),
    ("PRAGMA user_version = 7", "PRAGMA user_version"),
    ("PRAGMA query_only = 0", "PRAGMA query_only"),
    ("SELECT load_extension('{tmp}/evil')", "load_extension"),
    ("BEGIN", "transactions"),
    ("SAVEPOINT s1", "transactions"),
    ("SELECT 1; DROP TABLE orders", "2 statements"),
    ("SELECT 1; SELECT 2", "2 statements"),
    ("SELECT " + "1 + " * 300_000 + "1", "characters long"),
]


@pytest.mark.parametrize(("sql", "reason"), HOSTILE)
def test_hostile_statements_are_refused_with_a_reason(db, tmp_path, sql, reason):
    with Sandbox(db) as sandbox:
        with pytest.raises(SqlRefused) as info:
            sandbox.run(sql.format(tmp=tmp_path))
    assert reason in str(info.value)


def test_the_database_file_is_byte_identical_after_a_hostile_battery(db, tmp_path):
    before = digest(db)
    outcomes = []
    with Sandbox(db, time_limit_s=0.5) as sandbox:
        for sql, _ in HOSTILE:
            with pytest.raises(SandboxError):
                sandbox.run(sql.format(tmp=tmp_path))
        runaways = [
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
            "SELECT * FROM customers a, customers b, orders c",
            "SELECT count(*) FROM customers a, customers b, orders c",
        ]
        for sql in runaways:
            started = time.monotonic()
            try:
                result = sandbox.run(sql)
                outcomes.append(("rows", len(result.rows), result.truncated))
            except SqlTimeout as exc:
                outcomes.append(("timeout", str(exc)))
            assert time.monotonic() - started < 3.0
    assert digest(db) == before
    assert not (tmp_path / "copy.sqlite").exists() and not (tmp_path / "other.sqlite").exists()
    assert outcomes[0] == ("rows", 10_000, True)  # stopped by the row cap
    assert outcomes[1] == ("rows", 10_000, True)
    assert outcomes[2] == ("timeout", "query interrupted after 0.5 s (time limit)")


def test_the_time_limit_interrupts_promptly(db):
    with Sandbox(db, time_limit_s=0.3) as sandbox:
        started = time.monotonic()
        with pytest.raises(SqlTimeout, match="interrupted after 0.3 s"):
            sandbox.run("SELECT count(*) FROM customers a, customers b, customers c")
        assert time.monotonic() - started < 1.3
        # The connection is still usable after an interruption.
        assert sandbox.run("SELECT count(*) FROM orders").rows == ((3000,),)


def test_a_large_result_is_capped_and_counted(db):
    with Sandbox(db, max_rows=100) as sandbox:
        result = sandbox.run("SELECT * FROM orders")
        assert len(result.rows) == 100 and result.total_rows == 3000 and result.truncated
        capped = Sandbox(db, max_rows=10, count_limit=500)
        with capped:
            beyond = capped.run("SELECT * FROM orders")
        assert len(beyond.rows) == 10 and beyond.total_rows is None and beyond.truncated


def test_sql_errors_are_reported_as_sqlite_says(db):
    with Sandbox(db) as sandbox:
        with pytest.raises(SqlError, match="no such column: nope"):
            sandbox.run("SELECT nope FROM orders")
        with pytest.raises(SqlError, match="no such table"):
            sandbox.run("SELECT * FROM nowhere")
        with pytest.raises(SqlError, match="too big"):
            sandbox.run("SELECT zeroblob(1000000000)")
        with pytest.raises(SqlError, match="no SQL"):
            sandbox.run("  -- nothing here\n ;")


def test_read_only_pragmas_and_table_functions_work(db):
    with Sandbox(db) as sandbox:
        assert [r[1] for r in sandbox.run("PRAGMA table_info(orders)").rows] == [
            "id", "customer_id", "amount"]
        assert sandbox.run("SELECT name FROM pragma_table_info('orders')").total_rows == 3
        assert sandbox.run("PRAGMA index_list(orders)").total_rows == 1
        assert sandbox.run("SELECT value FROM json_each('[1,2]')").rows == ((1,), (2,))
        assert sandbox.run("EXPLAIN QUERY PLAN SELECT * FROM orders").total_rows >= 1


def test_semicolons_in_strings_and_comments_do_not_split():
    assert split_statements("SELECT ';' AS s;") == ["SELECT ';' AS s"]
    assert split_statements("SELECT 1 -- ; DROP TABLE x\n;  /* ; */ ") == [
        "SELECT 1 -- ; DROP TABLE x"]
    assert split_statements('SELECT "a;b", [c;d], `e;f` FROM t') == [
        'SELECT "a;b", [c;d], `e;f` FROM t']
    assert split_statements("SELECT 'it''s; fine'; SELECT 2") == [
        "SELECT 'it''s; fine'", "SELECT 2"]


def test_list_and_describe_tables(db):
    with Sandbox(db) as sandbox:
        assert sandbox.list_tables() == ["big_orders", "customers", "orders"]
        text = sandbox.describe_table("Orders")
        assert "CREATE TABLE orders" in text
        assert "3,000 rows; 3 sample rows" in text
        assert "customer_id" in text and "0.5" in text
        with pytest.raises(SqlError, match="no such table: nope .*customers"):
            sandbox.describe_table("nope")


def test_missing_and_non_sqlite_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        Sandbox(tmp_path / "missing.sqlite")
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"this is not a database" * 100)
    with pytest.raises(SqlError, match="cannot be opened as SQLite"):
        Sandbox(bogus)


def test_format_result_for_model_states_truncation():
    small = QueryResult(("a", "b"), ((1, None), (2.5, "x\ny")), total_rows=2)
    text, truncated = format_result_for_model(small)
    assert not truncated
    assert text.splitlines()[0] == "a   | b"
    assert "NULL" in text and "x y" in text and text.endswith("(2 rows)")
    rows = tuple((i,) for i in range(50))
    text, truncated = format_result_for_model(QueryResult(("n",), rows, total_rows=50), 20)
    assert truncated and text.endswith("(first 20 of 50 rows shown; truncated)")
    assert len(text.splitlines()) == 2 + 20 + 1
    text, truncated = format_result_for_model(
        QueryResult(("n",), rows, total_rows=None, truncated=True))
    assert truncated and "total not counted" in text


@pytest.mark.asyncio
async def test_usable_from_worker_threads(db):
    with Sandbox(db) as sandbox:
        results = await asyncio.gather(
            *(asyncio.to_thread(sandbox.run, f"SELECT count(*) FROM orders WHERE id < {n}")
              for n in range(1, 21))
        )
    assert sorted(r.rows[0][0] for r in results) == list(range(1, 21))


# -- `throughline sql` ------------------------------------------------------------------------


def run_cli(argv: list[str]) -> int:
    import argparse

    from desktop_app.cli import sql as cli_sql

    parser = argparse.ArgumentParser(prog="throughline")
    cli_sql.add_parser(parser.add_subparsers(dest="command"))
    return cli_sql.run_sql_command(parser.parse_args(argv))


def test_cli_prints_a_table(db, capsys):
    status = run_cli(["sql", "--db", str(db), "SELECT id, amount FROM orders ORDER BY id",
                      "--max-rows", "3"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[:5] == ["id | amount", "---+-------", "0  | 0.0", "1  | 0.5", "2  | 1.0"]
    assert out[5] == "(first 3 of 3,000 rows shown; truncated)"


@pytest.mark.parametrize(("argv", "status", "message"), [
    (["DROP TABLE orders"], 1, "throughline sql: DROP refused: the database is read-only"),
    (["SELECT nope FROM orders"], 1, "throughline sql: SQL error: no such column: nope"),
    (["SELECT count(*) FROM orders a, orders b, orders c", "--time-limit", "0.2"], 1,
     "throughline sql: query interrupted after 0.2 s (time limit)"),
    (["SELECT 1", "--time-limit", "0"], 2, "throughline sql: --time-limit: 0 must be a number above 0"),
])
def test_cli_failures_are_one_line_with_a_status(db, capsys, argv, status, message):
    assert run_cli(["sql", "--db", str(db), *argv]) == status
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_cli_bad_databases_exit_2(tmp_path, capsys):
    assert run_cli(["sql", "--db", str(tmp_path / "gone.sqlite"), "SELECT 1"]) == 2
    assert "no such database file" in capsys.readouterr().err
    assert run_cli(["sql", "--db", "no-such-set:sales", "SELECT 1"]) == 2
    assert "no-such-set:sales is neither a database file nor SET:KEY" in capsys.readouterr().err


@pytest.mark.skipif(not (Path(__file__).resolve().parents[3] / "questions" / "sales-25"
                         / "set.toml").exists(), reason="questions/sales-25 is not there yet")
def test_cli_resolves_a_question_set_database(capsys):
    assert run_cli(["sql", "--db", "sales-25:sales", "SELECT count(*) AS n FROM customers"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "n"
    assert run_cli(["sql", "--db", "sales-25:nope", "SELECT 1"]) == 2
    assert "has no database 'nope' (sales-25:sales)" in capsys.readouterr().err
