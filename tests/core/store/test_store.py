"""The results store as a user meets it: runs survive, secrets stay off disk, crashes lose little"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_app.core.redact import is_secret_name, redact_config, redact_text, redact_url
from desktop_app.core.store import (
    SCHEMA_VERSION,
    NotFoundError,
    Store,
    StoreError,
    default_db_path,
    resolve_db_path,
)
from desktop_app.core.store import schema as store_schema

SECRET = "sk-live-7f3a9c2e5b"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "results.db"


@pytest.fixture
def store(db_path: Path):
    with Store.open(db_path) as s:
        yield s


def _run_child(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _request(run_id: int, cell_id: int | None, seq: int, **extra) -> dict:
    return {
        "run_id": run_id,
        "cell_id": cell_id,
        "seq": seq,
        "sent_at": 1_700_000_000.0 + seq,
        "ttft_s": 0.25,
        "e2e_s": 1.5,
        "prompt_tokens_target": 2048,
        "prompt_tokens": 2049,
        "completion_tokens": 128,
        "tokens_source": "usage",
        "prefill_tps": 8196.0,
        "decode_tps": 101.6,
        "tpot_s": 0.00984,
        "finish_reason": "length",
        "status_code": 200,
        **extra,
    }


# --------------------------------------------------------------------------- locations


def test_db_path_comes_from_cli_then_env_then_user_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "env.db"))
    assert resolve_db_path(str(tmp_path / "cli.db")) == tmp_path / "cli.db"
    assert resolve_db_path(None) == tmp_path / "env.db"
    monkeypatch.delenv("THROUGHLINE_DB")
    assert resolve_db_path(None) == default_db_path()
    assert default_db_path().name == "results.db"
    assert "throughline" in str(default_db_path().parent).lower()


def test_open_creates_missing_folders(tmp_path):
    path = tmp_path / "a" / "b" / "results.db"
    with Store.open(path):
        pass
    assert path.is_file()


# --------------------------------------------------------------------------- runs


def test_runs_round_trip_with_filters_newest_first(store):
    config = {
        "sweep": {"input_tokens": [2048, 32768], "concurrency": [1, 2, 4]},
        "note": "ünï",
        "max_tokens": 256,
        "temperature": 0.0,
        "warmup": True,
    }
    a = store.create_run(
        "throughput",
        name="a",
        endpoint_url="http://gpu1:8000/v1",
        model="qwen",
        engine="vllm",
        config=config,
    )
    b = store.create_run("sql", name="b", endpoint_url="http://gpu2:8000/v1", model="qwen")
    c = store.create_run("throughput", name="c", endpoint_url="http://gpu1:8000/v1", model="llama")
    store.finish_run(a, "completed")
    store.finish_run(c, "failed", error="HTTP 500 from server")

    run = store.get_run(a)
    assert run.config == config
    assert (run.kind, run.name, run.engine, run.status) == ("throughput", "a", "vllm", "completed")
    assert run.ended_at >= run.started_at and run.duration_s is not None and run.duration_s >= 0
    assert store.get_run(b).status == "running" and store.get_run(b).duration_s is None
    assert store.get_run(c).error == "HTTP 500 from server"

    assert [r.id for r in store.list_runs()] == [c, b, a]
    assert [r.id for r in store.list_runs(kind="throughput")] == [c, a]
    assert [r.id for r in store.list_runs(status="running")] == [b]
    assert [r.id for r in store.list_runs(endpoint="http://gpu1:8000/v1", model="qwen")] == [a]
    assert [r.id for r in store.list_runs(limit=1)] == [c]
    created = store.get_run(b).created_at
    assert {r.id for r in store.list_runs(since=created)} >= {b, c}
    assert a not in {r.id for r in store.list_runs(since="2999-01-01")}
    assert {r.id for r in store.list_runs(until="2000-01-01")} == set()

    store.update_run(b, name="renamed", notes="slow node")
    assert (store.get_run(b).name, store.get_run(b).notes) == ("renamed", "slow node")

    store.delete_run(b)
    assert [r.id for r in store.list_runs()] == [c, a]
    with pytest.raises(NotFoundError):
        store.get_run(b)
    with pytest.raises(ValueError):
        store.finish_run(a, "bogus")


def test_cells_round_trip_in_sweep_order(store):
    run = store.create_run("throughput")
    second = store.add_cell(run, cell_index=1, input_tokens=4096, output_tokens=256, concurrency=2)
    first = store.add_cell(
        run, cell_index=0, input_tokens=2048, output_tokens=256, request_rate=1.5
    )
    store.update_cell(first, status="completed", summary={"ttft_s": {"p50": 0.3}})
    cells = store.cells(run)
    assert [c.id for c in cells] == [first, second]
    assert cells[0].status == "completed" and cells[0].summary == {"ttft_s": {"p50": 0.3}}
    assert (cells[0].concurrency, cells[0].request_rate) == (None, 1.5)
    assert (cells[1].status, cells[1].summary) == ("pending", None)
    with pytest.raises(ValueError):
        store.update_cell(first, no_such_column=1)
    with pytest.raises(NotFoundError):
        store.update_cell(10_000, status="x")


# --------------------------------------------------------------------------- secrets


def test_secrets_never_reach_the_database_file(db_path):
    config = {
        "api_key": SECRET,
        "max_tokens": 512,
        "prompt_tokens": 2048,
        "client": {"headers": {"Authorization": f"Bearer {SECRET}", "X-Trace": "yes"}},
        "extra_headers": [{"name": "x-api-key", "value": SECRET}],
        "base_url": f"https://bob:{SECRET}@api.example.com/v1?key={SECRET}&region=eu",
    }
    with Store.open(db_path) as store:
        run = store.create_run(
            "throughput", endpoint_url=f"https://api.example.com/v1?api_key={SECRET}", config=config
        )
        with store.writer() as writer:
            writer.add_request(
                _request(
                    run,
                    None,
                    0,
                    error_class="http",
                    error_message=f"401 for url https://x/v1?token={SECRET}",
                )
            )
        store.finish_run(run, "failed", error=f"Authorization: Bearer {SECRET} rejected")
        stored = store.get_run(run)
        on_disk_while_open = b"".join(p.read_bytes() for p in db_path.parent.glob("results.db*"))

    assert stored.config["max_tokens"] == 512 and stored.config["prompt_tokens"] == 2048
    assert stored.config["client"]["headers"] == {"X-Trace": "yes"}
    assert stored.config["base_url"] == "https://api.example.com/v1?region=eu"
    assert stored.endpoint_url == "https://api.example.com/v1"
    on_disk_after_close = b"".join(p.read_bytes() for p in db_path.parent.glob("results.db*"))
    assert b"max_tokens" in on_disk_after_close
    for blob in (on_disk_while_open, on_disk_after_close):
        assert SECRET.encode() not in blob


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "apiKey",
        "API-KEY",
        "x-api-key",
        "Authorization",
        "password",
        "client_secret",
        "access_token",
        "bearer",
        "token",
    ],
)
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "prompt_tokens",
        "completion_tokens",
        "min_tokens",
        "tokenizer",
        "tokens_source",
        "api_key_env",
        "first_token_s",
    ],
)
def test_token_counts_are_not_secrets(name):
    assert not is_secret_name(name)
    assert redact_config({name: 7}) == {name: 7}


def test_redact_url_and_text_keep_everything_else():
    assert redact_url("http://localhost:8000/v1") == "http://localhost:8000/v1"
    assert (
        redact_url("https://u:p@h/v1?a=1&key=s&b=%20x&access_token=t") == "https://h/v1?a=1&b=%20x"
    )
    assert SECRET not in redact_text(f"GET https://h/v1?key={SECRET} failed, Bearer {SECRET}")


# --------------------------------------------------------------------------- schema


def test_new_file_has_schema_version_and_wal(db_path):
    with Store.open(db_path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.db.journal_mode == "wal"
    with sqlite3.connect(db_path) as conn:
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    conn.close()
    assert int(version) == SCHEMA_VERSION and mode == "wal"


def test_file_from_newer_version_is_refused_and_left_alone(db_path):
    with Store.open(db_path):
        pass
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    conn.close()
    before = db_path.read_bytes()
    with pytest.raises(StoreError) as raised:
        Store.open(db_path)
    message = str(raised.value)
    assert str(db_path) in message
    assert str(SCHEMA_VERSION + 1) in message and str(SCHEMA_VERSION) in message
    assert db_path.read_bytes() == before


def test_older_file_is_migrated_once_and_keeps_its_runs(db_path, monkeypatch):
    with Store.open(db_path) as store:
        run = store.create_run("sql", name="old run")
        store.finish_run(run, "completed")
    calls = []

    def add_tags(db):
        calls.append(1)
        db.execute("ALTER TABLE runs ADD COLUMN tags TEXT")

    monkeypatch.setattr(store_schema, "MIGRATIONS", [*store_schema.MIGRATIONS, add_tags])
    for _ in range(2):
        with Store.open(db_path) as store:
            assert store.schema_version == SCHEMA_VERSION + 1
            assert store.get_run(run).name == "old run"
            assert "tags" in store.db["runs"].columns_dict
    assert calls == [1]


def test_failed_migration_leaves_the_file_as_it_was(db_path, monkeypatch):
    with Store.open(db_path) as store:
        run = store.create_run("sql")

    def broken(db):
        db.execute("ALTER TABLE runs ADD COLUMN half_done TEXT")
        raise RuntimeError("migration bug")

    with monkeypatch.context() as patch:
        patch.setattr(store_schema, "MIGRATIONS", [*store_schema.MIGRATIONS, broken])
        with pytest.raises(RuntimeError, match="migration bug"):
            Store.open(db_path)
    with Store.open(db_path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert "half_done" not in store.db["runs"].columns_dict
        assert store.get_run(run).kind == "sql"


def test_files_that_are_not_results_databases_are_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="junk.db"):
        Store.open(junk)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    with conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.close()
    with pytest.raises(StoreError, match="not a Throughline results database"):
        Store.open(other)


# --------------------------------------------------------------------------- crashes


CREATE_AND_EXIT = """
import sys
from desktop_app.core.store import Store
with Store.open(sys.argv[1]) as store:
    print(store.create_run("throughput", name="orphan"))
