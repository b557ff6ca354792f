"""A results file that cannot take a run is named before anything is sent, and a cell never
reads finished with requests missing (issue #17; docs/RELIABILITY.md, "The results file")."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest

from desktop_app.core.parsing import InputError
from desktop_app.core.store import (
    SCHEMA_VERSION,
    STORE_PROBLEMS,
    Store,
    StoreError,
    StoreUnusable,
    checks,
)
from desktop_app.core.store import schema as store_schema
from desktop_app.core.store import writer as store_writer

ROOT = Path(__file__).resolve().parents[3]


def _good(path: Path) -> Path:
    with Store.open(path) as store:
        run = store.create_run("throughput", name="kept")
        store.finish_run(run, "completed")
    return path


def _immutable(path: Path) -> bool:
    """Make `path` unwritable even for root (chattr +i), or by permissions for anyone else."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        return True
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def _writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    else:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _corrupt(path: Path) -> None:
    data = bytearray(_good(path).read_bytes())
    for i in range(4096, len(data)):
        data[i] = (i * 7) & 0xFF
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    tmp = path.with_suffix(".full")
    data = _good(tmp).read_bytes()
    path.write_bytes(data[:3000])


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.close()


@pytest.mark.parametrize("make, code", [
    (lambda p: p.write_bytes(b"this is not sqlite at all" * 100), "not_a_database"),
    (lambda p: p.write_bytes(b"SQLite for"), "truncated"),
    (_truncated, "truncated"),
    (_corrupt, "corrupt"),
    (lambda p: p.mkdir(), "is_directory"),
    (_foreign, "not_throughline"),
])
def test_an_unusable_file_is_one_named_error_and_left_as_it_was(tmp_path, make, code):
    path = tmp_path / "results.db"
    make(path)
    before = None if path.is_dir() else path.read_bytes()
    with pytest.raises(StoreUnusable) as raised:
        Store.open(path)
    assert raised.value.code == code and code in STORE_PROBLEMS
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)
    if before is not None:
        assert path.read_bytes() == before


def test_a_read_only_file_or_folder_is_named_read_only(tmp_path, monkeypatch):
    path = _good(tmp_path / "results.db")
    folder = tmp_path / "locked"
    folder.mkdir()
    if not _immutable(path):
        pytest.skip("cannot make a file read-only here (root without chattr)")
    try:
        with pytest.raises(StoreUnusable) as raised:
            Store.open(path)
        assert raised.value.code == "read_only"
        # Past the cheap check (os.access), SQLite's own refusal to write is named the same.
        monkeypatch.setattr(checks.os, "access", lambda *a, **k: True)
        with pytest.raises(StoreUnusable) as raised:
            Store.open(path)
        assert raised.value.code == "read_only", raised.value
    finally:
        monkeypatch.undo()
        _writable(path)
    assert _immutable(folder)
    try:
        with pytest.raises(StoreUnusable) as raised:
            Store.open(folder / "new.db")
        assert raised.value.code == "read_only"
    finally:
        _writable(folder)


def test_a_full_disk_is_named_before_the_run(tmp_path, monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(checks.shutil, "disk_usage",
                        lambda p: usage(10 * 2**30, 10 * 2**30 - 100_000, 100_000))
    with pytest.raises(StoreUnusable) as raised:
        Store.open(tmp_path / "results.db")
    assert raised.value.code == "disk_full" and "100,000 bytes free" in str(raised.value)


def test_sqlite_errors_on_open_map_to_their_codes(tmp_path):
    path = tmp_path / "x.db"
    for errcode, code in ((13, "disk_full"), (8, "read_only"), (11, "corrupt"), (5, "busy"),
                          (26, "not_a_database"), (14, "cannot_open")):
        exc = sqlite3.OperationalError("boom")
        exc.sqlite_errorcode = errcode
        assert checks.unusable_from(path, exc).code == code


# --------------------------------------------------------------------------- the commands


def _cli(*args: str, db: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), THROUGHLINE_DB=str(db))
    return subprocess.run([sys.executable, "-m", "desktop_app", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", [
    ["throughput", "--base-url", "http://127.0.0.1:9/v1", "--input-tokens", "16",
     "--output-tokens", "4", "--concurrency", "1", "--requests", "2"],
    ["sqleval", "--base-url", "http://127.0.0.1:9/v1"],
    ["resume", "1", "--base-url", "http://127.0.0.1:9/v1"],
])
def test_commands_name_the_bad_results_file_before_contacting_the_server(tmp_path, command):
    garbage = tmp_path / "results.db"
    garbage.write_bytes(os.urandom(20_000))
    done = _cli(*command, db=garbage)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    # Port 9 refuses: had discovery run first, the error would name the endpoint.
    assert lines[-1].startswith(f"throughline {command[0]}: --db: results database {garbage} "
                                "is not an SQLite database"), done.stderr
    assert "Traceback" not in done.stderr and "endpoint" not in done.stderr


def test_sql_names_a_bad_database_in_one_line(tmp_path):
    for make in (lambda p: p.write_bytes(b"junk" * 5000), lambda p: p.mkdir(), _truncated):
        path = tmp_path / f"q{len(list(tmp_path.iterdir()))}.db"
        make(path)
        done = _cli("sql", "--db", str(path), "SELECT 1", db=tmp_path / "unused.db")
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr


def test_demo_names_an_unusable_results_file_as_out(tmp_path, monkeypatch):
    from desktop_app.cli.demo import run_demo_command

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(checks.shutil, "disk_usage", lambda p: usage(2**30, 2**30, 0))

    class Args:
        out = tmp_path / "demo"
        lang = "en"

    with pytest.raises(InputError, match=r"^--out: results database .* the disk is full"):
        run_demo_command(Args)


# --------------------------------------------------------------------------- rows before completion


def _request(run_id: int, cell_id: int, seq: int) -> dict:
    return {"run_id": run_id, "cell_id": cell_id, "seq": seq, "sent_at": 1.7e9 + seq,
            "ttft_s": 0.1, "e2e_s": 0.5, "completion_tokens": 8, "tokens_source": "usage",
            "error_message": "x" * 2000}


def test_a_cell_reads_completed_only_once_its_rows_are_committed(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        run = store.create_run("throughput")
        cell = store.add_cell(run, cell_index=0, status="running")
        writer = store.writer(flush_interval_s=60)  # nothing would commit on its own for 60 s
        for i in range(10):
            writer.add_request(_request(run, cell, i))
        store.update_cell(cell, status="completed")
        assert store.count_requests(run, cell) == 10
        assert store.cells(run)[0].status == "completed"


def _tight(monkeypatch, spare_pages: int) -> None:
    """Writers' connections may grow the file by `spare_pages` pages only: then SQLite answers
    SQLITE_FULL, as a full disk does."""
    connect = store_writer._connect

    def tight(path, busy):
        conn = connect(path, busy)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + spare_pages}")
        return conn

    monkeypatch.setattr(store_writer, "_connect", tight)


def test_a_full_disk_mid_cell_makes_it_incomplete_with_the_count_that_landed(tmp_path,
                                                                                monkeypatch):
    _tight(monkeypatch, 6)
    with Store.open(tmp_path / "r.db") as store:
        run = store.create_run("throughput")
        cell = store.add_cell(run, cell_index=0, status="running")
        writer = store.writer(flush_interval_s=0.01, max_batch=5)
        refused = 0
        for i in range(200):
            try:
                writer.add_request(_request(run, cell, i))
            except StoreError:  # a failed write is re-raised by the next call, as in a sweep
                refused += 1
            if i % 5 == 4:
                writer.sync()
        store.update_cell(cell, status="completed")
        with pytest.raises(StoreError, match="disk is full"):
            writer.close()
        landed = store.count_requests(run, cell)
        record = store.cells(run)[0]
        assert 0 < landed < 200 - refused and refused >= 1
        assert record.status == "incomplete"
        assert record.error.startswith(f"{landed} of 200 requests were stored")  # refused too
        assert "full" in record.error
        assert store.get_run(run).error == record.error
        assert store.finish_run(run, "completed") == "failed"  # the caller thought otherwise
        stored = store.get_run(run)
        assert stored.status == "failed"
        assert f"cell 1: {landed} of 200 requests" in stored.error


# --------------------------------------------------------------------------- migration to v3


def test_a_v2_file_migrates_on_open_and_keeps_reasoning_figures(tmp_path, monkeypatch):
    path = tmp_path / "v2.db"
    with monkeypatch.context() as patch:
        patch.setattr(store_schema, "MIGRATIONS", store_schema.MIGRATIONS[:2])
        with Store.open(path) as store:
            assert store.schema_version == 2
            run = store.create_run("throughput")
            cell = store.db.execute("INSERT INTO tp_cells (run_id, cell_index, status) "
                                    "VALUES (?, 0, 'completed')", (run,)).lastrowid
            store.db.execute("INSERT INTO tp_requests (run_id, cell_id, seq, e2e_s) "
                             "VALUES (?, ?, 0, 0.5)", (run, cell))
            store.db.conn.commit()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 4
        old = store.requests(run)[0]
        assert old["ttft_answer_s"] is None and old["reasoning_chunks"] is None
        assert old["e2e_s"] == 0.5
        assert store.cells(run)[0].error is None
        with store.writer() as writer:
            writer.add_request({**_request(run, cell, 1), "ttft_answer_s": 0.31,
                                "reasoning_chunks": 5})
        new = store.requests(run)[1]
        assert new["ttft_answer_s"] == 0.31 and new["reasoning_chunks"] == 5


def test_a_second_open_in_the_same_process_keeps_sqlites_locks(tmp_path):
    # Closing any descriptor of the file drops every POSIX lock this process holds on it, so
    # reading the header with open() beside a live connection let another process checkpoint
    # under our readers: the GUI's Runs page then read "file is not a database". The check
    # reads the header only while no connection of this process holds the file.
    path = tmp_path / "r.db"
    reads = []
    real_open = Path.open

    def spy(self, *args, **kwargs):
        if os.path.realpath(self) == os.path.realpath(path):
            reads.append(self)
        return real_open(self, *args, **kwargs)

    with Store.open(path):
        pass
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "open", spy)
        with Store.open(path) as first:
            assert len(reads) == 1  # checked before the first connection
            with Store.open(path) as second:
                assert len(reads) == 1  # not again while `first` holds it
                assert second.list_runs() == first.list_runs() == []
        with Store.open(path):
            assert len(reads) == 2  # all closed: checked again