"""


def test_run_left_running_by_a_dead_process_reads_interrupted(db_path):
    with Store.open(db_path) as store:
        mine = store.create_run("throughput", name="still going")
    orphan = int(_run_child(CREATE_AND_EXIT, str(db_path)))
    with Store.open(db_path) as store:
        gone = store.get_run(orphan)
        assert gone.status == "interrupted" and gone.ended_at is not None and gone.error
        assert store.get_run(mine).status == "running"
        assert [r.id for r in store.list_runs(status="interrupted")] == [orphan]


def test_run_from_an_earlier_process_with_our_pid_reads_interrupted(db_path):
    # In a container the app gets the same pid on every start; a crashed run must not look alive.
    with Store.open(db_path) as store:
        earlier = store.create_run("throughput")
        store.db.execute(
            "UPDATE runs SET owner_token = 'an earlier process' WHERE id = ?", (earlier,)
        )
    with Store.open(db_path) as store:
        assert store.get_run(earlier).status == "interrupted"


WRITE_UNTIL_KILLED = """
import sys, time
from desktop_app.core.store import Store
store = Store.open(sys.argv[1])
run_id = store.create_run("throughput", name="killed")
writer = store.writer()
print("run", run_id, flush=True)
seq = 0
while True:
    writer.add_request({"run_id": run_id, "seq": seq, "ttft_s": 0.1})
    print(seq, flush=True)
    seq += 1
    time.sleep(0.01)
"""


def test_sigkill_loses_at_most_the_last_second(db_path):
    with Store.open(db_path):
        pass
    reported: list[tuple[int, float]] = []
    with subprocess.Popen(
        [sys.executable, "-c", WRITE_UNTIL_KILLED, str(db_path)], stdout=subprocess.PIPE, text=True
    ) as child:
        try:
            run_id = int(child.stdout.readline().split()[1])
            enough_at = None
            while enough_at is None or time.monotonic() - enough_at < 1.5:
                line = child.stdout.readline()
                assert line, "the writing child died"
                reported.append((int(line), time.monotonic()))
                if enough_at is None and len(reported) >= 100:
                    enough_at = reported[-1][1]
            killed_at = time.monotonic()
            child.kill()  # SIGKILL on POSIX: no atexit, no finally, no flush
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
    must_have = {seq for seq, seen in reported if seen < killed_at - 1.0}
    assert len(must_have) >= 100
    with Store.open(db_path) as store:
        stored = {r["seq"] for r in store.requests(run_id, limit=10_000)}
        assert must_have <= stored
        assert store.get_run(run_id).status == "interrupted"


# --------------------------------------------------------------------------- the writer


def test_writer_commits_within_a_second_without_flush(store, db_path):
    run = store.create_run("throughput")
    writer = store.writer()
    handed_at = time.monotonic()
    writer.add_request(_request(run, None, 0))
    with Store.open(db_path) as reader:
        while reader.count_requests(run) == 0 and time.monotonic() - handed_at < 2.0:
            time.sleep(0.01)  # polling another connection for the commit, not pacing the writer
        visible_after = time.monotonic() - handed_at
        assert reader.count_requests(run) == 1
    assert visible_after < 1.0
    writer.close()


def test_writer_reports_a_failed_row_and_keeps_the_good_ones(store):
    run = store.create_run("throughput")
    writer = store.writer()
    with pytest.raises(ValueError, match="no_such_column"):
        writer.add_request({"run_id": run, "no_such_column": 1})
    writer.add_request(_request(run, None, 0))
    writer.add_request(_request(run_id=999_999, cell_id=None, seq=1))  # no such run
    writer.add_request(_request(run, None, 2))
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        writer.flush()
    writer.add_request(_request(run, None, 3))
    writer.close()
    assert [r["seq"] for r in store.requests(run)] == [0, 2, 3]
    with pytest.raises(StoreError, match="closed"):
        writer.add_request(_request(run, None, 4))


def test_writer_round_trips_requests_metrics_and_agent_steps(store):
    run = store.create_run("sql", model="qwen")
    cell = store.add_cell(run, cell_index=0)
    with store.writer() as writer:
        writer.add_request(_request(run, cell, 0, warmup=True, itl_s=[0.01, 0.0125]))
        writer.add_metric_sample(
            {
                "run_id": run,
                "cell_id": cell,
                "t_s": 1.0,
                "running": 2,
                "waiting": 4,
                "kv_cache_usage": 0.91,
                "raw_json": {"x": 1},
            }
        )
        q = writer.add_sql_question({"run_id": run, "question_id": "q07", "tier": "hard"})
        for i in range(3):
            writer.add_sql_step(
                {
                    "run_id": run,
                    "question_row_id": q,
                    "step_index": i,
                    "tool_name": "run_sql",
                    "tool_args_json": {"sql": "SELECT 1"},
                    "latency_s": 0.5,
                }
            )
        writer.update_sql_question(
            q,
            {
                "status": "done",
                "failure_class": "rounding_only",
                "verdicts_json": {"strict": "fail", "tolerant": "pass"},
                "steps": 3,
            },
        )
    (req,) = store.requests(run, cell)
    assert req["warmup"] is True and req["itl_s"] == [0.01, 0.0125] and req["error_class"] is None
    assert store.request_ids(run) == [req["id"]] and store.requests_by_id([req["id"]]) == [req]
    (sample,) = store.metric_samples(run)
    assert (sample["waiting"], sample["kv_cache_usage"], sample["raw_json"]) == (4, 0.91, {"x": 1})
    (question,) = store.sql_questions(run, tier="hard")
    assert question["verdicts_json"] == {"strict": "fail", "tolerant": "pass"}
    assert store.sql_questions(run, failure_class="rounding_only") == [question]
    steps = store.sql_steps(q)
    assert [s["step_index"] for s in steps] == [0, 1, 2]
    assert steps[0]["tool_args_json"] == {"sql": "SELECT 1"}
    store.update_sql_question(q, failure_class=None)
    assert store.sql_questions(run)[0]["failure_class"] is None


def test_100k_requests_page_through_an_index(store):
    run = store.create_run("throughput")
    cells = [store.add_cell(run, cell_index=i) for i in range(2)]
    with store.writer() as writer:
        for seq in range(100_000):
            writer.add_request(
                _request(run, cells[1], seq, error_class="timeout" if seq % 1000 == 0 else None)
            )
        writer.add_request(_request(run, cells[0], 0))
    assert store.count_requests(run) == 100_001
    assert store.count_requests(run, cells[1]) == 100_000
    assert store.count_requests(run, errors_only=True) == 100

    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    try:
        page = store.requests(run, cells[1], offset=99_000, limit=1000)
    finally:
        store.db.conn.set_trace_callback(None)
    assert [r["seq"] for r in page] == list(range(99_000, 100_000))
    (select,) = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    plan = " ".join(row[-1] for row in store.db.execute("EXPLAIN QUERY PLAN " + select))
    assert "USING INDEX" in plan or "USING COVERING INDEX" in plan


def test_delete_run_removes_rows_of_every_child_table(store):
    def fill(run):
        cell = store.add_cell(run, cell_index=0)
        with store.writer() as writer:
            writer.add_request(_request(run, cell, 0))
            writer.add_metric_sample({"run_id": run, "cell_id": cell, "t_s": 0.5})
            q = writer.add_sql_question({"run_id": run, "question_id": "q1"})
            writer.add_sql_step({"run_id": run, "question_row_id": q, "step_index": 0})

    doomed, kept = store.create_run("throughput"), store.create_run("throughput")
    fill(doomed)
    fill(kept)
    store.delete_run(doomed)
    tables = ["runs", "tp_cells", "tp_requests", "metric_samples", "sql_questions", "sql_steps"]
    for table in tables:
        column = "id" if table == "runs" else "run_id"
        counts = dict(
            store.db.execute(
                f"SELECT {column} = ?, count(*) FROM {table} GROUP BY 1", (doomed,)
            ).fetchall()
        )
        assert counts.get(1, 0) == 0, table
        assert counts.get(0, 0) == 1, table
    with pytest.raises(NotFoundError):
        store.delete_run(doomed)


def test_a_write_error_met_by_the_writer_is_said_as_the_store_says_it(tmp_path):
    """A file-size limit met mid-sweep (tests/core/hostile) was said two ways, by which
    connection met it first: 'results database X could not be read or written (a disk
    error, ...)' from the store, 'writing results to X failed: disk I/O error' from the
    writer. The writer's SQLite errors now read as the store's."""
    import sqlite3

    from desktop_app.core.store import StoreError
    from desktop_app.core.store.errors import StoreUnusable

    with Store.open(tmp_path / "r.db") as store:
        writer = store.writer()
        writer._record(sqlite3.OperationalError("disk I/O error"))
        writer._record(sqlite3.OperationalError("disk I/O error"))
        with pytest.raises(StoreUnusable) as raised:
            writer._raise_pending()
        assert raised.value.code == "io_error"
        assert str(raised.value) == (
            f"results database {tmp_path / 'r.db'} could not be read or written (a disk error, "
            "a quota or a file-size limit): disk I/O error (and 1 more failed write(s))")
        writer._record(ValueError("not SQLite"))  # anything else keeps the writer's words
        with pytest.raises(StoreError, match="writing results to .* failed: not SQLite"):
            writer._raise_pending()
        writer.close()
